"""The partition table's rows: which partitions a topic shows under the filter, the orders `o` cycles through, what a
row holds (its cells, highlighted a moment after a failover), and the table of one row per topic."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text

from kafkatop.backends.insight.history import HistorySnapshot, Metric
from kafkatop.backends.model.cluster import ClusterSnapshot, Partition, Topic
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.tui.format import data_size, rate, sparkline
from kafkatop.tui.live.tabs.partitions.cells import (
    OFFLINE,
    TREND_WIDTH,
    UNDER_MIN_ISR,
    UNDER_REPLICATED,
    Cell,
    partition_row,
    trends,
)
from kafkatop.tui.live.text import shown
from kafkatop.tui.live.widgets.filter import matches

HIGHLIGHT_S = 3.0  # how long a changed row stays highlighted (about three polls)

# `o` cycles the rows' order: as kafka-topics lists them, faults first (offline, under min ISR, under-replicated),
# most messages first, by leader, largest first (the leader's replica's bytes on disk: where the brokers' log
# directories are read).
ORDERS = ("topic", "faults", "messages", "leader", "size")

# (topic, partition, broker) -> the bytes of that broker's replica (BrokerDisks.replica_sizes)
Sizes = Mapping[tuple[str, int, int], int]

Shown = Sequence[tuple[Topic, Sequence[Partition]]]  # each topic shown, with its partitions the filter kept


# --- the filter (`/`) ------------------------------------------------------------------------------------------------
def _may_end_in_id(word: str, name: str) -> bool:
    """Whether `word`, not in topic `name`, can be in some "name-ID" key: it must reach into "-ID", so it is digits,
    or what comes before its last "-" ends the name and what follows is digits (a whole topic is ruled out at once)."""
    if "-" not in word:
        return word.isdigit()
    head, _, tail = word.rpartition("-")
    return name.endswith(head) and (not tail or tail.isdigit())


def matching(topic: Topic, words: Sequence[str]) -> Sequence[Partition]:
    """The topic's partitions whose key ("topic-ID") `matches` the filter's `words` (lowercased): the topic's own
    tuple when every one does. The words in the topic's name are in each key, and a word that cannot reach into "-ID"
    is in none, so most topics are decided at once and only the rest partition by partition."""
    name = topic.name.lower()
    rest = [w for w in words if w not in name]
    if not rest:
        return topic.partitions
    if not all(_may_end_in_id(w, name) for w in rest):
        return []
    words = " ".join(rest)
    return [p for p in topic.partitions if matches(words, f"{topic.name}-{p.id}")]


# --- orders (`o`) ----------------------------------------------------------------------------------------------------
def in_order(shown: Shown, order: str, sizes: Sizes | None = None) -> list[Partition]:
    """The rows in `order`, ties kept in kafka-topics' order (sorts are stable). `sizes`: the replicas' bytes."""
    if order == "faults":
        return _faults_first(shown)
    rows: list[Partition] = []
    for _, parts in shown:
        rows.extend(parts)
    if order == "messages":
        rows.sort(key=lambda p: p.messages or 0, reverse=True)  # as the column says ("-": none); ties keep order
    elif order == "leader":
        rows.sort(key=lambda p: p.leader)
    elif order == "size" and sizes is not None:
        rows.sort(key=lambda p: sizes.get((p.topic, p.id, p.leader), -1), reverse=True)  # not read: last
    return rows


def _faults_first(shown: Shown) -> list[Partition]:
    """Offline, then under min ISR, then under-replicated, then the rest. A topic without faults (its summary says so,
    worked out once per topic) keeps its rows as they are, unlooked at: a key function per row would cost more."""
    offline: list[Partition] = []
    below: list[Partition] = []
    shrunk: list[Partition] = []
    rest: list[Partition] = []
    for t, parts in shown:
        if not (t.offline or t.under_min_isr or t.under_replicated):
            rest.extend(parts)
            continue
        min_isr = t.min_insync_replicas
        for p in parts:
            if p.offline:
                offline.append(p)
            elif p.under_min_isr(min_isr):
                below.append(p)
            elif p.under_replicated:
                shrunk.append(p)
            else:
                rest.append(p)
    return offline + below + shrunk + rest


# --- a row -----------------------------------------------------------------------------------------------------------
def row_cells(
    p: Partition, min_isr: int | None, history: HistorySnapshot | None, now: float, size: int | None = None
) -> tuple[Cell, ...]:
    """A partition's row: reversed for HIGHLIGHT_S after its leader or ISR changed (insight/changes.py), with its
    trends. `min_isr`: its topic's min.insync.replicas; `size`: its leader's replica's bytes."""
    when = history.changed_at.get(TopicPartition(p.topic, p.id)) if history is not None else None
    changed = when is not None and now - when <= HIGHLIGHT_S
    isr_trend, rate_trend = trends(history, p)
    return partition_row(p, changed, isr_trend, rate_trend, min_isr, size)


