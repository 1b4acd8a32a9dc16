"""The composition root of the live view: `kafkatop` without a command. It picks the cluster — attach
(`--bootstrap-server`), a lab cluster from a Kafka install, or the built-in demo — parses its connection once, builds
every adapter from it, hands them to the app as ports (tui/live/sources.py), runs the app, and cleans up after it.
Each kind of cluster imports its adapters when it is chosen: the demo never loads the lab's supervisor, kazoo or
psutil, so the first frame comes sooner (bench/first_frame.py)."""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from kafkatop.backends import ports
from kafkatop.backends.check_ports import DurabilityRun, DurabilityRunFactory, ScenarioRunner
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.configs import ConfigAdmin
from kafkatop.backends.kafka.cluster.log_dirs import LogDirsPoll
from kafkatop.backends.kafka.groups.group_admin import GroupTools
from kafkatop.backends.kafka.records.browser import MessageBrowser
from kafkatop.backends.kafka.records.consoles import Consoles
from kafkatop.backends.kafka.transactions.transaction_watch import TransactionWatch
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.durability import DurabilityProgress, DurabilitySettings
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.lag import LagRules
from kafkatop.backends.model.recording import RecordingHeader, Source
from kafkatop.backends.ports import (
    EnsembleView,
    LeaderElectionsFactory,
    NodeControl,
    TopicAdminFactory,
)
from kafkatop.spark.counter import SparkCounts
from kafkatop.tui.cli.common import attached_connection, build_spec, client_settings, state_root
from kafkatop.tui.cli.compose_acls import acl_admin
from kafkatop.tui.cli.compose_connect import connect_cluster
from kafkatop.tui.cli.compose_lab import lab_cluster, lab_command, lab_flags, lab_opening, lab_startup, stop_lab
from kafkatop.tui.cli.compose_schemas import schema_ports
from kafkatop.tui.cli.contexts import read_only_reason
from kafkatop.tui.cli.ending import Ending, say
from kafkatop.tui.cli.exits import UsageError, err
from kafkatop.tui.cli.grant_desk import granting
from kafkatop.tui.cli.startup_warnings import kept
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.replay import Replay
from kafkatop.tui.live.sources import Settings, Sources

if TYPE_CHECKING:
    from kafkatop.backends.lab.cluster import LabCluster
    from kafkatop.backends.recording.file import RecordingWriter

DEMO_BANNER = ("DEMO — a built-in 3-broker mock cluster (librdkafka), not a real Kafka: kill and restart brokers to "
               "see leadership move. Point kafkatop at yours with --bootstrap-server HOST:PORT, or at a Kafka install "
               "with --kafka-home DIR to run a lab cluster.")  # fmt: skip


@dataclass
class Chosen:
    """The cluster in view and what only it can give: how to poll and control it, and what to call it."""

    connection: KafkaConnection
    poll_cluster: Callable[[], ClusterSnapshot]
    control: NodeControl
    ensemble: Callable[[], EnsembleView] | None  # ZooKeeper's servers or the KRaft quorum; None: the mock has neither
    title: str
    zookeeper: str | None = None  # its ZooKeeper, watched (ZooKeeper mode)
    banner: str | None = None
    startup: Callable[[], object] | None = None  # the lab's start-up, run in a worker once the app is on screen
    topic_admin: TopicAdminFactory | None = None  # None: Kafka's own CreateTopics / DeleteTopics
    consoles: Consoles | None = None  # None: the consoles of any cluster
    elections: LeaderElectionsFactory | None = None  # None: Kafka's own ElectLeaders
    kind: Literal["lab", "attach", "demo"] = "attach"
    warnings: tuple[str, ...] = ()  # what opening it found (a lab's nodes not running), shown once on screen
    scenario_poll: Callable[[], ClusterSnapshot] | None = None  # the scenario runs' own poll; None: a new AdminSource


def _topic_admin(connection: KafkaConnection) -> TopicAdminFactory:
    def make() -> ports.TopicAdmin:
        from kafkatop.backends.kafka.cluster.topics import TopicAdmin

        return TopicAdmin(connection, timeout_s=15.0)

    return make


