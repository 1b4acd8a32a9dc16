"""A lab cluster in the live view, for the composition root (compose.py): found (or created, where writes are allowed),
shown as found, started only when none of its nodes runs, and on the way out stopped only where this kafkatop started
it.

- None of its nodes runs: it is started, as `kafkatop up` starts it (what `kafkatop` with no arguments promises), and
  the nodes started here are stopped on quit (unless --detach).
- Some run: it is adopted and shown as found. A node stopped or killed stays so (an experiment, say broker 2 killed to
  watch ELR, is not undone before the first frame); `s` starts it. Quitting leaves the lab as found, the nodes started
  from the view running too.
- Read-only (a read-only context, or --read-only): nothing is started, stopped, created or written, feature levels
  included. A lab that does not exist is refused (exit 2); each node that does not run says who may start it.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.cli.common import build_spec, state_root
from kafkatop.tui.cli.contexts import read_only_reason
from kafkatop.tui.cli.ending import say
from kafkatop.tui.cli.exits import UsageError

if TYPE_CHECKING:
    from kafkatop.backends.lab.cluster import LabCluster
    from kafkatop.backends.lab.state import LabSnapshot


@dataclass(frozen=True, slots=True)
class LabOpening:
    """What the live view does with a lab it opens, from what runs in it and whether it may write."""

    start: bool  # none of its nodes runs, and it may write: `lab.up()` once the view is on screen
    adopted: bool  # found running (or read-only): left as found on the way out
    set_features: bool  # the feature levels asked for (--elr, --share-groups) are set: never in read-only
    not_running: str | None = None  # said of each node that does not run: who may start it (read-only)
    warnings: tuple[str, ...] = ()  # shown on screen once the view is up (Settings.warnings)


def lab_opening(snap: LabSnapshot, read_only_reason: str | None, up: str) -> LabOpening:
    """`read_only_reason`: why nothing may be written (a read-only context), None where it may; `up`: the command
    that starts the lab (`kafkatop up --name NAME`)."""
    stopped = [n for n in snap.nodes if n.pid is None]
    listing = ", ".join(f"{n.name} ({n.state.value})" for n in stopped)
    if read_only_reason is not None:
        hint = f"{read_only_reason}: kafkatop starts nothing here; `{up}` starts it"
        if not stopped:
            return LabOpening(start=False, adopted=True, set_features=False, not_running=hint)
        said = "is not running" if len(stopped) == len(snap.nodes) else f"is shown as found, {listing} not running"
        return LabOpening(False, True, False, hint, (f"lab cluster {snap.name!r} {said}; {hint}",))
    if len(stopped) == len(snap.nodes):
        return LabOpening(start=True, adopted=False, set_features=True)
    if not stopped:
        return LabOpening(start=False, adopted=True, set_features=True)
    return LabOpening(start=False, adopted=True, set_features=True, warnings=(
        f"lab cluster {snap.name!r} found running with {listing} not running: shown as found (`s` on a node starts "
        "it); quitting leaves the lab as found",))  # fmt: skip


def lab_startup(
    lab: LabCluster, connection: KafkaConnection, opening: LabOpening, wanted: Mapping[str, int]
) -> Callable[[], None] | None:
    """What runs once the view is on screen (in a worker): the lab started, then the feature levels asked for set
    (a lab formatted before gets them once it serves); None when there is nothing to do."""
    features = dict(wanted) if opening.set_features else {}
    if not opening.start and not features:
        return None

    def startup() -> None:
        from kafkatop.tui.cli.lab_features import set_lab_features

        if opening.start:
            lab.up()
        set_lab_features(connection, lab.mode, features)  # its own timeout: the poll's is a couple of seconds

    return startup


def lab_flags(name: str, root: Path) -> str:
    """--name and --state-dir as a command needs them to reach this lab: each only where it is not the default,
    quoted for a shell ("" for the default lab)."""
    from kafkatop.backends.lab.spec import ClusterSpec
    from kafkatop.backends.lab.state import default_state_root

    given = (("--name", name, name != ClusterSpec().name), ("--state-dir", str(root), root != default_state_root()))
    return shlex.join([w for flag, value, needed in given if needed for w in (flag, value)])


def lab_command(verb: str, name: str, root: Path) -> str:
    """`kafkatop VERB --name NAME`, with --state-dir where the lab is not in the default place."""
    from kafkatop.backends.lab.state import default_state_root

    return f"kafkatop {verb} --name {name}" + ("" if root == default_state_root() else f" --state-dir {root}")


def lab_cluster(args: argparse.Namespace, *, terminal: bool) -> Callable[[], LabCluster] | None:
    """How to get the lab cluster to run, every input checked first (as `kafkatop up` reads them): an existing one by
    name, else a new one from a Kafka install (offered for download); None: the demo. Nothing written until called.
    Read-only, only an existing lab: one that does not exist is refused, never created."""
    from kafkatop.backends.lab.cluster import LabCluster
    from kafkatop.backends.lab.kafka_homes import KafkaInstall, find_kafka
    from kafkatop.backends.lab.state import STATE_FILE, lab_dir
    from kafkatop.tui.cli.install import find_or_offer

    spec = build_spec(args).validate()  # a bad kafkatop.toml is refused even when the demo would run instead
    root: Path = state_root(args)
    # A given --kafka-home is checked even when the cluster exists: a typo must not run some other Kafka silently.
    install: KafkaInstall | None = find_kafka(args.kafka_home) if args.kafka_home else None
    state_dir = lab_dir(root, spec.name)
    exists = (state_dir / STATE_FILE).exists()
    reason = read_only_reason(args)
    if reason is not None and not exists:
        raise UsageError(
            f"{reason}, and lab cluster {spec.name!r} does not exist (no {state_dir / STATE_FILE}): kafkatop creates "
            f"nothing here; `{lab_command('up', spec.name, root)}` creates and starts it"
        )
    if exists and (install is None or reason is not None):
        return lambda: LabCluster.open(state_dir)
    if install is None:
        if terminal and not _terminal():
            return None  # the live view refuses at once for want of a terminal: nothing to offer
        # On a terminal: asked whether to download Kafka (or run the demo); headless (a benchmark), the demo, said.
        install = find_or_offer(args, spec.mode, demo_instead=True, interactive=terminal)
        if install is None:
            return None
    found = install

    def create() -> LabCluster:
        cluster, notes = LabCluster.create_or_open(root, found, spec)
        for note in notes:
            print(note)
        return cluster

    return create


def _terminal() -> bool:
    return sys.stdout.isatty() and sys.stdin.isatty()


def stop_lab(lab: LabCluster, detach: bool) -> None:
    """On the way out: the nodes this kafkatop started are stopped — unless --detach, or the lab was found running
    (adopted) or read-only, when it is left as found (the nodes started from the view running too)."""
    name = lab.spec.name
    down = lab_command("down", name, lab.state_dir.parent)
    if detach or lab.adopted:
        if lab.started_here():
            lab.release()  # the nodes started here are left running, and marked so for a later kafkatop
        if not any(n.pid is not None for n in lab.refresh().nodes):
            say(f"lab cluster {name!r} left as found: none of its nodes runs")
            return
        say(f"lab cluster {name!r} left running ({'--detach' if detach else 'as found'}); stop it with `{down}`")
        return
    ours = lab.started_here()
    if not ours:
        say(f"lab cluster {name!r} left running: this kafkatop did not start it (`{down}`)")
        return
    say(f"stopping {', '.join(ours)} of lab cluster {name!r}, started here (--detach leaves them running) …")
    lab.close()
