"""What a lab cluster is: its spec (from flags or `kafkatop.toml`) and the nodes and ports that follow from it.

The defaults mirror the labs — three brokers on 9092, 9093, 9094 and ZooKeeper on 2181 — but every node binds
127.0.0.1 and each JVM gets a small heap, so a whole cluster fits a laptop.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from kafkatop.backends.lab.kafka_homes import LabMode
from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.nodes import ProcessRole

HOST = "127.0.0.1"
MAX_VOTERS = 3  # combined mode: the first three nodes form the KRaft quorum, later brokers are broker-only
CONTROLLER_ID_BASE = 100  # dedicated KRaft controllers get node ids 101, 102, … so broker ids stay 1, 2, 3 as in labs
CONNECT_PORT_OFFSET = 200  # Kafka Connect workers' REST ports: base_port + 200, + 201, … unless connect_port is given
ISSUER_PORT_OFFSET = 300  # an OAuth lab's OIDC issuer: base_port + 300 unless issuer_port is given
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_HEAP = re.compile(r"[1-9][0-9]*[kKmMgG]")
_PROPERTY_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
# --security: the brokers' listener, named after its protocol (security.protocol of the clients).
SECURITY_PROTOCOLS = {
    "plaintext": "PLAINTEXT",
    "ssl": "SSL",
    "sasl_plaintext": "SASL_PLAINTEXT",
    "sasl_ssl": "SASL_SSL",
    "sasl_oauthbearer": "SASL_PLAINTEXT",  # SASL/OAUTHBEARER: tokens from the lab's OIDC issuer (oauth.py)
}
SASL_SECURITY = ("sasl_plaintext", "sasl_ssl", "sasl_oauthbearer")  # where clients are users, told apart


ELR_FEATURE = "eligible.leader.replicas.version"
SHARE_FEATURE = "share.version"


def feature_flags(features: dict[str, int]) -> str:
    """The `up` flags that ask for these levels, as the user typed them: `--no-elr`, `--share-groups`."""
    flags = []
    if ELR_FEATURE in features:
        flags.append("--elr" if features[ELR_FEATURE] else "--no-elr")
    if features.get(SHARE_FEATURE):
        flags.append("--share-groups")
    return " ".join(flags)


class SpecError(BadInput):
    """A cluster spec (flags or kafkatop.toml) asks for something that cannot be built."""


def name_problem(name: str) -> str | None:
    """Why `name` cannot name a lab cluster, or None. A name is one folder under the state root: it starts with a
    letter or digit, so it is never `.`, `..`, a path or a flag."""
    if _NAME.fullmatch(name):
        return None
    return f"cluster name {name!r}: use letters, digits, '.', '_' or '-', starting with a letter or digit (at most 64)"


def check_name(name: str) -> str:
    problem = name_problem(name)
    if problem:
        raise SpecError(problem)
    return name


@dataclass(frozen=True, slots=True)
class ClusterSpec:
    name: str = "lab"
    mode: LabMode | None = None  # None: the best the Kafka install supports (ZooKeeper mode on 3.x, as the labs do)
    brokers: int = 3
    base_port: int = 9092
    zookeeper_port: int = 2181
    controller_port: int | None = None  # first KRaft controller port; None: base_port + 100
    controllers: int = 0  # dedicated KRaft controllers; 0 = combined nodes (process.roles=broker,controller)
    heap: str = "256m"  # -Xmx and -Xms of every broker and controller JVM
    broker_properties: tuple[tuple[str, str], ...] = field(default=())  # extra server.properties, applied last
    # the brokers' listener: plaintext, ssl, sasl_plaintext or sasl_ssl (SCRAM-SHA-512), sasl_oauthbearer
    security: str = "plaintext"
    # KRaft's StandardAuthorizer: no ACL, no access (super user admin); SASL only, where users can be told apart.
    authorizer: bool = False
    allow_remote_listeners: bool = False  # a [broker] listeners= that binds beyond 127.0.0.1 is refused unless set
    # Feature levels set when the storage is formatted (KRaft only): ELR (KIP-966) on or off, None for Kafka's own
    # default (on from 4.1); share groups (KIP-932: share.version=1), off unless asked.
    elr: bool | None = None
    share_groups: bool = False
    connect: int = 0  # Kafka Connect workers (connect-distributed), started after the brokers, in one group
    connect_port: int | None = None  # the first worker's REST port; None: base_port + 200
    issuer_port: int | None = None  # sasl_oauthbearer: the lab's OIDC issuer; None: base_port + 300

    @property
    def features(self) -> dict[str, int]:
        """The feature levels asked for (`kafka-storage.sh format --feature NAME=LEVEL`); empty: Kafka's defaults."""
        asked = {} if self.elr is None else {ELR_FEATURE: int(self.elr)}
        return asked | ({SHARE_FEATURE: 1} if self.share_groups else {})

    @property
    def first_controller_port(self) -> int:
        return self.controller_port if self.controller_port is not None else self.base_port + 100

    @property
    def first_connect_port(self) -> int:
        return self.connect_port if self.connect_port is not None else self.base_port + CONNECT_PORT_OFFSET

    @property
    def first_issuer_port(self) -> int:
        return self.issuer_port if self.issuer_port is not None else self.base_port + ISSUER_PORT_OFFSET

    @property
    def has_issuer(self) -> bool:
        """An OAuth lab: its brokers take tokens from an OIDC issuer of its own, one of its nodes."""
        return self.security == "sasl_oauthbearer"

    def validate(self) -> ClusterSpec:
        problems: list[str] = []
        if name_problem(self.name):
            problems.append(str(name_problem(self.name)))
        if self.brokers < 1:
            problems.append(f"a cluster needs at least 1 broker (asked for {self.brokers})")
        if self.controllers < 0:
            problems.append(f"controllers must be 0 (combined nodes) or more (asked for {self.controllers})")
        if self.connect < 0:
            problems.append(f"connect must be 0 (no Kafka Connect workers) or more (asked for {self.connect})")
        if self.controllers and self.mode == "zk":
            problems.append("dedicated controllers are a KRaft thing: drop --controllers, or use --mode kraft")
        if self.features and self.mode == "zk":
            problems.append(
                f"{feature_flags(self.features)}: feature levels are a KRaft thing (kafka-storage.sh --feature): "
                "drop them, or use --mode kraft"
            )
        if self.security not in SECURITY_PROTOCOLS:
            problems.append(f"security {self.security!r}: use one of {', '.join(SECURITY_PROTOCOLS)}")
        elif self.security != "plaintext" and self.mode == "zk":
            problems.append(
                f"--security {self.security} needs a KRaft cluster (its SCRAM users and listeners): --mode kraft"
            )
        if self.authorizer_problem:
            problems.append(self.authorizer_problem)
        if self.issuer_port is not None and not self.has_issuer:
            problems.append(
                f"--issuer-port {self.issuer_port} is the OIDC issuer's of an OAuth lab: add --security "
                "sasl_oauthbearer, or leave it out"
            )
        if not _HEAP.fullmatch(self.heap):
            problems.append(f"heap {self.heap!r}: give a JVM size such as 256m or 1g")
        problems += self._port_problems()
        props = dict(self.broker_properties)
        bad_keys = [key for key in props if not _PROPERTY_KEY.fullmatch(key)]
        if bad_keys:
            problems.append(
                f"broker setting(s) {', '.join(map(repr, bad_keys))}: a Kafka setting's name is letters, digits, "
                "'.', '_' and '-' (e.g. min.insync.replicas)"
            )
        remote = self.remote_listeners
        if remote and not self.allow_remote_listeners:
            problems.append(
                f"listeners={props['listeners']} binds {', '.join(remote)}, beyond 127.0.0.1: a lab cluster is "
                "reachable from this machine only. Drop that setting, or give --allow-remote-listeners "
                "(allow_remote_listeners = true in kafkatop.toml) if you mean to open it to the network"
            )
        for key in ("default.replication.factor", "min.insync.replicas"):
            raw = props.get(key)
            if raw is None:
                continue
            if not raw.strip().isdigit():
                problems.append(f"{key}={raw}: must be a whole number")
            elif int(raw) > self.brokers:
                effect = (
                    "topics created with the default could not be placed"
                    if key.startswith("default")
                    else "acks=all writes would always fail"
                )
                problems.append(
                    f"{key}={raw} is more than the {self.brokers} broker(s) of this cluster: "
                    f"{effect}"
                    f"; use --brokers {raw} or a smaller {key}"
                )
        if problems:
            raise SpecError("; ".join(problems))
        return self

    @property
    def authorizer_problem(self) -> str | None:
        """Why this spec's authorizer cannot be, or None: without SASL no one can be told apart."""
        if not self.authorizer or self.security in SASL_SECURITY:
            return None
        return (
            f"--authorizer needs SASL users to tell apart (on {self.security} every client is User:ANONYMOUS): "
            "add --security sasl_ssl (or sasl_plaintext, sasl_oauthbearer)"
        )

    @property
    def remote_listeners(self) -> list[str]:
        """The addresses a `listeners` broker setting binds beyond loopback ('all interfaces' for `PLAINTEXT://:9092`
        or 0.0.0.0), in its order; empty when it binds loopback only or is not set."""
        value = dict(self.broker_properties).get("listeners")
        found = []
        for item in (value or "").split(","):
            address = item.strip().partition("://")[2]
            host = address.rpartition(":")[0].strip("[]") if ":" in address else address
            if not item.strip():
                continue
            if host in ("", "0.0.0.0", "::"):
                found.append("all interfaces")
            elif not (host == "localhost" or host.startswith("127.") or host == "::1"):
                found.append(host)
        return found

    def _port_problems(self) -> list[str]:
        ranges = {
            "broker ports (--base-port)": (self.base_port, self.base_port + max(self.brokers, 1) - 1),
        }
        if self.mode != "kraft":
            ranges["ZooKeeper port (--zookeeper-port)"] = (self.zookeeper_port, self.zookeeper_port)
        if self.mode != "zk":
            count = self.controllers or min(self.brokers, MAX_VOTERS)
            ranges["controller ports (--controller-port)"] = (
                self.first_controller_port,
                self.first_controller_port + max(count, 1) - 1,
            )
        if self.connect > 0:
            ranges["Connect REST ports (--connect-port)"] = (
                self.first_connect_port,
                self.first_connect_port + self.connect - 1,
            )
        if self.has_issuer:
            ranges["OIDC issuer port (--issuer-port)"] = (self.first_issuer_port, self.first_issuer_port)
        problems = [f"{what} {lo}-{hi} outside 1-65535" for what, (lo, hi) in ranges.items() if lo < 1 or hi > 65535]
        items = list(ranges.items())
        for i, (a, (alo, ahi)) in enumerate(items):
            for b, (blo, bhi) in items[i + 1 :]:
                if alo <= bhi and blo <= ahi:
                    problems.append(f"{a} {alo}-{ahi} overlap {b} {blo}-{bhi}: give one of them other ports")
        return problems


