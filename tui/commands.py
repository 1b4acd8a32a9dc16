"""Headless commands for scripts, tests and lab instructions: `kafkatop up|down|status|kill|stop|start|restart|
add-broker|create-topic|describe|durability|counts`. Each returns an exit code: 0 done, 1 failed, 2 bad input, 130
interrupted."""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from kafkatop.backends.errors import KafkatopError
from kafkatop.backends.install import KafkaInstall, find_kafka
from kafkatop.backends.lab_spec import ClusterSpec, NodeSpec, SpecError, load_spec_file, with_overrides
from kafkatop.backends.model import KafkaProcess
from kafkatop.backends.supervisor import (
    LabCluster,
    LabSnapshot,
    NodeState,
    NodeStatus,
    default_state_root,
)
from kafkatop.tui.format import human_duration, human_size

INTERRUPTED = 130


def _err(message: str) -> None:
    print(f"kafkatop: {message}", file=sys.stderr)


def state_root(args: argparse.Namespace) -> Path:
    return Path(args.state_dir).expanduser() if args.state_dir else default_state_root()


def build_spec(args: argparse.Namespace) -> ClusterSpec:
    """kafkatop.toml (given, or in the current directory), then flags over it."""
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
    return with_overrides(
        spec,
        name=args.name,
        mode=getattr(args, "mode", None),
        brokers=getattr(args, "brokers", None),
        base_port=getattr(args, "base_port", None),
        zookeeper_port=getattr(args, "zookeeper_port", None),
        controller_port=getattr(args, "controller_port", None),
        controllers=getattr(args, "controllers", None),
        heap=getattr(args, "heap", None),
        broker_properties=tuple(props.items()),
    )


def find_install(args: argparse.Namespace) -> KafkaInstall:
    return find_kafka(getattr(args, "kafka_home", None))


def open_cluster(args: argparse.Namespace) -> LabCluster:
    name = args.name or build_spec(args).name
    return LabCluster.open(state_root(args) / name)


# --- printing -------------------------------------------------------------------------------------------------------


def _measure(snap: LabSnapshot) -> dict[int, KafkaProcess]:
    from kafkatop.backends.processes import ProcessSource

    pids = {n.pid for n in snap.nodes if n.pid is not None}
    if not pids:
        return {}
    return {p.pid: p for p in ProcessSource(selector=lambda p: p.pid in pids).poll().processes}


def _ports(node: NodeSpec) -> str:
    return "/".join(str(p) for p in node.ports)


def status_rows(snap: LabSnapshot, measured: dict[int, KafkaProcess]) -> list[dict[str, Any]]:
    rows = []
    now = time.time()
    for n in snap.nodes:
        proc = measured.get(n.pid) if n.pid is not None else None
        rows.append(
            {
                "node": n.name,
                "role": n.node.role.value,
                "id": n.node.node_id,
                "state": n.state.value,
                "pid": n.pid,
                "ports": list(n.node.ports),
                "cpu_percent": round(proc.cpu_percent, 1) if proc else None,
                "rss_bytes": proc.rss_bytes if proc else None,
                "uptime_s": round(now - n.started_at, 1) if n.started_at else None,
                "detail": n.detail,
                "config": str(n.config_path),
                "log": str(n.log_path),
            }
        )
    return rows


def print_status(
    snap: LabSnapshot, out: TextIO = sys.stdout, *, measured: dict[int, KafkaProcess] | None = None
) -> None:
    measured = _measure(snap) if measured is None else measured
    print(
        f"cluster {snap.name} · {'ZooKeeper mode' if snap.mode == 'zk' else 'KRaft'} · Kafka {snap.kafka_version} "
        f"({snap.kafka_home})" + (f" · cluster id {snap.cluster_id}" if snap.cluster_id else ""),
        file=out,
    )
    print(
        f"bootstrap servers {snap.bootstrap_servers}"
        + (f" · zookeeper {snap.zookeeper_connect}" if snap.zookeeper_connect else ""),
        file=out,
    )
    print(f"state {snap.state_dir}", file=out)
    header = ("NODE", "ROLE", "ID", "STATE", "PID", "PORT", "CPU%", "RSS", "UPTIME")
    table = [header]
    notes = []
    for row in status_rows(snap, measured):
        table.append(
            (
                row["node"],
                row["role"],
                "-" if row["id"] is None else str(row["id"]),
                row["state"],
                "-" if row["pid"] is None else str(row["pid"]),
                "/".join(map(str, row["ports"])),
                "-" if row["cpu_percent"] is None else f"{row['cpu_percent']:.1f}",
                human_size(row["rss_bytes"]),
                human_duration(row["uptime_s"]),
            )
        )
        if row["detail"]:
            notes.append(f"  {row['node']}: {row['detail']}")
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for r in table:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip(), file=out)
    for note in notes:
        print(note, file=out)


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


def _ignore_interrupts() -> Callable[[], None]:
    """While stopping nodes after an interrupt, a second Ctrl-C must not cut the stop short (orphan JVMs)."""
    previous = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}

    def restore() -> None:
        for s, h in previous.items():
            signal.signal(s, h)

    return restore


