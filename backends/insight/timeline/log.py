"""The timeline's event log: events kept in time order and bounded, with a change that two sources report (a
ZooKeeper push, then the metadata poll that shows it) kept once, as first reported, the other source in
`confirmed_by`. Not thread-safe on its own: Timeline holds the lock."""

from __future__ import annotations

import bisect
from collections import deque
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, replace

from kafkatop.backends.insight.timeline.model import TimelineEvent

MAX_EVENTS = 2_000


# Two sources' reports of one change: a ZooKeeper push and the metadata poll seconds later.
DUPLICATE_WINDOW_S = 30.0


_RECENT_PER_SUBJECT = 8


_RECENT_SUBJECTS = 64  # subjects with recent records before the old ones are looked for


# --- internal state ---------------------------------------------------------------------------------------------
@dataclass(slots=True, eq=False)
class Record:
    """One event as kept: shared by the log and an incident, so a confirmation updates both."""

    event: TimelineEvent
    value: Hashable  # what two reports of the same change agree on (a leader, an ISR, "gone")
    channels: set[str]  # the report channels folded into it, the first included


class EventLog:
    """Events in time order, at most MAX_EVENTS; `revision` grows with every change."""

    def __init__(self) -> None:
        self.revision = 0
        self.records: list[Record] = []  # in time order
        # Recent records per changing thing ("leader", tp), ("broker", id)…: where duplicates are looked for.
        self._recent: dict[tuple[Hashable, ...], deque[Record]] = {}
        self._recent_limit = _RECENT_SUBJECTS

    def changed(self) -> None:
        self.revision += 1

    def add(
        self, event: TimelineEvent, channel: str, subject: tuple[Hashable, ...] | None = None, value: Hashable = None
    ) -> Record | None:
        """Logs `event`, unless it is another source's report of a change already logged (then that one is marked
        confirmed) or an older view than one logged (a lower leader epoch). Returns the new record, if any."""
        self._forget_old(event.at)
        recent = self._recent.get(subject) if subject is not None else None
        if recent:
            # Other channels only: a topic deleted and created again restarts its epochs in every source.
            known = [
                r.event.leader_epoch
                for r in recent
                if r.event.leader_epoch is not None
                and channel not in r.channels
                and abs(r.event.at - event.at) <= DUPLICATE_WINDOW_S
            ]
            if event.leader_epoch is not None and known and event.leader_epoch < max(known):
                return None  # a lagging source's view of an election already superseded
            same = self._same_change(recent, event, channel, value)
            if same is not None:
                same.channels.add(channel)
                if event.source != same.event.source and event.source not in same.event.confirmed_by:
                    same.event = replace(same.event, confirmed_by=(*same.event.confirmed_by, event.source))
                self.revision += 1
                return None
        record = Record(event, value, {channel})
        bisect.insort_right(self.records, record, key=lambda r: r.event.at)
        if len(self.records) > MAX_EVENTS:
            del self.records[: len(self.records) - MAX_EVENTS]
        if subject is not None:
            self._recent.setdefault(subject, deque(maxlen=_RECENT_PER_SUBJECT)).append(record)
        self.revision += 1
        return record

    @staticmethod
    def _same_change(recent: Iterable[Record], event: TimelineEvent, channel: str, value: Hashable) -> Record | None:
        """A record of the same change from another channel: same kind and outcome, compatible leader epochs, close in
        time, and not already matched by this channel (a channel's own reports are each a change)."""
        for r in reversed(list(recent)):
            e = r.event
            if channel in r.channels or e.kind is not event.kind or r.value != value:
                continue
            if abs(e.at - event.at) > DUPLICATE_WINDOW_S:
                continue
            if e.leader_epoch is not None and event.leader_epoch is not None and e.leader_epoch != event.leader_epoch:
                continue
            return r
        return None

    def _forget_old(self, now: float) -> None:
        # Pruned each time the subjects doubled: a mass leader move of a large cluster stays linear.
        if len(self._recent) <= self._recent_limit:
            return
        for subject in [s for s, rs in self._recent.items() if now - rs[-1].event.at > DUPLICATE_WINDOW_S]:
            del self._recent[subject]
        self._recent_limit = max(_RECENT_SUBJECTS, 2 * len(self._recent))
