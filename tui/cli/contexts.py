"""Contexts on the command line: `--context NAME` (or the default context) filled into the options it stands for,
`--read-only` (or a read-only context) refusing every command that would write to the cluster before anything is
sent, and `kafkatop contexts`, which lists them with whether each answers and as which cluster."""

from __future__ import annotations

import argparse
import json
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from kafkatop.backends.model.columns import aligned_lines
from kafkatop.backends.model.contexts import ClusterContext, Contexts, read_contexts
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.tui.cli.command_table import lab_only, named
from kafkatop.tui.cli.exits import DONE, FAILED, UsageError, err
from kafkatop.tui.cli.startup_warnings import keep

USER_FILE = Path("kafkatop") / "config.toml"
# What names a cluster on the command line: with one of these, the default context stays out of the way.
_CHOOSERS = (("bootstrap_server", "--bootstrap-server"), ("name", "--name"), ("demo", "--demo"),
             ("replay", "--replay"))  # fmt: skip


def user_file(environ: dict[str, str] | None = None) -> Path:
    """$XDG_CONFIG_HOME/kafkatop/config.toml (~/.config/kafkatop/config.toml)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME", str(Path.home()))) / ".config")
    return Path(base) / USER_FILE


def project_file(args: argparse.Namespace) -> Path | None:
    given = getattr(args, "config", None)
    if given:
        return Path(given)
    return Path("kafkatop.toml") if Path("kafkatop.toml").is_file() else None


def load_contexts(args: argparse.Namespace, *, quiet: bool = False) -> Contexts:
    """The user's contexts, then the project's (kafkatop.toml or --config) over them; their warnings on stderr unless
    `quiet` (said once, when the command starts: never again while the live view owns the terminal)."""
    files = [user_file()]
    project = project_file(args)
    if project is not None:
        files.append(project)
    contexts = read_contexts(files)
    for warning in () if quiet else contexts.warnings:
        err(warning)
    return contexts


# --- --context and the default context -------------------------------------------------------------------------------
def apply_context(args: argparse.Namespace, *, quiet: bool = False) -> ClusterContext | None:
    """Fills in what `--context NAME` (or the default context) stands for, and `args.read_only`; the context, or None
    when the cluster comes from the flags. A flag that names another cluster beside --context is refused."""
    if not hasattr(args, "context"):
        return None  # install: no cluster
    given: str | None = args.context
    args.context_name = args.context_file = None
    chosen = [flag for dest, flag in _CHOOSERS if getattr(args, dest, None)]
    if given is None and (chosen or getattr(args, "kafka_home", None)):
        return None  # a cluster named by the flags (--kafka-home: a lab from that install)
    contexts = load_contexts(args, quiet=quiet)
    name = given if given is not None else contexts.default
    if name is None:
        return None
    context = contexts.get(name)
    if given is None and context.kind == "attach" and lab_only(args.command):
        return None  # `kafkatop up` with an attached cluster as the default: up is about the lab
    if chosen:
        raise UsageError(f"--context {name} names its cluster ({context.where}): leave out {', '.join(chosen)}")
    if context.kind == "lab":
        if getattr(args, "zookeeper", None):
            raise UsageError(f"--context {name} is lab {context.lab!r}, which knows its ZooKeeper: leave out "
                             "--zookeeper")  # fmt: skip
        args.name = context.lab
        if context.state_dir is not None:
            if getattr(args, "state_dir", None) and Path(args.state_dir).resolve() != Path(context.state_dir):
                raise UsageError(f"--context {name}'s lab lives in {context.state_dir}: leave out --state-dir")
            args.state_dir = context.state_dir
    else:
        if lab_only(args.command):
            raise UsageError(
                f"context {name!r} is an attached cluster ({context.where}); `{args.command}` acts on a lab cluster "
                "of kafkatop's: give a lab context or --name"
            )
        if getattr(args, "kafka_home", None):
            raise UsageError(f"--context {name} is an attached cluster ({context.where}): leave out --kafka-home")
        args.bootstrap_server = context.bootstrap_server
        if getattr(args, "zookeeper", None) and args.zookeeper != context.zookeeper:
            raise UsageError(f"--context {name} names its cluster ({context.where}): leave out --zookeeper "
                             f'(or set zookeeper = "HOST:PORT" in {context.defined_in})')  # fmt: skip
        if context.zookeeper is not None:
            args.zookeeper = context.zookeeper
    if context.connect_url and not getattr(args, "connect_url", None):
        args.connect_url = list(context.connect_url)  # its Kafka Connect workers (`kafkatop connect`)
    # --command-config, when given, wins: another user's properties (admin.properties) on the same cluster.
    if context.command_config is not None and not getattr(args, "command_config", None):
        args.command_config = context.command_config
    args.context_name = context.name
    args.context_file = context.defined_in  # named when its address does not answer (common.address_origin)
    args.context_colour = context.colour
    args.context_lag = context.lag
    args.context_mask = context.mask  # what of its records may be seen (browser, consume, consoles)
    args.context_audit_topic = context.audit_topic  # its writes' audit entries also to this topic (backends/audit)
    args.context_read_only = context.read_only
    args.read_only = bool(getattr(args, "read_only", False)) or context.read_only
    keep(args, *context.warnings)  # said with its file's (load_contexts): the live view shows them again, on screen
    return context


def read_only_reason(args: argparse.Namespace) -> str | None:
    """Why nothing may be written here, as the start of a line (`context 'ro' is read-only`); None: it may."""
    if not getattr(args, "read_only", False):
        return None
    name = getattr(args, "context_name", None)
    return f"context {name!r} is read-only" if getattr(args, "context_read_only", False) else "--read-only"


# --- read-only: what each command writes ------------------------------------------------------------------------------
def refuse_writes(args: argparse.Namespace) -> None:
    """In a read-only context (or with --read-only) a command that would write exits 2 here, before it connects."""
    who = read_only_reason(args)
    if who is None or args.command is None:
        return
    what = named(args.command).writes(args)  # its row in tui/cli/command_table.py
    if what is None:
        return
    raise UsageError(f"{who}: `{args.command}` writes to the cluster ({what}); nothing was sent")


# --- kafkatop contexts ----------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Reached:
    context: ClusterContext
    address: str | None  # what was asked
    cluster_id: str | None = None
    mode: str = ""  # KRaft / ZooKeeper, where known
    problem: str | None = None  # why it did not answer (or answered as another cluster)


def cmd_contexts(args: argparse.Namespace) -> int:
    contexts = load_contexts(args)
    if not contexts.contexts:
        where = " or ".join(str(p) for p in (user_file(), project_file(args) or Path("kafkatop.toml")))
        err(f'no context is defined: add [contexts.NAME] tables to {where} (lab = "NAME", or bootstrap-server = '
            '"HOST:PORT", command-config = "FILE", read-only = true); README, "Many clusters"')  # fmt: skip
        return FAILED if args.json else DONE
    with ThreadPoolExecutor(max_workers=min(8, len(contexts.contexts))) as pool:
        reached = list(pool.map(lambda c: _reach(args, c), contexts.contexts))
    if args.json:
        print(json.dumps([_as_json(r, r.context.name == contexts.default) for r in reached], indent=2))
        return DONE
    rows = [("", "CONTEXT", "KIND", "CLUSTER", "MODE", "READ-ONLY", "REACHABLE", "CLUSTER-ID")]
    for r in reached:
        c = r.context
        answered = "yes" if r.problem is None else "no"
        rows.append(("*" if c.name == contexts.default else "", c.name, c.kind, c.where, r.mode or "-",
                     "yes" if c.read_only else "no", answered, r.cluster_id or "-"))  # fmt: skip
    for line in aligned_lines(rows):
        print(line)
    for r in reached:
        if r.problem is not None:
            err(f"{r.context.name}: {r.problem}")
    return DONE


def _as_json(r: Reached, default: bool) -> dict[str, object]:
    c = r.context
    return {
        "name": c.name, "kind": c.kind, "default": default, "read_only": c.read_only, "colour": c.colour,
        "lab": c.lab, "bootstrap_server": c.bootstrap_server if c.kind == "attach" else r.address,
        "command_config": c.command_config, "zookeeper": c.zookeeper, "defined_in": str(c.defined_in),
        "reachable": r.problem is None, "cluster_id": r.cluster_id, "mode": r.mode or None, "problem": r.problem,
    }  # fmt: skip


def _reach(args: argparse.Namespace, context: ClusterContext) -> Reached:
    """Asks the context's first broker who it is (one Metadata request); a lab's answer is checked against its id."""
    from kafkatop.backends.model.addresses import parse_host_ports
    from kafkatop.backends.model.connection import DEFAULT_PORT
    from kafkatop.backends.protocol.connection import os_reason
    from kafkatop.backends.protocol.identity import who_answers
    from kafkatop.tui.cli.common import client_settings

    ns = argparse.Namespace(**vars(args))
    ns.context, ns.bootstrap_server, ns.name, ns.command = context.name, None, None, "contexts"
    ns.command_config = ns.state_dir = ns.zookeeper = None
    try:
        apply_context(ns, quiet=True)  # its file's warnings were said once, above
        expected: str | None = None
        mode = ""
        if context.kind == "lab":
            from kafkatop.tui.cli.common import open_cluster

            try:
                lab = open_cluster(ns, need_install=False).snapshot()
            except KafkatopError:
                from kafkatop.backends.lab.state import lab_dir
                from kafkatop.tui.cli.common import state_root

                where = lab_dir(state_root(ns), str(context.lab))
                return Reached(context, None, problem=f"lab {context.lab!r} has no state at {where}: "
                               f"`kafkatop --context {context.name} up` starts it")  # fmt: skip
            address, expected = lab.bootstrap_servers, lab.cluster_id
            mode = "KRaft" if lab.mode == "kraft" else "ZooKeeper"
        else:
            address = str(context.bootstrap_server)
        settings = client_settings(ns)
        host, port = parse_host_ports(address, DEFAULT_PORT, source="kafka", what="bootstrap server list")[0]
        answered = who_answers(host, port, settings, args.timeout)
    except KafkatopError as e:
        return Reached(context, None, problem=str(e))
    except OSError as e:
        return Reached(context, None, problem=f"nothing answers at {context.where} ({os_reason(e, args.timeout)})")
    if expected is not None and answered.cluster_id != expected:
        return Reached(context, address, answered.cluster_id, mode,
                       f"{answered.address} answers as cluster {answered.cluster_id}, not lab {context.lab!r} "
                       f"({expected}): another cluster on its ports")  # fmt: skip
    known = {"zk": "ZooKeeper", "kraft": "KRaft"}.get(answered.mode)
    return Reached(context, address, answered.cluster_id, mode or known or "")
