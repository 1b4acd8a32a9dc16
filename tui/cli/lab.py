"""The lab cluster's commands: `kafkatop up|down|status|kill|stop|start|restart|add-broker|add-connect`. Each returns
an exit code: 0 done, 1 failed, 2 bad input, 130 interrupted."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.identity import check_broker_process
from kafkatop.backends.lab.local import local_broker_process, signal_local
from kafkatop.backends.lab.spec import SpecError
from kafkatop.backends.lab.state import LabSnapshot, NodeStatus, delete_state
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.nodes import NodeState
from kafkatop.backends.zookeeper.watch import ZooKeeperSource
from kafkatop.tui.cli.common import (
    build_spec,
    client_settings,
    confirmed,
    connection,
    ignore_interrupts,
    interrupt_on_termination,
    lab_connection,
    open_cluster,
    state_root,
)
from kafkatop.tui.cli.exits import BAD_INPUT, DONE, FAILED, INTERRUPTED, err
from kafkatop.tui.cli.install import find_or_offer
from kafkatop.tui.cli.lab_features import set_lab_features
from kafkatop.tui.cli.lab_status import measure, path_text, print_status, status_rows, tools_option


# --- commands -------------------------------------------------------------------------------------------------------
def cmd_up(args: argparse.Namespace) -> int:
    spec = build_spec(args)
    if spec.authorizer_problem:  # before a Kafka is looked for (or offered for download)
        raise SpecError(spec.authorizer_problem)
    install = find_or_offer(args, spec.mode, demo_instead=False)
    assert install is not None  # with no demo to fall back on, it installs or raises
    cluster, notes = LabCluster.create_or_open(state_root(args), install, spec)
    for note in notes:
        print(note)
    if cluster.spec.remote_listeners:
        print(
            f"note: --allow-remote-listeners: the brokers bind {', '.join(cluster.spec.remote_listeners)} "
            "(listeners in the [broker] settings), so anyone who can reach this machine can reach them",
            flush=True,
        )
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
            err("interrupted during start: the nodes this start had started are stopped again")
            return INTERRUPTED
        try:
            print_status(snap)
            features_failed = not _set_features(args, cluster, snap)
            if snap.client_properties is not None:
                own = snap.admin_properties or snap.client_properties
                print(f"kafkatop uses {own} for this lab; Kafka's tools take the files above with --command-config "
                      "FILE", flush=True)  # fmt: skip
            if args.detach:
                cluster.release()
                print(f"left running; stop it with `kafkatop down{_name_flag(args, cluster)}`")
                return FAILED if features_failed else DONE
            print("press Ctrl-C to stop the cluster (or start it with --detach to leave it running)", flush=True)
            _follow(cluster)
        except KeyboardInterrupt:
            pass  # the handler now ignores further signals: the stop below runs to its end
        print("stopping …", flush=True)
        cluster.close()
    print("stopped")
    return 0


def _set_features(args: argparse.Namespace, cluster: LabCluster, snap: LabSnapshot) -> bool:
    """The feature levels asked for that a lab formatted before does not have yet (lab_features.py); False when
    setting them failed (said on stderr: the lab stays up)."""
    wanted = build_spec(args).features
    if not wanted:
        return True
    try:
        said = set_lab_features(lab_connection(args, snap), cluster.mode, wanted, args.timeout)
    except KafkatopError as e:
        err(str(e))
        return False
    if said:
        print(said, flush=True)
    return True


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
    cluster = open_cluster(args, need_install=False)  # a cluster whose Kafka was deleted can still be stopped
    restore = ignore_interrupts()
    try:
        stopped = cluster.down()
    finally:
        restore()
    # Nothing running is not a failure (as `systemctl stop` of a stopped unit exits 0), but it is said as it is.
    name = f"cluster {cluster.spec.name!r}"
    what = f"{name} stopped ({len(stopped)} node(s))" if stopped else f"{name} was not running: nothing to stop"
    if args.delete:
        delete_state(cluster.state_dir, state_root(args))
        print(f"{what}; its state deleted ({cluster.state_dir})")
    else:
        print(f"{what}; its data stays in {cluster.state_dir}")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    cluster = open_cluster(args)
    snap = cluster.refresh()
    if args.json:
        measured = measure(snap)
        doc = {
            "name": snap.name,
            "mode": snap.mode,
            "kafka_version": snap.kafka_version,
            "kafka_home": snap.kafka_home,
            "cluster_id": snap.cluster_id,
            "bootstrap_servers": snap.bootstrap_servers,
            "zookeeper_connect": snap.zookeeper_connect,
            "connect_urls": list(snap.connect_urls),
            "security": snap.security,
            "client_properties": str(snap.client_properties) if snap.client_properties else None,
            "admin_properties": str(snap.admin_properties) if snap.admin_properties else None,
            "controller_admin_properties": path_text(snap.controller_admin_properties),
            "connect_admin_properties": path_text(snap.connect_admin_properties),
            "connect_netrc": path_text(snap.connect_netrc),
            "issuer_url": snap.issuer_url,
            "kafka_opts": tools_option(snap),
            "authorizer": snap.authorizer,
            "state_dir": str(snap.state_dir),
            "nodes": status_rows(snap, measured),
        }
        print(json.dumps(doc, indent=2))
    else:
        print_status(snap)
    return 0


def cmd_node_attached(args: argparse.Namespace) -> int:
    """kill/stop a broker of an attached cluster that runs on this host; start/restart need the way it was started."""
    if not args.node.isdigit():
        err(f"{args.node!r}: give the broker id (as in --describe's Leader/Replicas), e.g. `kafkatop kill 2`")
        return BAD_INPUT
    broker_id = int(args.node)
    if args.zookeeper:
        settings = client_settings(args)
        with ZooKeeperSource(args.zookeeper, timeout_s=5.0) as zk:
            zk_snap = zk.snapshot()
        brokers, cluster_id = zk_snap.brokers, zk_snap.cluster_id
    else:
        attached = connection(args)  # --command-config read once: its warning, if any, said once
        settings = dict(attached.client_settings)
        source = AdminSource(attached, timeout_s=5.0)
        try:
            snap = source.poll()
        finally:
            source.close()
        brokers, cluster_id = snap.brokers, snap.cluster_id
    broker = next((b for b in brokers if b.id == broker_id and b.alive and b.port is not None), None)
    if broker is None:
        live = ", ".join(str(b.id) for b in brokers if b.alive) or "none"
        err(f"broker {broker_id} is not registered in this cluster (live brokers: {live})")
        return BAD_INPUT
    process = local_broker_process(broker)
    check_broker_process(process, broker, cluster_id, settings)  # this cluster's broker, not a stranger on its port
    if args.command in ("start", "restart"):
        err(
            f"broker {broker_id} (pid {process.pid}) was not started by kafkatop, which cannot start it again; "
            f"start it as it was started ({process.properties_file or 'its properties file'}), or run the lab "
            "with `kafkatop up`"
        )
        return 1
    signal = "SIGKILL (kill -9)" if args.command == "kill" else "SIGTERM (a controlled shutdown)"
    what = f"broker {broker_id} of cluster {cluster_id} ({broker.address}, pid {process.pid})"
    if not confirmed(
        f"send {signal} to {what}?",
        yes=args.yes,
        unasked=f"nothing was signalled: {args.command} on an attached cluster asks first ({what}); add --yes to go "
        "ahead",
    ):
        err("not confirmed: nothing was signalled")
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
                err(f"interrupted: {args.node} was stopped again")
                return INTERRUPTED
    else:
        status = getattr(cluster, action)(args.node)
    cluster.release()  # a headless command leaves what it started running
    pid = f" pid {status.pid}" if status.pid else ""
    print(f"{status.name} {verb}: {status.state.value}{pid}")
    return 0 if status.state is not NodeState.FAILED else 1


def cmd_add_broker(args: argparse.Namespace) -> int:
    return _add_node(args, LabCluster.add_broker, "broker", " on 127.0.0.1:{port}")


def cmd_add_connect(args: argparse.Namespace) -> int:
    return _add_node(args, LabCluster.add_connect, "Connect worker", ", REST on http://127.0.0.1:{port}")


def _add_node(args: argparse.Namespace, add: Callable[[LabCluster, float], NodeStatus], what: str, where: str) -> int:
    """add-broker, add-connect: one more node, started (and stopped again if interrupted); `where` its port."""
    cluster = open_cluster(args)
    with interrupt_on_termination():
        try:
            status = add(cluster, args.timeout)
        except KeyboardInterrupt:
            err(f"interrupted: the new {what} was stopped again")
            return INTERRUPTED
    cluster.release()
    print(f"{status.name} added: {status.state.value} pid {status.pid}{where.format(port=status.node.port)}")
    return 0