@dataclass(frozen=True, slots=True)
class NodeSpec:
    """One process of a lab cluster, with the ports it binds on 127.0.0.1."""

    name: str  # "zookeeper", "broker-1", "controller-101", "connect-1"
    role: ProcessRole
    node_id: int | None  # broker.id / node.id; None for ZooKeeper and Connect workers
    port: int  # the client port: PLAINTEXT for brokers, clientPort for ZooKeeper, CONTROLLER for controllers, REST
    # for Connect workers (their listeners=http://127.0.0.1:PORT)
    controller_port: int | None = None  # combined KRaft nodes: their CONTROLLER listener

    @property
    def is_broker(self) -> bool:
        return self.role in (ProcessRole.BROKER, ProcessRole.COMBINED)

    @property
    def is_controller(self) -> bool:
        return self.role in (ProcessRole.CONTROLLER, ProcessRole.COMBINED)

    @property
    def is_connect(self) -> bool:
        return self.role is ProcessRole.CONNECT

    @property
    def is_issuer(self) -> bool:
        return self.role is ProcessRole.ISSUER

    @property
    def is_kafka(self) -> bool:
        """A broker or controller: a KRaft node with storage, or a ZooKeeper-mode broker."""
        return self.is_broker or self.is_controller

    @property
    def ports(self) -> tuple[int, ...]:
        return (self.port,) if self.controller_port is None else (self.port, self.controller_port)


