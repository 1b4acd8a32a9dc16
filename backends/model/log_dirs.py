"""The brokers' log directories (DescribeLogDirs): each broker's directories, their error, their disk's total and
usable bytes, and the partition replicas each holds; and how kafka-log-dirs.sh --describe prints them (its JSON line,
in the order Java's HashMaps give: java_order.py). Standard library only."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.java_order import hash_order, string_hash, topic_partition_hash

# The exception class the Java admin client raises for a log directory's error code (Errors.exception()): the JSON's
# "error". A directory offline is KAFKA_STORAGE_ERROR; the others are what a broker may answer for the whole request.
ERROR_CLASSES = {
    56: "org.apache.kafka.common.errors.KafkaStorageException",
    31: "org.apache.kafka.common.errors.ClusterAuthorizationException",
    7: "org.apache.kafka.common.errors.TimeoutException",
    -1: "org.apache.kafka.common.errors.UnknownServerException",
}


@dataclass(frozen=True, slots=True)
class ReplicaLog:
    """One partition replica's log in a directory: its size, how far it is behind the partition's log end (a future
    replica, being moved between directories, catching up), and whether it is such a future replica."""

    topic: str
    partition: int
    size: int
    offset_lag: int
    is_future: bool

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"  # TopicPartition.toString()


@dataclass(frozen=True, slots=True)
class LogDir:
    """One log directory of a broker: `error_code` 0 when it is online; total and usable bytes of its disk from
    DescribeLogDirs v4 (Kafka 3.3+), None before."""

    path: str
    error_code: int
    replicas: tuple[ReplicaLog, ...]  # in the broker's answer's order
    total_bytes: int | None = None
    usable_bytes: int | None = None

    @property
    def size(self) -> int:
        return sum(r.size for r in self.replicas)


@dataclass(frozen=True, slots=True)
class BrokerLogDirs:
    broker: int
    log_dirs: tuple[LogDir, ...]  # in the broker's answer's order
    version: int = 0  # the DescribeLogDirs version the broker answered


@dataclass(frozen=True, slots=True)
class LogDirsSnapshot:
    brokers: tuple[BrokerLogDirs, ...]  # in the order asked

    def filtered(self, topics: Collection[str]) -> LogDirsSnapshot:
        """Only these topics' replicas (none given: all), as --topic-list filters them."""
        if not topics:
            return self
        return LogDirsSnapshot(
            tuple(
                BrokerLogDirs(
                    b.broker,
                    tuple(
                        LogDir(
                            d.path,
                            d.error_code,
                            tuple(r for r in d.replicas if r.topic in topics),
                            d.total_bytes,
                            d.usable_bytes,
                        )  # fmt: skip
                        for d in b.log_dirs
                    ),
                    b.version,
                )
                for b in self.brokers
            )
        )

    def biggest(self, n: int) -> list[tuple[int, LogDir, ReplicaLog]]:
        """The `n` largest replicas of every broker and directory, largest first."""
        every = [(b.broker, d, r) for b in self.brokers for d in b.log_dirs for r in d.replicas]
        return sorted(every, key=lambda x: (-x[2].size, x[0], x[2].topic, x[2].partition))[:n]


# --- kafka-log-dirs.sh --describe's lines ---------------------------------------------------------------------------
def broker_order(brokers: Iterable[int]) -> list[int]:
    """A HashSet<Integer>'s order (an Integer's hashCode is its value): the tool's "from brokers 1,2,3"."""
    return hash_order(brokers, lambda b: b)


def _keys(*keys: str) -> list[str]:
    """The keys of a `new HashMap<String, Object>() {{ put(…); … }}` in the order Jackson writes them."""
    return hash_order(keys, string_hash)


def _object(pairs: dict[str, object]) -> dict[str, object]:
    return {k: pairs[k] for k in _keys(*pairs)}


def _replicas_json(d: LogDir, topics: Collection[str]) -> list[object]:
    # The admin client's HashMap<TopicPartition, ReplicaInfo>, filtered into another HashMap (Collectors.toMap).
    def tp_hash(r: ReplicaLog) -> int:
        return topic_partition_hash(r.topic, r.partition)

    ordered = hash_order(d.replicas, tp_hash)
    kept = [r for r in ordered if not topics or r.topic in topics]
    return [
        _object({"partition": r.name, "size": r.size, "offsetLag": r.offset_lag, "isFuture": r.is_future})
        for r in hash_order(kept, tp_hash)
    ]


def tool_json(snapshot: LogDirsSnapshot, topics: Collection[str] = ()) -> str:
    """kafka-log-dirs.sh --describe's third line: Jackson's compact JSON of HashMaps, keys in their hash order."""
    # DescribeLogDirsResult.allDescriptions(): new HashMap<>(brokers), filled in the order of the HashSet of brokers
    # asked; each broker's dirs: new HashMap<>(results).
    by_id = {b.broker: b for b in snapshot.brokers}
    brokers = [by_id[i] for i in hash_order(broker_order(by_id), lambda b: b, initial=len(by_id))]
    document = _object(
        {
            "version": 1,
            "brokers": [
                _object(
                    {
                        "broker": b.broker,
                        "logDirs": [
                            _object(
                                {
                                    "logDir": d.path,
                                    "error": ERROR_CLASSES.get(d.error_code, ERROR_CLASSES[-1])
                                    if d.error_code
                                    else None,
                                    "partitions": _replicas_json(d, topics),
                                }
                            )
                            for d in hash_order(b.log_dirs, lambda d: string_hash(d.path), initial=len(b.log_dirs))
                        ],
                    }
                )
                for b in brokers
            ],
        }
    )
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False)


def tool_lines(snapshot: LogDirsSnapshot, topics: Collection[str] = ()) -> list[str]:
    """The tool's three lines, after it asked every broker of the snapshot."""
    asked = ",".join(str(b) for b in broker_order(b.broker for b in snapshot.brokers))
    return [
        "Querying brokers for log directories information",
        f"Received log directory information from brokers {asked}",
        tool_json(snapshot, topics),
    ]


class LogDirsError(KafkatopError):
    """A broker could not be asked for its log directories, or refused (its error name said): exit 1."""
