"""The AdminClient source: one ClusterSnapshot per poll, from a handful of batched Kafka requests.

Per poll: one Metadata request (brokers, topics, leaders, replicas, ISR), one DescribeCluster (racks, controller),
two ListOffsets calls covering every partition (earliest and latest; librdkafka sends one request per leader
broker), ListGroups, DescribeGroups for all groups at once and one OffsetFetch per group. Topic configs
(min.insync.replicas) and the cluster mode change rarely and are re-read every `config_refresh_s`. Nothing is
requested per partition, so the request count grows with brokers and groups, never with partitions.

Every request shares one deadline: a dead broker or an unreachable bootstrap costs at most `timeout_s`, and
whatever answered in time is returned with a Problem for what did not.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import Future, wait
from typing import Any

from confluent_kafka import ConsumerGroupTopicPartitions, KafkaError, KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, OffsetSpec, ResourceType

from kafkatop.backends.errors import SourceUnavailable
from kafkatop.backends.groups import build_group
from kafkatop.backends.model import (
    NO_LEADER,
    Broker,
    ClusterMode,
    ClusterSnapshot,
    ConsumerGroup,
    Partition,
    Problem,
    Topic,
    TopicPartition,
    merge_brokers,
)

SOURCE = "admin"
# librdkafka logs (connection refused, broker down, …) go here instead of stderr, which the TUI owns.
LIBRDKAFKA_LOGGER = logging.getLogger("kafkatop.librdkafka")
LIBRDKAFKA_LOGGER.addHandler(logging.NullHandler())
LIBRDKAFKA_LOGGER.propagate = False


def is_internal_topic(name: str) -> bool:
    """Kafka's internal topics (__consumer_offsets, __transaction_state, __share_group_state) start with "__"."""
    return name.startswith("__")


_SECRET_WORDS = ("password", "secret", "jaas", "token", "key")


def redact(text: str, config: Mapping[str, Any]) -> str:
    """`text` with the values of secret-looking settings (passwords, keys, JAAS configs) replaced by ***."""
    for k, v in config.items():
        if isinstance(v, str) and v and any(w in k.lower() for w in _SECRET_WORDS):
            text = text.replace(v, "***")
    return text


def describe_error(exc: BaseException) -> str:
    """A KafkaException as one readable line: `LEADER_NOT_AVAILABLE: Broker: Leader not available`."""
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        err: KafkaError = exc.args[0]
        text = err.str().strip()
        # Some errors come with only the request's name ("ConsumerGroupDescribe: "): the code says more.
        return err.name() if not text or text.endswith(":") else f"{err.name()}: {text}"
    if isinstance(exc, TimeoutError):
        return "timed out"
    return str(exc) or type(exc).__name__


def _is_unsupported(exc: BaseException) -> bool:
    return (
        isinstance(exc, KafkaException)
        and bool(exc.args)
        and isinstance(exc.args[0], KafkaError)
        and exc.args[0].code() == KafkaError._UNSUPPORTED_FEATURE
    )


class _Deadline:
    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        return max(0.0, self.end - time.monotonic())


def _result(fut: Future[Any], deadline: _Deadline) -> Any:
    """The future's result, or raise: its own exception, or TimeoutError once the poll's deadline passed."""
    return fut.result(timeout=deadline.left())