def broker_node(spec: ClusterSpec, mode: LabMode, index: int) -> NodeSpec:
    """Broker number `index` (0-based): id index+1, port base_port+index; in combined KRaft the first three vote."""
    node_id = index + 1
    port = spec.base_port + index
    if mode == "kraft" and spec.controllers == 0 and index < MAX_VOTERS:
        return NodeSpec(f"broker-{node_id}", ProcessRole.COMBINED, node_id, port, spec.first_controller_port + index)
    return NodeSpec(f"broker-{node_id}", ProcessRole.BROKER, node_id, port)


def connect_node(spec: ClusterSpec, index: int) -> NodeSpec:
    """Kafka Connect worker number `index` (0-based): connect-(index+1), its REST API on first_connect_port+index."""
    return NodeSpec(f"connect-{index + 1}", ProcessRole.CONNECT, None, spec.first_connect_port + index)


def cluster_nodes(spec: ClusterSpec, mode: LabMode) -> tuple[NodeSpec, ...]:
    """Every node in start order: an OAuth lab's OIDC issuer, ZooKeeper or dedicated controllers first, then the
    brokers, then the Connect workers (they keep their state in the brokers' topics)."""
    first: list[NodeSpec] = []
    if spec.has_issuer:
        first.append(NodeSpec("issuer", ProcessRole.ISSUER, None, spec.first_issuer_port))
    if mode == "zk":
        first.append(NodeSpec("zookeeper", ProcessRole.ZOOKEEPER, None, spec.zookeeper_port))
    else:
        for j in range(spec.controllers):
            node_id = CONTROLLER_ID_BASE + j + 1
            first.append(
                NodeSpec(f"controller-{node_id}", ProcessRole.CONTROLLER, node_id, spec.first_controller_port + j)
            )
    brokers = (broker_node(spec, mode, i) for i in range(spec.brokers))
    return (*first, *brokers, *(connect_node(spec, i) for i in range(spec.connect)))


