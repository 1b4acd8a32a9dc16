"""The part of an AdminSource poll that reads the groups of one type kafkatop describes over its own protocol code —
share groups (KIP-932) and streams groups (KIP-1071) — on a thread of its own while the rest of the poll runs, turned
into the same ConsumerGroup snapshots as consumer groups so that the Groups tab shows them as what they are.

A cluster without that type (the librdkafka mock, Kafka before 4.1, the feature at 0) is asked again only every
RECHECK_S: a lab upgraded with `kafka-features.sh upgrade` shows its groups within a minute. A poll that cannot read
them keeps the groups last read, saying so, rather than making them vanish (a share coordinator does not answer while
__share_group_state is below its min ISR).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Generic, Literal, Protocol, TypeVar

from kafkatop.backends.kafka.errors import Deadline, describe_error
from kafkatop.backends.model.cluster import Problem
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.groups import ConsumerGroup

SOURCE = "admin"
RECHECK_S = 60.0


class DescribedGroup(Protocol):
    @property
    def group_id(self) -> str: ...
    @property
    def error(self) -> str | None: ...


G = TypeVar("G", bound=DescribedGroup)
G_co = TypeVar("G_co", bound=DescribedGroup, covariant=True)


class GroupReader(Protocol[G_co]):
    def describe_all(self, deadline: float) -> Mapping[str, G_co]: ...
    def close(self) -> None: ...


@dataclass(frozen=True)
class GroupKind(Generic[G]):
    """What a typed poll needs of one group type: its name as ListGroups says it, how its groups become the Groups
    tab's, and the error its reader raises when the cluster has none."""

    name: Literal["share", "streams"]
    unavailable: type[Exception]
    as_consumer_group: Callable[[G, Mapping[tuple[str, int], int | None]], ConsumerGroup]


class TypedGroupPoll(Generic[G]):
    """One group type's groups, poll after poll, on one thread (the reader keeps its connections from poll to poll).
    `reader` is None where kafkatop cannot speak to the cluster itself (a security it does not implement)."""

    def __init__(self, kind: GroupKind[G], reader: GroupReader[G] | None) -> None:
        self._kind = kind
        self._reader = reader
        self._pool = ThreadPoolExecutor(1, thread_name_prefix=f"kafkatop-{kind.name}-groups")
        self._unavailable_at: float | None = None  # when the cluster said it has no groups of this type
        self._last: tuple[tuple[ConsumerGroup, ...], float] = ((), 0.0)  # the last read, and when

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        if self._reader is not None:
            self._reader.close()

    def start(self, deadline: Deadline) -> Future[Mapping[str, G]] | None:
        if self._reader is None:
            return None
        if self._unavailable_at is not None and time.monotonic() - self._unavailable_at < RECHECK_S:
            return None
        # No end offsets here: the poll's own high watermarks give each partition's lag in collect().
        return self._pool.submit(self._reader.describe_all, deadline.end)

    def collect(
        self,
        read: Future[Mapping[str, G]] | None,
        deadline: Deadline,
        high: Mapping[tuple[str, int], int | None],
        problems: list[Problem],
    ) -> tuple[ConsumerGroup, ...]:
        if read is None:
            return ()
        name = self._kind.name
        try:
            groups = deadline.result(read)
        except self._kind.unavailable:
            self._unavailable_at = time.monotonic()
            return ()
        except Exception as e:  # noqa: BLE001 - a read that missed the deadline is this poll's problem, not a crash
            why = str(e) if isinstance(e, KafkatopError) else describe_error(e)
            problems.append(Problem(SOURCE, f"{name} groups", why))
            return self._kept(why)
        self._unavailable_at = None
        out = []
        for g in groups.values():
            if g.error is None:
                out.append(self._kind.as_consumer_group(g, high))
                continue
            # Listed but not described (its coordinator down, say): still shown, saying why it has no members.
            problems.append(Problem(SOURCE, f"{name} group {g.group_id}", g.error))
            out.append(ConsumerGroup(g.group_id, protocol_type=name, group_type=name,
                                     note=f"a {name} group, not described this poll: {g.error}"))  # fmt: skip
        self._last = (tuple(out), time.time())
        return self._last[0]

    def _kept(self, why: str) -> tuple[ConsumerGroup, ...]:
        """The groups as last read, saying so."""
        groups, at = self._last
        said = f"as read at {time.strftime('%H:%M:%S', time.localtime(at))}; this poll: {why}"
        return tuple(replace(g, note=said) for g in groups)
