"""The lab cluster supervisor: starts, watches, stops, kills and restarts the nodes of a cluster from a Kafka install.

`LabCluster` is what the command line and the app use; it keeps what it knows in a `LabState` (state.py, shared with
other kafkatops through `cluster.json`) and acts on processes through a `NodeRunner` (runner.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from threading import RLock

import psutil

from kafkatop.backends.lab.identity import lab_cluster_id
from kafkatop.backends.lab.kafka_homes import KafkaInstall, LabMode
from kafkatop.backends.lab.node_files import rest_auth
from kafkatop.backends.lab.runner import STOP_TIMEOUT_S, NodeRunner, check_ports_free, ensure_writable
from kafkatop.backends.lab.spec import HOST, ClusterSpec, NodeSpec, SpecError, broker_node, connect_node, feature_flags
from kafkatop.backends.lab.state import (
    STATE_FILE,
    LabSnapshot,
    LabState,
    NodeStatus,
    SupervisorError,
    lab_dir,
    new_cluster_id,
    spec_dict,
)
from kafkatop.backends.model.nodes import NodeState, ProcessRole


class LabCluster:
    """Supervises one lab cluster. Thread-safe: the TUI calls actions from worker threads while polling."""

    def __init__(self, state: LabState) -> None:
        self.state = state
        self.runner = NodeRunner(state)
        self.adopted = False  # the live view found it running: it leaves it running, the nodes it started too

    # --- what it is ------------------------------------------------------------------------------------------------
    @property
    def state_dir(self) -> Path:
        return self.state.state_dir

    @property
    def install(self) -> KafkaInstall:
        return self.state.install

    @property
    def spec(self) -> ClusterSpec:
        return self.state.spec

    @property
    def mode(self) -> LabMode:
        return self.state.mode

    @property
    def nodes(self) -> tuple[NodeSpec, ...]:
        return self.state.nodes

    @property
    def cluster_id(self) -> str | None:
        return self.state.cluster_id

    @property
    def connect_urls(self) -> tuple[str, ...]:
        """The REST API of each Kafka Connect worker, in order: `http://127.0.0.1:9292`, …"""
        return tuple(f"http://{HOST}:{n.port}" for n in self.state.nodes if n.is_connect)

    @property
    def lock(self) -> RLock:
        """Held while the cluster changes (a start holds it while it formats a new KRaft node's storage: seconds)."""
        return self.state.lock

    def node(self, ref: str) -> NodeSpec:
        """A node by name (`broker-2`), by id (`2`), or `zookeeper`/`zk`."""
        return self.state.node(ref)

    def config_path(self, node: NodeSpec) -> Path:
        return self.state.config_path(node)

    def log_path(self, node: NodeSpec) -> Path:
        return self.state.log_path(node)

    def data_dir(self, node: NodeSpec) -> Path:
        return self.state.data_dir(node)

    def prepare(self, nodes: tuple[NodeSpec, ...] | None = None) -> None:
        self.runner.prepare(nodes)

    def log_tail(self, ref: str, lines: int = 20) -> str:
        return self.runner.log_tail(ref, lines)

    # --- creating and opening ----------------------------------------------------------------------------------
    @classmethod
    def create_or_open(cls, state_root: Path, install: KafkaInstall, spec: ClusterSpec) -> tuple[LabCluster, list[str]]:
        """The cluster `spec.name` under `state_root`: opened when it exists (its recorded spec wins; the notes say
        where the asked-for spec differs), else created with `spec`. Nothing is started."""
        state_dir = lab_dir(state_root, spec.name)
        if (state_dir / STATE_FILE).exists():
            cluster = cls.open(state_dir)
            if spec.features and cluster.mode == "zk":
                raise SpecError(
                    f"{feature_flags(spec.features)}: lab cluster {spec.name!r} runs in ZooKeeper mode, and feature "
                    "levels are a KRaft thing: drop them, or make a KRaft lab (another --name, --mode kraft)"
                )
            return cluster, cluster.state.differences(install, spec)
        mode = spec.mode or install.default_mode
        install.check_mode(mode)
        spec = ClusterSpec(**{**spec_dict(spec), "mode": mode}).validate()
        state = LabState(state_dir, install, spec, mode)
        for node in state.nodes:  # a missing stock file fails here, before anything is recorded
            if not node.is_issuer:
                install.stock_config(mode, state.stock_role(node))
        check_ports_free(list(state.nodes))  # and a taken port (a new cluster's state would name ports it cannot have)
        ensure_writable(state_dir)
        if mode == "kraft":
            state.cluster_id = new_cluster_id()
        with state.file_lock():
            state.save()
        return cls(state), []

    @classmethod
    def open(cls, state_dir: Path, *, need_install: bool = True) -> LabCluster:
        """The cluster recorded at `state_dir`; a SupervisorError says what is missing or unreadable."""
        return cls(LabState.load(state_dir, need_install=need_install))

    # --- starting ----------------------------------------------------------------------------------------------
    def up(self, timeout_s: float = 180.0, on_ready: Callable[[NodeSpec, float], None] | None = None) -> LabSnapshot:
        """Start every node that is not running — ZooKeeper first, then the controllers and brokers together, then
        the Connect workers (their state is in the brokers' topics) — and wait until each serves. A node that fails,
        a timeout, or Ctrl-C stops the nodes this call started, then raises."""
        with self.state.lock:
            self.state.refresh_from_disk()
            pending = [n for n in self.state.nodes if not self.state.alive(n.name)]
            self.runner.prepare(tuple(pending))
            self.runner.check_ports(pending)
        first = [n for n in pending if n.role is ProcessRole.ZOOKEEPER or n.is_issuer]
        workers = [n for n in pending if n.is_connect]
        rest = [n for n in pending if n not in first and n not in workers]
        started: list[NodeSpec] = []
        t0 = time.monotonic()
        try:
            for group in (first, rest, workers):
                if not group:
                    continue
                for node in group:
                    self.runner.launch(node)
                    started.append(node)
                self.runner.wait_ready(group, t0 + timeout_s, t0, on_ready)
        except BaseException:  # a failure, a timeout or KeyboardInterrupt: leave nothing half-started behind
            self.runner.stop_nodes(started, NodeState.DOWN, keep_intent=False)
            raise
        if self.state.cluster_id is None:
            self._record_cluster_id()
        return self.snapshot()

    def _record_cluster_id(self) -> None:
        """A ZooKeeper-mode lab's cluster id is made by its first broker, in ZooKeeper: recorded once it serves, so
        that later commands can tell the lab from another cluster on its ports (a KRaft lab's is recorded when its
        storage is formatted)."""
        cluster_id = lab_cluster_id(self.snapshot(), {})
        if cluster_id is None:
            return
        with self.state.file_lock():
            self.state.cluster_id = self.state.cluster_id or cluster_id
            self.state.save()

    def start(self, ref: str, timeout_s: float = 120.0) -> NodeStatus:
        node = self.state.node(ref)
        with self.state.lock:
            self.state.refresh_from_disk()
            if self.state.alive(node.name):
                return self.snapshot().node(node.name)
            self._check_brokers_for(node)
            self.runner.prepare((node,))
            self.runner.check_ports([node])
            self.runner.launch(node)
        try:
            self.runner.wait_ready([node], time.monotonic() + timeout_s, time.monotonic(), None)
        except BaseException:
            self.runner.stop_nodes([node], NodeState.DOWN, keep_intent=False)
            raise
        return self.snapshot().node(node.name)

    def restart(self, ref: str, timeout_s: float = 120.0) -> NodeStatus:
        node = self.state.node(ref)
        with self.state.lock:  # a node that could not start again is not stopped
            self.state.refresh_from_disk()
            self._check_brokers_for(node)
        self.stop(ref)
        return self.start(ref, timeout_s)

    def stop(self, ref: str, timeout_s: float = STOP_TIMEOUT_S) -> NodeStatus:
        """SIGTERM: Kafka's controlled shutdown (leaders move away first); SIGKILL if it has not exited in time."""
        node = self.state.node(ref)
        self.runner.stop_nodes([node], NodeState.DOWN, timeout_s=timeout_s)
        return self.snapshot().node(node.name)

    def kill(self, ref: str) -> NodeStatus:
        """SIGKILL, the labs' `kill -9`: no controlled shutdown, so in ZooKeeper mode the broker stays registered
        until its session times out, and in KRaft until its heartbeats are missed."""
        node = self.state.node(ref)
        self.runner.stop_nodes([node], NodeState.KILLED)
        return self.snapshot().node(node.name)

    def add_broker(self, timeout_s: float = 120.0) -> NodeStatus:
        """One more broker (broker-only in KRaft: the quorum keeps its voters), with the next id and port."""
        with self.state.lock, self.state.file_lock():
            self.state.refresh_from_disk()
            index = sum(1 for n in self.state.nodes if n.is_broker)
            node = broker_node(self.state.spec, self.state.mode, index)
            if node.role is ProcessRole.COMBINED or any(n.name == node.name for n in self.state.nodes):
                node = NodeSpec(f"broker-{node.node_id}", ProcessRole.BROKER, node.node_id, node.port)
            if any(n.name == node.name or n.port == node.port for n in self.state.nodes):
                raise SupervisorError(f"cannot add {node.name}: its id or port {node.port} is taken in this cluster")
            self.runner.check_ports([node])
            self.state.nodes = (*self.state.nodes, node)
            self.state.save()
        return self.start(node.name, timeout_s)

    def add_connect(self, timeout_s: float = 120.0) -> NodeStatus:
        """One more Kafka Connect worker in the lab's Connect group, with the next name and REST port."""
        with self.state.lock, self.state.file_lock():
            self.state.refresh_from_disk()
            node = connect_node(self.state.spec, sum(1 for n in self.state.nodes if n.is_connect))
            if any(n.name == node.name or node.port in n.ports for n in self.state.nodes):
                raise SupervisorError(f"cannot add {node.name}: its name or port {node.port} is taken in this cluster")
            self._check_brokers_for(node)
            self.runner.check_ports([node])
            self.state.nodes = (*self.state.nodes, node)
            self.state.save()
        return self.start(node.name, timeout_s)

    def _check_brokers_for(self, node: NodeSpec) -> None:
        """A Connect worker keeps its state in the brokers' topics: with none running it would never serve. On an OAuth
        lab a broker or worker logs in with a token from the lab's issuer, and a broker reads its keys as it starts:
        never started for it (the user stopped it, or it failed), it is named."""
        issuer = next((n for n in self.state.nodes if n.is_issuer), None)
        if issuer is not None and (node.is_broker or node.is_connect) and not self.state.alive(issuer.name):
            raise SupervisorError(
                f"{node.name} logs in with a token from the lab's OIDC issuer, which is not running: start it first "
                f"(`kafkatop start {issuer.name}`, or `s` on its pane)"
            )
        if node.is_connect and not any(n.is_broker and self.state.alive(n.name) for n in self.state.nodes):
            raise SupervisorError(
                f"{node.name} keeps its state in the lab's brokers, and none runs: start them first (`kafkatop up`)"
            )

    # --- stopping ----------------------------------------------------------------------------------------------
    def down(self, timeout_s: float = STOP_TIMEOUT_S) -> tuple[str, ...]:
        """Stop every node: Connect workers first (a clean stop commits their tasks' offsets and leaves their group,
        through the brokers), then brokers, then controllers, then ZooKeeper — brokers hang in controlled shutdown
        when the controllers they report to are gone first. The nodes that were running: none, when it was stopped."""
        with self.state.lock:
            self.state.refresh_from_disk()
        order = (
            [n for n in self.state.nodes if n.is_connect],
            [n for n in self.state.nodes if n.is_broker],
            [n for n in self.state.nodes if n.role is ProcessRole.CONTROLLER],
            [n for n in self.state.nodes if n.role is ProcessRole.ZOOKEEPER],
            [n for n in self.state.nodes if n.is_issuer],  # last: a broker's controlled shutdown may log in anew
        )
        return tuple(
            name for group in order for name in self.runner.stop_nodes(group, NodeState.DOWN, timeout_s=timeout_s)
        )

    def release(self) -> None:
        """Leave every node running for a later kafkatop (`--detach`): recorded as such in the state file."""
        with self.state.file_lock():
            self.state.detached = True
            self.state.save()

    def started_here(self) -> tuple[str, ...]:
        """The running nodes this kafkatop started (its children), as opposed to ones it found running."""
        with self.state.lock:
            return tuple(
                n.name
                for n in self.state.nodes
                if (run := self.state.running.get(n.name)) is not None
                and run.proc is not None
                and self.state.alive(n.name)
            )

    def close(self) -> None:
        """On exit: stop the nodes this kafkatop started (never ones it attached to), unless released."""
        if self.state.detached:
            return
        with self.state.lock:
            ours = {name for name, run in self.state.running.items() if run.proc is not None}
        for group in (
            [n for n in self.state.nodes if n.is_connect and n.name in ours],
            [n for n in self.state.nodes if n.is_broker and n.name in ours],
            [n for n in self.state.nodes if n.role is ProcessRole.CONTROLLER and n.name in ours],
            [n for n in self.state.nodes if n.role is ProcessRole.ZOOKEEPER and n.name in ours],
            [n for n in self.state.nodes if n.is_issuer and n.name in ours],
        ):
            self.runner.stop_nodes(group, NodeState.DOWN)

    # --- reading -----------------------------------------------------------------------------------------------
    def snapshot(self) -> LabSnapshot:
        security, rest = self.runner.security, rest_auth(self.state)
        workers = any(n.is_connect for n in self.state.nodes)
        with self.state.lock:
            statuses = []
            for node in self.state.nodes:
                run = self.state.running.get(node.name)
                intent = self.state.intent.get(node.name, NodeState.DOWN)
                config, log = self.state.config_path(node), self.state.log_path(node)
                if run is not None and self.state.alive(node.name):
                    ready = run.ready or self.runner.is_ready(node, run)
                    run.ready = ready
                    now = NodeState.UP if ready else NodeState.STARTING
                    if intent in (NodeState.DOWN, NodeState.KILLED):
                        now = NodeState.STOPPING
                    orphan = None
                    if run.proc is None and not run.detached and run.owner_pid and not psutil.pid_exists(run.owner_pid):
                        orphan = f"left running by kafkatop pid {run.owner_pid}, which exited; `kafkatop down` stops it"
                    statuses.append(NodeStatus(node, now, run.pid, run.create_time, config, log, orphan))
                    continue
                detail = None
                if run is not None and run.proc is not None and intent is NodeState.UP:
                    detail = f"exited with code {run.proc.returncode}"
                if intent is NodeState.UP:
                    now = NodeState.FAILED
                    detail = detail or "exited (not stopped by kafkatop)"
                else:
                    now = intent
                statuses.append(NodeStatus(node, now, None, None, config, log, detail))
            return LabSnapshot(
                self.state.spec.name,
                self.state.mode,
                str(self.state.install.home),
                str(self.state.install.version),
                self.state.cluster_id,
                self.state.state_dir,
                tuple(statuses),
                self.state.spec.security,
                security.client_properties_path if security.enabled else None,
                _existing(security.admin_properties_path),
                self.state.spec.authorizer,
                _existing(security.controller_admin_properties_path),
                _existing(rest.properties_path) if workers and security.enabled else None,
                _existing(rest.netrc_path) if workers and security.enabled else None,
                security.issuer.url if security.issuer is not None else None,
            )

    def refresh(self) -> LabSnapshot:
        with self.state.lock:
            self.state.refresh_from_disk()
        return self.snapshot()


def _existing(path: Path | None) -> Path | None:
    """`path` if it is a file (a lab made before kafkatop wrote it has none)."""
    return path if path is not None and path.is_file() else None
