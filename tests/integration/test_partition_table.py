"""The partition table on its own: a changed leader or ISR (as History tells it, from insight/changes.py) is highlighted
for a moment, then not; faults styled."""

from __future__ import annotations

from dataclasses import replace

from textual.app import App, ComposeResult

from kafkatop.backends.insight.history import History
from kafkatop.tui.live.widgets.partitions import HIGHLIGHT_S, PartitionTable
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