def _elections(connection: KafkaConnection) -> LeaderElectionsFactory:
    def make() -> ports.LeaderElections:
        from kafkatop.backends.kafka.cluster.elections import LeaderElector

        return LeaderElector(connection, timeout_s=30.0)

    return make


def _reassignments(connection: KafkaConnection) -> ports.Reassignments:
    from kafkatop.backends.kafka.admin.admin import AdminSource
    from kafkatop.backends.kafka.cluster.reassign import ReassignAdmin

    def metadata() -> ClusterSnapshot:  # to find the controller: one Metadata request, made when a request is sent
        source = AdminSource(connection, timeout_s=10.0, include_internal=True)
        try:
            return source.poll(topics_only=True)
        finally:
            source.close()

    return ReassignAdmin(connection, metadata, timeout_s=30.0)


def _ensemble(zookeeper: str | None, connection: KafkaConnection) -> Callable[[], EnsembleView]:
    if zookeeper:
        from kafkatop.backends.zookeeper.stats import ZooKeeperStatsSource

        return ZooKeeperStatsSource(zookeeper).poll
    from kafkatop.backends.kraft.quorum import QuorumSource

    return QuorumSource(connection).poll


def _durability(connection: KafkaConnection, control: NodeControl | None) -> DurabilityRunFactory:
    def make(settings: DurabilitySettings, on_progress: Callable[[DurabilityProgress], None]) -> DurabilityRun:
        from kafkatop.backends.checks.durability.run import DurabilityCheck

        return DurabilityCheck(connection, settings, control, on_progress=on_progress)

    return make


def _scenarios(
    chosen: Chosen, stack: ExitStack, read_only: bool, connect: ports.ConnectCluster | None
) -> ScenarioRunner | None:
    """A lab's or the demo's: a scenario kills and starts nodes (an attached cluster's are not kafkatop's; a read-only
    context writes nothing)."""
    if chosen.kind == "attach" or read_only:
        return None
    from kafkatop.backends.checks.scenario.runs import ScenarioRuns

    topics = chosen.topic_admin or _topic_admin(chosen.connection)
    poll, close_poll = chosen.scenario_poll, lambda: None
    if poll is None:
        from kafkatop.backends.kafka.admin.admin import AdminSource

        admin = AdminSource(chosen.connection, timeout_s=5.0)
        poll, close_poll = admin.poll, admin.close
    runs = ScenarioRuns(chosen.connection, chosen.control, poll, topics, close_poll,
                        chosen.elections or _elections(chosen.connection), connect)  # fmt: skip
    stack.callback(runs.close)
    return runs


def _admin(
    args: argparse.Namespace, connection: KafkaConnection, stack: ExitStack, watch_groups: tuple[str, ...] = ()
) -> AdminSource:
    admin = AdminSource(
        connection, timeout_s=args.timeout, include_internal=args.include_internal, watch_groups=watch_groups
    )
    stack.callback(admin.close)
    return admin


def _attach(args: argparse.Namespace, connection: KafkaConnection, stack: ExitStack) -> Chosen:
    """`--bootstrap-server`: a cluster kafkatop did not start; its local processes, where it can see them."""
    from kafkatop.backends.lab.attached import AttachedControl

    admin = _admin(args, connection, stack)
    last: list[ClusterSnapshot] = []

    def poll_cluster() -> ClusterSnapshot:
        snapshot = admin.poll()
        last[:] = [snapshot]
        return snapshot

    control = AttachedControl(connection, lambda: last[0] if last else None)
    ensemble = _ensemble(args.zookeeper, connection)
    return Chosen(connection, poll_cluster, control, ensemble, f"attached to {connection}", args.zookeeper)


