"""The partition table on its own: a changed leader or ISR (as History tells it, from insight/changes.py) is highlighted
for a moment, then not; faults styled."""

from __future__ import annotations

from dataclasses import replace

from textual.app import App, ComposeResult

from kafkatop.backends.insight.history import History
from kafkatop.backends.model.cluster import Broker, ClusterSnapshot, Partition, Topic
from kafkatop.backends.model.groups import ConsumerGroup, GroupPartitionOffset, GroupState
from kafkatop.tui.live.tabs.partitions.pane import PartitionsPane, PartitionTable
from kafkatop.tui.live.tabs.partitions.rows import HIGHLIGHT_S
from kafkatop.tui.live.widgets.filter import matches
from kafkatop.tui.live.widgets.line_table import LineTable
from tests.fixtures.snapshots import TAKEN_AT, failover_snapshot


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield PartitionTable()


def styles(table: PartitionTable, key: str, column: str) -> str:
    return " ".join(style for _, style in table.row_cell(key, column))


async def test_changed_rows_are_highlighted_for_a_moment() -> None:
    after = failover_snapshot()
    before = replace(
        after,
        topics=tuple(
            replace(t, partitions=tuple(replace(p, leader=p.replicas[0], isr=p.replicas) for p in t.partitions))
            for t in after.topics
        ),
    )
    history = History()
    async with TableApp().run_test() as pilot:
        table = pilot.app.query_one(PartitionTable)
        history.observe_cluster(replace(before, taken_at=TAKEN_AT))
        table.show(before, None, TAKEN_AT, history.snapshot())
        assert "reverse" not in styles(table, "purchases-1", "leader")  # first sight: nothing "changed"
        history.observe_cluster(replace(after, taken_at=TAKEN_AT + 1))
        table.show(after, None, TAKEN_AT + 1, history.snapshot())
        assert "reverse" in styles(table, "purchases-1", "leader")  # leader 1 → 2: highlighted
        assert "reverse" in styles(table, "purchases-0", "isr")  # ISR shrank, leader kept
        assert table.row("purchases-1")[2] == "2 *"  # not the preferred leader
        assert "strike" in styles(table, "purchases-1", "replicas")  # replica on the dead broker
        assert table.row("TestLAB2-0")[2] == "-1 offline" and "red" in styles(table, "TestLAB2-0", "leader")
        table.show(after, None, TAKEN_AT + 1 + HIGHLIGHT_S + 0.5, history.snapshot())
        assert "reverse" not in styles(table, "purchases-1", "leader")  # the moment has passed
        table.show(after, "purchases", TAKEN_AT + 10)
        assert table.row_count == 3 and table.selected_topic == "purchases"


# --- one row per topic ----------------------------------------------------------------------------------------------
def big_snapshot(topics: int = 60, partitions: int = 20) -> ClusterSnapshot:
    """`topics` × `partitions` partitions on 3 brokers; t-07's partition 3 under-replicated, t-09's 0 offline; group g
    lags 5 on each of t-01's partitions."""
    brokers = tuple(Broker(b, "127.0.0.1", 9092 + b) for b in (1, 2, 3))
    out = []
    for t in range(topics):
        name = f"t-{t:02}"
        parts = []
        for p in range(partitions):
            replicas = tuple((p + i) % 3 + 1 for i in range(3))
            isr = replicas[:2] if (t, p) == (7, 3) else replicas
            leader = -1 if (t, p) == (9, 0) else replicas[0]
            parts.append(Partition(name, p, leader, replicas, isr, (), 0, 100 + p))
        out.append(Topic(name, tuple(parts)))
    group = ConsumerGroup(
        "g", GroupState.STABLE, offsets=tuple(GroupPartitionOffset("t-01", p, 95 + p, 100 + p) for p in range(20))
    )
    return ClusterSnapshot("test", TAKEN_AT, "c", "kraft", None, brokers, tuple(out), groups=(group,))


class PaneApp(App[None]):
    def compose(self) -> ComposeResult:
        yield PartitionsPane()


