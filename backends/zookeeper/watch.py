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

from kafkatop.backends.model.cluster import NO_LEADER, Broker, ClusterSnapshot, Partition, Problem, Topic, merge_brokers
from kafkatop.backends.model.errors import NotAKafkaZooKeeper, SourceUnavailable
from kafkatop.backends.model.zookeeper import (
    BrokerDeregistered,
    BrokerRegistered,
    ConnectionChanged,
    ControllerChanged,
    PartitionState,
    PartitionStateChanged,
    TopicsChanged,
    ZkEvent,
)
from kafkatop.backends.zookeeper import znodes
from kafkatop.backends.zookeeper.znodes import MalformedZnode

SOURCE = "zookeeper"
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
        self.timeout_s = timeout_s
        self.events: queue.Queue[ZkEvent] = queue.Queue(maxsize=100_000)
        self._client = KazooClient(
            hosts=hosts,
            timeout=session_timeout_s,
            connection_retry=KazooRetry(max_tries=-1, delay=0.1, max_delay=1.0),
            command_retry=KazooRetry(max_tries=2, delay=0.1, max_delay=0.5),
            logger=_log,
        )
        self._work: queue.Queue[tuple[str, str]] = queue.Queue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._connected = False
        self._last_sync: float | None = None
        # The mirror (guarded by _lock; written only by the worker thread).
        self._brokers: dict[int, Broker] = {}
        self._known_brokers: dict[int, Broker] = {}
        self._controller: int | None = None
        self._controller_epoch: int | None = None
        self._cluster_id: str | None = None
        self._assignments: dict[str, dict[int, tuple[int, ...]]] = {}
        self._topic_ids: dict[str, str | None] = {}
        self._states: dict[tuple[str, int], PartitionState] = {}
        self._problems: dict[str, Problem] = {}

    # --- lifecycle ------------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Connect and load every znode; raises SourceUnavailable / NotAKafkaZooKeeper with what to do."""
        try:
            self._client.start(timeout=self.timeout_s)
        except KazooTimeoutError:
            self._client.stop()
            self._client.close()
            raise SourceUnavailable(
                SOURCE,
                f"no answer from ZooKeeper at {self.hosts} within {self.timeout_s:g} s: is it running, and is "
                "--zookeeper host:port right?",
            ) from None
        try:
            if self._client.exists(znodes.BROKER_IDS) is None:
                raise NotAKafkaZooKeeper(SOURCE, self._not_kafka_reason())
        except NotAKafkaZooKeeper:
            self._client.stop()
            self._client.close()
            raise
        self._connected = True
        self._client.add_listener(self._on_state)
        self._resync(emit=False)
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
                self._problem(path or "resync", f"read failed ({type(e).__name__}); will re-read on reconnect")
            except Exception as e:  # noqa: BLE001 - the watcher thread must outlive any one bad znode
                _log.exception("ZooKeeper watch worker failed on %s", path)
                self._problem(path or "resync", f"unexpected {type(e).__name__}: {e}")

    def _emit(self, event: ZkEvent) -> None:
        try:
            self.events.put_nowait(event)
        except queue.Full:  # nobody is reading events: the mirror stays right, old events are dropped
            try:
                self.events.get_nowait()
            except queue.Empty:
                pass
            self.events.put_nowait(event)

    def _problem(self, path: str, reason: str) -> None:
        with self._lock:
            self._problems[path] = Problem(SOURCE, path, reason)

    def _clear_problem(self, path: str) -> None:
        with self._lock:
            self._problems.pop(path, None)

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
            self._apply_broker_ids(self._children(path), now, emit=True)
        elif path == znodes.CONTROLLER:
            self._apply_controller(self._get(path, self._on_data), now, emit=True)
        elif path == znodes.TOPICS:
            self._apply_topics(self._children(path), now, emit=True)
        elif path.startswith(znodes.TOPICS + "/"):
            parts = path[len(znodes.TOPICS) + 1 :].split("/")
            topic = parts[0]
            if len(parts) == 1 and topic in self._assignments:
                self._apply_assignment(topic, self._get(path, self._on_data), now, emit=True)
            elif len(parts) == 4 and parts[1] == "partitions" and parts[3] == "state" and parts[2].isdigit():
                if topic in self._assignments:  # not a leftover watch of a deleted topic
                    p = int(parts[2])
                    self._apply_state(topic, p, self._get(path, self._on_data), now, emit=True)

    def _resync(self, emit: bool) -> None:
        """Re-read every znode with watches armed, pipelined (one round trip per level, not per znode)."""
        c = self._client
        now = time.time()
        ids_r = c.get_children_async(znodes.BROKER_IDS, watch=self._on_children)
        topics_r = c.get_children_async(znodes.TOPICS, watch=self._on_children)
        cid_r = c.get_async(znodes.CLUSTER_ID)
        ids = _async_value(ids_r, self.timeout_s) or []
        self._apply_broker_ids(ids, now, emit)
        self._apply_controller(self._get(znodes.CONTROLLER, self._on_data), now, emit)
        cid = _async_value(cid_r, self.timeout_s)
        if cid is not None:
            try:
                cluster_id = znodes.parse_cluster_id(bytes(cid[0]))
                with self._lock:
                    self._cluster_id = cluster_id
            except MalformedZnode as e:
                self._problem(e.path, e.reason)
        topics = _async_value(topics_r, self.timeout_s) or []
        self._apply_topics(topics, now, emit, load_partitions=False)
        assignment_rs = {t: c.get_async(znodes.topic_path(t), watch=self._on_data) for t in topics}
        for t, r in assignment_rs.items():
            value = _async_value(r, self.timeout_s)
            self._apply_assignment(t, bytes(value[0]) if value else None, now, emit, load_states=False)
        with self._lock:
            wanted = [(t, p) for t, parts in self._assignments.items() for p in parts]
        state_rs = {tp: c.get_async(znodes.partition_state_path(*tp), watch=self._on_data) for tp in wanted}
        for (t, p), r in state_rs.items():
            value = _async_value(r, self.timeout_s)
            if value is None:  # not written yet (topic being created): watch for its creation
                c.exists_async(znodes.partition_state_path(t, p), watch=self._on_data)
            self._apply_state(t, p, bytes(value[0]) if value else None, now, emit)
        with self._lock:
            self._last_sync = time.time()

    # --- applying znode contents to the mirror, emitting the difference ----------------------------------------------
    def _apply_broker_ids(self, children: list[str], now: float, emit: bool) -> None:
        ids = set()
        for child in children:
            if child.isdigit():
                ids.add(int(child))
            else:
                self._problem(f"{znodes.BROKER_IDS}/{child}", "not a broker id")
        with self._lock:
            before = set(self._brokers)
        for bid in sorted(ids - before):
            path = znodes.broker_path(bid)
            try:
                broker = znodes.parse_broker_registration(bid, self._get(path, None))
                self._clear_problem(path)
            except MalformedZnode as e:
                self._problem(e.path, e.reason)
                broker = Broker(bid, None, None, alive=True)
            with self._lock:
                self._brokers[bid] = broker
                if broker.host is not None:
                    self._known_brokers[bid] = broker
            if emit:
                self._emit(BrokerRegistered(now, broker))
        for bid in sorted(before - ids):
            with self._lock:
                del self._brokers[bid]
            self._clear_problem(znodes.broker_path(bid))
            if emit:
                self._emit(BrokerDeregistered(now, bid))

    def _apply_controller(self, data: bytes | None, now: float, emit: bool) -> None:
        controller: int | None = None
        if data is not None:
            try:
                controller = znodes.parse_controller(data)
                self._clear_problem(znodes.CONTROLLER)
            except MalformedZnode as e:
                self._problem(e.path, e.reason)
        epoch: int | None = None
        try:
            raw = self._get(znodes.CONTROLLER_EPOCH, None)
            epoch = znodes.parse_controller_epoch(raw) if raw is not None else None
        except MalformedZnode as e:
            self._problem(e.path, e.reason)
        with self._lock:
            previous = self._controller
            self._controller, self._controller_epoch = controller, epoch
        if emit and previous != controller:
            self._emit(ControllerChanged(now, previous, controller, epoch))

    def _apply_topics(self, names: list[str], now: float, emit: bool, load_partitions: bool = True) -> None:
        with self._lock:
            before = set(self._assignments)
        created = sorted(set(names) - before)
        deleted = sorted(before - set(names))
        with self._lock:
            for t in deleted:
                self._assignments.pop(t, None)
                self._topic_ids.pop(t, None)
                for key in [k for k in self._states if k[0] == t]:
                    del self._states[key]
            for t in created:
                self._assignments[t] = {}
        # The topic first, then its partitions' states: events arrive in the order a reader expects.
        if emit and (created or deleted):
            self._emit(TopicsChanged(now, tuple(created), tuple(deleted)))
        if load_partitions:
            for t in created:
                self._apply_assignment(t, self._get(znodes.topic_path(t), self._on_data), now, emit)

    def _apply_assignment(
        self, topic: str, data: bytes | None, now: float, emit: bool, load_states: bool = True
    ) -> None:
        path = znodes.topic_path(topic)
        if data is None:
            return
        try:
            assignment, topic_id = znodes.parse_topic_assignment(topic, data)
            self._clear_problem(path)
        except MalformedZnode as e:
            self._problem(e.path, e.reason)
            return
        with self._lock:
            new_parts = set(assignment) - set(self._assignments.get(topic, {}))
            self._assignments[topic] = assignment
            self._topic_ids[topic] = topic_id
        if load_states:
            for p in sorted(new_parts):
                self._apply_state(topic, p, self._get(znodes.partition_state_path(topic, p), self._on_data), now, emit)

    def _apply_state(self, topic: str, partition: int, data: bytes | None, now: float, emit: bool) -> None:
        state: PartitionState | None = None
        if data is not None:
            try:
                state = znodes.parse_partition_state(topic, partition, data)
                self._clear_problem(znodes.partition_state_path(topic, partition))
            except MalformedZnode as e:
                self._problem(e.path, e.reason)
                return
        with self._lock:
            previous = self._states.get((topic, partition))
            if state is None:
                self._states.pop((topic, partition), None)
            else:
                self._states[(topic, partition)] = state
        if emit and previous != state and (previous is not None or state is not None):
            self._emit(PartitionStateChanged(now, topic, partition, previous, state))

    # --- the snapshot ---------------------------------------------------------------------------------------------
    def snapshot(self) -> ClusterSnapshot:
        with self._lock:
            brokers = dict(self._brokers)
            assignments = {t: dict(a) for t, a in self._assignments.items()}
            states = dict(self._states)
            problems = list(self._problems.values())
            controller, cluster_id = self._controller, self._cluster_id
            known = dict(self._known_brokers)
            topic_ids = dict(self._topic_ids)
        if not self._connected:
            problems.append(Problem(SOURCE, self.hosts, "disconnected: showing the last state read"))
        topics = []
        for name in sorted(assignments):
            parts = []
            for pid, replicas in sorted(assignments[name].items()):
                st = states.get((name, pid))
                parts.append(
                    Partition(
                        topic=name,
                        id=pid,
                        leader=st.leader if st is not None else NO_LEADER,
                        replicas=replicas,
                        isr=st.isr if st is not None else (),
                        offline_replicas=tuple(r for r in replicas if r not in brokers),
                        leader_epoch=st.leader_epoch if st is not None else None,
                    )
                )
            topics.append(Topic(name, tuple(parts), internal=name.startswith("__"), topic_id=topic_ids.get(name)))
        all_brokers = merge_brokers(brokers, known, (r for a in assignments.values() for rs in a.values() for r in rs))
        return ClusterSnapshot(
            source=SOURCE,
            taken_at=time.time(),
            cluster_id=cluster_id,
            mode="zk",
            controller_id=controller,
            brokers=all_brokers,
            topics=tuple(topics),
            problems=tuple(sorted(problems, key=lambda p: p.what)),
        )


def _async_value(result: Any, timeout_s: float) -> Any:
    """The value of a kazoo async result, or None when the znode does not exist."""
    try:
        return result.get(timeout=timeout_s)
    except NoNodeError:
        return None
