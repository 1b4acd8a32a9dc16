"""The partition table's min.insync.replicas beside the ISR: a partition whose ISR is below it (acks=all producers
refused with NOT_ENOUGH_REPLICAS) is marked apart from one that is only under-replicated; the column is left out
where no topic's min.insync.replicas is known, and stays when a narrow terminal drops the watermarks and trends."""

from __future__ import annotations

from dataclasses import replace

from textual.app import App, ComposeResult

from kafkatop.backends.model.cluster import ClusterSnapshot, Partition, Topic
from kafkatop.tui.live.tabs.partitions.cells import UNDER_MIN_ISR
from kafkatop.tui.live.tabs.partitions.pane import PartitionsPane, PartitionTable, Summary
from tests.fixtures.snapshots import TAKEN_AT, failover_snapshot


class PaneApp(App[None]):
    def compose(self) -> ComposeResult:
        yield PartitionsPane()


def _styles(table: PartitionTable, key: str, column: str) -> str:
    return " ".join(style for _, style in table.row_cell(key, column))


def _header(table: PartitionTable) -> str:
    return table.render_line(0).text


def shrunk() -> ClusterSnapshot:
    """purchases (min.insync.replicas=2) with partition 0's ISR down to one replica, 1 down to two of three, 2 whole;
    audit with no min.insync.replicas read."""
    snap = failover_snapshot()
    purchases = Topic(
        "purchases",
        (
            Partition("purchases", 0, 0, (0, 1, 2), (0,), (1, 2), 0, 120),
            Partition("purchases", 1, 2, (1, 2, 0), (2, 0), (1,), 0, 98),
            Partition("purchases", 2, 2, (2, 0, 1), (2, 0, 1), (), 0, 131),
        ),
        min_insync_replicas=2,
    )
    audit = Topic("audit", (Partition("audit", 0, 0, (0, 2), (0,), (), 0, 5),))
    return replace(snap, topics=(audit, purchases))


async def test_under_min_isr_is_marked_apart_from_under_replicated() -> None:
    async with PaneApp().run_test(size=(160, 30)) as pilot:
        pane = pilot.app.query_one(PartitionsPane)
        pane.show(shrunk(), TAKEN_AT)
        await pilot.pause()
        table = pane.query_one(PartitionTable)
        header = _header(table)
        assert "min isr" in header and header.index("min isr") > header.index("isr ")
        # ISR 1 < min 2: acks=all refused. The row and its min isr cell say so, in their own colour.
        assert table.row("purchases-0")[4:6] == ("0", "2 !")
        assert UNDER_MIN_ISR in _styles(table, "purchases-0", "topic")
        assert UNDER_MIN_ISR in _styles(table, "purchases-0", "min isr")
        # ISR 2 of 3 with min 2: under-replicated only (yellow), writes still taken.
        assert table.row("purchases-1")[4:6] == ("2,0", "2")
        assert "yellow" in _styles(table, "purchases-1", "topic") and UNDER_MIN_ISR not in _styles(
            table, "purchases-1", "topic"
        )
        assert table.row("purchases-2")[5] == "2" and _styles(table, "purchases-2", "topic").strip() == ""
        # Not read for audit: a dash, and under-replicated is all that can be said.
        assert table.row("audit-0")[5] == "-" and "yellow" in _styles(table, "audit-0", "topic")
        summary = pane.query_one(Summary).text
        assert "1 under min ISR (acks=all refused)" in summary.plain and "3 under-replicated" in summary.plain


async def test_the_column_is_left_out_where_no_min_isr_is_known() -> None:
    unknown = replace(shrunk(), topics=tuple(replace(t, min_insync_replicas=None) for t in shrunk().topics))
    async with PaneApp().run_test(size=(160, 30)) as pilot:
        pane = pilot.app.query_one(PartitionsPane)
        pane.show(unknown, TAKEN_AT)
        await pilot.pause()
        table = pane.query_one(PartitionTable)
        assert "min isr" not in _header(table)
        assert "under min ISR" not in pane.query_one(Summary).text.plain
        pane.show(shrunk(), TAKEN_AT + 1)  # read at a later poll: the column comes
        await pilot.pause()
        assert "min isr" in _header(table)


async def test_a_narrow_terminal_keeps_min_isr_and_drops_the_watermarks() -> None:
    async with PaneApp().run_test(size=(80, 24)) as pilot:
        pane = pilot.app.query_one(PartitionsPane)
        pane.show(shrunk(), TAKEN_AT)
        await pilot.pause()
        header = _header(pane.query_one(PartitionTable))
        assert "min isr" in header and "low" not in header and "high" not in header
        assert len(header.rstrip()) <= 80
