"""The brokers' disks as the live view polls them (its `log_dirs` source): every broker's log directories
(DescribeLogDirs, one request per broker), and which brokers could not be read and why; and the shares worked out
from them — each broker's share of the bytes on disk and of the leaders, against an even share. Standard library
only."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kafkatop.backends.model.log_dirs import BrokerLogDirs

# A broker's share of the bytes (or of the leaders) this far from an even share (1/n of n brokers), either way, is
# flagged: ±25 %.
SKEW_THRESHOLD = 0.25


@dataclass(frozen=True, slots=True)
class UnreadBroker:
    broker: int
    reason: str  # as the reader said it: "DescribeLogDirs to broker 2 at …: timed out after 10s"


@dataclass(frozen=True, slots=True)
class BrokerDisks:
    """One poll of the brokers' log directories: those that answered, and those that could not be read."""

    taken_at: float
    brokers: tuple[BrokerLogDirs, ...]
    unread: tuple[UnreadBroker, ...] = ()

    @property
    def bytes_by_broker(self) -> dict[int, int]:
        """Each broker's bytes on disk: every replica in its online directories, a future replica (being moved
        between directories) included, as kafka-log-dirs.sh --describe lists them."""
        return {b.broker: sum(d.size for d in b.log_dirs if not d.error_code) for b in self.brokers}

    def replica_sizes(self) -> dict[tuple[str, int, int], int]:
        """(topic, partition, broker) -> the size of that broker's replica of the partition (not a future one)."""
        return {
            (r.topic, r.partition, b.broker): r.size
            for b in self.brokers
            for d in b.log_dirs
            for r in d.replicas
            if not r.is_future
        }


@dataclass(frozen=True, slots=True)
class BrokerShare:
    """A broker's share of a whole (bytes on disk, leaders) and how far it is from an even share: `skew` is
    share × n − 1 (+0.5: half as much again as an even share; −1.0: none)."""

    share: float
    skew: float

    @property
    def skewed(self) -> bool:
        return abs(self.skew) > SKEW_THRESHOLD


def shares(amounts: Mapping[int, int], brokers: Iterable[int]) -> dict[int, BrokerShare]:
    """Each of `brokers`' share of the sum of `amounts` (a broker missing from it has none); none when the sum is
    zero (nothing to share) or there are no brokers."""
    ids = list(dict.fromkeys(brokers))
    total = sum(amounts.get(b, 0) for b in ids)
    if total <= 0 or not ids:
        return {}
    n = len(ids)
    return {b: BrokerShare(amounts.get(b, 0) / total, amounts.get(b, 0) * n / total - 1.0) for b in ids}