def _lab(args: argparse.Namespace, settings: dict[str, str], stack: ExitStack, lab: LabCluster, first: bool) -> Chosen:
    """A lab cluster of kafkatop's, shown as found: started only when none of its nodes runs and it may write
    (compose_lab.py). `first`: opened now; shown again after a switch back, it is neither started nor adopted anew (a
    lab this kafkatop started is still stopped on the way out)."""
    from kafkatop.backends.lab.control import LabControl

    snap = lab.snapshot()
    reason = read_only_reason(args)
    opening = lab_opening(snap, reason, lab_command("up", snap.name, lab.state_dir.parent))
    if first:
        lab.adopted = opening.adopted  # found running, or read-only: left as found on the way out
    connection = KafkaConnection.parse(snap.bootstrap_servers, settings)
    zookeeper = args.zookeeper or snap.zookeeper_connect
    control = LabControl(lab, read_only_reason=reason, not_running=opening.not_running)
    mode = "KRaft" if snap.mode == "kraft" else "ZooKeeper"
    title = f"lab {snap.name!r} · {mode} · Kafka {snap.kafka_version}"
    admin = _admin(args, connection, stack)
    if snap.security != "plaintext":
        title += f" · {snap.security.upper()}"
    # --elr, --share-groups: a lab formatted before gets them once it serves
    startup = lab_startup(lab, connection, opening, build_spec(args).features) if first else None
    return Chosen(connection, admin.poll, control, _ensemble(zookeeper, connection), title, zookeeper, startup=startup,
                  kind="lab", warnings=opening.warnings if first else ())  # fmt: skip


def _demo(args: argparse.Namespace, stack: ExitStack) -> Chosen:
    """The built-in demo: the librdkafka mock cluster, clearly labelled."""
    from kafkatop.backends.demo.cluster import start_demo_cluster
    from kafkatop.backends.demo.consoles import DemoConsoles
    from kafkatop.backends.demo.elections import DemoElections
    from kafkatop.backends.demo.node_control import DemoControl
    from kafkatop.backends.demo.source import DemoSource
    from kafkatop.backends.demo.topics import DemoTopicAdmin

    try:
        demo = start_demo_cluster()
    except KafkatopError as e:
        raise KafkatopError(f"cannot start the demo cluster: {e}") from None
    stack.callback(demo.close)
    control = DemoControl(demo)
    stack.callback(control.close)
    admin = _admin(args, demo.connection, stack, watch_groups=demo.groups)
    # The demo's consoles, its cluster poll and its topic admin fill in what the mock lacks (backends/demo/).
    consoles = DemoConsoles(demo.connection, control)
    source = DemoSource(control, admin, consoles.consumer_views, demo.groups)
    # A scenario's run polls on its own thread: a DemoSource of its own, with the demo's replicas and ISRs.
    scenario_source = DemoSource(control, _admin(args, demo.connection, stack), consoles.consumer_views, demo.groups)
    title = "DEMO · librdkafka mock, 3 brokers"
    return Chosen(
        demo.connection, source.poll, control, None, title, banner=DEMO_BANNER,
        topic_admin=lambda: DemoTopicAdmin(control), consoles=consoles, elections=lambda: DemoElections(control),
        kind="demo", scenario_poll=scenario_source.poll,
    )  # fmt: skip


def run_live_view(args: argparse.Namespace) -> int:
    if args.replay:
        return _replay(args)
    with Ending() as ending:  # its stack: what the app opened and the lab it started, closed on every way out
        status = ending.run(compose_app(args, ending.stack))
    if ending.signal is not None:
        err(f"quit on {ending.name}")
    return status


def compose_app(args: argparse.Namespace, stack: ExitStack, *, terminal: bool = True) -> KafkatopApp:
    """The live view for `args`, not yet running; `stack` closes what it opened (and stops the labs it started).
    `terminal`: refuse without one (a benchmark runs the app headless). With contexts defined (and no --record: a
    recording holds one cluster), the app can switch to another context (tui/cli/switcher.py)."""
    if args.record and Path(args.record).is_dir():
        raise UsageError(f"--record {args.record}: a directory; give a file name, e.g. session.jsonl.gz")
    from kafkatop.tui.cli.scenario import live_scenario
    from kafkatop.tui.cli.switcher import ContextSwitcher

    scenario = live_scenario(args)
    switcher = ContextSwitcher(args, stack, terminal=terminal, compose=compose_sources, stop_lab=stop_lab)
    sources, settings = switcher.open(switcher.first)
    settings = dataclasses.replace(settings, scenario=scenario)
    return KafkatopApp(sources, settings, switcher=switcher if switcher.switches() else None)