# --- commands -------------------------------------------------------------------------------------------------------
def cmd_up(args: argparse.Namespace) -> int:
    spec = build_spec(args)
    install = find_install(args)
    cluster, notes = LabCluster.create_or_open(state_root(args), install, spec)
    for note in notes:
        print(note)
    pending = [n.name for n in cluster.snapshot().nodes if n.state not in (NodeState.UP, NodeState.STARTING)]
    if pending:
        print(f"starting {', '.join(pending)} of cluster {cluster.spec.name!r} ({install}) …", flush=True)
    else:
        print(f"cluster {cluster.spec.name!r} is already running; attached", flush=True)
    with interrupt_on_termination():
        try:
            snap = cluster.up(
                timeout_s=args.timeout,
                on_ready=lambda node, t: print(f"  {node.name} ready after {t:.1f} s", flush=True),
            )
        except KeyboardInterrupt:
            cluster.close()
            _err("interrupted during start: the nodes this start had started are stopped again")
            return INTERRUPTED
        try:
            print_status(snap)
            if args.detach:
                cluster.release()
                print(f"left running; stop it with `kafkatop down{_name_flag(args, cluster)}`")
                return 0
            print("press Ctrl-C to stop the cluster (or start it with --detach to leave it running)", flush=True)
            _follow(cluster)
        except KeyboardInterrupt:
            pass  # the handler now ignores further signals: the stop below runs to its end
        print("stopping …", flush=True)
        cluster.close()
    print("stopped")
    return 0


def _name_flag(args: argparse.Namespace, cluster: LabCluster) -> str:
    flags = ""
    if cluster.spec.name != "lab":
        flags += f" --name {cluster.spec.name}"
    if args.state_dir:
        flags += f" --state-dir {args.state_dir}"
    return flags


def _follow(cluster: LabCluster) -> None:
    """Foreground `up`: report each node's state change (a kill -9 from another shell, a crash) until Ctrl-C."""
    last = {n.name: n.state for n in cluster.snapshot().nodes}
    while True:
        time.sleep(1.0)
        for n in cluster.refresh().nodes:
            if last.get(n.name) != n.state:
                print(
                    f"{time.strftime('%H:%M:%S')} {n.name} {n.state.value}" + (f" ({n.detail})" if n.detail else ""),
                    flush=True,
                )
                last[n.name] = n.state


def cmd_down(args: argparse.Namespace) -> int:
    cluster = open_cluster(args)
    restore = _ignore_interrupts()
    try:
        cluster.down()
    finally:
        restore()
    if args.delete:
        shutil.rmtree(cluster.state_dir)
        print(f"cluster {cluster.spec.name!r} stopped and its state deleted ({cluster.state_dir})")
    else:
        print(f"cluster {cluster.spec.name!r} stopped; its data stays in {cluster.state_dir}")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    cluster = open_cluster(args)
    snap = cluster.refresh()
    if args.json:
        measured = _measure(snap)
        doc = {
            "name": snap.name,
            "mode": snap.mode,
            "kafka_version": snap.kafka_version,
            "kafka_home": snap.kafka_home,
            "cluster_id": snap.cluster_id,
            "bootstrap_servers": snap.bootstrap_servers,
            "zookeeper_connect": snap.zookeeper_connect,
            "state_dir": str(snap.state_dir),
            "nodes": status_rows(snap, measured),
        }
        print(json.dumps(doc, indent=2))
    else:
        print_status(snap)
    return 0


def cmd_node_attached(args: argparse.Namespace) -> int:
    """kill/stop a broker of an attached cluster that runs on this host; start/restart need the way it was started."""
    from kafkatop.backends.local_nodes import local_broker_process, signal_local

    if not args.node.isdigit():
        _err(f"{args.node!r}: give the broker id (as in --describe's Leader/Replicas), e.g. `kafkatop kill 2`")
        return 2
    broker_id = int(args.node)
    if args.zookeeper:
        from kafkatop.backends.zookeeper import ZooKeeperSource

        with ZooKeeperSource(args.zookeeper, timeout_s=5.0) as zk:
            brokers = zk.snapshot().brokers
    else:
        from kafkatop.backends.admin import AdminSource

        brokers = AdminSource(args.bootstrap_server, client_config=_client_config(args), timeout_s=5.0).poll().brokers
    broker = next((b for b in brokers if b.id == broker_id and b.alive and b.port is not None), None)
    if broker is None:
        live = ", ".join(str(b.id) for b in brokers if b.alive) or "none"
        _err(f"broker {broker_id} is not registered in this cluster (live brokers: {live})")
        return 1
    process = local_broker_process(broker)
    if args.command in ("start", "restart"):
        _err(
            f"broker {broker_id} (pid {process.pid}) was not started by kafkatop, which cannot start it again; "
            f"start it as it was started ({process.properties_file or 'its properties file'}), or run the lab "
            "with `kafkatop up`"
        )
        return 1
    exited = signal_local(process, kill=args.command == "kill")
    verb = "killed (SIGKILL)" if args.command == "kill" else "stopped"
    print(f"broker {broker_id} pid {process.pid} {verb}" + ("" if exited else "; it has not exited yet"))
    return 0 if exited else 1


