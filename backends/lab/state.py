"""What kafkatop knows of one lab cluster — its spec, its nodes, each node's running process and last intent — and the
state file it shares with every other kafkatop of this cluster.

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
import shutil
import subprocess
import threading
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import psutil

from kafkatop.backends.lab.kafka_homes import (
    KafkaHomeInvalid,
    KafkaInstall,
    KafkaVersion,
    LabMode,
    Layout,
    open_install,
    xdg_home,
)
from kafkatop.backends.lab.oauth import CLIENTS_FILE, ISSUER_DIR
from kafkatop.backends.lab.security import SECURITY_DIR
from kafkatop.backends.lab.spec import HOST, ClusterSpec, NodeSpec, check_name, cluster_nodes
from kafkatop.backends.model.errors import BadInput, KafkatopError
from kafkatop.backends.model.nodes import NodeState, ProcessRole

STATE_FILE = "cluster.json"


STATE_FORMAT = 1


class SupervisorError(KafkatopError):
    """The supervisor could not do what was asked; the message says why and what to do."""


class UnknownNode(SupervisorError, BadInput):
    """A node name or id that the cluster does not have: the input is wrong (exit 2)."""


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
    security: str = "plaintext"  # the brokers' listener: plaintext, ssl, sasl_plaintext, sasl_ssl, sasl_oauthbearer
    client_properties: Path | None = None  # a secured lab's client settings (Java format), for --command-config
    admin_properties: Path | None = None  # a SASL lab's admin user's settings: kafkatop's own for this lab
    authorizer: bool = False  # StandardAuthorizer on every node: no ACL, no access (admin a super user)
    controller_admin_properties: Path | None = None  # admin's settings for --bootstrap-controller (SASL PLAIN there)
    connect_admin_properties: Path | None = None  # the Connect workers' REST user (basic auth), for kafkatop connect
    connect_netrc: Path | None = None  # the same, for curl --netrc-file
    issuer_url: str | None = None  # an OAuth lab's OIDC issuer (its token endpoint: /token)

    @property
    def bootstrap_servers(self) -> str:
        return ",".join(f"{HOST}:{n.node.port}" for n in self.nodes if n.node.is_broker)

    @property
    def zookeeper_connect(self) -> str | None:
        return next((f"{HOST}:{n.node.port}" for n in self.nodes if n.node.role is ProcessRole.ZOOKEEPER), None)

    @property
    def connect_urls(self) -> tuple[str, ...]:
        """The REST API of each Kafka Connect worker, in order: `http://127.0.0.1:9292`, …"""
        return tuple(f"http://{HOST}:{n.node.port}" for n in self.nodes if n.node.is_connect)

    def node(self, name: str) -> NodeStatus:
        return next(n for n in self.nodes if n.name == name)


def default_state_root(environ: Mapping[str, str] = os.environ) -> Path:
    return xdg_home(environ, "XDG_STATE_HOME", ".local/state") / "kafkatop"


def lab_dir(state_root: Path, name: str) -> Path:
    """The folder of lab cluster `name` under `state_root`: a name is one folder there, never a path out of it."""
    check_name(name)
    path = state_root / name
    if path.resolve().parent != state_root.resolve():
        raise SupervisorError(f"{path} leads out of the state folder {state_root} (a link?): nothing is done there")
    return path


def lab_serving(state_root: Path, bootstrap_servers: str) -> Path | None:
    """The folder of the lab under `state_root` whose brokers listen on one of `bootstrap_servers` (a command given
    a lab's address as --bootstrap-server), if one: what kafkatop knows of it (its admin.properties) can then be
    named. By its state file's ports, 127.0.0.1 and localhost alike; nothing is asked of the cluster."""
    wanted = {a.strip().replace("localhost:", f"{HOST}:") for a in bootstrap_servers.split(",") if a.strip()}
    for path in sorted(state_root.glob(f"*/{STATE_FILE}")) if state_root.is_dir() else ():
        try:
            nodes = [node_from_json(n) for n in json.loads(path.read_text(encoding="utf-8"))["nodes"]]
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not a lab's, or one being written: it names no address
        if wanted & {f"{HOST}:{n.port}" for n in nodes if n.is_broker}:
            return path.parent
    return None


def delete_state(state_dir: Path, state_root: Path) -> None:
    """Delete a lab's folder, only when it is one: directly under the state root, not a link, holding cluster.json."""
    if (
        state_dir.is_symlink()
        or state_dir.resolve().parent != state_root.resolve()
        or not (state_dir / STATE_FILE).is_file()
    ):
        raise SupervisorError(f"{state_dir} is not a lab folder of {state_root}: nothing was deleted")
    shutil.rmtree(state_dir)


def new_cluster_id() -> str:
    """A Kafka Uuid as `kafka-storage.sh random-uuid` prints it: 16 random bytes, URL-safe base64, no padding.
    Kafka never hands out one starting with '-' (it would read as a command-line flag)."""
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode("ascii")
        if not text.startswith("-"):
            return text


@dataclass
class RunningNode:
    """A node process this kafkatop knows: its own child (proc set) or one attached through the state file."""

    pid: int
    create_time: float
    proc: subprocess.Popen[bytes] | None
    log_offset: int  # where this run's output starts in the node's log
    ready: bool = False
    owner_pid: int | None = None  # the kafkatop that started it, when another one did
    detached: bool = True


class LabState:
    """One lab cluster's nodes and processes as this kafkatop knows them, kept in step with `cluster.json`.

    `lock` guards it within this process (the TUI acts from worker threads while it polls); `file_lock()` makes one
    writer at a time across processes.
    """

    def __init__(self, state_dir: Path, install: KafkaInstall, spec: ClusterSpec, mode: LabMode) -> None:
        self.state_dir = state_dir
        self.install = install
        self.spec = spec
        self.mode = mode
        self.nodes: tuple[NodeSpec, ...] = cluster_nodes(spec, mode)
        self.cluster_id: str | None = None
        self.lock = threading.RLock()
        self.running: dict[str, RunningNode] = {}
        self.intent: dict[str, NodeState] = {}  # the last thing asked of each node: up, down or killed
        self.detached = False

    @classmethod
    def load(cls, state_dir: Path, *, need_install: bool = True) -> LabState:
        """The state of the cluster at `state_dir`; a SupervisorError says what is missing or unreadable.
        `need_install=False` (stopping, deleting) reads a cluster whose Kafka install is gone: its nodes are stopped
        by pid, which needs no script."""
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
            try:
                install = open_install(data["kafka_home"])
            except KafkaHomeInvalid as e:
                name = state_dir.name
                if not need_install:
                    home = Path(data["kafka_home"])
                    version = KafkaVersion.parse(str(data.get("kafka_version", "0.0.0")))
                    install = KafkaInstall(home, Layout.APACHE, version, home / "bin", home / "config", ".sh")
                else:
                    raise SupervisorError(
                        f"lab cluster {name!r} runs Kafka from {data['kafka_home']}, which is no longer an "
                        f"installation ({e.args[0].split(': ', 1)[-1].split(';')[0]}): put that Kafka back "
                        "(`kafkatop install` unpacks it again from its kept download), or "
                        f"`kafkatop down --name {name} --delete` to start over"
                    ) from None
            spec = ClusterSpec(
                **{**data["spec"], "broker_properties": tuple(map(tuple, data["spec"]["broker_properties"]))}
            )
            state = cls(state_dir, install, spec, data["mode"])
            state.nodes = tuple(node_from_json(n) for n in data["nodes"])
            state.cluster_id = data.get("cluster_id")
            state.refresh_from_disk()
        except (KeyError, TypeError, ValueError) as e:
            raise SupervisorError(f"{path}: malformed state file ({e}); move it away to start over") from None
        return state

    # --- paths -------------------------------------------------------------------------------------------------
    def config_path(self, node: NodeSpec) -> Path:
        if node.is_issuer:  # an OAuth lab's issuer is configured by its clients file (oauth.py)
            return self.state_dir / SECURITY_DIR / ISSUER_DIR / CLIENTS_FILE
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
        raise UnknownNode(f"no node {ref!r} in cluster {self.spec.name!r}; its nodes are: {names}")

    def stock_role(self, node: NodeSpec) -> str:
        if node.role is ProcessRole.ZOOKEEPER:
            return "zookeeper"
        if node.is_connect:
            return "connect"
        if self.mode == "zk":
            return "broker"
        return {ProcessRole.BROKER: "broker", ProcessRole.CONTROLLER: "controller"}.get(node.role, "combined")

    def differences(self, install: KafkaInstall, asked: ClusterSpec) -> list[str]:
        notes = []
        if install.home.resolve() != self.install.home.resolve():
            notes.append(f"it runs Kafka from {self.install.home}, not {install.home}")
        keys = ("mode", "brokers", "base_port", "zookeeper_port", "controllers", "heap", "security", "authorizer")
        for key in (*keys, "connect"):
            want = getattr(asked, key)
            have = self.mode if key == "mode" else getattr(self.spec, key)
            if key == "brokers":
                have = sum(1 for n in self.nodes if n.is_broker)
            if key == "connect":
                have = sum(1 for n in self.nodes if n.is_connect)
            if want is not None and want != getattr(ClusterSpec(), key) and want != have:
                # A lab's settings are written into its nodes' files once: a flag that differs is not applied.
                notes.append("it has no authorizer" if key == "authorizer" else f"{key} is {have}, not {want}")
        issuer = next((n.port for n in self.nodes if n.is_issuer), None)
        if asked.issuer_port is not None and asked.issuer_port != issuer:
            notes.append(f"its OIDC issuer is on port {issuer}" if issuer else "it has no OIDC issuer")
        if asked.connect > sum(1 for n in self.nodes if n.is_connect):
            notes.append("`kafkatop add-connect` adds a Kafka Connect worker to it")
        if notes:
            notes.insert(0, f"cluster {self.spec.name!r} already exists at {self.state_dir}, so it is used as it is:")
            again = f"kafkatop down --delete --name {self.spec.name} --state-dir {self.state_dir.parent}"
            notes.append(f"use another --name, or `{again}` first (its data is lost), for a different cluster")
        return notes

    # --- the state file ----------------------------------------------------------------------------------------
    @contextmanager
    def file_lock(self) -> Iterator[None]:
        """One writer at a time across processes (the TUI and a `kafkatop kill` from another shell). What is read
        here is what is changed and saved: the state file is read again first, so a change another kafkatop made
        since (a node it started or stopped) is not written over with an older view."""
        with self.lock, open(self.state_dir / ".lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                self.refresh_from_disk()
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def save(self) -> None:
        """Write this view to the state file; call it inside `file_lock()`, after changing what it read."""
        nodes = []
        for n in self.nodes:
            entry: dict[str, Any] = {**asdict(n), "role": n.role.value}
            run = self.running.get(n.name)
            if run is not None:
                entry |= {"pid": run.pid, "create_time": run.create_time}
                if run.proc is not None:
                    entry |= {"owner_pid": os.getpid(), "detached": self.detached}
                else:
                    entry |= {"owner_pid": run.owner_pid, "detached": run.detached}
            if n.name in self.intent:
                entry["intent"] = self.intent[n.name].value
            nodes.append(entry)
        data = {
            "format": STATE_FORMAT,
            "name": self.spec.name,
            "kafka_home": str(self.install.home),
            "kafka_version": str(self.install.version),
            "mode": self.mode,
            "cluster_id": self.cluster_id,
            "spec": spec_dict(self.spec),
            "nodes": nodes,
        }
        tmp = self.state_dir / f".{STATE_FILE}.tmp"
        tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, self.state_dir / STATE_FILE)  # never a half-written state file

    def refresh_from_disk(self) -> None:
        """Pick up what another kafkatop did to this cluster (a node started or killed from another shell)."""
        try:
            data = json.loads((self.state_dir / STATE_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if self.cluster_id is None and isinstance(data.get("cluster_id"), str):
            self.cluster_id = data["cluster_id"]  # a ZooKeeper-mode lab's, recorded once it first served
        known = {n.name for n in self.nodes}
        for n in data.get("nodes", []):
            try:
                if n["name"] not in known:
                    self.nodes = (*self.nodes, node_from_json(n))
                run = self.running.get(n["name"])
                pid, ctime = n.get("pid"), n.get("create_time")
                if run is not None and run.proc is None and not pid:
                    self.running.pop(n["name"])  # another kafkatop stopped it since
                elif pid and ctime and (run is None or run.pid != pid) and same_process(pid, ctime):
                    # Started by another kafkatop: watched and controllable here, but not stopped on our exit.
                    owner, detached = n.get("owner_pid"), bool(n.get("detached", True))
                    self.running[n["name"]] = RunningNode(pid, ctime, None, 0, True, owner, detached)
                if n.get("intent"):
                    self.intent[n["name"]] = NodeState(n["intent"])
            except (KeyError, TypeError, ValueError):
                continue

    def alive(self, name: str) -> bool:
        run = self.running.get(name)
        if run is None:
            return False
        if run.proc is not None:
            return run.proc.poll() is None
        return same_process(run.pid, run.create_time)


# --- helpers ----------------------------------------------------------------------------------------------------
def spec_dict(spec: ClusterSpec) -> dict[str, Any]:
    d = asdict(spec)
    d["broker_properties"] = [list(kv) for kv in spec.broker_properties]
    return d


def node_from_json(n: Mapping[str, Any]) -> NodeSpec:
    return NodeSpec(n["name"], ProcessRole(n["role"]), n.get("node_id"), int(n["port"]), n.get("controller_port"))


def same_process(pid: int, create_time: float) -> bool:
    try:
        p = psutil.Process(pid)
        same: bool = abs(p.create_time() - create_time) < 0.05 and p.status() != psutil.STATUS_ZOMBIE
        return same
    except psutil.Error:
        return False