def compose_sources(
    args: argparse.Namespace, stack: ExitStack, *, terminal: bool = True, lab: LabCluster | None = None
) -> tuple[Sources, Settings, LabCluster | None]:
    """One cluster's sources, as `args` name it (a context's options already filled in); `stack` closes them. A lab
    is the one given (already opened in this run) or opened now, and started only when none of its nodes runs
    (compose_lab.py): the caller stops what was started."""
    settings = client_settings(args)
    if args.bootstrap_server:
        connection = attached_connection(args, settings)  # a bad address: refused here
        if terminal:
            _need_terminal()
        chosen = _attach(args, connection, stack)
    else:
        make = lab_cluster(args, terminal=terminal) if lab is None and not args.demo else None
        if terminal:
            _need_terminal()
        if make is not None:
            lab = make()
        chosen = _lab(args, settings, stack, lab, make is not None) if lab is not None else _demo(args, stack)
    connection = chosen.connection
    audit = None
    if chosen.kind != "demo":  # every write to a real cluster in the trail (the demo's mock is nobody's)
        from kafkatop.tui.cli.audit_live import LiveAudit

        audit = LiveAudit.of(args, connection, say)
        stack.callback(audit.close)
        chosen.control = audit.control(chosen.control)
    watch = None
    if chosen.zookeeper:
        from kafkatop.backends.zookeeper.watch import ZooKeeperSource

        watch = ZooKeeperSource(chosen.zookeeper)
        stack.callback(watch.close)
    mask = getattr(args, "context_mask", None)  # a context's: records masked as they are read, before all else
    masked = mask.describe() if mask is not None and mask.active else None  # said in the view
    consoles = chosen.consoles or Consoles(connection, mask)
    stack.callback(consoles.close)
    codec, schemas = schema_ports(args, stack)  # each topic's formats, and the Schema Registry if there is one
    browser = MessageBrowser(connection, codec=codec, mask=mask)
    stack.callback(browser.close)
    spark = _spark_counts(args, connection)
    stack.callback(spark.close)  # before the cluster: a live query reads it until then
    connect = connect_cluster(args, lab if chosen.kind == "lab" else None, stack)  # its workers, if it has them
    acls = acl_admin(chosen.kind, connection, stack, lab)  # None: the demo (its ACLs tab says it has no authorizer)
    # The brokers' disks: the demo's mock answers no DescribeLogDirs (the Brokers tab says so).
    log_dirs = None if chosen.kind == "demo" else LogDirsPoll(connection, timeout_s=10.0)
    recorder = None
    if args.record:
        from kafkatop.backends.recording.file import RecordingWriter

        given: tuple[tuple[Source, object], ...] = (("ensemble", chosen.ensemble), ("zookeeper", watch),
                                                    ("connect", connect), ("acls", acls),
                                                    ("log_dirs", log_dirs))  # fmt: skip
        had: list[Source] = ["control", "clients", *(name for name, port in given if port is not None)]
        header = RecordingHeader(time.time(), chosen.title, tuple(had), chosen.banner)
        recorder = RecordingWriter(Path(args.record), header)
        stack.callback(_recorded, recorder)
    sources = Sources(
        chosen.poll_cluster, chosen.control, chosen.ensemble, chosen.topic_admin or _topic_admin(connection), consoles,
        chosen.startup,
        spark=spark, durability=_durability(connection, chosen.control), zookeeper=watch, recorder=recorder,
        # The demo's mock has no DescribeConfigs: its brokers say so, and the Configs screen shows it.
        configs=ConfigAdmin(connection, timeout_s=10.0),
        elections=chosen.elections or _elections(connection),
        # The demo's mock has no AlterPartitionReassignments: `m` says so there.
        reassignments=None if chosen.kind == "demo" else _reassignments(connection),
        group_tools=None if chosen.kind == "demo" else GroupTools(connection),
        transactions=None if chosen.kind == "demo" else TransactionWatch(connection),  # the mock has none
        browser=browser, connect=connect, acls=acls, granting=granting(args, chosen.kind, connection), codec=codec,
        schemas=schemas, log_dirs=log_dirs,
        scenarios=_scenarios(chosen, stack, bool(getattr(args, "read_only", False)), connect),
    )  # fmt: skip
    sources = audit.sources(sources) if audit is not None else sources
    name = getattr(args, "context_name", None)
    typed = (name or connection.bootstrap_servers.split(",")[0]) if chosen.kind == "attach" else None
    return sources, Settings(
        poll_interval_s=args.interval, banner=chosen.banner, launch=chosen.kind, context=name,
        colour=getattr(args, "context_colour", None), read_only=bool(getattr(args, "read_only", False)),
        typed_name=typed, confirm=not getattr(args, "no_confirm", False),
        warnings=(*kept(args), *chosen.warnings, *([f"context {name!r}: {masked}"] if masked else [])),
        masking=masked,
        lab_flags=lab_flags(lab.spec.name, lab.state_dir.parent) if lab is not None and chosen.kind == "lab" else "",
        lag_rules=getattr(args, "context_lag", None) or LagRules(), bell=bool(getattr(args, "bell", False)),
    ), lab  # fmt: skip


