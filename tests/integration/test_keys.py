"""Keys that always do what they say (issue 13), each a repro of what a user hit, on the demo cluster (the librdkafka
mock over real sockets, with kafkatop's demo controller): tab keys never put focus in a field, Escape leaves one,
number keys count the tabs on show, `0` reaches the process table, destructive keys confirm what is highlighted and
name it, `/` filters, j/k/g/G move."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from rich.text import Text
from textual.widgets import Input, TabbedContent

from kafkatop.backends.demo.cluster import DemoCluster
from kafkatop.backends.demo.node_control import DemoControl
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.topics import TopicAdmin
from kafkatop.backends.kafka.records.consoles import Consoles
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.commands import offered
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.screens.help import HelpScreen
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.partitions.pane import PartitionTable, Summary
from kafkatop.tui.live.widgets.filter import FilterBar
from kafkatop.tui.live.widgets.line_table import LineTable
from kafkatop.tui.live.widgets.nodes import NodeTable
from kafkatop.tui.live.widgets.tables import MessageLog
from tests.conftest import pilot_until
from tests.fixtures.demo import demo_with_consoles


@pytest.fixture
def demo() -> Iterator[tuple[DemoCluster, DemoControl, Consoles]]:
    with demo_with_consoles() as made:
        yield made


def make_app(demo: tuple[DemoCluster, DemoControl, Consoles]) -> KafkatopApp:
    cluster, control, consoles = demo
    connection = KafkaConnection.parse(cluster.bootstrap_servers)
    admin = AdminSource(connection, timeout_s=1.0, watch_groups=cluster.groups)
    sources = Sources(admin.poll, control, None, lambda: TopicAdmin(connection, timeout_s=5.0), consoles)
    return KafkatopApp(sources, Settings(poll_interval_s=0.3))


async def ready(pilot: Any, app: KafkatopApp) -> None:
    table = app.query_one(PartitionTable)
    await pilot_until(pilot, lambda: app.query_one(NodeTable).row_count == 3 and table.row_count == 9, "the demo")


def active(app: KafkatopApp) -> str:
    return str(app.query_one(TabbedContent).active)


def node_state(app: KafkatopApp, name: str) -> str | None:
    nodes = getattr(app.view.nodes, "nodes", ())
    return next((n.state.value for n in nodes if n.name == name), None)


async def test_produce_and_consume_open_in_their_topic_field_and_escape_leaves_it(demo: Any) -> None:
    """Before: `3` left focus off the fields, and a topic `t` typed stopped controller-101 (SIGTERM, unasked). A tab's
    number puts the cursor where its work starts: letters meant for the field are text there, never a key that stops
    a process. (Before that, `4` selected "purchases" in the topic field and `s` replaced it: the cursor now goes
    after the topic shown.) Escape leaves the field; the keys are keys again."""
    app = make_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        nodes = [n.name for n in getattr(app.view.nodes, "nodes", ())]
        states = [node_state(app, name) for name in nodes]
        await pilot.press("3")  # Produce
        topic = app.query_one("#produce-topic", Input)
        assert active(app) == "tab-produce" and app.focused is topic
        await pilot.press(*"tsK1q")  # stop, start, kill -9, Partitions, quit: here, a topic's letters
        await pilot.pause(0.2)
        assert topic.value == "tsK1q" and active(app) == "tab-produce" and app.is_running
        assert nodes and [node_state(app, name) for name in nodes] == states
        await pilot.press("escape")
        assert not isinstance(app.focused, Input)
        app.query_one("#consume-topics", Input).value = "purchases"
        await pilot.press("4", "s")  # Consume: after the topic shown, nothing typed lost
        assert active(app) == "tab-consume" and app.query_one("#consume-topics", Input).value == "purchasess"
        await pilot.press("escape", "2")  # and keys are keys again
        assert active(app) == "tab-brokers" and not isinstance(app.focused, Input)


async def test_number_keys_count_the_tabs_on_show(demo: Any) -> None:
    """Before: the demo hides Quorum, yet `7` opened it (blank, no tab highlighted); Spark, the 7th shown, needed 8."""
    app = make_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        titles = app.main_screen.tab_titles()
        assert "Quorum" not in titles and titles[6] == "Spark" and titles[7] == "Timeline"
        await pilot.press("7")
        assert active(app) == "tab-spark"
        await pilot.press("8")
        assert active(app) == "tab-timeline"
        await pilot.press("9")  # Messages, the last tab (b shows it from anywhere)
        assert active(app) == "tab-messages" and titles[8] == "Messages"
        await pilot.press("1", "b")
        assert active(app) == "tab-messages"
        app.main_screen.action_tab(10)
        await pilot.pause()
        assert active(app) == "tab-messages"
        assert "no tab 10 here: 1–9 are 1 Partitions" in [n.message for n in app._notifications][-1]
        await pilot.press("escape", "question_mark")  # out of Messages' topic field, where `?` is text
        assert isinstance(app.screen, HelpScreen) and app.screen.tabs == titles
        await pilot.press("escape")
        commands = [c.title for c in offered(app.main_screen)]
        assert "Show Spark" in commands and "Show ZooKeeper / quorum" not in commands
        await pilot.press("1")
        app.main_screen.action_key(
            "spark-count"
        )  # the palette's "Count the topic with Spark": the Spark tab, from anywhere
        await pilot.pause()
        assert active(app) == "tab-spark"


async def test_0_reaches_the_process_table_and_j_k_move_in_it(demo: Any) -> None:
    """Before: the process table took three shift+Tab to reach."""
    app = make_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        nodes = app.query_one(NodeTable)
        await pilot.press("0")
        assert app.focused is nodes and nodes.cursor_row == 0
        await pilot.press("j", "j")
        assert nodes.cursor_row == 2
        await pilot.press("k")  # up, not kill
        assert nodes.cursor_row == 1 and len(app.screen_stack) == 1
        await pilot.press("g")
        assert nodes.cursor_row == 0
        await pilot.press("G")
        assert nodes.cursor_row == 2


async def test_kill_asks_first_naming_the_node_and_cancel_leaves_it_running(demo: Any) -> None:
    app = make_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        await pilot.press("0", "j", "K")
        assert isinstance(app.screen, ConfirmScreen) and app.screen.question == "Kill -9 broker-2?"
        await pilot.press("enter")  # focus starts on Cancel: a habitual Enter does no harm
        assert len(app.screen_stack) == 1
        await pilot.pause(0.5)
        assert node_state(app, "broker-2") == "up"
        await pilot.press("K", "y")
        await pilot_until(pilot, lambda: node_state(app, "broker-2") == "killed", "broker-2 killed")


async def test_delete_acts_on_the_highlighted_row_of_partitions_and_names_it(demo: Any) -> None:
    """Before: `d` deleted the topic under the partition cursor from any tab, with no row looking highlighted, and
    Enter in its dialog deleted at once."""
    app = make_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        await pilot.press("2", "d")  # Brokers: nothing there is a topic
        assert len(app.screen_stack) == 1
        assert "d deletes the topic highlighted in Partitions: press 1" in [n.message for n in app._notifications][-1]
        await pilot.press("1", "G", "d")  # the last row: purchases-2
        screen = app.screen
        assert isinstance(screen, ConfirmScreen)
        assert screen.question == "Delete topic 'purchases' and all its messages?"
        assert screen.detail.startswith("3 partition(s), ")
        await pilot.press("enter")
        assert len(app.screen_stack) == 1 and app.last_action is None  # cancelled: nothing was asked of Kafka
        await pilot.press("d", "y")
        await pilot_until(pilot, lambda: app.last_action is not None, "the delete to finish")
        assert app.last_action is not None and app.last_action.what == "topic purchases deleted"


async def test_slash_filters_the_partition_table_and_escape_clears_it(demo: Any) -> None:
    """Before: `/` did nothing anywhere."""
    app = make_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        table, bar = app.query_one(PartitionTable), app.query_one(FilterBar)
        await pilot.press("slash", *"purch")
        assert table.row_count == 3 and bar.display
        await pilot.press("enter")  # kept; the keys are the table's again
        assert app.focused is table and table.row_count == 3 and bar.display
        await pilot.press("j", "j")
        assert table.selected_topic == "purchases" and table.cursor_row == 2
        await pilot.press("3")  # another tab: its own rows, no filter shown
        assert not bar.display
        await pilot.press("escape", "1")  # out of Produce's topic field, then Partitions
        assert bar.display and table.row_count == 3
        await pilot.press("escape")  # on a filtered table: every row again
        assert table.row_count == 9 and not bar.display
        await pilot.press("slash", "2", "escape")  # a partition number; Escape in the bar clears
        assert table.row_count == 9


async def test_o_orders_the_partition_rows_and_the_summary_says_so_in_the_same_frame(demo: Any) -> None:
    """Before: the table ordered its rows and told the pane by a message: its summary was repainted a frame later."""
    app = make_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        table, summary = app.query_one(PartitionTable), app.query_one("#topic-summary", Summary)
        table.focus()
        await pilot.press("o")
        assert table.order == "faults" and "faults first (o)" in summary.text.plain
        await pilot.press("o", "o")
        assert table.order == "leader" and "by leader (o)" in summary.text.plain
        await pilot.press("o")
        assert table.order == "topic" and "(o)" not in summary.text.plain
        await pilot.press("T", "o")  # one row per topic: `o` is that table's own, by the next column
        topics = app.query_one("#topic-table", LineTable)
        assert topics.sort_column == 0 and table.order == "topic"


async def test_the_partition_table_drops_secondary_columns_first_when_narrow(demo: Any) -> None:
    """Before: at 80 columns msg/s was cut off the right edge while low and high watermarks took the room."""
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, app)
        table = app.query_one(PartitionTable)
        shown = [table.COLUMNS[i] for i in table._columns]
        assert shown[:5] == ["topic", "partition", "leader", "replicas", "isr"]
        assert "low" not in shown and "high" not in shown
        assert table.virtual_size.width <= table.size.width


async def test_slash_filters_the_consumed_messages_and_the_groups(demo: Any) -> None:
    """The consumer's messages by key or value, the groups by name: the lines a consumer received, then `/`."""
    app = make_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        await pilot.press("4", "escape")  # Consume, out of its topic field
        log = app.query_one("#received", MessageLog)
        for i in range(6):
            log.add(Text(f"console-1 ← orders-{i % 3} @{i} key=k{i}  value {i}"))
        await pilot.press("slash", *"k4")
        assert [line.text.strip() for line in log.lines] == ["console-1 ← orders-1 @4 key=k4  value 4"]
        log.add(Text("console-1 ← orders-1 @6 key=k4  value 6"))  # a new line the filter keeps
        log.add(Text("console-1 ← orders-2 @7 key=k7  value 7"))  # and one it does not
        assert len(log.lines) == 2
        await pilot.press("enter", "escape")  # kept, then cleared from the log itself
        assert len(log.lines) == 8
        await pilot.press("5", "slash", *"no such group")  # Groups
        groups = app.query_one("#groups", LineTable)
        assert groups.row_count == 0 and groups.filter_text == "no such group"
        await pilot.press("escape")
        assert groups.filter_text == ""