def leader_size(p: Partition, sizes: Sizes | None) -> int | None:
    return None if sizes is None else sizes.get((p.topic, p.id, p.leader))


# --- one row per topic (T) -------------------------------------------------------------------------------------------
# Above this many partitions the table starts as one row per topic (T switches): 10,000 rows are no glance.
TOPIC_ROWS_ABOVE = 1_000

TOPIC_COLUMNS = (
    "topic", "partitions", "rf", "under-replicated", "under min isr", "offline", "messages", "msg/s", "group lag",
    "size",
)  # fmt: skip
TOPIC_COLUMNS_DROPPED_FIRST = ("size", "msg/s", "messages", "rf")  # a narrow terminal keeps the faults and the lag
NONE = Text("0", style="dim")  # no fault: one cell for every row that has none (the table never changes a cell)


# What a topic's row shows, and the row: its topic, its groups' lag, its rate's last samples, the sizes read.
_Made = tuple[Topic, int | None, tuple[float, ...], Sizes | None, tuple[str | Text, ...]]


class TopicRows:
    """One row per topic: its partitions, replication factor, faults, messages, bytes (its leaders' replicas), rate
    and the lag of its groups. A row is made again only when what it shows changed — its topic (the same object poll
    after poll while it does not change), its groups' lag, its rate's samples, the sizes read — so a poll of 9,000
    topics remakes the few that moved and hands the table the same row tuples for the rest (LineTable keeps their
    texts)."""

    def __init__(self) -> None:
        self._made: dict[str, _Made] = {}

    def __call__(
        self, snapshot: ClusterSnapshot, history: HistorySnapshot | None, sizes: Sizes | None = None
    ) -> dict[str, tuple[str | Text, ...]]:
        lag = snapshot.lag_by_topic
        series = history.by_key(Metric.TOPIC_RECORDS_PER_S) if history is not None else {}
        made: dict[str, _Made] = {}
        last = self._made
        rows: dict[str, tuple[str | Text, ...]] = {}
        for t in snapshot.topics:
            name = t.name
            s = series.get(name)
            rates = s.values[-TREND_WIDTH:] if s is not None else ()
            behind = lag.get(name)
            known = last.get(name)
            if known is None or known[0] is not t or known[1] != behind or known[3] is not sizes or known[2] != rates:
                known = (t, behind, rates, sizes, _topic_row(t, behind, rates, sizes))
            made[name] = known
            rows[name] = known[4]
        self._made = made
        return rows


def topic_size(t: Topic, sizes: Sizes | None) -> int | None:
    """The bytes of the topic's leaders' replicas (each partition once); None where none was read."""
    if sizes is None:
        return None
    found = [s for p in t.partitions if (s := sizes.get((p.topic, p.id, p.leader))) is not None]
    return sum(found) if found else None


def _topic_row(t: Topic, lag: int | None, rates: tuple[float, ...], sizes: Sizes | None) -> tuple[str | Text, ...]:
    urp, under, offline = len(t.under_replicated), len(t.under_min_isr), len(t.offline)
    messages = t.messages
    return (
        shown(t.name, style=OFFLINE if offline else UNDER_REPLICATED if urp else ""),  # before Rich drops a CR
        str(len(t.partitions)),
        str(t.replication_factor),
        Text(str(urp), style=UNDER_REPLICATED) if urp else NONE,
        Text(str(under), style=UNDER_MIN_ISR) if under else NONE,
        Text(str(offline), style=OFFLINE) if offline else NONE,
        "-" if messages is None else str(messages),
        Text(f"{sparkline(rates, TREND_WIDTH)} {rate(rates[-1])}" if rates else "", style="cyan"),
        "-" if lag is None else str(lag),
        "-" if (size := topic_size(t, sizes)) is None else data_size(size),
    )
