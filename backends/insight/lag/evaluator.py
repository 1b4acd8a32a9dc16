"""Each group's lag status from a window of polls, with Burrow's rules fitted to what a poll sees — one evaluator for
the live view and `kafkatop lag` (README: "Lag you can act on").

Burrow reads every commit from __consumer_offsets; a poll sees a group's committed offsets (OffsetFetch) and who owns
each partition (DescribeGroups), not each commit. So, per partition, over the last `window_s` seconds:
- ERR: the committed offset is below the log start (records deleted under it: retention or delete-records).
- REWIND: the committed offset moved back, and the lag has not been 0 since.
- OK: the lag was 0 at some poll of the window (Burrow's first rule), or the polls do not cover a window yet.
- STALL: the committed offset did not move over the window, nor for 3 of the member's commit intervals (5 s until two
  commits were seen: auto.commit.interval.ms's default), lag > 0, and a member owns the partition (a live consumer,
  stuck or committing the same offset); a window shorter than the commit interval does not flap between commits.
- STOP: the committed offset did not move over the window, lag > 0, and no member owns the partition (nobody will).
- WARN: the committed offset moved, yet the lag never fell over the window and 3 commit intervals (Burrow's "lag
  consistently increasing"); or the lag is past a threshold (`warn_seconds`, `warn_records`).
A group's status is its worst partition's. A group whose committed offsets and topics (the same Topic objects: no
watermark moved) did not change since the last poll is not evaluated again until its status could change with time
alone (`_Group.recheck_at`): at 1,000 groups of 100 partitions a quiet poll costs ~10 ms (bench/scale.py --only lag).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Mapping

from kafkatop.backends.insight.lag.offset_times import OffsetTimes
from kafkatop.backends.model.cluster import ClusterSnapshot, Topic
from kafkatop.backends.model.groups import ConsumerGroup, GroupState
from kafkatop.backends.model.lag import GroupLag, LagRules, LagSnapshot, LagStatus, PartitionLag, StatusChange, worst

INF = float("inf")
STILL_COMMITS = 3  # commit intervals a committed offset must stay unmoved, besides the window, for STALL or WARN
COMMIT_INTERVAL_S = 5.0  # a member's commit interval until two commits are seen: the clients' auto.commit.interval.ms


class _Part:
    """One partition of one group, as the window's polls saw it."""

    __slots__ = ("committed", "first_at", "moved_at", "zero_at", "rewound_at", "rewound_from", "rising_since", "lag",
                 "gap")  # fmt: skip

    def __init__(self, committed: int, lag: int, at: float) -> None:
        self.committed = committed
        self.lag = lag
        self.first_at = self.moved_at = self.rising_since = at
        self.zero_at: float | None = at if lag == 0 else None
        self.rewound_at: float | None = None
        self.rewound_from = 0
        self.gap = 0.0  # the last time between two moves of the committed offset: the consumer's commit interval

    def observe(self, committed: int, lag: int, at: float) -> None:
        if committed > self.committed:
            if self.moved_at > self.first_at:
                self.gap = at - self.moved_at
            self.moved_at = at
        elif committed < self.committed:
            self.rewound_at, self.rewound_from = at, self.committed
            self.moved_at = at
        if lag == 0:
            self.zero_at = at
        if lag < self.lag:
            self.rising_since = at
        self.committed, self.lag = committed, lag


class _Group:
    __slots__ = ("committed", "topics", "parts", "samples", "result", "recheck_at", "evaluated_at")

    def __init__(self) -> None:
        self.committed: list[int | None] = []
        self.topics: dict[str, Topic | None] = {}  # its partitions' topics as last evaluated: the same objects, the
        # same watermarks (a poll hands the same Topic while none of its partitions changed)
        self.parts: dict[tuple[str, int], _Part] = {}
        # (time, sum of committed offsets, sum of high watermarks) when they changed: the window's rates
        self.samples: deque[tuple[float, int, int]] = deque()
        self.result: GroupLag | None = None
        self.recheck_at = INF
        self.evaluated_at = -INF  # the poll it was last evaluated at


