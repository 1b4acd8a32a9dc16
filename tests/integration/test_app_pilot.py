"""The app driven by Textual's pilot against the mock cluster: what it shows after a broker goes down."""

from __future__ import annotations

from rich.text import Text

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.brokers.pane import BrokerTable
from kafkatop.tui.live.tabs.partitions.pane import PartitionTable
from tests.conftest import pilot_until


async def test_broker_down_and_leader_move_show_up(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("purchases", 3, 3)
    source = AdminSource(KafkaConnection.parse(mock_cluster.bootstrap_servers), timeout_s=1.0)
    app = KafkatopApp(source.poll, Settings(poll_interval_s=0.1))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot_until(pilot, lambda: app.query_one(PartitionTable).row_count == 3)
        mock_cluster.set_partition_leader("purchases", 0, 2)
        mock_cluster.set_broker_down(3)
        await pilot.press("2")  # the Brokers tab: tabs out of sight are not redrawn
        brokers = app.query_one(BrokerTable)

        def broker3_down() -> bool:
            cell = brokers.get_row("3")[3] if brokers.row_count == 3 else None
            return isinstance(cell, Text) and cell.plain == "DOWN"

        await pilot_until(pilot, broker3_down)
        table = app.query_one(PartitionTable)
        # Out of sight while the Brokers tab was shown, the partition table draws itself when shown again.
        await pilot.press("1")

        def moved() -> bool:
            replicas = table.row_cell("purchases-0", "replicas")
            dead = any(text == "3" and "strike" in style for text, style in replicas)  # the dead replica struck out
            return table.row("purchases-0")[2].startswith("2") and dead

        await pilot_until(pilot, moved)


async def test_refresh_key_does_not_double_the_polling(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("t", 1, 3)
    source = AdminSource(KafkaConnection.parse(mock_cluster.bootstrap_servers), timeout_s=1.0)
    polls = 0

    def counting_poll():  # type: ignore[no-untyped-def]
        nonlocal polls
        polls += 1
        return source.poll()

    app = KafkatopApp(counting_poll, Settings(poll_interval_s=0.5))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot_until(pilot, lambda: app.snapshot is not None)
        for _ in range(5):
            await pilot.press("r")
            await pilot.pause(0.05)
        await pilot_until(pilot, lambda: not any(w.is_running for w in app.workers))
        before = polls
        await pilot.pause(1.6)  # about three intervals: one chain of timers polls ~3 times, doubled chains ~6+
        assert polls - before <= 4, polls - before


async def test_actions_do_not_multiply_the_process_polling() -> None:
    """Each action polls the processes at once; that must not start another chain of timed polls."""
    from tests.fixtures.snapshots import RecordedControl, zk_lab

    cluster, nodes, _ = zk_lab()

    class CountingControl(RecordedControl):
        """TEST DOUBLE: recorded process rows that count how often they are polled."""

        polls = 0

        def poll(self):  # type: ignore[no-untyped-def]
            CountingControl.polls += 1
            return super().poll()

    app = KafkatopApp(Sources(lambda: cluster, CountingControl(nodes)), Settings(poll_interval_s=0.5))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot_until(pilot, lambda: app.view.nodes is not None)
        app.query_one("#nodes").focus()
        for _ in range(5):
            await pilot.press("K", "y")  # refused by the recorded control: an action that finishes at once
            await pilot.pause(0.05)
        await pilot.pause(0.5)
        CountingControl.polls = 0
        await pilot.pause(2.0)
        assert CountingControl.polls <= 6, CountingControl.polls  # one chain: ~4 polls in 2 s, not 4 per action
