"""The process source: the JVMs of Kafka clusters on this host, found with psutil.

Brokers and KRaft nodes run main class `kafka.Kafka` (Confluent 3.x: `io.confluent.support.metrics.SupportedKafka`)
with their properties file as the first argument after it; ZooKeeper runs `QuorumPeerMain` or
`ZooKeeperServerMain` with its config; a Kafka Connect worker runs `ConnectDistributed` with its worker properties
(its REST listener is its client port). That includes nodes started by hand as in the labs
(`bin/kafka-server-start.sh config/server-1.properties`): the shell scripts `exec` java, and when a wrapper does not,
the wrapper is skipped because only the java process carries the main class.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psutil

from kafkatop.backends.lab.properties import listener_port, read_properties, split_list
from kafkatop.backends.model.cluster import Problem
from kafkatop.backends.model.errors import PropertiesError
from kafkatop.backends.model.nodes import KafkaProcess, ProcessRole, ProcessSnapshot, ProcessStatus

SOURCE = "processes"
KAFKA_MAIN_CLASSES = frozenset({"kafka.Kafka", "io.confluent.support.metrics.SupportedKafka"})
ZOOKEEPER_MAIN_CLASSES = frozenset(
    {"org.apache.zookeeper.server.quorum.QuorumPeerMain", "org.apache.zookeeper.server.ZooKeeperServerMain"}
)
CONNECT_MAIN_CLASSES = frozenset({"org.apache.kafka.connect.cli.ConnectDistributed"})
CONNECT_DEFAULT_LISTENER = "http://:8083"  # Connect's REST listener when its properties name none
# A first reading of CPU % needs an interval behind it; new processes are primed and read this much later.
CPU_PRIME_S = 0.1

_STATUS = {
    psutil.STATUS_RUNNING: ProcessStatus.RUNNING,
    psutil.STATUS_SLEEPING: ProcessStatus.SLEEPING,
    psutil.STATUS_DISK_SLEEP: ProcessStatus.SLEEPING,
    psutil.STATUS_IDLE: ProcessStatus.SLEEPING,
    psutil.STATUS_STOPPED: ProcessStatus.STOPPED,
    psutil.STATUS_TRACING_STOP: ProcessStatus.STOPPED,
    psutil.STATUS_ZOMBIE: ProcessStatus.ZOMBIE,
    psutil.STATUS_DEAD: ProcessStatus.GONE,
}


@dataclass(frozen=True, slots=True)
class JvmCommandLine:
    """What the command line of a Kafka or ZooKeeper JVM says, before its properties file is read."""

    main_class: str
    config_file: str | None  # as written on the command line (may be relative to the process's cwd)
    overrides: dict[str, str]  # kafka.Kafka's `--override key=value`

    @property
    def is_zookeeper(self) -> bool:
        return self.main_class in ZOOKEEPER_MAIN_CLASSES

    @property
    def is_connect(self) -> bool:
        return self.main_class in CONNECT_MAIN_CLASSES


def parse_jvm_cmdline(cmdline: list[str]) -> JvmCommandLine | None:
    """None unless this is a java process running a Kafka, ZooKeeper or Kafka Connect main class."""
    if not cmdline or not os.path.basename(cmdline[0]).startswith("java"):
        return None
    for i, arg in enumerate(cmdline[1:], start=1):
        if arg in KAFKA_MAIN_CLASSES or arg in ZOOKEEPER_MAIN_CLASSES or arg in CONNECT_MAIN_CLASSES:
            rest = cmdline[i + 1 :]
            overrides: dict[str, str] = {}
            config = None
            j = 0
            while j < len(rest):
                if rest[j] == "--override" and j + 1 < len(rest):
                    key, _, value = rest[j + 1].partition("=")
                    overrides[key] = value
                    j += 2
                    continue
                if config is None and not rest[j].startswith("-"):
                    config = rest[j]
                j += 1
            return JvmCommandLine(arg, config, overrides)
    return None


@dataclass(frozen=True, slots=True)
class NodeConfig:
    role: ProcessRole
    node_id: int | None
    listeners: tuple[str, ...]
    log_dirs: tuple[str, ...]
    client_port: int | None


def node_config(cmd: JvmCommandLine, config_path: Path | None) -> NodeConfig:
    """Role, id, listeners and data dirs from the properties file (and --overrides); raises PropertiesError."""
    props: dict[str, str] = {}
    if config_path is not None:
        props = read_properties(config_path)
    props.update(cmd.overrides)
    if cmd.is_zookeeper:
        client_port = props.get("clientPort")
        if client_port is not None and not client_port.strip().isdigit():
            raise PropertiesError(str(config_path), f"clientPort={client_port!r} is not a port number")
        myid = None
        data_dir = props.get("dataDir")
        if data_dir:
            try:
                myid = int((Path(data_dir) / "myid").read_text().strip())
            except (OSError, ValueError):
                myid = None
        return NodeConfig(
            ProcessRole.ZOOKEEPER, myid, (), (data_dir,) if data_dir else (), int(client_port) if client_port else None
        )
    if cmd.is_connect:
        listeners = split_list(props.get("listeners") or CONNECT_DEFAULT_LISTENER)
        return NodeConfig(ProcessRole.CONNECT, None, listeners, (), listener_port(listeners[0]) if listeners else None)
    roles = set(split_list(props.get("process.roles")))
    if roles == {"broker", "controller"}:
        role = ProcessRole.COMBINED
    elif roles == {"controller"}:
        role = ProcessRole.CONTROLLER
    else:
        role = ProcessRole.BROKER  # `broker` in KRaft, or ZooKeeper mode (no process.roles)
    raw_id = props.get("node.id") or props.get("broker.id")
    node_id: int | None = None
    if raw_id is not None and raw_id.strip():
        try:
            node_id = int(raw_id.strip())
        except ValueError:
            raise PropertiesError(str(config_path), f"node id {raw_id!r} is not a number") from None
    listeners = split_list(props.get("listeners"))
    controller_names = set(split_list(props.get("controller.listener.names")))
    client = [listener for listener in listeners if listener.split("://", 1)[0] not in controller_names]
    port = listener_port(client[0]) if client else listener_port(listeners[0]) if listeners else None
    if not listeners and "port" in props and props["port"].isdigit():  # Kafka ≤ 0.10 style
        port = int(props["port"])
    log_dirs = split_list(props.get("log.dirs") or props.get("log.dir"))
    return NodeConfig(role, node_id, listeners, log_dirs, port)


class ProcessSource:
    """Finds and measures cluster JVMs. Keeps psutil handles between polls so CPU % is a real interval reading.

    `selector` narrows discovery to one cluster (for example, processes whose properties file lies under a lab's
    state directory); by default every Kafka and ZooKeeper JVM this user can see is reported.
    """

    def __init__(self, selector: Callable[[KafkaProcess], bool] | None = None) -> None:
        self.selector = selector
        self._handles: dict[int, psutil.Process] = {}
        self._configs: dict[int, tuple[NodeConfig | None, str | None, str | None]] = {}

    def poll(self) -> ProcessSnapshot:
        found: dict[int, psutil.Process] = {}
        cmds: dict[int, JvmCommandLine] = {}
        for proc in psutil.process_iter(["cmdline"]):
            cmd = parse_jvm_cmdline(proc.info.get("cmdline") or [])
            if cmd is None:
                continue
            pid = proc.pid
            found[pid] = self._handles.get(pid) or proc
            cmds[pid] = cmd
        new = [pid for pid in found if pid not in self._handles]
        for pid in new:
            try:
                found[pid].cpu_percent(None)  # prime: the next call measures from here
            except psutil.Error:
                pass
        if new:
            time.sleep(CPU_PRIME_S)
        for pid in set(self._handles) - set(found):
            self._configs.pop(pid, None)
        self._handles = found

        processes: list[KafkaProcess] = []
        problems: list[Problem] = []
        for pid, handle in sorted(found.items()):
            snap = self._measure(handle, cmds[pid])
            if snap is None:
                continue
            if self.selector is not None and not self.selector(snap):
                continue
            processes.append(snap)
            if snap.problem:
                problems.append(Problem(SOURCE, f"pid {pid} {snap.properties_file or ''}".strip(), snap.problem))
        return ProcessSnapshot(time.time(), tuple(processes), tuple(problems))

    def _config(self, handle: psutil.Process, cmd: JvmCommandLine) -> tuple[NodeConfig | None, str | None, str | None]:
        """Read once per process: a running JVM does not re-read its properties file."""
        cached = self._configs.get(handle.pid)
        if cached is not None:
            return cached
        path: Path | None = None
        problem: str | None = None
        if cmd.config_file is not None:
            path = Path(cmd.config_file)
            if not path.is_absolute():
                try:
                    path = Path(handle.cwd()) / path
                except psutil.Error:
                    problem = f"cannot resolve relative path {cmd.config_file} (no access to the process's cwd)"
        elif not cmd.overrides:
            problem = f"no properties file on the command line after {cmd.main_class}"
        config: NodeConfig | None = None
        if problem is None:
            try:
                config = node_config(cmd, path)
            except PropertiesError as e:
                problem = f"properties file {e.path}: {e.reason}"
        result = (config, str(path) if path is not None else cmd.config_file, problem)
        self._configs[handle.pid] = result
        return result

    def _measure(self, handle: psutil.Process, cmd: JvmCommandLine) -> KafkaProcess | None:
        config, properties_file, problem = self._config(handle, cmd)
        if config is not None:
            role = config.role
        elif cmd.is_zookeeper:
            role = ProcessRole.ZOOKEEPER
        else:
            role = ProcessRole.CONNECT if cmd.is_connect else ProcessRole.BROKER
        try:
            with handle.oneshot():
                status = _STATUS.get(handle.status(), ProcessStatus.OTHER)
                cpu = handle.cpu_percent(None)
                rss = handle.memory_info().rss
                threads = handle.num_threads()
                started = handle.create_time()
                try:
                    fds: int | None = handle.num_fds()
                except (psutil.AccessDenied, AttributeError):
                    fds = None
                try:
                    ports = tuple(
                        sorted(
                            {
                                c.laddr.port
                                for c in handle.net_connections(kind="inet")
                                if c.status == psutil.CONN_LISTEN and c.laddr
                            }
                        )
                    )
                except psutil.AccessDenied:
                    ports = ()
        except psutil.NoSuchProcess:
            return None  # exited between discovery and measurement
        except psutil.AccessDenied:
            return KafkaProcess(
                pid=handle.pid,
                role=role,
                node_id=config.node_id if config else None,
                status=ProcessStatus.OTHER,
                cpu_percent=0.0,
                rss_bytes=0,
                threads=0,
                open_fds=None,
                listening_ports=(),
                started_at=0.0,
                uptime_s=0.0,
                properties_file=properties_file,
                problem="access denied (another user's process)",
            )
        return KafkaProcess(
            pid=handle.pid,
            role=role,
            node_id=config.node_id if config else None,
            status=status,
            cpu_percent=cpu,
            rss_bytes=rss,
            threads=threads,
            open_fds=fds,
            listening_ports=ports,
            started_at=started,
            uptime_s=max(0.0, time.time() - started),
            properties_file=properties_file,
            log_dirs=config.log_dirs if config else (),
            listeners=config.listeners if config else (),
            client_port=config.client_port if config else None,
            problem=problem,
        )