class LagEvaluator:
    """Fed every cluster poll in order (thread-safe); `observe` returns the groups' lag as of that poll."""

    def __init__(self, rules: LagRules | None = None) -> None:
        self.rules = rules or LagRules()
        self._lock = threading.Lock()
        self._times = OffsetTimes()
        self._groups: dict[str, _Group] = {}
        self._lows: dict[str, tuple[Topic, dict[int, int]]] = {}  # each topic's log starts, by the Topic they are of
        self._last: LagSnapshot | None = None

    def observe(self, snapshot: ClusterSnapshot, budget_s: float | None = None) -> LagSnapshot:
        """The groups' lag as of this poll. `budget_s`: past this much CPU time, a group whose offsets or watermarks
        moved keeps its last evaluation (`GroupLag.as_of` says when), and one never evaluated is left out, both to be
        evaluated first at the next poll — a cluster where every group of thousands moves every poll, or the first
        poll of thousands, costs the poll worker a bounded time."""
        ends = INF if budget_s is None else time.process_time() + budget_s  # the watermarks' points count in it
        with self._lock:
            now = snapshot.taken_at
            if self._last is not None and now <= self._last.taken_at:
                return self._last  # a poll that finished late: the window does not run backwards
            self._times.observe(snapshot.topics, now)
            topics = {t.name: t for t in snapshot.topics}
            out: list[GroupLag] = []
            changes: list[StatusChange] = []
            seen = set()
            todo: list[tuple[ConsumerGroup, _Group]] = []
            for group in snapshot.groups:
                if not group.offsets:
                    continue  # nothing committed: no lag to speak of (`kafkatop lag` lists it as such)
                seen.add(group.group_id)
                state = self._groups.get(group.group_id)
                if state is None:
                    state = self._groups[group.group_id] = _Group()
                todo.append((group, state))
            todo.sort(key=lambda gs: gs[1].evaluated_at)  # the longest unevaluated first: none waits for ever
            deferred = evaluated = 0
            for group, state in todo:
                was = state.result
                if evaluated and time.process_time() > ends:
                    if was is not None:
                        out.append(was)  # a group not evaluated yet is not shown until it is (a poll or two)
                    deferred += 1
                    continue
                result = self._evaluate(group, state, now, topics)
                evaluated += result.as_of == now  # one at least, each poll: the budget defers, never starves
                out.append(result)
                if was is not None and was.status is not result.status:
                    changes.append(StatusChange(group.group_id, was.status, result.status, now, result.why))
            for gone in set(self._groups) - seen:
                del self._groups[gone]
            for name in set(self._lows) - set(topics):
                del self._lows[name]
            groups = tuple(sorted(out, key=lambda g: g.group_id))
            self._last = LagSnapshot(now, self.rules, groups, tuple(changes), deferred)
            return self._last

    @property
    def last(self) -> LagSnapshot | None:
        """The last evaluation (a delivery that brings no poll of groups shows it again)."""
        return self._last

    def learn(self, times: Mapping[tuple[str, int, int], float]) -> int:
        """Records' own times (topic, partition, offset → seconds since the epoch), read on demand for offsets older
        than the polls reach: the next evaluation of every group uses them. Returns how many were taken."""
        with self._lock:
            taken = sum(self._times.learn(t, p, o, at) for (t, p, o), at in times.items())
            for state in self._groups.values():
                state.recheck_at = -INF
            return taken

    def _evaluate(self, group: ConsumerGroup, state: _Group, now: float, topics: dict[str, Topic]) -> GroupLag:
        offsets = group.offsets
        committed = [o.committed for o in offsets]
        if (
            state.result is not None
            and state.recheck_at > now
            and committed == state.committed
            and all(topics.get(name) is t for name, t in state.topics.items())
        ):
            return state.result
        if len(committed) != len(state.committed):
            state.samples.clear()  # another set of partitions: the sums no longer compare
        state.committed = committed
        state.topics = {o.topic: topics.get(o.topic) for o in offsets}
        window = self.rules.window_s
        owned = group.state not in (GroupState.EMPTY, GroupState.DEAD)
        parts: list[PartitionLag] = []
        keep: dict[tuple[str, int], _Part] = {}
        recheck = INF
        total_c = total_h = 0
        for o in offsets:
            if o.committed is None or o.high_watermark is None:
                continue  # no commit, or its end unknown this poll: no lag to judge
            key = (o.topic, o.partition)
            lag = max(0, o.high_watermark - o.committed)
            part = state.parts.get(key)
            if part is None:
                part = _Part(o.committed, lag, now)
            else:
                part.observe(o.committed, lag, now)
            keep[key] = part
            total_c += o.committed
            total_h += o.high_watermark
            written = self._times.written_at(o.topic, o.partition, o.committed) if lag else None
            low = self._log_start(topics.get(o.topic), o.partition)
            status, why, at = self._status(part, lag, owned and o.member_id is not None, low, now, window)
            if written is not None and self.rules.warn_seconds is not None and status is LagStatus.OK:
                over = written.at + self.rules.warn_seconds
                if now >= over:
                    status, why = LagStatus.WARN, f"its oldest unread record is over {self.rules.warn_seconds:g} s old"
                else:
                    at = min(at, over)
            if self.rules.warn_records is not None and status is LagStatus.OK and lag > self.rules.warn_records:
                status, why = LagStatus.WARN, f"lag {lag:,} > {self.rules.warn_records:,} records (warn-records)"
            recheck = min(recheck, at)
            parts.append(PartitionLag(o.topic, o.partition, o.committed, o.high_watermark, lag,
                                      None if written is None else written.at, bool(written and written.before),
                                      status, why, bool(written and written.exact)))  # fmt: skip
        state.parts = keep
        samples = state.samples
        if not samples or samples[-1][1:] != (total_c, total_h):
            samples.append((now, total_c, total_h))
        while len(samples) > 1 and samples[1][0] <= now - window:
            samples.popleft()
        if len(samples) > 1:
            recheck = min(recheck, samples[1][0] + window)
        state.recheck_at, state.evaluated_at = recheck, now
        state.result = _group_lag(group, parts, samples, now, window)
        return state.result

    def _log_start(self, topic: Topic | None, partition: int) -> int | None:
        if topic is None:
            return None
        cached = self._lows.get(topic.name)
        if cached is None or cached[0] is not topic:
            lows = {p.id: p.low_watermark for p in topic.partitions if p.low_watermark is not None}
            cached = self._lows[topic.name] = (topic, lows)
        return cached[1].get(partition)

    @staticmethod
    def _status(
        part: _Part, lag: int, owned: bool, low: int | None, now: float, window: float
    ) -> tuple[LagStatus, str, float]:
        """A partition's status, why, and the time it would change without a new poll."""
        since = now - window
        if low is not None and part.committed < low:
            return LagStatus.ERR, f"committed offset {part.committed:,} is below the log start {low:,}", INF
        if part.rewound_at is not None and part.rewound_at > since and (part.zero_at or 0) < part.rewound_at:
            back = f"committed offset moved back from {part.rewound_from:,} to {part.committed:,}"
            return LagStatus.REWIND, back, part.rewound_at + window
        if lag == 0:
            return LagStatus.OK, "no lag", INF
        if part.zero_at is not None and part.zero_at > since:
            return LagStatus.OK, "lag was 0 within the window", part.zero_at + window
        if part.first_at > since:
            return LagStatus.OK, "observed for less than a window", part.first_at + window
        if not owned and part.moved_at <= since:  # nobody will commit: the window alone
            return LagStatus.STOP, f"no member; offset {part.committed:,} unchanged with lag {lag:,}", INF
        # A member's commits: over the window and 3 of its commit intervals, so that a consumer committing every 5 s
        # (auto.commit.interval.ms) is neither stalled nor falling behind between two commits, whatever the window.
        span = max(window, STILL_COMMITS * (part.gap or COMMIT_INTERVAL_S)) if owned else window
        still_until = part.moved_at + span
        if owned and now >= still_until:
            return LagStatus.STALL, f"a member holds offset {part.committed:,} with lag {lag:,}", INF
        if part.rising_since <= now - span:
            return LagStatus.WARN, "lag did not fall over the window while committing", still_until
        return LagStatus.OK, "consuming", min(still_until, part.rising_since + span)


