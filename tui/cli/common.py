"""What the commands share: how they are interrupted, where lab clusters live, and the one KafkaConnection that
--bootstrap-server (or the lab cluster) and --command-config make, parsed once."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Protocol, TypeVar

from kafkatop.backends.lab.properties import read_client_properties
from kafkatop.backends.model.client_properties import translate_client_properties
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import BadInput, KafkatopError
from kafkatop.tui.cli.exits import INTERRUPTED, UsageError, err
from kafkatop.tui.cli.secret_files import check_secrets_file

# The lab's own modules (the supervisor, psutil) are imported by the functions that use them: the demo and an
# attached cluster never load them, and the live view's first frame comes sooner.
if TYPE_CHECKING:
    from kafkatop.backends.lab.cluster import LabCluster
    from kafkatop.backends.lab.control import LabControl
    from kafkatop.backends.lab.spec import ClusterSpec
    from kafkatop.backends.lab.state import LabSnapshot


def state_root(args: argparse.Namespace) -> Path:
    from kafkatop.backends.lab.state import default_state_root

    return Path(args.state_dir).expanduser() if args.state_dir else default_state_root()


def build_spec(args: argparse.Namespace) -> ClusterSpec:
    """kafkatop.toml (given, or in the current directory), then flags over it."""
    from kafkatop.backends.lab.spec import ClusterSpec, SpecError, load_spec_file, with_overrides

    spec = ClusterSpec()
    config = getattr(args, "config", None) or ("kafkatop.toml" if Path("kafkatop.toml").is_file() else None)
    if config:
        spec, _ = load_spec_file(config)
    props: dict[str, str] = dict(spec.broker_properties)
    for item in getattr(args, "broker_property", None) or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SpecError(
                f"--broker-property {item!r}: expected KEY=VALUE, e.g. --broker-property min.insync.replicas=2"
            )
        props[key.strip()] = value.strip()
    workers = getattr(args, "connect", None)  # up's count of Connect workers (durability's --connect is a switch)
    return with_overrides(
        spec,
        name=args.name,
        mode=getattr(args, "mode", None),
        brokers=getattr(args, "brokers", None),
        base_port=getattr(args, "base_port", None),
        zookeeper_port=getattr(args, "zookeeper_port", None),
        controller_port=getattr(args, "controller_port", None),
        controllers=getattr(args, "controllers", None),
        connect=workers if type(workers) is int else None,
        connect_port=getattr(args, "connect_port", None),
        issuer_port=getattr(args, "issuer_port", None),
        heap=getattr(args, "heap", None),
        security=getattr(args, "security", None),
        authorizer=getattr(args, "authorizer", None) or None,
        allow_remote_listeners=getattr(args, "allow_remote_listeners", None) or None,
        elr=getattr(args, "elr", None),
        share_groups=getattr(args, "share_groups", None) or None,
        broker_properties=tuple(props.items()),
    )


def open_cluster(args: argparse.Namespace, *, need_install: bool = True) -> LabCluster:
    from kafkatop.backends.lab.cluster import LabCluster
    from kafkatop.backends.lab.state import lab_dir

    return LabCluster.open(lab_dir(state_root(args), lab_name(args)), need_install=need_install)


def lab_name(args: argparse.Namespace) -> str:
    return str(args.name or build_spec(args).name)


def lab_client_properties(args: argparse.Namespace) -> Path | None:
    """A secured lab's own settings, when a command targets the lab by name (no --bootstrap-server): admin.properties
    where the lab has one (SASL: the brokers' own user, a super user where the lab has an authorizer, so kafkatop
    sees and may do everything, as an operator expects; `--command-config client.properties` acts as the client),
    else client.properties (TLS alone has no users)."""
    if getattr(args, "bootstrap_server", None):
        return None
    from kafkatop.backends.lab.security import ADMIN_PROPERTIES, CLIENT_PROPERTIES
    from kafkatop.backends.lab.state import lab_dir

    folder = lab_dir(state_root(args), lab_name(args))
    return next((path for path in (folder / ADMIN_PROPERTIES, folder / CLIENT_PROPERTIES) if path.is_file()), None)


def client_settings(args: argparse.Namespace) -> dict[str, str]:
    """librdkafka settings from --command-config (Kafka's Java client properties, as Kafka's own tools take them),
    else from the lab's own client.properties when the lab is secured. Keys with no librdkafka meaning are named in
    one line on stderr; a file that cannot be used is bad input, its message never quoting a value."""
    given = getattr(args, "command_config", None)
    path = given or lab_client_properties(args)
    if not path:
        return {}
    flag = "--command-config " if given else ""
    try:
        props = read_client_properties(path)
        check_secrets_file(args, path, props)  # others may read it? said once, never a value
        translated = translate_client_properties(props)
        settings = dict(translated.settings)
        if translated.stores:
            from kafkatop.backends.kafka.security.keystores import store_settings

            for store in translated.stores:
                settings |= store_settings(store)
    except KafkatopError as e:
        raise UsageError(f"{flag}{path}: {e}" if not str(e).startswith(str(path)) else f"{flag}{e}") from None
    warning = translated.warning()
    if warning:
        err(f"{flag}{path}: {warning}")
    from kafkatop.backends.protocol.oidc import TokenError, access_token, uses_oidc

    if uses_oidc(settings):  # a token now, or one line on why not (librdkafka would only log it, and time out)
        try:
            access_token(settings)
        except TokenError as e:
            # The lab's own file, its issuer down: the lab's node to start (`kafkatop stop issuer` is a lab's lesson).
            hint = "; the lab's issuer is not running: `kafkatop start issuer`" if e.unanswered and not given else ""
            raise KafkatopError(f"{flag}{path}: OAUTHBEARER: {e}{hint}") from None
    return settings


def lab_snapshot(args: argparse.Namespace) -> LabSnapshot:
    """The lab cluster named by --name / --state-dir, as recorded."""
    try:
        return open_cluster(args).snapshot()
    except BadInput:
        raise  # a name that cannot be a lab's is said as it is
    except KafkatopError as e:
        context = getattr(args, "context_name", None)
        if context is not None:
            from kafkatop.backends.lab.state import lab_dir

            where = lab_dir(state_root(args), lab_name(args))
            raise KafkatopError(
                f"context {context!r} is lab {lab_name(args)!r}, which has no state at {where}: start it with "
                f"`kafkatop --context {context} up` (and --kafka-home DIR)"
            ) from None
        raise KafkatopError(f"no cluster to talk to: give --bootstrap-server HOST:PORT, or start one ({e})") from None


def lab_connection(args: argparse.Namespace, lab: LabSnapshot) -> KafkaConnection:
    """The lab's connection, once its ports answer as the lab: another cluster there (the lab down, someone else's
    brokers up on its ports) is refused by name, exit 2, before any command reads or changes it."""
    from kafkatop.backends.lab.identity import check_lab_answers

    settings = client_settings(args)
    check_lab_answers(lab, settings)
    return KafkaConnection.parse(lab.bootstrap_servers, settings)


@contextmanager
def lab_in_use(args: argparse.Namespace, lab: LabCluster) -> Iterator[tuple[KafkaConnection, LabControl]]:
    """A lab a check runs on (durability, chaos): its connection and its control, the lab released at the end (a
    broker the check started again is left running, as `kafkatop start` leaves it)."""
    from kafkatop.backends.lab.control import LabControl

    try:
        control = LabControl(lab)
        yield lab_connection(args, lab.snapshot()), control
    finally:
        lab.release()


def address_origin(args: argparse.Namespace) -> str:
    """Where args.bootstrap_server came from, for a message that asks to check it: a context's file, or the flag."""
    name, file = getattr(args, "context_name", None), getattr(args, "context_file", None)
    if name is not None and file is not None:
        return f"the bootstrap-server of context {name!r} in {file}"
    return "--bootstrap-server"


