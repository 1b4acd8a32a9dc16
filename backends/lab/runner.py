"""Starting, watching and stopping the processes of a lab cluster's nodes: configs written once, KRaft storage
formatted once, each JVM in a session of its own with its output in its log, readiness from its port and its log,
and a stop that escalates to SIGKILL."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import psutil

from kafkatop.backends.lab.local import wait_gone
from kafkatop.backends.lab.node_files import lab_security, rest_auth, write_node_files
from kafkatop.backends.lab.oauth import issuer_serves
from kafkatop.backends.lab.security import LabSecurity
from kafkatop.backends.lab.spec import HOST, NodeSpec
from kafkatop.backends.lab.state import LabState, RunningNode, SupervisorError, same_process
from kafkatop.backends.lab.storage import format_storage
from kafkatop.backends.lab.workers import CONNECT_HEAP, rest_version
from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.nodes import NodeState, ProcessRole
from kafkatop.backends.zookeeper.server import four_letter_word

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


class NodeStartError(SupervisorError):
    def __init__(self, node: str, reason: str, log_tail: str) -> None:
        super().__init__(f"{node} {reason}; its last log lines:\n{log_tail}" if log_tail else f"{node} {reason}")
        self.node = node
        self.reason = reason
        self.log_tail = log_tail


class PortInUse(SupervisorError, BadInput):
    """A port the cluster needs is taken: give other ports (exit 2)."""


# The flag that gives a node of each role its port, when a lab is made.
_PORT_FLAGS = {ProcessRole.ZOOKEEPER: "--zookeeper-port", ProcessRole.CONTROLLER: "--controller-port",
               ProcessRole.CONNECT: "--connect-port", ProcessRole.ISSUER: "--issuer-port"}  # fmt: skip


def check_ports_free(nodes: Sequence[NodeSpec], made: tuple[str, Path] | None = None) -> None:
    """PortInUse naming each taken port, its node and its holder, and the flag that would move it: for a lab being
    made; `made` (its name and state directory) for one made before, whose ports are fixed."""
    busy, flags = [], []
    for node in nodes:
        for port in node.ports:
            if not port_is_free(port):
                holder = port_holder(port)
                busy.append(f"port {port} ({node.name}) is in use{' by ' + holder if holder else ''}")
                role_flag = _PORT_FLAGS.get(node.role, "--base-port")
                flag = "--controller-port" if port == node.controller_port else role_flag
                flags += [flag] if flag not in flags else []
    if not busy:
        return
    if made is None:
        other_ports = f"give this lab other ports ({', '.join(flags)})"
    else:
        name, state_dir = made
        other_ports = (
            f"make lab {name!r} again on other ports: its ports are fixed once made (`kafkatop down --delete --name "
            f"{name} --state-dir {state_dir.parent}` deletes it and its data, then `kafkatop up` with "
            f"{', '.join(flags)}), or use another --name"
        )
    raise PortInUse("; ".join(busy) + f". Stop whatever holds it, or {other_ports}")


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


def accepting(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=0.25):
            return True
    except OSError:
        return False


def read_tail(path: Path, lines: int) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - _LOG_TAIL_BYTES))
            data = f.read()
    except OSError:
        return ""
    return "\n".join(data.decode("utf-8", errors="replace").splitlines()[-lines:])


class NodeRunner:
    """The processes of one lab cluster's nodes. Thread-safe through the state's locks."""

    def __init__(self, state: LabState) -> None:
        self.state = state

    def prepare(self, nodes: tuple[NodeSpec, ...] | None = None) -> None:
        """Configs written once (a user's edits survive), data and log dirs made, KRaft storage formatted once."""
        nodes = self.state.nodes if nodes is None else nodes
        for sub in ("config", "logs", "data"):
            (self.state.state_dir / sub).mkdir(parents=True, exist_ok=True)
        write_node_files(self.state, nodes)
        if self.state.mode == "kraft":
            unformatted = [n for n in nodes if n.is_kafka and not (self.state.data_dir(n) / "meta.properties").exists()]
            self._format_storage(unformatted)

    @property
    def security(self) -> LabSecurity:
        return lab_security(self.state)

    def rest_user_info(self) -> str | None:
        """USER:PASSWORD for the workers' REST API on a secured lab; None on a plaintext lab, whose workers ask none."""
        security = self.security
        return rest_auth(self.state).user_info(security.passwords()) if security.enabled else None

    def _format_storage(self, nodes: list[NodeSpec]) -> None:
        assert self.state.cluster_id is not None
        format_storage(
            self.state.install,
            self.state.cluster_id,
            [(node, self.state.config_path(node), self.env(node, heap="128m")) for node in nodes],
            self.security,
            self.state.spec.features,
        )

    def env(self, node: NodeSpec, heap: str | None = None) -> dict[str, str]:
        env = dict(os.environ)
        size = heap or {ProcessRole.ZOOKEEPER: ZOOKEEPER_HEAP, ProcessRole.CONNECT: CONNECT_HEAP}.get(
            node.role, self.state.spec.heap
        )
        env["KAFKA_HEAP_OPTS"] = f"-Xmx{size} -Xms{size}"
        env.setdefault("KAFKA_JVM_PERFORMANCE_OPTS", LAB_JVM_OPTS)
        env["LOG_DIR"] = str(self.state.state_dir / "logs" / node.name)
        # kafka-run-class.sh turns on remote JMX when this is empty; a lab node opens nothing beyond 127.0.0.1.
        env["KAFKA_JMX_OPTS"] = " "
        env.pop("JMX_PORT", None)
        options = []
        if node.is_connect and self.security.enabled:  # the REST API's users (connect_auth.py): a path, no secret
            options.append(rest_auth(self.state).jvm_option())
        issuer = self.security.issuer
        if issuer is not None and not node.is_issuer:  # Kafka 4 fetches a token or keys only from allowed URLs
            options.append(issuer.allowed_urls_option())
        if options:
            env["KAFKA_OPTS"] = " ".join((env.get("KAFKA_OPTS", ""), *options)).strip()
        return env

    def check_ports(self, nodes: list[NodeSpec]) -> None:
        check_ports_free(nodes, (self.state.spec.name, self.state.state_dir))

    def launch(self, node: NodeSpec) -> None:
        script = {ProcessRole.ZOOKEEPER: "zookeeper-server-start", ProcessRole.CONNECT: "connect-distributed"}.get(
            node.role, "kafka-server-start"
        )
        cmd = [str(self.state.install.script(script)), str(self.state.config_path(node))]
        if node.is_issuer and (issuer := self.security.issuer) is not None:
            cmd = issuer.command()
        log_path = self.state.log_path(node)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.state.file_lock():
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
                    env=self.env(node),
                    cwd=self.state.state_dir,
                    start_new_session=True,
                )
            try:
                ctime = psutil.Process(proc.pid).create_time()
            except psutil.Error:
                ctime = 0.0
            self.state.running[node.name] = RunningNode(proc.pid, ctime, proc, offset)
            self.state.intent[node.name] = NodeState.UP
            self.state.save()

    def is_ready(self, node: NodeSpec, run: RunningNode) -> bool:
        if node.role is ProcessRole.ZOOKEEPER:
            try:
                # `ruok` answers before ZooKeeper serves; `srvr` reports a Mode only once it does.
                return "Mode:" in four_letter_word(HOST, node.port, "srvr", 0.5)
            except OSError:
                return False
        if not accepting(node.port):
            return False
        if node.is_issuer:
            return issuer_serves(node.port)
        if node.is_connect:  # its REST port opens early, answering 404 until the worker has joined its group
            return rest_version(node.port, user_info=self.rest_user_info()) is not None
        try:
            with open(self.state.log_path(node), "rb") as f:
                f.seek(run.log_offset)
                text = f.read().decode("utf-8", errors="replace")
        except OSError:
            return False
        return _STARTED.search(text) is not None

    def wait_ready(
        self,
        nodes: list[NodeSpec],
        deadline: float,
        t0: float,
        on_ready: Callable[[NodeSpec, float], None] | None,
    ) -> None:
        waiting = list(nodes)
        while waiting:
            for node in list(waiting):
                with self.state.lock:
                    run = self.state.running.get(node.name)
                if run is None:
                    raise NodeStartError(node.name, "was stopped while starting", "")
                code = (
                    run.proc.poll()
                    if run.proc is not None
                    else (None if same_process(run.pid, run.create_time) else -1)
                )
                if code is not None:
                    raise NodeStartError(node.name, f"exited with code {code} during start", self.log_tail(node.name))
                if self.is_ready(node, run):
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

    def stop_nodes(
        self, nodes: list[NodeSpec], final: NodeState, timeout_s: float = STOP_TIMEOUT_S, keep_intent: bool = True
    ) -> tuple[str, ...]:
        """Signal all, then wait for all, so a group of brokers shuts down in parallel. The names of the nodes that
        were running (and were signalled): none, when every one was already stopped."""
        sig = signal.SIGKILL if final is NodeState.KILLED else signal.SIGTERM
        targets: list[tuple[NodeSpec, RunningNode]] = []
        # The intent is on disk before the signal: a shutdown takes seconds, and meanwhile a refresh_from_disk (an
        # add-broker, another kafkatop) would read the old intent back, and the stopped node be taken for failed.
        with self.state.file_lock():
            for node in nodes:
                self.state.intent[node.name] = final if keep_intent else NodeState.DOWN
                run = self.state.running.get(node.name)
                if run is None:
                    continue
                if run.proc is not None and run.proc.poll() is not None:
                    self.state.running.pop(node.name)
                    continue
                if run.proc is None and not same_process(run.pid, run.create_time):
                    self.state.running.pop(node.name)  # gone, or its pid now belongs to someone else: never signal it
                    continue
                signal_group(run.pid, sig)
                targets.append((node, run))
            self.state.save()
        deadline = time.monotonic() + timeout_s
        for _node, run in targets:
            if not wait_exit(run, max(0.0, deadline - time.monotonic())):
                signal_group(run.pid, signal.SIGKILL)
                wait_exit(run, 10.0)
        with self.state.file_lock():
            for node, run in targets:
                if self.state.running.get(node.name) is run:
                    self.state.running.pop(node.name)
            self.state.save()
        return tuple(node.name for node, _run in targets)

    def log_tail(self, ref: str, lines: int = 20) -> str:
        return read_tail(self.state.log_path(self.state.node(ref)), lines)


def signal_group(pid: int, sig: signal.Signals) -> None:
    """Each node leads its own process group (start_new_session): signal the group, so a wrapper script that did
    not `exec` its JVM cannot leave the JVM behind. Fall back to the pid alone for processes we did not start so."""
    try:
        if os.getpgid(pid) == pid:
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)
    except ProcessLookupError:
        pass


def wait_exit(run: RunningNode, timeout_s: float) -> bool:
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


def ensure_writable(state_dir: Path) -> None:
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        probe = state_dir / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise SupervisorError(
            f"cannot write the state directory {state_dir}: {e.strerror or e}; choose another with --state-dir DIR"
        ) from None
