"""The AdminClient source: one ClusterSnapshot per poll, from a handful of batched Kafka requests.

Per poll: one Metadata request (brokers, topics, leaders, replicas, ISR), one DescribeCluster (racks, controller),
two ListOffsets per leader broker (earliest and latest, spoken by kafkatop itself: watermarks.py), ListGroups, and an
OffsetFetch and a DescribeGroups per group coordinator (group_poll.py). Topic configs (min.insync.replicas) and the
cluster mode change rarely and are re-read every `config_refresh_s` (config_poll.py), as are the feature levels; where
those say eligible.leader.replicas.version ≥ 1, the ELR of topics with a partition below min.insync.replicas is read
every poll, a page per 2000 partitions (elr_poll.py). Nothing is requested per partition or per group, so the
request count grows with brokers, never with partitions or groups.

Every request shares one deadline: a dead broker or an unreachable bootstrap costs at most `timeout_s`, and
whatever answered in time is returned with a Problem for what did not.

Group requests go to each group's coordinator, and not through the AdminClient that does the rest: librdkafka
2.16 can abort, segfault or hang the process over them when a coordinator dies, returns or moves. group_reader.py says
how, and how groups are read without those paths.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from concurrent.futures import Future, wait
from typing import Any

from confluent_kafka import KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.admin.config_poll import ConfigPoll
from kafkatop.backends.kafka.admin.elr_poll import ElrFound, ElrPoll
from kafkatop.backends.kafka.cluster.watermarks import Offsets, WatermarkReader, Watermarks
from kafkatop.backends.kafka.errors import Deadline, describe_error, unreachable_reason
from kafkatop.backends.kafka.groups.group_poll import SOURCE, GroupPoll, GroupReadMode
from kafkatop.backends.kafka.groups.group_reader import CLOSE_WAIT_S
from kafkatop.backends.kafka.share_groups.share_poll import share_poll
from kafkatop.backends.kafka.streams_groups.streams_poll import streams_poll
from kafkatop.backends.model.cluster import (
    NO_LEADER,
    Broker,
    ClusterSnapshot,
    Partition,
    Problem,
    Topic,
    is_internal_topic,
    merge_brokers,
)
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.model.features import METADATA_VERSION


class AdminSource:
    """Polls a Kafka cluster through one long-lived AdminClient (connections are reused between polls), and its
    consumer groups through handles of their own (see group_reader.py)."""

    def __init__(
        self,
        connection: KafkaConnection,
        *,
        timeout_s: float = 2.0,
        include_internal: bool = False,
        watch_groups: Iterable[str] = (),
        config_refresh_s: float = 30.0,
        group_reads: GroupReadMode = "batched",
    ) -> None:
        self.connection = connection
        self.timeout_s = timeout_s
        self.include_internal = include_internal
        self.config_refresh_s = config_refresh_s
        self._created = time.monotonic()
        self._admin: AdminClient | None = handles.new_admin_client(connection, lambda r: SourceUnavailable("kafka", r))
        self._known_brokers: dict[int, Broker] = {}
        # The last poll's topics: a topic equal to its last one is that same object in the new snapshot, so what
        # renders snapshots can skip a topic that did not change by identity (`is`), not by comparing its partitions.
        self._last_topics: dict[str, Topic] = {}
        self._configs = ConfigPoll(config_refresh_s)
        self._elr = ElrPoll(connection, config_refresh_s)
        self._groups = GroupPoll(connection, watch_groups, config_refresh_s, group_reads)
        self._share_groups = share_poll(connection)
        self._streams_groups = streams_poll(connection)
        # Watermarks through kafkatop's own ListOffsets where its connections speak the cluster's security; else
        # through the AdminClient (a Future per partition: slower, the same figures).
        self._watermarks = WatermarkReader(connection) if WatermarkReader.speaks(connection) else None

    @property
    def watch_groups(self) -> tuple[str, ...]:
        return self._groups.watch_groups

    def watch(self, group_ids: Iterable[str], subscribed: Mapping[str, Iterable[str]] | None = None) -> None:
        """Report these groups too, from the next poll on, whether or not the cluster lists them (`subscribed`:
        GroupPoll.watch)."""
        self._groups.watch(group_ids, subscribed)

    @property
    def group_reads(self) -> GroupReadMode:
        """How consumer groups are read: batched per coordinator, or per group (group_poll.py says when)."""
        return self._groups.mode

    @property
    def group_requests(self) -> dict[str, int]:
        """The batched group reads' requests of the last poll, by API (empty the per-group way)."""
        return self._groups.last_requests

    def close(self) -> None:
        self._groups.close()
        self._share_groups.close()
        self._streams_groups.close()
        self._elr.close()
        if self._watermarks is not None:
            self._watermarks.close()
        # AdminClient has no close(): dropping the last reference destroys the handle, on a thread of kafkatop's own.
        box: list[Any] = [self._admin] if self._admin is not None else []
        self._admin = None
        thread = handles.release(box)
        if thread is not None:
            thread.join(CLOSE_WAIT_S)

    def _client(self) -> AdminClient:
        if self._admin is None:
            raise SourceUnavailable("kafka", "the admin client is closed")
        return self._admin

    # --- the poll ---------------------------------------------------------------------------------------------
    def poll(self, *, topics_only: bool = False) -> ClusterSnapshot:
        """One snapshot; raises SourceUnavailable only when not even metadata could be read.

        `topics_only`: brokers, topics, leaders, replicas and ISR from one Metadata request, and nothing that goes to
        a partition's leader or a group's coordinator (watermarks, groups, configs): what kafka-topics --describe
        shows, answered at once even while a dead leader is not fenced yet (its requests would wait the deadline).
        """
        deadline = Deadline(self.timeout_s)
        problems: list[Problem] = []
        self._client().poll(0)  # serve queued librdkafka log lines
        metadata = self._metadata(deadline)
        if topics_only:
            return self._topics_only(metadata)

        topic_meta = {
            name: t for name, t in metadata.topics.items() if self.include_internal or not is_internal_topic(name)
        }
        request_timeout = max(deadline.left(), 0.1)

        cluster_f = self._client().describe_cluster(request_timeout=request_timeout)
        watermarks = self._start_watermarks(metadata, topic_meta, deadline, request_timeout)
        groups_f = self._groups.start_listing(self._client(), metadata, request_timeout, deadline)
        config_fs = self._configs.start(self._client(), list(topic_meta), metadata.controller_id, request_timeout)
        listening = {b.id: (b.host, b.port) for b in metadata.brokers.values()}
        elr_read = self._elr.start(listening, topic_meta, self._configs.min_isr, deadline.end)
        # Group reads start now, not after the waits below: a dead broker can hold ListOffsets or ListGroups until
        # the deadline, and groups on live coordinators must not time out for it.
        group_reads = self._groups.start(metadata, topic_meta, deadline)
        share_read = self._share_groups.start(deadline)
        streams_read = self._streams_groups.start(deadline)

        # --- brokers and controller ---
        racks: dict[int, str | None] = {}
        controller_id = metadata.controller_id if metadata.controller_id >= 0 else None
        cluster_id = metadata.cluster_id
        try:
            desc = deadline.result(cluster_f)
            racks = {n.id: n.rack for n in desc.nodes}
            cluster_id = desc.cluster_id or cluster_id
            if desc.controller is not None and desc.controller.id >= 0:
                controller_id = desc.controller.id
        except Exception as e:  # noqa: BLE001 - any failure of one request becomes a Problem, not a crash
            problems.append(Problem(SOURCE, "DescribeCluster", describe_error(e)))
        alive = {b.id: Broker(b.id, b.host, b.port, racks.get(b.id), alive=True) for b in metadata.brokers.values()}

        # --- watermarks and leader epochs ---
        low, high = self._collect_watermarks(watermarks, deadline, problems)

        # --- configs (mode, min.insync.replicas), when due ---
        self._configs.collect(config_fs, deadline, problems)
        elr = self._elr.collect(elr_read, deadline, problems)

        topics = tuple(
            self._unchanged(self._topic(name, topic_meta[name], alive, low, high, elr)) for name in sorted(topic_meta)
        )
        self._last_topics = {t.name: t for t in topics}
        brokers = self._brokers(alive, topics)
        groups = self._groups.collect(groups_f, group_reads, high, problems)
        ends = {tp: v[0] for tp, v in high.items()}
        shared = self._share_groups.collect(share_read, deadline, ends, problems)
        shared += self._streams_groups.collect(streams_read, deadline, ends, problems)
        if shared:  # ListGroups lists share and streams groups too: shown once, as what they are
            names = {g.group_id for g in shared}
            groups = tuple(sorted((*(g for g in groups if g.group_id not in names), *shared), key=lambda g: g.group_id))
        mode = self._configs.mode or "unknown"
        if mode == "unknown" and self._elr.features is not None and self._elr.features.level(METADATA_VERSION) >= 1:
            # A finalized metadata.version is KRaft's (ApiVersions, which no ACL guards), where the controller
            # Metadata names is a random broker: the broker's configs that would say so may be refused.
            mode = "kraft"
        return ClusterSnapshot(
            source=SOURCE,
            taken_at=time.time(),
            cluster_id=cluster_id,
            mode=mode,
            controller_id=None if mode == "kraft" else controller_id,
            brokers=brokers,
            topics=topics,
            groups=groups,
            problems=tuple(problems),
            features=self._elr.features,
        )

    def _topics_only(self, metadata: Any) -> ClusterSnapshot:
        topic_meta = {
            name: t for name, t in metadata.topics.items() if self.include_internal or not is_internal_topic(name)
        }
        alive = {b.id: Broker(b.id, b.host, b.port, None, alive=True) for b in metadata.brokers.values()}
        topics = tuple(self._topic(name, topic_meta[name], alive, {}, {}) for name in sorted(topic_meta))
        controller_id = metadata.controller_id if metadata.controller_id >= 0 else None
        return ClusterSnapshot(
            source=SOURCE,
            taken_at=time.time(),
            cluster_id=metadata.cluster_id,
            mode=self._configs.mode or "unknown",
            controller_id=controller_id,
            brokers=self._brokers(alive, topics),
            topics=topics,
            groups=(),
            problems=(),
        )

    # --- pieces ---------------------------------------------------------------------------------------------------
    def _metadata(self, deadline: Deadline) -> Any:
        """Metadata, in several shorter attempts within the poll's deadline.

        A request that went to a broker the moment it died waits on that broker; the next attempt goes to a live
        one. One long attempt would turn "one of three brokers is down" into "no data at all".
        """
        attempt_s = max(0.5, self.timeout_s / 3)
        while True:
            try:
                return self._client().list_topics(timeout=max(min(attempt_s, deadline.left()), 0.05))
            except KafkaException as e:
                if deadline.left() < 0.05:
                    # A reason logged during this poll (librdkafka retries in the background: one comes each retry).
                    since = max(self._created, time.monotonic() - 2 * self.timeout_s - 1.0)
                    reason = unreachable_reason(self.connection, since, self._client())
                    if reason is not None:
                        raise SourceUnavailable(
                            "kafka", f"cannot talk to {self.connection.bootstrap_servers}: {reason}"
                        ) from None
                    raise SourceUnavailable(
                        "kafka",
                        f"no metadata from bootstrap server {self.connection.bootstrap_servers} "
                        f"within {self.timeout_s:g} s "
                        f"({describe_error(e)}). {self.connection.check_address}",
                    ) from None
                time.sleep(min(0.05, deadline.left()))  # an instant failure must not become a busy loop

    def _start_watermarks(
        self, metadata: Any, topic_meta: Mapping[str, Any], deadline: Deadline, request_timeout: float
    ) -> list[Future[Watermarks]] | tuple[Mapping[KafkaTopicPartition, Future[Any]], ...]:
        """Every led partition's ListOffsets, earliest and latest: per leader (kafkatop's own), or per partition
        (AdminClient). A partition without a leader is not asked: its watermarks are unknown until it has one."""
        if self._watermarks is not None:
            by_leader: dict[int, dict[str, list[int]]] = {}
            for name, t in topic_meta.items():
                for pid, pm in t.partitions.items():
                    if pm.leader >= 0:
                        by_leader.setdefault(pm.leader, {}).setdefault(name, []).append(pid)
            leaders = {b.id: (b.host, b.port) for b in metadata.brokers.values()}
            return self._watermarks.start(leaders, by_leader, deadline.end)
        tps = [KafkaTopicPartition(name, p) for name, t in topic_meta.items() for p in t.partitions]
        if not tps:
            return {}, {}
        return (
            self._client().list_offsets({tp: OffsetSpec.earliest() for tp in tps}, request_timeout=request_timeout),
            self._client().list_offsets({tp: OffsetSpec.latest() for tp in tps}, request_timeout=request_timeout),
        )

    def _collect_watermarks(
        self,
        started: list[Future[Watermarks]] | tuple[Mapping[KafkaTopicPartition, Future[Any]], ...],
        deadline: Deadline,
        problems: list[Problem],
    ) -> tuple[Offsets, Offsets]:
        low: Offsets = {}
        high: Offsets = {}
        failures: dict[tuple[str, str], list[str]] = {}
        if isinstance(started, list):
            for fut in started:
                try:
                    got = deadline.result(fut)
                except Exception as e:  # noqa: BLE001 - a leader that missed the deadline: its partitions are unknown
                    failures.setdefault(("ListOffsets", describe_error(e)), [])
                    continue
                low.update(got.low)
                high.update(got.high)
                for key, names in got.failures.items():
                    failures.setdefault(key, []).extend(names)
                if got.unsupported is not None:
                    self._watermarks = None  # the AdminClient's way from the next poll on
                    failures.setdefault(("ListOffsets", got.unsupported), [])
        else:
            for what, futures, into in zip(("earliest", "latest"), started, (low, high), strict=True):
                self._collect_futures(futures, deadline, f"ListOffsets({what})", into, failures)
        for (what, reason), names in failures.items():
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            problems.append(Problem(SOURCE, what, f"{reason} for {shown}" if names else reason))
        return low, high

    @staticmethod
    def _collect_futures(
        futures: Mapping[KafkaTopicPartition, Future[Any]],
        deadline: Deadline,
        what: str,
        into: Offsets,
        failures: dict[tuple[str, str], list[str]],
    ) -> None:
        wait(list(futures.values()), timeout=deadline.left())
        for ktp, fut in futures.items():
            name = f"{ktp.topic}-{ktp.partition}"
            if not fut.done():
                failures.setdefault((what, "timed out"), []).append(name)
                continue
            exc = fut.exception()
            if exc is not None:
                failures.setdefault((what, describe_error(exc)), []).append(name)
                continue
            res = fut.result()
            if res.offset < 0:
                continue  # librdkafka's OFFSET_INVALID (-1001), answered while a partition has no leader: unknown
            into[(ktp.topic, ktp.partition)] = (res.offset, res.leader_epoch)

    def _unchanged(self, topic: Topic) -> Topic:
        last = self._last_topics.get(topic.name)
        return last if last is not None and last == topic else topic

    def _topic(
        self,
        name: str,
        meta: Any,
        alive: Mapping[int, Broker],
        low: Mapping[tuple[str, int], tuple[int, int | None]],
        high: Mapping[tuple[str, int], tuple[int, int | None]],
        elr: ElrFound | None = None,
    ) -> Topic:
        parts = []
        for pid in sorted(meta.partitions):
            pm = meta.partitions[pid]
            lo, hi = low.get((name, pid)), high.get((name, pid))
            eligible, last_known = elr.of(name, pid) if elr is not None else (None, None)
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
                    elr=eligible,
                    last_known_elr=last_known,
                )
            )
        return Topic(
            name=name,
            partitions=tuple(parts),
            internal=is_internal_topic(name),
            min_insync_replicas=self._configs.min_isr.get(name),
        )

    def _brokers(self, alive: Mapping[int, Broker], topics: tuple[Topic, ...]) -> tuple[Broker, ...]:
        self._known_brokers.update(alive)
        return merge_brokers(alive, self._known_brokers, (r for t in topics for p in t.partitions for r in p.replicas))