def attached_connection(args: argparse.Namespace, settings: Mapping[str, str] | None = None) -> KafkaConnection:
    """--bootstrap-server's cluster (or an attached context's), with `settings` (else --command-config's)."""
    given = client_settings(args) if settings is None else settings
    return KafkaConnection.parse(args.bootstrap_server, given, origin=address_origin(args))


def connection(args: argparse.Namespace) -> KafkaConnection:
    """The cluster a command talks to: --bootstrap-server, else the lab cluster; with --command-config's settings."""
    if args.bootstrap_server:
        return attached_connection(args)
    return lab_connection(args, lab_snapshot(args))


def confirmed(question: str, *, yes: bool, unasked: str, typed: str | None = None) -> bool:
    """True with --yes, or when "yes" (or `typed`: a cluster's name) is typed at a terminal; with no terminal to ask
    on, UsageError(`unasked`). The question goes to stderr: stdout stays the command's answer."""
    if yes:
        return True
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        raise UsageError(unasked)
    if typed is not None:
        sys.stderr.write(f"kafkatop: {question} This cluster is not kafkatop's own: type {typed} to go ahead "
                         "(anything else cancels): ")  # fmt: skip
    else:
        sys.stderr.write(f'kafkatop: {question} Type "yes" to go ahead (anything else cancels): ')
    sys.stderr.flush()
    answer = sys.stdin.readline().strip()
    return answer == typed if typed is not None else answer.lower() == "yes"


