"""The ZooKeeper source of a ZooKeeper-mode cluster: Kafka's own znodes, mirrored and kept current by watches.

A broker deregistering, a controller change, a leader or ISR change is pushed into `events` within milliseconds
of the znode changing. ZooKeeper watches are one-shot and fire on kazoo's thread, so a watch only queues the path;
one worker thread of ours re-reads it (re-arming the watch), updates the mirror and emits the difference as an
event. After a reconnect the worker re-reads everything and emits what changed while it was away, so a ZooKeeper
restart or an expired session loses no change.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from kazoo.client import KazooClient, KazooState
from kazoo.exceptions import KazooException, NoNodeError
from kazoo.handlers.threading import KazooTimeoutError
from kazoo.protocol.states import WatchedEvent
from kazoo.retry import KazooRetry

from kafkatop.backends.model.addresses import parse_host_ports
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.errors import NotAKafkaZooKeeper, SourceUnavailable
from kafkatop.backends.model.zookeeper import ConnectionChanged, ZkEvent
from kafkatop.backends.zookeeper import znodes
from kafkatop.backends.zookeeper.mirror import SOURCE, ZnodeMirror

_log = logging.getLogger("kafkatop.kazoo")
_log.addHandler(logging.NullHandler())
_log.propagate = False


# Work items for the worker thread.
_RESYNC = ("resync", "")
_STOP = ("stop", "")


class ZooKeeperSource:
    """Mirror of a Kafka cluster's znodes. `start()` connects and loads; `snapshot()` is free (no I/O)."""

    def __init__(self, hosts: str, *, timeout_s: float = 3.0, session_timeout_s: float = 10.0) -> None:
        self.hosts = hosts  # "host:port[,host:port…][/chroot]", as zookeeper.connect
        # Read here, so a mistyped connect string is a BadAddress naming it, not kazoo's ValueError.
        parse_host_ports(hosts.split("/", 1)[0], 2181, source=SOURCE, what="ZooKeeper connect string")
        self.timeout_s = timeout_s
        self.session_timeout_s = session_timeout_s
        self.events: queue.Queue[ZkEvent] = queue.Queue(maxsize=100_000)
        self._client = self._new_client()
        self._work: queue.Queue[tuple[str, str]] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._connected = False
        self._mirror = ZnodeMirror()  # written only by the worker thread (and start(), before it runs)

    # --- lifecycle ------------------------------------------------------------------------------------------------
    def _new_client(self) -> KazooClient:
        return KazooClient(
            hosts=self.hosts,
            timeout=self.session_timeout_s,
            connection_retry=KazooRetry(max_tries=-1, delay=0.1, max_delay=1.0),
            command_retry=KazooRetry(max_tries=2, delay=0.1, max_delay=0.5),
            logger=_log,
        )

    def _give_up(self) -> None:
        """A failed start: this client is closed, and a later start() gets a new one."""
        self._client.stop()
        self._client.close()
        self._client = self._new_client()

    def start(self) -> None:
        """Connect and load every znode; raises SourceUnavailable / NotAKafkaZooKeeper with what to do. May be
        called again after it raised (a lab's ZooKeeper or first broker still starting)."""
        try:
            self._client.start(timeout=self.timeout_s)
        except KazooTimeoutError:
            self._give_up()
            raise SourceUnavailable(
                SOURCE,
                f"no answer from ZooKeeper at {self.hosts} within {self.timeout_s:g} s: is it running, and is "
                "--zookeeper host:port right?",
            ) from None
        try:
            if self._client.exists(znodes.BROKER_IDS) is None:
                raise NotAKafkaZooKeeper(SOURCE, self._not_kafka_reason())
        except NotAKafkaZooKeeper:
            self._give_up()
            raise
        except (KazooException, KazooTimeoutError) as e:
            self._give_up()
            raise SourceUnavailable(
                SOURCE, f"ZooKeeper at {self.hosts} dropped the connection ({type(e).__name__})"
            ) from None
        self._client.add_listener(self._on_state)
        self._resync(emit=False)
        self._connected = True  # once the mirror is loaded: `connected` means snapshot() is current
        self._thread = threading.Thread(target=self._run, name="kafkatop-zookeeper", daemon=True)
        self._thread.start()

    def _not_kafka_reason(self) -> str:
        try:
            children = sorted(self._client.get_children("/"))
        except KazooException:
            children = []
        hint = ""
        for child in children:
            if child != "zookeeper" and self._client.exists(f"/{child}{znodes.BROKER_IDS}") is not None:
                hint = f" Kafka's znodes are under /{child}: use {self.hosts.split('/')[0]}/{child}."
                break
        return (
            f"ZooKeeper at {self.hosts} holds no Kafka znodes ({znodes.BROKER_IDS} is missing; top-level znodes: "
            f"{', '.join('/' + c for c in children) or 'none'}). Is this the ZooKeeper of a Kafka cluster, "
            f"and is the chroot right?{hint}"
        )

    def close(self) -> None:
        if self._thread is not None:
            self._work.put(_STOP)
            self._thread.join(5)
            self._thread = None
        self._client.remove_listener(self._on_state)
        self._client.stop()
        self._client.close()

    def __enter__(self) -> ZooKeeperSource:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        return self._connected

    def next_events(self, timeout_s: float) -> list[ZkEvent]:
        """The events queued since the last call, waiting up to `timeout_s` for the first one."""
        try:
            first = self.events.get(timeout=timeout_s)
        except queue.Empty:
            return []
        taken = [first]
        while True:
            try:
                taken.append(self.events.get_nowait())
            except queue.Empty:
                return taken

    # --- kazoo callbacks (kazoo's threads: never block here) --------------------------------------------------------
    def _on_state(self, state: str) -> None:
        now = time.time()
        if state == KazooState.CONNECTED:
            self._connected = True
            self._emit(ConnectionChanged(now, True, "connected"))
            self._work.put(_RESYNC)  # watches may have been lost with the session; changes may have been missed
        else:
            self._connected = False
            reason = "session expired" if state == KazooState.LOST else "connection lost, reconnecting"
            self._emit(ConnectionChanged(now, False, reason))

    # kazoo also calls watchers with path None on session events; the state listener handles those.
    def _on_children(self, event: WatchedEvent) -> None:
        if event.path:
            self._work.put(("children", event.path))

    def _on_data(self, event: WatchedEvent) -> None:
        if event.path:
            self._work.put(("data", event.path))

    # --- the worker ---------------------------------------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            kind, path = self._work.get()
            if (kind, path) == _STOP:
                return
            try:
                if (kind, path) == _RESYNC:
                    self._resync(emit=True)
                else:
                    self._refresh(path)
            except (KazooException, KazooTimeoutError) as e:
                # Disconnected mid-read: the reconnect queues a full resync, which repairs this.
                self._mirror.problem(path or "resync", f"read failed ({type(e).__name__}); will re-read on reconnect")
            except Exception as e:  # noqa: BLE001 - the watcher thread must outlive any one bad znode
                _log.exception("ZooKeeper watch worker failed on %s", path)
                self._mirror.problem(path or "resync", f"unexpected {type(e).__name__}: {e}")

    def _emit(self, event: ZkEvent | None) -> None:
        if event is None:
            return
        try:
            self.events.put_nowait(event)
        except queue.Full:  # nobody is reading events: the mirror stays right, old events are dropped
            try:
                self.events.get_nowait()
            except queue.Empty:
                pass
            self.events.put_nowait(event)

    def _get(self, path: str, watch: Callable[[WatchedEvent], None] | None) -> bytes | None:
        """The znode's data with a watch armed, or None (and an existence watch) when it does not exist."""
        try:
            data, _ = self._client.get(path, watch=watch)
            return bytes(data) if data is not None else b""
        except NoNodeError:
            if watch is not None and self._client.exists(path, watch=watch) is not None:
                return self._get(path, watch)  # created between the two calls
            return None

    def _children(self, path: str) -> list[str]:
        try:
            return list(self._client.get_children(path, watch=self._on_children))
        except NoNodeError:
            self._client.exists(path, watch=self._on_children)
            return []

    def _refresh(self, path: str) -> None:
        now = time.time()
        if path == znodes.BROKER_IDS:
            self._read_brokers(self._children(path), now, emit=True)
        elif path == znodes.CONTROLLER:
            self._read_controller(now, emit=True)
        elif path == znodes.TOPICS:
            self._read_topics(self._children(path), now, emit=True)
        elif path.startswith(znodes.TOPICS + "/"):
            parts = path[len(znodes.TOPICS) + 1 :].split("/")
            topic = parts[0]
            if not self._mirror.has_topic(topic):
                return  # a leftover watch of a deleted topic
            if len(parts) == 1:
                self._read_assignment(topic, self._get(path, self._on_data), now, emit=True)
            elif len(parts) == 4 and parts[1] == "partitions" and parts[3] == "state" and parts[2].isdigit():
                self._read_state(topic, int(parts[2]), now, emit=True)

    def _resync(self, emit: bool) -> None:
        """Re-read every znode with watches armed, pipelined (one round trip per level, not per znode)."""
        c = self._client
        now = time.time()
        ids_r = c.get_children_async(znodes.BROKER_IDS, watch=self._on_children)
        topics_r = c.get_children_async(znodes.TOPICS, watch=self._on_children)
        cid_r = c.get_async(znodes.CLUSTER_ID)
        self._read_brokers(_async_value(ids_r, self.timeout_s) or [], now, emit)
        self._read_controller(now, emit)
        cid = _async_value(cid_r, self.timeout_s)
        if cid is not None:
            self._mirror.cluster_id(bytes(cid[0]))
        topics = _async_value(topics_r, self.timeout_s) or []
        self._read_topics(topics, now, emit, load_partitions=False)
        assignment_rs = {t: c.get_async(znodes.topic_path(t), watch=self._on_data) for t in topics}
        for t, r in assignment_rs.items():
            value = _async_value(r, self.timeout_s)
            if value:
                self._mirror.assignment(t, bytes(value[0]))
        wanted = self._mirror.partitions()
        state_rs = {tp: c.get_async(znodes.partition_state_path(*tp), watch=self._on_data) for tp in wanted}
        for (t, p), r in state_rs.items():
            value = _async_value(r, self.timeout_s)
            if value is None:  # not written yet (topic being created): watch for its creation
                c.exists_async(znodes.partition_state_path(t, p), watch=self._on_data)
            self._emit_if(emit, self._mirror.partition_state(t, p, bytes(value[0]) if value else None, now))

    # --- reading what a change touched: the znode, then what it names that is new ---------------------------------
    def _emit_if(self, emit: bool, event: ZkEvent | None) -> None:
        if emit:
            self._emit(event)

    def _read_brokers(self, children: list[str], now: float, emit: bool) -> None:
        registered, deregistered = self._mirror.broker_ids(children)
        for bid in registered:
            self._emit_if(emit, self._mirror.broker_registered(bid, self._get(znodes.broker_path(bid), None), now))
        for bid in deregistered:
            self._emit_if(emit, self._mirror.broker_deregistered(bid, now))

    def _read_controller(self, now: float, emit: bool) -> None:
        data = self._get(znodes.CONTROLLER, self._on_data)
        self._emit_if(emit, self._mirror.controller(data, self._get(znodes.CONTROLLER_EPOCH, None), now))

    def _read_topics(self, names: list[str], now: float, emit: bool, load_partitions: bool = True) -> None:
        change = self._mirror.topics(names, now)
        # The topic first, then its partitions' states: events arrive in the order a reader expects.
        self._emit_if(emit, change)
        if load_partitions and change is not None:
            for t in change.created:
                self._read_assignment(t, self._get(znodes.topic_path(t), self._on_data), now, emit)

    def _read_assignment(self, topic: str, data: bytes | None, now: float, emit: bool) -> None:
        if data is None:
            return
        for p in self._mirror.assignment(topic, data):
            self._read_state(topic, p, now, emit)

    def _read_state(self, topic: str, partition: int, now: float, emit: bool) -> None:
        data = self._get(znodes.partition_state_path(topic, partition), self._on_data)
        self._emit_if(emit, self._mirror.partition_state(topic, partition, data, now))

    def snapshot(self) -> ClusterSnapshot:
        """The mirror as a snapshot: no I/O."""
        return self._mirror.snapshot(self.hosts, self._connected)


def _async_value(result: Any, timeout_s: float) -> Any:
    """The value of a kazoo async result, or None when the znode does not exist."""
    try:
        return result.get(timeout=timeout_s)
    except NoNodeError:
        return None