class AdminSource:
    """Polls a Kafka cluster through one long-lived AdminClient (connections are reused between polls)."""

    def __init__(
        self,
        bootstrap_servers: str,
        *,
        client_config: Mapping[str, str] | None = None,
        timeout_s: float = 2.0,
        include_internal: bool = False,
        watch_groups: Iterable[str] = (),
        config_refresh_s: float = 30.0,
    ) -> None:
        self.bootstrap_servers = bootstrap_servers
        self.timeout_s = timeout_s
        self.include_internal = include_internal
        # Groups to report even when the cluster does not list them (kafkatop's own consumers; brokers whose
        # ListGroups is restricted by ACLs; the librdkafka mock).
        self.watch_groups = tuple(watch_groups)
        self.config_refresh_s = config_refresh_s
        config: dict[str, Any] = dict(client_config or {})
        config["bootstrap.servers"] = bootstrap_servers
        config.setdefault("client.id", "kafkatop")
        config["logger"] = LIBRDKAFKA_LOGGER
        try:
            self._admin = AdminClient(config)
        except (KafkaException, ValueError, TypeError) as e:
            raise SourceUnavailable(
                "kafka", f"invalid client configuration: {redact(describe_error(e), config)}"
            ) from None
        self._known_brokers: dict[int, Broker] = {}
        self._mode: ClusterMode | None = None
        self._min_isr: dict[str, int | None] = {}
        self._configs_read_at = float("-inf")
        # Clusters that cannot describe groups: where each group committed (see _fetch_named_offsets).
        self._groups_describable = True
        self._group_topics: dict[str, set[str]] = {}
        self._group_topics_read_at = float("-inf")

    def close(self) -> None:
        # AdminClient has no close(); dropping the last reference destroys the handle and its connections.
        self._admin = None  # type: ignore[assignment]

    # --- the poll ---------------------------------------------------------------------------------------------
    def poll(self) -> ClusterSnapshot:
        """One snapshot; raises SourceUnavailable only when not even metadata could be read."""
        deadline = _Deadline(self.timeout_s)
        problems: list[Problem] = []
        self._admin.poll(0)  # serve queued librdkafka log lines
        metadata = self._metadata(deadline)

        topic_meta = {
            name: t for name, t in metadata.topics.items() if self.include_internal or not is_internal_topic(name)
        }
        tps = [KafkaTopicPartition(name, p) for name, t in topic_meta.items() for p in t.partitions]
        request_timeout = max(deadline.left(), 0.1)

        cluster_f = self._admin.describe_cluster(request_timeout=request_timeout)
        low_f = self._list_offsets(tps, OffsetSpec.earliest(), request_timeout)
        high_f = self._list_offsets(tps, OffsetSpec.latest(), request_timeout)
        groups_f = self._admin.list_consumer_groups(request_timeout=request_timeout)
        config_fs = self._start_config_reads(list(topic_meta), metadata.controller_id, request_timeout)

        # --- brokers and controller ---
        racks: dict[int, str | None] = {}
        controller_id = metadata.controller_id if metadata.controller_id >= 0 else None
        cluster_id = metadata.cluster_id
        try:
            desc = _result(cluster_f, deadline)
            racks = {n.id: n.rack for n in desc.nodes}
            cluster_id = desc.cluster_id or cluster_id
            if desc.controller is not None and desc.controller.id >= 0:
                controller_id = desc.controller.id
        except Exception as e:  # noqa: BLE001 - any failure of one request becomes a Problem, not a crash
            problems.append(Problem(SOURCE, "DescribeCluster", describe_error(e)))
        alive = {b.id: Broker(b.id, b.host, b.port, racks.get(b.id), alive=True) for b in metadata.brokers.values()}

        # --- watermarks and leader epochs ---
        low = self._collect_offsets(low_f, deadline, "ListOffsets(earliest)", problems)
        high = self._collect_offsets(high_f, deadline, "ListOffsets(latest)", problems)

        # --- configs (mode, min.insync.replicas), when due ---
        self._collect_configs(config_fs, deadline, problems)

        topics = tuple(self._topic(name, topic_meta[name], alive, low, high) for name in sorted(topic_meta))
        brokers = self._brokers(alive, topics)
        groups = self._groups(groups_f, deadline, topics, high, problems)
        return ClusterSnapshot(
            source=SOURCE,
            taken_at=time.time(),
            cluster_id=cluster_id,
            mode=self._mode or "unknown",
            controller_id=None if self._mode == "kraft" else controller_id,
            brokers=brokers,
            topics=topics,
            groups=groups,
            problems=tuple(problems),
        )

    # --- pieces ---------------------------------------------------------------------------------------------------
    def _metadata(self, deadline: _Deadline) -> Any:
        """Metadata, in several shorter attempts within the poll's deadline.

        A request that went to a broker the moment it died waits on that broker; the next attempt goes to a live
        one. One long attempt would turn "one of three brokers is down" into "no data at all".
        """
        attempt_s = max(0.5, self.timeout_s / 3)
        while True:
            try:
                return self._admin.list_topics(timeout=max(min(attempt_s, deadline.left()), 0.05))
            except KafkaException as e:
                if deadline.left() < 0.05:
                    raise SourceUnavailable(
                        "kafka",
                        f"no metadata from bootstrap server {self.bootstrap_servers} within {self.timeout_s:g} s "
                        f"({describe_error(e)}). Check that a broker listens there and that --bootstrap-server is "
                        "right.",
                    ) from None
                time.sleep(min(0.05, deadline.left()))  # an instant failure must not become a busy loop

    def _list_offsets(
        self, tps: list[KafkaTopicPartition], spec: OffsetSpec, request_timeout: float
    ) -> dict[KafkaTopicPartition, Future[Any]]:
        if not tps:
            return {}
        return self._admin.list_offsets({tp: spec for tp in tps}, request_timeout=request_timeout)

    @staticmethod
    def _collect_offsets(
        futures: Mapping[KafkaTopicPartition, Future[Any]],
        deadline: _Deadline,
        what: str,
        problems: list[Problem],
    ) -> dict[TopicPartition, tuple[int, int | None]]:
        wait(list(futures.values()), timeout=deadline.left())
        out: dict[TopicPartition, tuple[int, int | None]] = {}
        failures: dict[str, list[str]] = {}
        for ktp, fut in futures.items():
            tp = TopicPartition(ktp.topic, ktp.partition)
            if not fut.done():
                failures.setdefault("timed out", []).append(str(tp))
                continue
            exc = fut.exception()
            if exc is not None:
                failures.setdefault(describe_error(exc), []).append(str(tp))
                continue
            res = fut.result()
            out[tp] = (res.offset, res.leader_epoch)
        for reason, names in failures.items():
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            problems.append(Problem(SOURCE, what, f"{reason} for {shown}"))
        return out

    def _topic(
        self,
        name: str,
        meta: Any,
        alive: Mapping[int, Broker],
        low: Mapping[TopicPartition, tuple[int, int | None]],
        high: Mapping[TopicPartition, tuple[int, int | None]],
    ) -> Topic:
        parts = []
        for pid in sorted(meta.partitions):
            pm = meta.partitions[pid]
            tp = TopicPartition(name, pid)
            lo, hi = low.get(tp), high.get(tp)
            replicas = tuple(pm.replicas)
            parts.append(
                Partition(
                    topic=name,
                    id=pid,
                    leader=pm.leader if pm.leader >= 0 else NO_LEADER,
                    replicas=replicas,
                    isr=tuple(pm.isrs),
                    # A replica on a broker missing from metadata (down, fenced) is offline.
                    offline_replicas=tuple(r for r in replicas if r not in alive),
                    low_watermark=lo[0] if lo else None,
                    high_watermark=hi[0] if hi else None,
                    leader_epoch=hi[1] if hi else None,
                )
            )
        return Topic(
            name=name,
            partitions=tuple(parts),
            internal=is_internal_topic(name),
            min_insync_replicas=self._min_isr.get(name),
        )

    def _brokers(self, alive: Mapping[int, Broker], topics: tuple[Topic, ...]) -> tuple[Broker, ...]:
        self._known_brokers.update(alive)
        return merge_brokers(alive, self._known_brokers, (r for t in topics for p in t.partitions for r in p.replicas))

    def _start_config_reads(
        self, topics: list[str], controller_id: int, request_timeout: float
    ) -> dict[ConfigResource, Future[Any]]:
        now = time.monotonic()
        unknown = [t for t in topics if t not in self._min_isr]
        due = now - self._configs_read_at >= self.config_refresh_s
        wanted = topics if due else unknown
        resources = [ConfigResource(ResourceType.TOPIC, t) for t in wanted]
        futures: dict[ConfigResource, Future[Any]] = {}
        if resources:
            futures.update(self._admin.describe_configs(resources, request_timeout=request_timeout))
        if self._mode is None or due:
            broker = controller_id if controller_id >= 0 else None
            if broker is not None:
                res = ConfigResource(ResourceType.BROKER, str(broker))
                futures.update(self._admin.describe_configs([res], request_timeout=request_timeout))
        if due:
            self._configs_read_at = now
        return futures

    def _collect_configs(
        self, futures: Mapping[ConfigResource, Future[Any]], deadline: _Deadline, problems: list[Problem]
    ) -> None:
        unsupported = False
        for res, fut in futures.items():
            try:
                entries = _result(fut, deadline)
            except Exception as e:  # noqa: BLE001
                if _is_unsupported(e):
                    unsupported = True
                    if res.restype == ResourceType.TOPIC:
                        self._min_isr[res.name] = None  # do not ask again until the next refresh
                    else:
                        self._mode = self._mode or "unknown"
                    continue
                problems.append(Problem(SOURCE, f"DescribeConfigs {res.name}", describe_error(e)))
                continue
            if res.restype == ResourceType.TOPIC:
                entry = entries.get("min.insync.replicas")
                self._min_isr[res.name] = int(entry.value) if entry is not None and entry.value else None
            else:
                self._mode = _mode_from_broker_config(entries)
        if unsupported:
            problems.append(
                Problem(SOURCE, "DescribeConfigs", "not supported by this cluster: min.insync.replicas unknown")
            )

    def _fetch_offsets(
        self, group_id: str, partitions: list[KafkaTopicPartition] | None, request_timeout: float
    ) -> Future[Any]:
        request = ConsumerGroupTopicPartitions(group_id, partitions)
        return self._admin.list_consumer_group_offsets([request], request_timeout=request_timeout)[group_id]

    def _fetch_named_offsets(
        self, group_ids: list[str], topics: tuple[Topic, ...], deadline: _Deadline
    ) -> dict[str, Future[Any]]:
        """Committed offsets where the cluster cannot describe groups (the mock; old brokers).

        There an OffsetFetch for "all partitions" answers nothing, so partitions must be named. Each group is asked
        once for every partition, then only for the topics it committed on, until the next refresh finds new ones.
        """
        now = time.monotonic()
        if now - self._group_topics_read_at >= self.config_refresh_s:
            self._group_topics.clear()
            self._group_topics_read_at = now
        partitions = {t.name: [KafkaTopicPartition(t.name, p.id) for p in t.partitions] for t in topics}
        request_timeout = max(deadline.left(), 0.1)
        futures: dict[str, Future[Any]] = {}
        for g in group_ids:
            names = self._group_topics.get(g, partitions.keys())
            named = [tp for name in names for tp in partitions.get(name, ())]
            if named:
                futures[g] = self._fetch_offsets(g, named, request_timeout)
        return futures

    def _groups(
        self,
        listed_f: Future[Any],
        deadline: _Deadline,
        topics: tuple[Topic, ...],
        high: Mapping[TopicPartition, tuple[int, int | None]],
        problems: list[Problem],
    ) -> tuple[ConsumerGroup, ...]:
        listed_state: dict[str, Any] = {}
        try:
            listed = _result(listed_f, deadline)
            listed_state = {g.group_id: g.state for g in listed.valid}
            # ListGroups goes to every broker: one line per distinct failure, not one per broker.
            for reason in sorted({describe_error(KafkaException(err)) for err in listed.errors}):
                problems.append(Problem(SOURCE, "ListGroups", reason))
        except Exception as e:  # noqa: BLE001
            problems.append(Problem(SOURCE, "ListGroups", describe_error(e)))
        group_ids = sorted(set(listed_state) | set(self.watch_groups))
        if not group_ids:
            return ()
        descriptions: dict[str, Any] = {}
        offset_fs: dict[str, Future[Any]] = {}
        if self._groups_describable:
            request_timeout = max(deadline.left(), 0.1)
            desc_fs = self._admin.describe_consumer_groups(group_ids, request_timeout=request_timeout)
            offset_fs = {g: self._fetch_offsets(g, None, request_timeout) for g in group_ids}
            for g, fut in desc_fs.items():
                try:
                    descriptions[g] = _result(fut, deadline)
                except Exception as e:  # noqa: BLE001
                    if _is_unsupported(e):
                        self._groups_describable = False
                    else:
                        problems.append(Problem(SOURCE, f"DescribeGroups {g}", describe_error(e)))
        if not self._groups_describable:
            problems.append(Problem(SOURCE, "DescribeGroups", "not supported by this cluster: members unknown"))
            offset_fs = self._fetch_named_offsets(group_ids, topics, deadline)
        high_marks = {tp: v[0] for tp, v in high.items()}
        groups = []
        for g in group_ids:
            committed = None
            try:
                if g in offset_fs:
                    committed = _result(offset_fs[g], deadline).topic_partitions
            except Exception as e:  # noqa: BLE001
                problems.append(Problem(SOURCE, f"OffsetFetch {g}", describe_error(e)))
            if committed is not None and not self._groups_describable:
                self._group_topics.setdefault(g, {tp.topic for tp in committed if tp.offset >= 0})
            groups.append(build_group(g, descriptions.get(g), committed, high_marks, listed_state.get(g)))
        return tuple(groups)


def _mode_from_broker_config(entries: Mapping[str, Any]) -> ClusterMode:
    roles = entries.get("process.roles")
    if roles is not None and roles.value:
        return "kraft"
    zk = entries.get("zookeeper.connect")
    if zk is not None and zk.value:
        return "zk"
    return "unknown"
