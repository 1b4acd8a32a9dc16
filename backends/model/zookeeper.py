"""ZooKeeper as kafkatop sees it (standard library only): the events its watches push when Kafka's znodes change,
a partition's state as the controller writes it, and every server of the ensemble as `zktop` showed it."""

from __future__ import annotations

from dataclasses import dataclass

from kafkatop.backends.model.cluster import Broker, Problem


@dataclass(frozen=True, slots=True)
class PartitionState:
    """`/brokers/topics/T/partitions/P/state`, written by the controller on every leader or ISR change."""

    leader: int
    isr: tuple[int, ...]
    leader_epoch: int
    controller_epoch: int


# --- events pushed by the watches ---------------------------------------------------------------------------------
# --- events ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class BrokerRegistered:
    at: float
    broker: Broker


@dataclass(frozen=True, slots=True)
class BrokerDeregistered:
    at: float
    broker_id: int


@dataclass(frozen=True, slots=True)
class ControllerChanged:
    at: float
    previous: int | None
    controller: int | None  # None: no controller elected right now
    epoch: int | None


@dataclass(frozen=True, slots=True)
class PartitionStateChanged:
    """A leader election or an ISR shrink/expand, as the controller wrote it."""

    at: float
    topic: str
    partition: int
    previous: PartitionState | None
    state: PartitionState | None  # None: the state znode is gone (topic deleted)

    @property
    def leader_changed(self) -> bool:
        return (self.previous.leader if self.previous else None) != (self.state.leader if self.state else None)

    @property
    def isr_changed(self) -> bool:
        return (self.previous.isr if self.previous else None) != (self.state.isr if self.state else None)


@dataclass(frozen=True, slots=True)
class TopicsChanged:
    at: float
    created: tuple[str, ...]
    deleted: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ConnectionChanged:
    at: float
    connected: bool
    reason: str


ZkEvent = (
    BrokerRegistered
    | BrokerDeregistered
    | ControllerChanged
    | PartitionStateChanged
    | TopicsChanged
    | ConnectionChanged
)


# --- the ensemble's servers, from their four-letter words ---------------------------------------------------------
# --- snapshots ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ZooKeeperSession:
    """One client connection, as a line of `cons` shows it."""

    client: str  # "127.0.0.1:54932", as the server sees the client
    session_id: int | None  # None: connected, but no session yet (handshaking)
    queued: int
    received: int
    sent: int
    last_operation: str | None = None  # `lop`: GETD, PING, CREA, …
    timeout_ms: int | None = None  # the negotiated session timeout
    established_ms: int | None = None  # `est`: the server's wall clock, ms since the epoch
    avg_latency_ms: int | None = None
    max_latency_ms: int | None = None

    @property
    def session_hex(self) -> str | None:
        """The session id as ZooKeeper prints it (`0x100005634200000`)."""
        return f"0x{self.session_id:x}" if self.session_id is not None else None


@dataclass(frozen=True, slots=True)
class ZooKeeperServerStats:
    """One server of the ensemble. Fields stay None when the server did not answer the word that carries them."""

    address: str  # "host:port" from the connect string
    reachable: bool = False  # it accepted a connection and answered something
    mode: str | None = None  # standalone, leader, follower, observer; None when not serving
    version: str | None = None  # "3.9.5"
    latency_min_ms: float | None = None
    latency_avg_ms: float | None = None
    latency_max_ms: float | None = None
    received: int | None = None  # packets
    sent: int | None = None
    connections: int | None = None  # alive connections, including this poll's own
    outstanding: int | None = None  # queued requests
    zxid: int | None = None
    znode_count: int | None = None
    watch_count: int | None = None
    ephemerals_count: int | None = None
    approximate_data_size: int | None = None  # bytes
    synced_followers: int | None = None  # leader only
    learners: int | None = None  # leader only: followers and observers connected to it
    sessions: tuple[ZooKeeperSession, ...] = ()
    problem: str | None = None  # why some or all of the above is missing

    @property
    def serving(self) -> bool:
        return self.mode is not None

    @property
    def zxid_hex(self) -> str | None:
        return f"0x{self.zxid:x}" if self.zxid is not None else None

    @property
    def epoch(self) -> int | None:
        """The leader epoch in the zxid's high 32 bits: it grows with every leader election."""
        return self.zxid >> 32 if self.zxid is not None else None


@dataclass(frozen=True, slots=True)
class EnsembleSnapshot:
    taken_at: float  # time.time() at the poll's end
    servers: tuple[ZooKeeperServerStats, ...]  # in connect-string order
    problems: tuple[Problem, ...] = ()  # one per server with a problem, `what` is its address

    @property
    def leader(self) -> ZooKeeperServerStats | None:
        """The leader, or the standalone server."""
        return next((s for s in self.servers if s.mode in ("leader", "standalone")), None)

    @property
    def serving(self) -> int:
        return sum(1 for s in self.servers if s.serving)