def quorum_voters(nodes: tuple[NodeSpec, ...]) -> str:
    """`controller.quorum.voters`: id@127.0.0.1:port of every controller (static quorum: no --standalone needed)."""
    voters = []
    for n in nodes:
        if n.role is ProcessRole.CONTROLLER:
            voters.append(f"{n.node_id}@{HOST}:{n.port}")
        elif n.role is ProcessRole.COMBINED:
            voters.append(f"{n.node_id}@{HOST}:{n.controller_port}")
    return ",".join(voters)


# --- kafkatop.toml --------------------------------------------------------------------------------------------------
_TOML_KEYS = {f.name for f in fields(ClusterSpec)} - {"broker_properties"}


def load_spec_file(path: str | Path) -> tuple[ClusterSpec, dict[str, Any]]:
    """A ClusterSpec from `kafkatop.toml`: a [cluster] table (the ClusterSpec fields) and a [broker] table of
    server.properties. Returns the spec and the [cluster] keys that were set, so flags can override only those."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise SpecError(f"{p}: cannot read it ({e.strerror or e})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise SpecError(f"{p}: not valid TOML ({e})") from None
    # [contexts.*] and default-context are the contexts' (backends/model/contexts.py), [schema-registry] and
    # [formats.*] the records' (backends/model/format_config.py): read where they are used.
    unknown_tables = set(data) - {"cluster", "broker", "contexts", "default-context", "schema-registry", "formats"}
    if unknown_tables:
        raise SpecError(
            f"{p}: unknown table(s) {', '.join(sorted(unknown_tables))}; kafkatop reads [cluster], [broker], "
            "[contexts.NAME], [schema-registry] and [formats.TOPIC]"
        )
    cluster = data.get("cluster", {})
    broker = data.get("broker", {})
    if not isinstance(cluster, dict) or not isinstance(broker, dict):
        raise SpecError(f"{p}: [cluster] and [broker] must be tables")
    unknown = set(cluster) - _TOML_KEYS
    if unknown:
        raise SpecError(
            f"{p}: unknown [cluster] key(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(_TOML_KEYS))}"
        )
    kwargs: dict[str, Any] = {}
    for f in fields(ClusterSpec):
        if f.name not in cluster:
            continue
        value = cluster[f.name]
        expect_int = f.name in (
            "brokers", "base_port", "zookeeper_port", "controller_port", "controllers", "connect", "connect_port"
        )  # fmt: skip
        expect_bool = f.name in ("allow_remote_listeners", "elr", "share_groups", "authorizer")
        if expect_int and (isinstance(value, bool) or not isinstance(value, int)):
            raise SpecError(f"{p}: [cluster] {f.name} = {value!r} must be a whole number")
        if expect_bool and not isinstance(value, bool):
            raise SpecError(f"{p}: [cluster] {f.name} = {value!r} must be true or false")
        if not expect_int and not expect_bool and not isinstance(value, str):
            raise SpecError(f"{p}: [cluster] {f.name} = {value!r} must be a string")
        if f.name == "mode" and value not in ("zk", "kraft"):
            raise SpecError(f'{p}: [cluster] mode = {value!r} must be "zk" or "kraft"')
        kwargs[f.name] = value
    props = tuple((str(k), _property_value(v)) for k, v in broker.items())
    return ClusterSpec(**kwargs, broker_properties=props), kwargs


def _property_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"  # Kafka's spelling, not Python's
    if isinstance(value, list):
        return ",".join(_property_value(v) for v in value)
    return str(value)


def with_overrides(spec: ClusterSpec, **overrides: Any) -> ClusterSpec:
    """Flags win over the file; a flag left unset (None) keeps the file's value."""
    return replace(spec, **{k: v for k, v in overrides.items() if v is not None})