def typed_name(args: argparse.Namespace) -> str | None:
    """What to type before an act that cannot be undone on a cluster not kafkatop's own (attached): its context's
    name, else its first bootstrap address; None for a lab, where "yes" does."""
    if not getattr(args, "bootstrap_server", None):
        return None
    return getattr(args, "context_name", None) or str(args.bootstrap_server).split(",")[0].strip()


# --- a check's end ----------------------------------------------------------------------------------------------
class CheckReport(Protocol):
    def to_dict(self) -> Mapping[str, object]: ...


Report = TypeVar("Report", bound=CheckReport)


def report_exit(args: argparse.Namespace, report: Report, text: Callable[[Report], str], held: bool) -> int:
    """The end of a check (durability, chaos, the Connect pipeline): its report, as JSON with --json, else its text;
    exit 0 when it held what the settings promise, else 1."""
    print(json.dumps(report.to_dict(), indent=2) if args.json else text(report))
    return 0 if held else 1


def run_check(
    args: argparse.Namespace,
    run: Callable[[], Report],
    *,
    refused: type[Exception],
    interrupted: str,
    text: Callable[[Report], str],
    held: Callable[[Report], bool],
) -> int:
    """A check run to its end (durability, chaos), Ctrl-C, SIGTERM and SIGHUP unwinding it: its refusal said, exit 2;
    `interrupted` said, exit 130 (what it undid on the way out); else its report, by `report_exit`."""
    with interrupt_on_termination():
        try:
            report = run()
        except refused as e:
            err(str(e))
            return 2
        except KeyboardInterrupt:
            err(interrupted)
            return INTERRUPTED
    return report_exit(args, report, text, held(report))


# --- signals --------------------------------------------------------------------------------------------------------
@contextmanager
def interrupt_on_termination() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP (the terminal closed) all unwind as KeyboardInterrupt, once: later signals are
    ignored, so the stop that follows cannot itself be cut short and leave orphan JVMs."""
    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

    def handler(signum: int, frame: FrameType | None) -> None:
        for s in signals:
            signal.signal(s, signal.SIG_IGN)
        raise KeyboardInterrupt

    previous = {s: signal.signal(s, handler) for s in signals}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def ignore_interrupts() -> Callable[[], None]:
    """While stopping nodes after an interrupt, a second Ctrl-C must not cut the stop short (orphan JVMs)."""
    previous = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}

    def restore() -> None:
        for s, h in previous.items():
            signal.signal(s, h)

    return restore
