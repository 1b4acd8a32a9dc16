"""`kafkatop` without a command: pick the cluster — attach (`--bootstrap-server`), a lab cluster from a Kafka install,
or the built-in demo — build its sources, run the app, and clean up after it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from kafkatop.backends.errors import KafkatopError

DEMO_BANNER = (
    "DEMO — a built-in 3-broker mock cluster (librdkafka), not a real Kafka: kill and restart brokers to see "
    "leadership move. Point kafkatop at yours with --bootstrap-server HOST:PORT, or at a Kafka install with "
    "--kafka-home DIR to run a lab cluster."
)


def _err(message: str) -> None:
    print(f"kafkatop: {message}", file=sys.stderr)


def _topic_admin(bootstrap: str, client_config: dict[str, str]) -> Callable[[], Any]:
    def make() -> Any:
        from kafkatop.backends.topics import TopicAdmin

        return TopicAdmin(bootstrap, client_config, timeout_s=15.0)

    return make


def _ensemble(zookeeper: str | None, bootstrap: str) -> Callable[[], Any]:
    if zookeeper:
        from kafkatop.backends.ensemble import ZooKeeperStatsSource

        return ZooKeeperStatsSource(zookeeper).poll
    from kafkatop.backends.quorum import QuorumSource

    return QuorumSource(bootstrap).poll


def run(args: argparse.Namespace, client_config: dict[str, str]) -> int:
    from kafkatop.backends.admin import AdminSource
    from kafkatop.backends.consoles import Consoles
    from kafkatop.tui.app import KafkatopApp, Settings, Sources

    with ExitStack() as stack:
        banner = None
        watch_groups: tuple[str, ...] = ()
        startup: Callable[[], object] | None = None
        zookeeper = args.zookeeper
        if args.bootstrap_server:
            from kafkatop.backends.control import AttachedControl

            bootstrap = args.bootstrap_server
            admin = AdminSource(bootstrap, client_config=client_config, timeout_s=args.timeout,
                                include_internal=args.include_internal)  # fmt: skip
            last: list[Any] = []

            def poll_cluster() -> Any:
                snapshot = admin.poll()
                last[:] = [snapshot]
                return snapshot

            control: Any = AttachedControl(bootstrap, lambda: last[0] if last else None)
            ensemble = _ensemble(zookeeper, bootstrap)
        else:
            lab = None if args.demo else _lab_cluster(args)
            if lab is not None:
                from kafkatop.backends.control import LabControl

                snap = lab.snapshot()
                bootstrap = snap.bootstrap_servers
                zookeeper = zookeeper or snap.zookeeper_connect
                control = LabControl(lab)
                stack.callback(_stop_lab, lab, args.detach)
                startup = lab.up
                admin = AdminSource(bootstrap, timeout_s=args.timeout, include_internal=args.include_internal)
                poll_cluster = admin.poll
                ensemble = _ensemble(zookeeper, bootstrap)
            else:
                from kafkatop.backends.demo import DemoControl, start_demo_cluster

                try:
                    demo = start_demo_cluster()
                except KafkatopError as e:
                    _err(f"cannot start the demo cluster: {e}")
                    return 1
                stack.callback(demo.close)
                control = DemoControl(demo)
                stack.callback(control.close)
                bootstrap, watch_groups, banner = demo.bootstrap_servers, demo.groups, DEMO_BANNER
                admin = AdminSource(bootstrap, timeout_s=args.timeout, include_internal=args.include_internal,
                                    watch_groups=watch_groups)  # fmt: skip
                poll_cluster = admin.poll
                ensemble = None  # the mock has no quorum to describe
        consoles = Consoles(bootstrap, client_config)
        stack.callback(consoles.close)
        spark = _spark_counts(args, bootstrap, client_config)
        stack.callback(spark.close)  # before the cluster: a live query reads it until then
        sources = Sources(
            poll_cluster, control, ensemble, _topic_admin(bootstrap, client_config), consoles, startup, spark=spark,
            durability=_durability(bootstrap, client_config, control),
        )  # fmt: skip
        KafkatopApp(sources, Settings(poll_interval_s=args.interval, banner=banner)).run()
    return 0


def _durability(bootstrap: str, client_config: dict[str, str], control: Any) -> Callable[[Any, Any], Any]:
    def make(settings: Any, on_progress: Any) -> Any:
        from kafkatop.backends.durability import DurabilityCheck

        return DurabilityCheck(bootstrap, settings, control, client_config=client_config, on_progress=on_progress)

    return make


def _spark_counts(args: argparse.Namespace, bootstrap: str, client_config: dict[str, str]) -> Any:
    """The Spark panel's counts: a Spark service process, started when the panel is first shown."""
    from kafkatop.backends.supervisor import default_state_root
    from kafkatop.spark.client import SparkCounts

    root = Path(args.state_dir).expanduser() if args.state_dir else default_state_root()
    master = getattr(args, "spark_master", None) or "local[*]"
    return SparkCounts(bootstrap, client_config, master=master, log_path=root / "spark" / "service.log")


def _lab_cluster(args: argparse.Namespace) -> Any:
    """The lab cluster to run: an existing one by name, else a new one from a Kafka install; None when there is
    no Kafka install (then the demo runs)."""
    from kafkatop.backends.install import KafkaNotFound, find_kafka
    from kafkatop.backends.lab_spec import ClusterSpec
    from kafkatop.backends.supervisor import LabCluster, default_state_root

    root = Path(args.state_dir).expanduser() if args.state_dir else default_state_root()
    name = args.name or "lab"
    if (root / name / "cluster.json").exists():
        return LabCluster.open(root / name)
    try:
        install = find_kafka(args.kafka_home)
    except KafkaNotFound:
        if args.kafka_home:
            raise
        return None
    cluster, notes = LabCluster.create_or_open(root, install, ClusterSpec(name=name))
    for note in notes:
        print(note)
    return cluster


def _stop_lab(lab: Any, detach: bool) -> None:
    if detach:
        lab.release()
        print(f"lab cluster {lab.spec.name!r} left running (--detach); stop it with `kafkatop down`")
        return
    print(f"stopping lab cluster {lab.spec.name!r} (use --detach to leave it running) …", flush=True)
    lab.close()