def _group_lag(
    group: ConsumerGroup, parts: list[PartitionLag], samples: deque[tuple[float, int, int]], now: float, window: float
) -> GroupLag:
    status = worst([p.status for p in parts])
    # Said by the partition that gave the status: of those with it, the one furthest behind.
    said = max((p for p in parts if p.status is status), key=lambda p: p.lag, default=None)
    why = f"{said.topic}-{said.partition}: {said.why}" if said is not None else "no partition"
    lagging = [p for p in parts if p.lag and p.written_at is not None]
    oldest = min(lagging, key=lambda p: p.written_at or 0.0, default=None)
    consume = produce = None
    if len(samples) > 1 and now > samples[0][0]:
        # samples[0] holds from its time until samples[1]: the values at the window's start, or its first poll's
        t0, c0, h0 = samples[0]
        span = now - max(t0, now - window)
        consume, produce = (samples[-1][1] - c0) / span, (samples[-1][2] - h0) / span
    observed = min(window, now - samples[0][0]) if samples else 0.0
    return GroupLag(
        group.group_id, group.group_type, status, sum(p.lag for p in parts),
        None if oldest is None else oldest.written_at, bool(oldest and oldest.at_least),
        consume, produce, observed, tuple(parts), why, now,
    )  # fmt: skip
