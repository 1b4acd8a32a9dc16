"""The Brokers tab's disk columns and the partition table's sizes, driven by Textual's pilot from recorded log
directories (RecordedLogDirs, a named test double of the LogDirsSource port: the librdkafka mock answers no
DescribeLogDirs): each broker's bytes on disk, its share of the bytes and of the leaders, the skewed ones in yellow;
at 80 columns the address and rack give way; without the source (the demo) and when a read fails, the line under the
table says so. The partition table: each leader's replica's size, `o` largest first, a topic row's bytes."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

import pytest
from rich.text import Text

from kafkatop.backends.kafka.cluster.log_dirs import LogDirsPoll
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.disks import BrokerDisks, UnreadBroker
from kafkatop.backends.model.errors import KafkatopError, SourceUnavailable
from kafkatop.tui.cli.compose import compose_app, compose_sources
from kafkatop.tui.cli.parser import build_parser
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.brokers.pane import BrokerTable, DisksNote
from kafkatop.tui.live.tabs.partitions.cells import COLUMNS
from kafkatop.tui.live.tabs.partitions.pane import PartitionsPane, PartitionTable, Summary
from kafkatop.tui.live.tabs.partitions.rows import TOPIC_COLUMNS
from kafkatop.tui.live.widgets.line_table import LineTable
from tests.conftest import pilot_until
from tests.fixtures.snapshots import TAKEN_AT, RecordedControl, kraft_disks, kraft_lab

FROZEN = Settings(poll_interval_s=86_400, ensemble_interval_s=86_400, log_dirs_interval_s=86_400, launch="lab")


class RecordedLogDirs:
    """TEST DOUBLE of the LogDirsSource port: answers each poll with the next of the reads it was given (the last one
    again after them); a SourceUnavailable among them is raised, as a failed read."""

    def __init__(self, *reads: BrokerDisks | SourceUnavailable) -> None:
        self.reads = list(reads)
        self.polls = 0

    def poll(self) -> BrokerDisks:
        read = self.reads[min(self.polls, len(self.reads) - 1)]
        self.polls += 1
        if isinstance(read, SourceUnavailable):
            raise read
        return read

    def close(self) -> None:
        pass


def app_with(log_dirs: RecordedLogDirs | None, settings: Settings = FROZEN) -> KafkatopApp:
    cluster, nodes, quorum = kraft_lab()
    sources = Sources(lambda: cluster, RecordedControl(nodes), lambda: quorum, log_dirs=log_dirs)
    return KafkatopApp(sources, settings, clock=lambda: TAKEN_AT)


def cells(table: BrokerTable) -> dict[str, list[str]]:
    shown = [str(c.value) for c in table.columns]
    return {str(k.value): dict(zip(shown, map(_plain, table.get_row(k)), strict=True)) for k in table.rows}  # type: ignore[misc]


def _plain(cell: Any) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


def _style(table: BrokerTable, broker: str, column: str) -> str:
    cell = table.get_cell(broker, column)
    return str(cell.style) if isinstance(cell, Text) else ""


async def test_each_brokers_bytes_and_shares_with_the_skewed_ones_in_yellow() -> None:
    app = app_with(RecordedLogDirs(kraft_disks()))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("2")
        table = app.query_one(BrokerTable)
        await pilot_until(pilot, lambda: table.row_count == 3 and cells(table)["1"]["on disk"] != "-", "the disks")
        rows = cells(table)
        assert [str(c.value) for c in table.columns] == [
            "broker", "address", "rack", "state", "leaders", "replicas", "leader skew", "on disk", "bytes %",
            "leaders %",
        ]  # fmt: skip
        # kraft_disks: 6 replicas of 1,000 / 600 / 400 MB; two leaders each.
        assert [(r["on disk"], r["bytes %"], r["leaders %"]) for r in rows.values()] == [
            ("5.6 GiB", "50% +50%", "33%"), ("3.4 GiB", "30%", "33%"), ("2.2 GiB", "20% -40%", "33%"),
        ]  # fmt: skip
        assert _style(table, "1", "bytes %") == "yellow" and _style(table, "3", "bytes %") == "yellow"
        assert _style(table, "2", "bytes %") == ""
        note = app.query_one(DisksNote)
        assert note.display and "more than ±25% from an even share" in str(note.render())
        assert note.region.height == 1 and note.region.bottom <= app.screen.size.height  # in sight


async def test_at_80_columns_the_address_and_rack_give_way_and_every_column_is_in_sight() -> None:
    app = app_with(RecordedLogDirs(kraft_disks()))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("2")
        table = app.query_one(BrokerTable)
        await pilot_until(pilot, lambda: table.row_count == 3 and cells(table)["1"]["on disk"] != "-", "the disks")
        shown = [str(c.value) for c in table.columns]
        assert "address" not in shown and "rack" not in shown and shown[-3:] == ["on disk", "bytes %", "leaders %"]
        assert table.virtual_size.width <= table.size.width, (table.virtual_size, table.size)  # none out of sight


async def test_the_demo_says_its_mock_reads_no_disks_and_shows_no_disk_columns() -> None:
    app = app_with(None, Settings(poll_interval_s=86_400, ensemble_interval_s=86_400, launch="demo"))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("2")
        table = app.query_one(BrokerTable)
        await pilot_until(pilot, lambda: table.row_count == 3, "the brokers")
        assert "on disk" not in [str(c.value) for c in table.columns]
        note = str(app.query_one(DisksNote).render())
        assert "not read" in note and "answers no DescribeLogDirs" in note


async def test_a_failed_read_is_said_the_last_one_kept_and_an_unread_broker_named() -> None:
    unread = BrokerDisks(
        TAKEN_AT, kraft_disks().brokers[:2], (UnreadBroker(3, "DescribeLogDirs to broker 3: timed out"),)
    )
    double = RecordedLogDirs(unread, SourceUnavailable("kafka", "no broker answered Metadata"))
    app = app_with(double)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("2")
        table, note = app.query_one(BrokerTable), app.query_one(DisksNote)
        await pilot_until(pilot, lambda: table.row_count == 3 and cells(table)["1"]["on disk"] != "-", "the disks")
        assert "broker 3: timed out" in str(note.render())
        assert cells(table)["3"]["on disk"] == "-"
        assert [cells(table)[b]["bytes %"] for b in "12"] == ["62%", "38%"]  # among the brokers read
        app.polls.now("log_dirs")
        await pilot_until(pilot, lambda: "no broker answered Metadata" in str(note.render()), "the failure said")
        assert "the last read's still shown" in str(note.render())
        assert cells(table)["1"]["on disk"] == "5.6 GiB"


# --- the partition table's size column, its order, and the topic rows' bytes ----------------------------------------
async def test_the_partition_table_shows_each_leaders_size_and_o_orders_largest_first() -> None:
    app = app_with(RecordedLogDirs(kraft_disks()))
    async with app.run_test(size=(140, 30)) as pilot:
        table = app.query_one(PartitionTable)
        await pilot_until(pilot, lambda: table.row_count == 6 and app.view.log_dirs is not None, "the partitions")
        await pilot_until(pilot, lambda: table.row("orders-0")[COLUMNS.index("size")] != "-", "the sizes")
        # Leaders 1, 2, 3, 1, 2, 3: their replicas hold 1,000, 600 and 400 MB.
        sizes = [table.row(f"orders-{p}")[COLUMNS.index("size")] for p in range(6)]
        assert sizes == ["953.7 MiB", "572.2 MiB", "381.5 MiB"] * 2
        assert COLUMNS.index("size") in table._columns  # in sight at 140 columns
        table.focus()
        orders = []
        for _ in range(len(PartitionTable.ORDERS)):
            await pilot.press("o")
            orders.append(table.order)
        assert orders == ["faults", "messages", "leader", "size", "topic"]
        while table.order != "size":
            await pilot.press("o")
        assert [tp.partition for tp in table.shown_partitions] == [0, 3, 1, 4, 2, 5]  # ties in kafka-topics' order
        assert "largest first (o)" in str(app.query_one("#topic-summary", Summary).text)


async def test_without_the_log_directories_there_is_no_size_column_and_o_skips_size() -> None:
    app = app_with(None)
    async with app.run_test(size=(140, 30)) as pilot:
        table = app.query_one(PartitionTable)
        await pilot_until(pilot, lambda: table.row_count == 6, "the partitions")
        assert COLUMNS.index("size") not in table._columns
        assert table.row("orders-0")[COLUMNS.index("size")] == "-"
        table.focus()
        orders = []
        for _ in range(4):
            await pilot.press("o")
            orders.append(table.order)
        assert orders == ["faults", "messages", "leader", "topic"]


async def test_a_topic_row_shows_the_bytes_of_its_leaders_replicas() -> None:
    app = app_with(RecordedLogDirs(kraft_disks()))
    async with app.run_test(size=(160, 30)) as pilot:
        table = app.query_one(PartitionTable)
        await pilot_until(pilot, lambda: table.row_count == 6 and app.view.log_dirs is not None, "the partitions")
        app.query_one(PartitionsPane).toggle_topic_rows()
        topics = app.query_one("#topic-table", LineTable)
        await pilot_until(pilot, lambda: topics.display and topics.row_count == 1, "the topic rows")
        assert topics.row("orders")[TOPIC_COLUMNS.index("size")] == "3.7 GiB"  # 2 × (1,000 + 600 + 400) MB


async def test_at_80_columns_without_sizes_the_other_columns_give_way_as_before() -> None:
    app = app_with(None)
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(PartitionTable)
        await pilot_until(pilot, lambda: table.row_count == 6, "the partitions")
        shown = [COLUMNS[i] for i in table._columns]
        assert "size" not in shown and shown[:5] == ["topic", "partition", "leader", "replicas", "isr"]


# --- composed as the command line composes them ----------------------------------------------------------------------
async def test_the_composed_demo_has_no_log_dirs_source_and_its_brokers_tab_says_why() -> None:
    args = build_parser().parse_args(["--demo", "--interval", "0.5"])
    with ExitStack() as stack:
        app = compose_app(args, stack, terminal=False)
        assert app.sources.log_dirs is None
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot_until(pilot, lambda: app.snapshot is not None, "the first poll")
            await pilot.press("2")
            note = str(app.query_one(DisksNote).render())
            assert "demo's mock cluster answers no DescribeLogDirs" in note


def test_an_attached_cluster_that_answers_no_describe_log_dirs_fails_the_read_in_one_line(
    mock_cluster: MockCluster,
) -> None:
    """Attached to the librdkafka mock (no DescribeLogDirs in its ApiVersions): the composed source's read fails with
    kafkatop's own error, which the Brokers tab's line shows, never a traceback."""
    args = build_parser().parse_args(["--bootstrap-server", mock_cluster.bootstrap_servers])
    with ExitStack() as stack:
        sources, _, _ = compose_sources(args, stack, terminal=False)
        assert isinstance(sources.log_dirs, LogDirsPoll)
        with pytest.raises(KafkatopError) as failed:
            sources.log_dirs.poll()
        assert "DescribeLogDirs" in str(failed.value) and "\n" not in str(failed.value)