def cmd_node(args: argparse.Namespace) -> int:
    if args.bootstrap_server or args.zookeeper:
        return cmd_node_attached(args)
    cluster = open_cluster(args)
    action = args.command
    verb = {"kill": "killed (SIGKILL)", "stop": "stopped", "start": "started", "restart": "restarted"}[action]
    if action in ("start", "restart"):
        with interrupt_on_termination():
            try:
                status: NodeStatus = getattr(cluster, action)(args.node, timeout_s=args.timeout)
            except KeyboardInterrupt:
                _err(f"interrupted: {args.node} was stopped again")
                return INTERRUPTED
    else:
        status = getattr(cluster, action)(args.node)
    cluster.release()  # a headless command leaves what it started running
    pid = f" pid {status.pid}" if status.pid else ""
    print(f"{status.name} {verb}: {status.state.value}{pid}")
    return 0 if status.state is not NodeState.FAILED else 1


def cmd_add_broker(args: argparse.Namespace) -> int:
    cluster = open_cluster(args)
    with interrupt_on_termination():
        try:
            status = cluster.add_broker(timeout_s=args.timeout)
        except KeyboardInterrupt:
            _err("interrupted: the new broker was stopped again")
            return INTERRUPTED
    cluster.release()
    print(f"{status.name} added: {status.state.value} pid {status.pid} on 127.0.0.1:{status.node.port}")
    return 0


def _bootstrap(args: argparse.Namespace) -> str:
    if args.bootstrap_server:
        return str(args.bootstrap_server)
    try:
        return open_cluster(args).snapshot().bootstrap_servers
    except KafkatopError as e:
        raise KafkatopError(f"no cluster to talk to: give --bootstrap-server HOST:PORT, or start one ({e})") from None


def _client_config(args: argparse.Namespace) -> dict[str, str]:
    from kafkatop.backends.properties import read_properties

    return read_properties(args.command_config) if args.command_config else {}


def cmd_create_topic(args: argparse.Namespace) -> int:
    from kafkatop.backends.topics import TopicAdmin, parse_config_assignments, validate_new_topic

    problems = validate_new_topic(args.topic, args.partitions, args.replication_factor)
    if problems:
        for p in problems:
            _err(p)
        return 2
    configs = parse_config_assignments(args.config_item or ())
    with TopicAdmin(_bootstrap(args), _client_config(args), timeout_s=args.timeout) as admin:
        admin.create_topic(args.topic, args.partitions, args.replication_factor, configs)
    print(f"Created topic {args.topic}.")  # kafka-topics' own words
    return 0


def cmd_describe(args: argparse.Namespace) -> int:
    from kafkatop.backends.topics import TopicAdmin, format_describe

    if args.zookeeper:
        from kafkatop.backends.zookeeper import ZooKeeperSource

        with ZooKeeperSource(args.zookeeper, timeout_s=args.timeout) as source:
            snapshot = source.snapshot()
        text = format_describe(snapshot, args.topic, sort_by_name=True)  # as the ZooKeeper-era tool listed them
    else:
        from kafkatop.backends.admin import AdminSource

        bootstrap = _bootstrap(args)
        config = _client_config(args)
        snapshot = AdminSource(bootstrap, client_config=config, timeout_s=args.timeout, include_internal=True).poll()
        with TopicAdmin(bootstrap, config, timeout_s=args.timeout) as admin:
            text = admin.describe(snapshot, args.topic)
    if text:  # no topics: nothing, as kafka-topics prints
        print(text, end="" if text.endswith("\n") else "\n")
    return 0


def cmd_durability(args: argparse.Namespace) -> int:
    from kafkatop.tui.durability_cmd import cmd_durability as run_check

    return run_check(args)


def cmd_counts(args: argparse.Namespace) -> int:
    from kafkatop.tui.counts_cmd import cmd_counts as count

    return count(args, _bootstrap(args), _client_config(args), state_root(args) / "spark")


def cmd_chaos(args: argparse.Namespace) -> int:
    from kafkatop.tui.chaos_cmd import cmd_chaos as run_chaos

    return run_chaos(args)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "up": cmd_up,
    "down": cmd_down,
    "status": cmd_status,
    "kill": cmd_node,
    "stop": cmd_node,
    "start": cmd_node,
    "restart": cmd_node,
    "add-broker": cmd_add_broker,
    "create-topic": cmd_create_topic,
    "describe": cmd_describe,
    "durability": cmd_durability,
    "counts": cmd_counts,
    "chaos": cmd_chaos,
}


def run(args: argparse.Namespace) -> int:
    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        _err("interrupted")
        return INTERRUPTED
    except KafkatopError as e:
        _err(str(e))
        return 2 if isinstance(e, SpecError) else 1
