"""The lab cluster supervisor: starts, watches, stops, kills and restarts the nodes of a cluster from a Kafka install.

One state directory per cluster name holds everything: generated configs, data dirs, one log per process and
`cluster.json` (spec, cluster id, and each node's pid with its start time). A second kafkatop — `kafkatop kill 2` from
another shell, or the TUI after `kafkatop up --detach` — attaches through that file. A pid is only ever signalled
when its start time matches the one recorded, so a recycled pid is never mistaken for a node.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import psutil

from kafkatop.backends.errors import KafkatopError
from kafkatop.backends.install import KafkaInstall, LabMode, open_install
from kafkatop.backends.lab_config import node_properties, zookeeper_properties
from kafkatop.backends.lab_spec import HOST, ClusterSpec, NodeSpec, broker_node, cluster_nodes
from kafkatop.backends.local_nodes import wait_gone
from kafkatop.backends.model import ProcessRole
from kafkatop.backends.zookeeper_server import four_letter_word

STATE_FILE = "cluster.json"
STATE_FORMAT = 1
ZOOKEEPER_HEAP = "128m"
# A lab node is small and mostly idle, but its start is CPU-bound: Kafka's defaults (G1, both JIT tiers) take ~4-5
# CPU-s per JVM, so three nodes starting together starve a 2-core laptop. C1 only, one compiler thread and the
# serial collector halve that (bench/cluster_up.py: 3 nodes ready in ~4.8 s instead of ~8.1 s). A user's own
# KAFKA_JVM_PERFORMANCE_OPTS wins.
LAB_JVM_OPTS = (
    "-server -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -XX:-UsePerfData -Djava.awt.headless=true"
)
STOP_TIMEOUT_S = 30.0  # a broker's controlled shutdown moves its leaders away first; give it time before SIGKILL
# The line each Kafka generation logs once a node serves: ZooKeeper-mode brokers, Confluent 3.x, and KRaft nodes.
_STARTED = re.compile(r"\[KafkaServer id=\d+\] started|\[Kafka Server \d+\], started|Kafka Server started")
_LOG_TAIL_BYTES = 64 * 1024


class SupervisorError(KafkatopError):
    """The supervisor could not do what was asked; the message says why and what to do."""


class NodeStartError(SupervisorError):
    def __init__(self, node: str, reason: str, log_tail: str) -> None:
        super().__init__(f"{node} {reason}; its last log lines:\n{log_tail}" if log_tail else f"{node} {reason}")
        self.node = node
        self.reason = reason
        self.log_tail = log_tail


class PortInUse(SupervisorError):
    pass


class NodeState(StrEnum):
    STARTING = "starting"
    UP = "up"
    STOPPING = "stopping"
    DOWN = "down"  # stopped cleanly, or never started
    KILLED = "killed"  # SIGKILL from kafkatop: the labs' kill -9
    FAILED = "failed"  # exited by itself


@dataclass(frozen=True, slots=True)
class NodeStatus:
    node: NodeSpec
    state: NodeState
    pid: int | None
    started_at: float | None  # epoch seconds of the running process
    config_path: Path
    log_path: Path
    detail: str | None = None  # e.g. "exited with code 1", "left running by a kafkatop that has exited"

    @property
    def name(self) -> str:
        return self.node.name


@dataclass(frozen=True, slots=True)
class LabSnapshot:
    name: str
    mode: LabMode
    kafka_home: str
    kafka_version: str
    cluster_id: str | None
    state_dir: Path
    nodes: tuple[NodeStatus, ...]

    @property
    def bootstrap_servers(self) -> str:
        return ",".join(f"{HOST}:{n.node.port}" for n in self.nodes if n.node.is_broker)

    @property
    def zookeeper_connect(self) -> str | None:
        return next((f"{HOST}:{n.node.port}" for n in self.nodes if n.node.role is ProcessRole.ZOOKEEPER), None)

    def node(self, name: str) -> NodeStatus:
        return next(n for n in self.nodes if n.name == name)


def default_state_root(environ: Mapping[str, str] = os.environ) -> Path:
    base = environ.get("XDG_STATE_HOME") or str(Path(environ.get("HOME", str(Path.home()))) / ".local" / "state")
    return Path(base) / "kafkatop"


def new_cluster_id() -> str:
    """A Kafka Uuid as `kafka-storage.sh random-uuid` prints it: 16 random bytes, URL-safe base64, no padding.
    Kafka never hands out one starting with '-' (it would read as a command-line flag)."""
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode("ascii")
        if not text.startswith("-"):
            return text


def port_holder(port: int) -> str | None:
    """Who listens on `port`, for the error message: 'pid 4242 (java … kafka.Kafka server.properties)'."""
    try:
        conns = psutil.net_connections(kind="tcp")
    except psutil.Error:
        return None
    for c in conns:
        if c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port:
            if c.pid is None:
                return "a process of another user"
            try:
                cmd = " ".join(psutil.Process(c.pid).cmdline())
            except psutil.Error:
                cmd = "?"
            return f"pid {c.pid} ({cmd[:117] + '…' if len(cmd) > 120 else cmd})"
    return None


def port_is_free(port: int, host: str = HOST) -> bool:
    with socket.socket() as s:
        # As Kafka binds: SO_REUSEADDR, so a just-killed node's TIME_WAIT sockets do not count as "in use".
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def _accepting(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=0.25):
            return True
    except OSError:
        return False


def _read_tail(path: Path, lines: int) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - _LOG_TAIL_BYTES))
            data = f.read()
    except OSError:
        return ""
    return "\n".join(data.decode("utf-8", errors="replace").splitlines()[-lines:])


@dataclass
class _Running:
    """A node process this kafkatop knows: its own child (proc set) or one attached through the state file."""

    pid: int
    create_time: float
    proc: subprocess.Popen[bytes] | None
    log_offset: int  # where this run's output starts in the node's log
    ready: bool = False
    owner_pid: int | None = None  # the kafkatop that started it, when another one did
    detached: bool = True


class LabCluster:
    """Supervises one lab cluster. Thread-safe: the TUI calls actions from worker threads while polling."""

    def __init__(self, state_dir: Path, install: KafkaInstall, spec: ClusterSpec, mode: LabMode) -> None:
        self.state_dir = state_dir
        self.install = install
        self.spec = spec
        self.mode = mode
        self.nodes: tuple[NodeSpec, ...] = cluster_nodes(spec, mode)
        self.cluster_id: str | None = None
        self._lock = threading.RLock()
        self._running: dict[str, _Running] = {}
        self._intent: dict[str, NodeState] = {}  # the last thing asked of each node: up, down or killed
        self._detached = False

    # --- creating and opening ----------------------------------------------------------------------------------
    @classmethod
    def create_or_open(cls, state_root: Path, install: KafkaInstall, spec: ClusterSpec) -> tuple[LabCluster, list[str]]:
        """The cluster `spec.name` under `state_root`: opened when it exists (its recorded spec wins; the notes say
        where the asked-for spec differs), else created with `spec`. Nothing is started."""
        state_dir = state_root / spec.name
        if (state_dir / STATE_FILE).exists():
            cluster = cls.open(state_dir)
            notes = cluster._differences(install, spec)
            return cluster, notes
        mode = spec.mode or install.default_mode
        install.check_mode(mode)
        spec = ClusterSpec(**{**_spec_dict(spec), "mode": mode}).validate()
        cluster = cls(state_dir, install, spec, mode)
        for node in cluster.nodes:  # a missing stock file fails here, before anything is recorded
            install.stock_config(mode, cluster._stock_role(node))
        _ensure_writable(state_dir)
        if mode == "kraft":
            cluster.cluster_id = new_cluster_id()
        with cluster._state_lock():
            cluster._save()
        return cluster, []

    @classmethod
    def open(cls, state_dir: Path) -> LabCluster:
        path = state_dir / STATE_FILE
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise SupervisorError(
                f"no lab cluster at {state_dir}: start one with `kafkatop up` (or give --name / --state-dir)"
            ) from None
        except (OSError, ValueError) as e:
            raise SupervisorError(f"{path}: unreadable state file ({e}); move it away to start over") from None
        try:
            install = open_install(data["kafka_home"])
            spec = ClusterSpec(
                **{**data["spec"], "broker_properties": tuple(map(tuple, data["spec"]["broker_properties"]))}
            )
            cluster = cls(state_dir, install, spec, data["mode"])
            cluster.nodes = tuple(_node_from_json(n) for n in data["nodes"])
            cluster.cluster_id = data.get("cluster_id")
            cluster._refresh_from_disk()
        except (KeyError, TypeError, ValueError) as e:
            raise SupervisorError(f"{path}: malformed state file ({e}); move it away to start over") from None
        return cluster

    def _differences(self, install: KafkaInstall, asked: ClusterSpec) -> list[str]:
        notes = []
        if install.home.resolve() != self.install.home.resolve():
            notes.append(f"it runs Kafka from {self.install.home}, not {install.home}")
        for key in ("mode", "brokers", "base_port", "zookeeper_port", "controllers", "heap"):
            want = getattr(asked, key)
            have = self.mode if key == "mode" else getattr(self.spec, key)
            if key == "brokers":
                have = sum(1 for n in self.nodes if n.is_broker)
            if want is not None and want != getattr(ClusterSpec(), key) and want != have:
                notes.append(f"{key} is {have}, not {want}")
        if notes:
            notes.insert(0, f"cluster {self.spec.name!r} already exists at {self.state_dir}, so it is used as it is:")
            notes.append("use another --name, or `kafkatop down --delete` first, for a different cluster")
        return notes

    def _stock_role(self, node: NodeSpec) -> str:
        if node.role is ProcessRole.ZOOKEEPER:
            return "zookeeper"
        if self.mode == "zk":
            return "broker"
        return {ProcessRole.BROKER: "broker", ProcessRole.CONTROLLER: "controller"}.get(node.role, "combined")

    # --- paths -------------------------------------------------------------------------------------------------
    def config_path(self, node: NodeSpec) -> Path:
        return self.state_dir / "config" / f"{node.name}.properties"

    def log_path(self, node: NodeSpec) -> Path:
        return self.state_dir / "logs" / f"{node.name}.log"

    def data_dir(self, node: NodeSpec) -> Path:
        return self.state_dir / "data" / node.name

    def node(self, ref: str) -> NodeSpec:
        """A node by name (`broker-2`), by id (`2`), or `zookeeper`/`zk`."""
        ref = ref.strip()
        for n in self.nodes:
            if ref == n.name or (ref in ("zk", "zookeeper") and n.role is ProcessRole.ZOOKEEPER):
                return n
            if ref.isdigit() and n.node_id == int(ref):
                return n
        names = ", ".join(n.name for n in self.nodes)
        raise SupervisorError(f"no node {ref!r} in cluster {self.spec.name!r}; its nodes are: {names}")

    # --- state file --------------------------------------------------------------------------------------------
    @contextmanager
    def _state_lock(self) -> Iterator[None]:
        """One writer at a time across processes (the TUI and a `kafkatop kill` from another shell)."""
        with self._lock, open(self.state_dir / ".lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _save(self) -> None:
        nodes = []
        for n in self.nodes:
            entry: dict[str, Any] = {**asdict(n), "role": n.role.value}
            run = self._running.get(n.name)
            if run is not None:
                entry |= {"pid": run.pid, "create_time": run.create_time}
                if run.proc is not None:
                    entry |= {"owner_pid": os.getpid(), "detached": self._detached}
                else:
                    entry |= {"owner_pid": run.owner_pid, "detached": run.detached}
            if n.name in self._intent:
                entry["intent"] = self._intent[n.name].value
            nodes.append(entry)
        data = {
            "format": STATE_FORMAT,
            "name": self.spec.name,
            "kafka_home": str(self.install.home),
            "kafka_version": str(self.install.version),
            "mode": self.mode,
            "cluster_id": self.cluster_id,
            "spec": _spec_dict(self.spec),
            "nodes": nodes,
        }
        tmp = self.state_dir / f".{STATE_FILE}.tmp"
        tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, self.state_dir / STATE_FILE)  # never a half-written state file

    def _refresh_from_disk(self) -> None:
        """Pick up what another kafkatop did to this cluster (a node started or killed from another shell)."""
        try:
            data = json.loads((self.state_dir / STATE_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        known = {n.name for n in self.nodes}
        for n in data.get("nodes", []):
            try:
                if n["name"] not in known:
                    self.nodes = (*self.nodes, _node_from_json(n))
                run = self._running.get(n["name"])
                pid, ctime = n.get("pid"), n.get("create_time")
                if pid and ctime and (run is None or run.pid != pid) and _same_process(pid, ctime):
                    # Started by another kafkatop: watched and controllable here, but not stopped on our exit.
                    owner, detached = n.get("owner_pid"), bool(n.get("detached", True))
                    self._running[n["name"]] = _Running(pid, ctime, None, 0, True, owner, detached)
                if n.get("intent"):
                    self._intent[n["name"]] = NodeState(n["intent"])
            except (KeyError, TypeError, ValueError):
                continue

    # --- preparing ---------------------------------------------------------------------------------------------
    def prepare(self, nodes: tuple[NodeSpec, ...] | None = None) -> None:
        """Configs written once (a user's edits survive), data and log dirs made, KRaft storage formatted once."""
        nodes = self.nodes if nodes is None else nodes
        for sub in ("config", "logs", "data"):
            (self.state_dir / sub).mkdir(parents=True, exist_ok=True)
        for node in nodes:
            path = self.config_path(node)
            if path.exists():
                continue
            stock = self.install.stock_config(self.mode, self._stock_role(node))
            if node.role is ProcessRole.ZOOKEEPER:
                text = zookeeper_properties(
                    stock.read_text(encoding="utf-8", errors="replace"),
                    spec=self.spec,
                    node=node,
                    data_dir=self.data_dir(node),
                    stock_path=stock,
                )
            else:
                text = node_properties(
                    stock.read_text(encoding="utf-8", errors="replace"),
                    spec=self.spec,
                    mode=self.mode,
                    node=node,
                    nodes=self.nodes,
                    log_dir=self.data_dir(node),
                    stock_path=stock,
                )
            path.write_text(text, encoding="utf-8")
        if self.mode == "kraft":
            self._format_storage([n for n in nodes if not (self.data_dir(n) / "meta.properties").exists()])

    def _format_storage(self, nodes: list[NodeSpec]) -> None:
        if not nodes:
            return
        assert self.cluster_id is not None
        script = str(self.install.script("kafka-storage"))
        procs = []
        for node in nodes:
            cmd = [script, "format", "-t", self.cluster_id, "-c", str(self.config_path(node))]
            env = self._env(node, heap="128m")
            procs.append(
                (
                    node,
                    subprocess.Popen(
                        cmd,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT,
                        stdin=subprocess.DEVNULL,
                        env=env,
                        start_new_session=True,
                    ),
                )
            )
        failures = []
        for node, proc in procs:  # formatting runs one JVM per node: in parallel, not one after another
            try:
                out, _ = proc.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, _ = proc.communicate()
            if proc.returncode != 0:
                text = out.decode("utf-8", errors="replace").strip().splitlines()[-10:]
                failures.append(f"{node.name}: kafka-storage format exited with {proc.returncode}:\n" + "\n".join(text))
        if failures:
            raise SupervisorError("formatting KRaft storage failed\n" + "\n".join(failures))

    def _env(self, node: NodeSpec, heap: str | None = None) -> dict[str, str]:
        env = dict(os.environ)
        size = heap or (ZOOKEEPER_HEAP if node.role is ProcessRole.ZOOKEEPER else self.spec.heap)
        env["KAFKA_HEAP_OPTS"] = f"-Xmx{size} -Xms{size}"
        env.setdefault("KAFKA_JVM_PERFORMANCE_OPTS", LAB_JVM_OPTS)
        env["LOG_DIR"] = str(self.state_dir / "logs" / node.name)
        # kafka-run-class.sh turns on remote JMX when this is empty; a lab node opens nothing beyond 127.0.0.1.
        env["KAFKA_JMX_OPTS"] = " "
        env.pop("JMX_PORT", None)
        return env

    # --- starting ----------------------------------------------------------------------------------------------
    def up(self, timeout_s: float = 180.0, on_ready: Callable[[NodeSpec, float], None] | None = None) -> LabSnapshot:
        """Start every node that is not running — ZooKeeper first, then the rest together — and wait until each
        serves. A node that fails, a timeout, or Ctrl-C stops the nodes this call started, then raises."""
        with self._lock:
            self._refresh_from_disk()
            pending = [n for n in self.nodes if not self._alive(n.name)]
            self.prepare(tuple(pending))
            self._check_ports(pending)
        first = [n for n in pending if n.role is ProcessRole.ZOOKEEPER]
        rest = [n for n in pending if n.role is not ProcessRole.ZOOKEEPER]
        started: list[NodeSpec] = []
        t0 = time.monotonic()
        try:
            for group in (first, rest):
                if not group:
                    continue
                for node in group:
                    self._launch(node)
                    started.append(node)
                self._wait_ready(group, t0 + timeout_s, t0, on_ready)
        except BaseException:  # a failure, a timeout or KeyboardInterrupt: leave nothing half-started behind
            self._stop_nodes(started, NodeState.DOWN, keep_intent=False)
            raise
        return self.snapshot()

    def start(self, ref: str, timeout_s: float = 120.0) -> NodeStatus:
        node = self.node(ref)
        with self._lock:
            self._refresh_from_disk()
            if self._alive(node.name):
                return self.snapshot().node(node.name)
            self.prepare((node,))
            self._check_ports([node])
            self._launch(node)
        try:
            self._wait_ready([node], time.monotonic() + timeout_s, time.monotonic(), None)
        except BaseException:
            self._stop_nodes([node], NodeState.DOWN, keep_intent=False)
            raise
        return self.snapshot().node(node.name)

    def restart(self, ref: str, timeout_s: float = 120.0) -> NodeStatus:
        self.stop(ref)
        return self.start(ref, timeout_s)

    def stop(self, ref: str, timeout_s: float = STOP_TIMEOUT_S) -> NodeStatus:
        """SIGTERM: Kafka's controlled shutdown (leaders move away first); SIGKILL if it has not exited in time."""
        node = self.node(ref)
        self._stop_nodes([node], NodeState.DOWN, timeout_s=timeout_s)
        return self.snapshot().node(node.name)

    def kill(self, ref: str) -> NodeStatus:
        """SIGKILL, the labs' `kill -9`: no controlled shutdown, so in ZooKeeper mode the broker stays registered
        until its session times out, and in KRaft until its heartbeats are missed."""
        node = self.node(ref)
        self._stop_nodes([node], NodeState.KILLED)
        return self.snapshot().node(node.name)

    def add_broker(self, timeout_s: float = 120.0) -> NodeStatus:
        """One more broker (broker-only in KRaft: the quorum keeps its voters), with the next id and port."""
        with self._lock, self._state_lock():
            self._refresh_from_disk()
            index = sum(1 for n in self.nodes if n.is_broker)
            node = broker_node(self.spec, self.mode, index)
            if node.role is ProcessRole.COMBINED or any(n.name == node.name for n in self.nodes):
                node = NodeSpec(f"broker-{node.node_id}", ProcessRole.BROKER, node.node_id, node.port)
            if any(n.name == node.name or n.port == node.port for n in self.nodes):
                raise SupervisorError(f"cannot add {node.name}: its id or port {node.port} is taken in this cluster")
            self._check_ports([node])
            self.nodes = (*self.nodes, node)
            self._save()
        return self.start(node.name, timeout_s)

    def _check_ports(self, nodes: list[NodeSpec]) -> None:
        busy = []
        for node in nodes:
            for port in node.ports:
                if not port_is_free(port):
                    holder = port_holder(port)
                    busy.append(f"port {port} ({node.name}) is in use{' by ' + holder if holder else ''}")
        if busy:
            raise PortInUse(
                "; ".join(busy) + ". Stop whatever holds it, or give this cluster other ports "
                "(`kafkatop down --delete` then `kafkatop up --base-port 19092`, or another --name)"
            )

    def _launch(self, node: NodeSpec) -> None:
        script = "zookeeper-server-start" if node.role is ProcessRole.ZOOKEEPER else "kafka-server-start"
        cmd = [str(self.install.script(script)), str(self.config_path(node))]
        log_path = self.log_path(node)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with self._state_lock():
            with open(log_path, "ab") as log:
                offset = log.tell()
                log.write(f"--- kafkatop: starting {node.name}: {' '.join(cmd)}\n".encode())
                log.flush()
                # Own session: a Ctrl-C in the terminal reaches kafkatop alone, which then stops the node itself,
                # in order; and kill/stop signal the whole group, so no wrapper script survives its JVM.
                proc = subprocess.Popen(
                    cmd,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    env=self._env(node),
                    cwd=self.state_dir,
                    start_new_session=True,
                )
            try:
                ctime = psutil.Process(proc.pid).create_time()
            except psutil.Error:
                ctime = 0.0
            self._running[node.name] = _Running(proc.pid, ctime, proc, offset)
            self._intent[node.name] = NodeState.UP
            self._save()

    def _is_ready(self, node: NodeSpec, run: _Running) -> bool:
        if node.role is ProcessRole.ZOOKEEPER:
            try:
                # `ruok` answers before ZooKeeper serves; `srvr` reports a Mode only once it does.
                return "Mode:" in four_letter_word(HOST, node.port, "srvr", 0.5)
            except OSError:
                return False
        if not _accepting(node.port):
            return False
        try:
            with open(self.log_path(node), "rb") as f:
                f.seek(run.log_offset)
                text = f.read().decode("utf-8", errors="replace")
        except OSError:
            return False
        return _STARTED.search(text) is not None

    def _wait_ready(
        self,
        nodes: list[NodeSpec],
        deadline: float,
        t0: float,
        on_ready: Callable[[NodeSpec, float], None] | None,
    ) -> None:
        waiting = list(nodes)
        while waiting:
            for node in list(waiting):
                with self._lock:
                    run = self._running.get(node.name)
                if run is None:
                    raise NodeStartError(node.name, "was stopped while starting", "")
                code = (
                    run.proc.poll()
                    if run.proc is not None
                    else (None if _same_process(run.pid, run.create_time) else -1)
                )
                if code is not None:
                    raise NodeStartError(node.name, f"exited with code {code} during start", self.log_tail(node.name))
                if self._is_ready(node, run):
                    run.ready = True
                    waiting.remove(node)
                    if on_ready is not None:
                        on_ready(node, time.monotonic() - t0)
            if waiting and time.monotonic() > deadline:
                names = ", ".join(n.name for n in waiting)
                raise NodeStartError(
                    names,
                    f"not ready after {deadline - t0:.0f} s",
                    "\n".join(self.log_tail(n.name, 10) for n in waiting),
                )
            if waiting:
                time.sleep(0.1)

    # --- stopping ----------------------------------------------------------------------------------------------
    def down(self, timeout_s: float = STOP_TIMEOUT_S) -> None:
        """Stop every node: brokers first, then controllers, then ZooKeeper — brokers hang in controlled shutdown
        when the controllers they report to are gone first."""
        with self._lock:
            self._refresh_from_disk()
        order = (
            [n for n in self.nodes if n.is_broker],
            [n for n in self.nodes if n.role is ProcessRole.CONTROLLER],
            [n for n in self.nodes if n.role is ProcessRole.ZOOKEEPER],
        )
        for group in order:
            self._stop_nodes(group, NodeState.DOWN, timeout_s=timeout_s)

    def release(self) -> None:
        """Leave every node running for a later kafkatop (`--detach`): recorded as such in the state file."""
        with self._state_lock():
            self._detached = True
            self._save()

    def close(self) -> None:
        """On exit: stop the nodes this kafkatop started (never ones it attached to), unless released."""
        if self._detached:
            return
        with self._lock:
            ours = {name for name, run in self._running.items() if run.proc is not None}
        for group in (
            [n for n in self.nodes if n.is_broker and n.name in ours],
            [n for n in self.nodes if n.role is ProcessRole.CONTROLLER and n.name in ours],
            [n for n in self.nodes if n.role is ProcessRole.ZOOKEEPER and n.name in ours],
        ):
            self._stop_nodes(group, NodeState.DOWN)

    def _stop_nodes(
        self, nodes: list[NodeSpec], final: NodeState, timeout_s: float = STOP_TIMEOUT_S, keep_intent: bool = True
    ) -> None:
        """Signal all, then wait for all, so a group of brokers shuts down in parallel."""
        sig = signal.SIGKILL if final is NodeState.KILLED else signal.SIGTERM
        targets: list[tuple[NodeSpec, _Running]] = []
        with self._lock:
            for node in nodes:
                self._intent[node.name] = final if keep_intent else NodeState.DOWN
                run = self._running.get(node.name)
                if run is None:
                    continue
                if run.proc is not None and run.proc.poll() is not None:
                    self._running.pop(node.name)
                    continue
                if run.proc is None and not _same_process(run.pid, run.create_time):
                    self._running.pop(node.name)  # gone, or its pid now belongs to someone else: never signal it
                    continue
                _signal_group(run.pid, sig)
                targets.append((node, run))
        deadline = time.monotonic() + timeout_s
        for _node, run in targets:
            if not _wait_exit(run, max(0.0, deadline - time.monotonic())):
                _signal_group(run.pid, signal.SIGKILL)
                _wait_exit(run, 10.0)
        with self._state_lock():
            for node, run in targets:
                if self._running.get(node.name) is run:
                    self._running.pop(node.name)
            self._save()

    # --- reading -----------------------------------------------------------------------------------------------
    def _alive(self, name: str) -> bool:
        run = self._running.get(name)
        if run is None:
            return False
        if run.proc is not None:
            return run.proc.poll() is None
        return _same_process(run.pid, run.create_time)

    def snapshot(self) -> LabSnapshot:
        with self._lock:
            statuses = []
            for node in self.nodes:
                run = self._running.get(node.name)
                intent = self._intent.get(node.name, NodeState.DOWN)
                config, log = self.config_path(node), self.log_path(node)
                if run is not None and self._alive(node.name):
                    state = NodeState.UP if run.ready or self._is_ready(node, run) else NodeState.STARTING
                    run.ready = state is NodeState.UP
                    if intent in (NodeState.DOWN, NodeState.KILLED):
                        state = NodeState.STOPPING
                    orphan = None
                    if run.proc is None and not run.detached and run.owner_pid and not psutil.pid_exists(run.owner_pid):
                        orphan = f"left running by kafkatop pid {run.owner_pid}, which exited; `kafkatop down` stops it"
                    statuses.append(NodeStatus(node, state, run.pid, run.create_time, config, log, orphan))
                    continue
                detail = None
                if run is not None and run.proc is not None and intent is NodeState.UP:
                    detail = f"exited with code {run.proc.returncode}"
                if intent is NodeState.UP:
                    state = NodeState.FAILED
                    detail = detail or "exited (not stopped by kafkatop)"
                else:
                    state = intent
                statuses.append(NodeStatus(node, state, None, None, config, log, detail))
            return LabSnapshot(
                self.spec.name,
                self.mode,
                str(self.install.home),
                str(self.install.version),
                self.cluster_id,
                self.state_dir,
                tuple(statuses),
            )

    def log_tail(self, ref: str, lines: int = 20) -> str:
        return _read_tail(self.log_path(self.node(ref)), lines)

    def refresh(self) -> LabSnapshot:
        with self._lock:
            self._refresh_from_disk()
        return self.snapshot()


# --- helpers ----------------------------------------------------------------------------------------------------
def _spec_dict(spec: ClusterSpec) -> dict[str, Any]:
    d = asdict(spec)
    d["broker_properties"] = [list(kv) for kv in spec.broker_properties]
    return d


def _node_from_json(n: Mapping[str, Any]) -> NodeSpec:
    return NodeSpec(n["name"], ProcessRole(n["role"]), n.get("node_id"), int(n["port"]), n.get("controller_port"))


def _same_process(pid: int, create_time: float) -> bool:
    try:
        p = psutil.Process(pid)
        same: bool = abs(p.create_time() - create_time) < 0.05 and p.status() != psutil.STATUS_ZOMBIE
        return same
    except psutil.Error:
        return False


def _signal_group(pid: int, sig: signal.Signals) -> None:
    """Each node leads its own process group (start_new_session): signal the group, so a wrapper script that did
    not `exec` its JVM cannot leave the JVM behind. Fall back to the pid alone for processes we did not start so."""
    try:
        if os.getpgid(pid) == pid:
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _wait_exit(run: _Running, timeout_s: float) -> bool:
    if run.proc is not None:
        try:
            run.proc.wait(timeout_s)
            return True
        except subprocess.TimeoutExpired:
            return False
    try:
        return wait_gone(psutil.Process(run.pid), timeout_s)
    except psutil.NoSuchProcess:
        return True


def _ensure_writable(state_dir: Path) -> None:
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        probe = state_dir / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise SupervisorError(
            f"cannot write the state directory {state_dir}: {e.strerror or e}; choose another with --state-dir DIR"
        ) from None