async def test_a_big_cluster_starts_as_one_row_per_topic_and_drills_down() -> None:
    snap = big_snapshot()
    async with PaneApp().run_test(size=(160, 45)) as pilot:
        pane = pilot.app.query_one(PartitionsPane)
        topics = pilot.app.query_one("#topic-table", LineTable)
        pane.show(snap, TAKEN_AT)
        await pilot.pause()
        assert pane.showing_topics and topics.display and not pilot.app.query_one(PartitionTable).display
        assert topics.row_count == 60
        # topic, partitions, rf, under-replicated, under min isr, offline, messages, msg/s, group lag
        assert topics.row("t-07")[:7] == ("t-07", "20", "3", "1", "0", "0", str(sum(100 + p for p in range(20))))
        assert topics.row("t-09")[5] == "1" and topics.row("t-01")[8] == str(5 * 20)
        assert topics.row("t-02")[8] == "-"  # no group commits there
        # `/` narrows the topics; Enter on one shows its partitions.
        assert topics.apply_filter("t-07") == (1, 60)
        topics.focus()
        await pilot.press("enter")
        await pilot.pause()
        table = pilot.app.query_one(PartitionTable)
        assert pane.topic == "t-07" and table.display and table.row_count == 20
        assert pane.selected_topic == "t-07"
        # T: back to one row per topic; T again: every partition.
        pane.toggle_topic_rows()
        await pilot.pause()
        assert pane.topic is None and pane.showing_topics
        pane.toggle_topic_rows()
        await pilot.pause()
        assert not pane.showing_topics and table.row_count == 1200


async def test_a_small_cluster_shows_every_partition() -> None:
    async with PaneApp().run_test(size=(160, 45)) as pilot:
        pane = pilot.app.query_one(PartitionsPane)
        pane.show(big_snapshot(topics=50), TAKEN_AT)  # 1,000 partitions: every one shown
        await pilot.pause()
        assert not pane.showing_topics and pilot.app.query_one(PartitionTable).row_count == 1000


# --- the `/` filter at 10,000 rows ----------------------------------------------------------------------------------
def test_the_filter_keeps_what_matches_keeps_whatever_is_typed() -> None:
    """The table rules whole topics out before looking at their partitions (10,000 rows per keystroke): the rows it
    keeps are exactly those filter.matches keeps, for every kind of word typed."""
    snap = big_snapshot(topics=30, partitions=12)
    table = PartitionTable()
    typed = ["t", "T-0", "t-07", "t-07-1", "07-1", "-1", "7-", "1", "11", "t-07 3", "0 -1", "x", "t-07-", "-", "07-x",
             "2 t-1", " 3 "]  # fmt: skip
    for needle in typed:
        table.filter_text = needle
        table.show(snap, None, TAKEN_AT)
        kept = [f"{p.topic}-{p.id}" for t in snap.topics for p in t.partitions]
        expected = [k for k in kept if matches(needle, k) or needle.strip() == k.rsplit("-", 1)[1]]
        assert [str(tp) for tp in table.shown_partitions] == expected, needle


def test_typing_on_narrows_what_the_last_keystroke_kept_and_a_backspace_widens_again() -> None:
    """Each keystroke of a longer filter looks only at the topics the last one kept (issue 30); every step keeps
    exactly what a filter typed at once keeps, a new poll and a shorter text look at every topic again."""
    snap = big_snapshot(topics=30, partitions=12)
    table = PartitionTable()
    steps = ["t", "t-", "t-0", "t-07", "t-07-", "t-07-1", "t-07-11", "t-07-1", "t-0", "t-0 1", "t-0 11", "", "1"]
    table.show(snap, None, TAKEN_AT)
    for needle in steps:
        table.apply_filter(needle)
        fresh = PartitionTable()
        fresh.filter_text = needle
        fresh.show(snap, None, TAKEN_AT)
        assert table.shown_partitions == fresh.shown_partitions, needle
    polled = replace(snap, taken_at=snap.taken_at + 2)  # a new poll: not narrowed from the last one's rows
    table.show(polled, None, TAKEN_AT + 2)
    assert len(table.shown_partitions) == len(fresh.shown_partitions)


async def test_o_orders_the_partitions() -> None:
    """Faults first (offline, then under-replicated), most messages first, by leader; then as kafka-topics lists (`o`,
    bound in the partitions pane: tests/integration/test_keys.py)."""
    snap = big_snapshot(topics=12, partitions=5)
    async with TableApp().run_test() as pilot:
        table = pilot.app.query_one(PartitionTable)
        table.show(snap, None, TAKEN_AT)
        table.next_order()
        assert table.order == "faults" and [str(tp) for tp in table.shown_partitions[:2]] == ["t-09-0", "t-07-3"]
        table.next_order()
        assert table.order == "messages" and str(table.shown_partitions[0]) == "t-00-4"  # 104 messages
        table.next_order()
        leaders = [pilot.app.query_one(PartitionTable).row(str(tp))[2].split()[0] for tp in table.shown_partitions]
        assert table.order == "leader" and leaders == sorted(leaders)
        table.next_order()
        assert table.order == "topic" and str(table.shown_partitions[0]) == "t-00-0"