def _recorded(recorder: RecordingWriter) -> None:
    recorder.close()
    path = recorder.path
    say(f"recorded {recorder.entries} entries to {path}; play them back with `kafkatop --replay {path}`")


def _replayed_only() -> ClusterSnapshot:
    raise KafkatopError("a replay polls nothing")  # never called: a replay runs no poll


def _replay(args: argparse.Namespace) -> int:
    """`kafkatop --replay FILE`: the recording through the same app, labelled REPLAY; nothing is polled or acted on."""
    given = [flag for flag, value in (("--bootstrap-server", args.bootstrap_server), ("--zookeeper", args.zookeeper),
                                      ("--kafka-home", args.kafka_home), ("--demo", args.demo),
                                      ("--record", args.record)) if value]  # fmt: skip
    if given:
        raise UsageError(f"--replay plays a recording back, with no cluster: leave out {', '.join(given)}")
    from kafkatop.backends.recording.file import read_recording

    recording = read_recording(Path(args.replay))
    if not recording.entries:
        raise UsageError(f"{args.replay}: the recording holds no entry to play")
    _need_terminal()
    replay = Replay(recording, speed=args.speed)
    replay.name = Path(args.replay).name
    with Ending() as ending:
        return ending.run(KafkatopApp(Sources(_replayed_only), Settings(), replay=replay))


def _spark_counts(args: argparse.Namespace, connection: KafkaConnection) -> SparkCounts:
    """The Spark panel's counts: a Spark service process, started when the panel is first shown."""
    master = getattr(args, "spark_master", None) or "local[*]"
    return SparkCounts(connection, master=master, log_path=state_root(args) / "spark" / "service.log",
                       mask=getattr(args, "context_mask", None))  # fmt: skip


def _need_terminal() -> None:
    """The live view draws on a terminal and reads its keys from one: refuse at once, before anything starts."""
    if not sys.stdout.isatty():
        raise UsageError(
            "the live view needs a terminal, and stdout is not one (redirected to a file or a pipe?); for text, "
            "use a command: `kafkatop status`, `kafkatop describe` (--json), `kafkatop --help`"
        )
    if not sys.stdin.isatty():
        raise UsageError(
            "the live view reads its keys (q quits) from a terminal, and stdin is not one (< /dev/null, a pipe?); "
            "run it in a terminal without redirecting its input"
        )
