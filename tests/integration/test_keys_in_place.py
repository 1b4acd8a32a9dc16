"""A key acts where it is shown (issue 40), each a repro of what a user hit on a real lab, here on the demo cluster
(the librdkafka mock over real sockets, with kafkatop's demo controller): a word typed with the focus on a table or a
dropdown stops, kills, starts and creates nothing; the node keys act in the process table and in Brokers, and each
that stops a node asks first, naming it; the footer shows the keys of the place the focus is in."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from textual import events
from textual.widgets import Input, Select
from textual.widgets._footer import FooterKey

from kafkatop.backends.demo.cluster import DemoCluster
from kafkatop.backends.demo.node_control import DemoControl
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.topics import TopicAdmin
from kafkatop.backends.kafka.records.browser import MessageBrowser
from kafkatop.backends.kafka.records.consoles import Consoles
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.messages.pane import MessagesPane
from kafkatop.tui.live.tabs.partitions.pane import PartitionTable
from kafkatop.tui.live.widgets.nodes import NodeTable
from tests.conftest import pilot_until
from tests.fixtures.connect_views import connect_snapshot
from tests.fixtures.demo import demo_with_consoles
from tests.integration.test_keys import make_app, node_state, ready
from tests.snapshots.test_connect_snapshots import connect_app

BROKERS = ("broker-1", "broker-2", "broker-3")


@pytest.fixture
def demo() -> Iterator[tuple[DemoCluster, DemoControl, Consoles]]:
    with demo_with_consoles() as made:
        yield made


def notices(app: KafkatopApp) -> list[str]:
    return [str(n.message) for n in app._notifications]  # noqa: SLF001 - the notices shown


def footer(app: KafkatopApp) -> str:
    """The footer's keys, as drawn."""
    return " · ".join(str(k.description) for k in app.screen.query(FooterKey) if k.display)


def browsing_app(demo: tuple[DemoCluster, DemoControl, Consoles], stack: list[Any]) -> KafkatopApp:
    """The demo with its message browser (make_app's has none)."""
    cluster, control, consoles = demo
    connection = KafkaConnection.parse(cluster.bootstrap_servers)
    admin, browser = AdminSource(connection, timeout_s=1.0, watch_groups=cluster.groups), MessageBrowser(connection)
    stack += [admin.close, browser.close]
    topics = lambda: TopicAdmin(connection, timeout_s=5.0)  # noqa: E731
    return KafkatopApp(
        Sources(admin.poll, control, None, topics, consoles, browser=browser), Settings(poll_interval_s=0.3)
    )


async def nothing_happened(pilot: Any, app: KafkatopApp, topics: int = 2) -> None:
    """No dialog, every broker up, no action run, no topic made: what a word typed in the wrong place must leave."""
    await pilot.pause(0.5)
    assert len(app.screen_stack) == 1, app.screen
    assert [node_state(app, b) for b in BROKERS] == ["up", "up", "up"]
    assert app.last_action is None
    assert app.snapshot is not None and len(app.snapshot.topics) == topics


async def test_a_word_typed_in_the_messages_table_acts_on_nothing_and_says_where_its_keys_act(demo: Any) -> None:
    """Before: `b`, then `secret` typed where the topic box looked focused: `s` tried to start a broker, `e` showed
    the election hint, `c` opened Create topic and took the rest; `t` stopped broker-1 at once."""
    closing: list[Any] = []
    app = browsing_app(demo, closing)
    try:
        await typed_in_the_records_table(app)
    finally:
        for close in closing:
            close()


async def typed_in_the_records_table(app: KafkatopApp) -> None:
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(pilot, app)
        await pilot.press("b")  # the highlighted partition's records, the focus in their table
        pane = app.query_one(MessagesPane)
        await pilot_until(pilot, lambda: pane.page is not None, "the page")
        await pilot.press(*"secret")
        await nothing_happened(pilot, app)
        said = notices(app)
        assert "s (start) acts in Brokers or the process table (0): nothing was done here" in said
        assert "t (stop) acts in Brokers or the process table (0): nothing was done here" in said
        assert any(n.startswith("c creates a topic in Partitions: press 1") for n in said), said
        assert any(n.startswith("e elects leaders for the highlighted partition's topic in Partitions") for n in said)


async def test_messages_shown_without_a_partition_opens_in_its_topic_field(demo: Any) -> None:
    """The topic box is the tab's first work: `b` from Brokers puts the cursor there, so a word typed is a topic."""
    closing: list[Any] = []
    app = browsing_app(demo, closing)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await ready(pilot, app)
            await pilot.press("2", "b", *"offtest")  # o and f too: keys of the records table, text in a field
            typed = lambda: isinstance(app.focused, Input) and app.focused.value == "offtest"  # noqa: E731
            await pilot_until(pilot, typed, "typed")
            assert app.focused is app.query_one("#browse-topic")
            await nothing_happened(pilot, app)
    finally:
        for close in closing:
            close()


async def test_kill_typed_on_a_dropdown_kills_nothing(demo: Any) -> None:
    """Before: with the focus on Produce's `acks` dropdown, `K` opened "Kill -9 broker-1?"; "Ky…" killed it."""
    app = make_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        await pilot.press("3")
        app.set_focus(app.query_one("#acks", Select))
        await pilot.press("K", "y", "t", "y", "R", "y")
        await nothing_happened(pilot, app)
        assert "K (kill -9) acts in Brokers or the process table (0): nothing was done here" in notices(app)


async def test_stop_and_restart_ask_first_naming_the_node(demo: Any) -> None:
    """Before: `t` stopped the highlighted broker at once, no confirmation."""
    app = make_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        await pilot.press("0", "t")
        screen = app.screen
        assert isinstance(screen, ConfirmScreen) and screen.question == "Stop broker-1?"
        assert screen.detail.startswith("SIGTERM: a controlled shutdown; it leads 3 partition(s), which move first")
        await pilot.press("n")
        await pilot.press("R")
        assert isinstance(app.screen, ConfirmScreen) and app.screen.question == "Restart broker-1?"
        await pilot.press("escape")
        await nothing_happened(pilot, app)
        await pilot.press("t", "y")
        await pilot_until(pilot, lambda: node_state(app, "broker-1") == "down", "broker-1 stopped")
        await pilot.press("s")  # a start asks nothing
        await pilot_until(pilot, lambda: node_state(app, "broker-1") == "up", "broker-1 started")


async def test_the_node_keys_act_on_the_broker_highlighted_in_brokers(demo: Any) -> None:
    app = make_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        await pilot.press("2", "G", "K")  # Brokers, its last row: broker 3
        assert isinstance(app.screen, ConfirmScreen) and app.screen.question == "Kill -9 broker-3?"
        await pilot.press("n")
        await nothing_happened(pilot, app)


async def test_no_confirm_stops_at_once(demo: Any) -> None:
    """--no-confirm, for those who want no question: `t` stops the node without one."""
    app = make_app(demo)
    app.settings = replace(app.settings, confirm=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        await pilot.press("0", "t")
        await pilot_until(pilot, lambda: node_state(app, "broker-1") == "down", "broker-1 stopped")
        assert len(app.screen_stack) == 1 and not isinstance(app.screen, ConfirmScreen)


async def test_the_footer_shows_the_keys_of_the_place_the_focus_is_in(demo: Any) -> None:
    app = make_app(demo)

    async def shows(present: tuple[str, ...], absent: tuple[str, ...]) -> None:
        # The footer recomposes a frame after the focus moves: wait for it, then hold it to the place's keys.
        drawn = lambda: all(k in footer(app) for k in present) and not any(k in footer(app) for k in absent)  # noqa: E731
        await pilot_until(pilot, drawn, f"a footer with {present} and without {absent}: {footer(app)!r}")

    async with app.run_test(size=(160, 45)) as pilot:
        await ready(pilot, app)
        assert isinstance(app.focused, PartitionTable)
        await shows(("Create topic",), ("Kill -9",))
        await pilot.press("0")
        assert isinstance(app.focused, NodeTable)
        await shows(("Kill -9", "Stop"), ("Create topic",))
        await pilot.press("2")
        await shows(("Kill -9",), ("Create topic",))
        await pilot.press("4", "escape")  # Consume, out of its topic field
        await pilot.pause()
        assert app.focused is not None and not isinstance(app.focused, Input)
        await shows(("Help",), ("Kill -9", "Create topic"))


async def test_keys_typed_right_after_slash_go_to_the_filter(demo: Any) -> None:
    """Before: the filter field took the focus a frame later (Textual's focus() is deferred), so fast typing after `/`
    reached the table: `o` reordered it, `t` stopped a node."""
    app = make_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        assert app._driver is not None  # noqa: SLF001 - the keys sent as the terminal sends them
        for key, character in (("slash", "/"), ("o", "o"), ("r", "r"), ("d", "d")):
            event = events.Key(key, character)
            event.set_sender(app)
            app._driver.send_message(event)  # noqa: SLF001 - queued at once, as a fast typist's keys are
        await pilot_until(pilot, lambda: app.query_one(PartitionTable).filter_text == "ord", "the filter typed")
        assert isinstance(app.focused, Input) and app.focused.value == "ord"
        await nothing_happened(pilot, app)


async def test_a_node_key_that_cannot_act_now_is_a_notice_not_an_incident(demo: Any) -> None:
    """Before: two `s` on a broker that was up became Timeline incidents, "start broker-1 … not recovered"."""
    app = make_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        await pilot.press("0", "s", "s")
        await nothing_happened(pilot, app)
        assert "cannot start broker-1 now: it is up" in notices(app)
        assert app.timeline.snapshot().incidents == ()


async def test_a_slash_typed_in_a_text_field_is_text(demo: Any) -> None:
    app = make_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        await pilot.press("3", *"a/b")  # Produce opens in its topic field
        assert isinstance(app.focused, Input) and app.focused.value == "a/b"
        assert not app.query_one("#filter-bar").display


async def test_at_80x24_every_node_is_in_sight_and_each_worker_can_be_acted_on() -> None:
    """Before: the process table showed 3 of 5 rows at 80x24 (the Connect workers only after `0`, `G`). Out of focus
    the workers are one row with their count; `0` gives each its own row, and K asks about the one highlighted."""
    app = connect_app(connect_snapshot())
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(NodeTable)
        await pilot_until(pilot, lambda: table.row_count == 4, "the folded process table")
        assert [str(table.get_row_at(i)[0]) for i in range(4)] == ["broker-1", "broker-2", "broker-3", "connect ×2"]
        assert str(table.get_row_at(3)[2]) == "2/2 up"
        await pilot.press("0", "G")
        await pilot_until(pilot, lambda: table.row_count == 5 and table.selected_name == "connect-2", "unfolded")
        await pilot.press("K")
        assert isinstance(app.screen, ConfirmScreen) and app.screen.question.startswith("Kill -9 connect-2")
        await pilot.press("n", "2")  # Brokers: the table folds again, and keeps connect-2 for when it unfolds
        await pilot_until(pilot, lambda: table.row_count == 4, "folded again")
        await pilot.press("0")
        await pilot_until(pilot, lambda: table.row_count == 5 and table.selected_name == "connect-2", "kept")


@pytest.mark.arming
async def test_ky_typed_in_brokers_kills_nothing(demo: Any) -> None:
    """Before: in Brokers (where K acts, on the highlighted broker) "Ky…" typed as a word killed it: K asked, and the
    next letter said yes. A y that comes with the question was typed on: it does nothing, and says so."""
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, app)
        await pilot.press("2", "K", "y", "o", "t", "o")
        assert isinstance(app.screen, ConfirmScreen) and app.screen.question.startswith("Kill -9 broker-1")
        assert any(n.startswith("y came with the question") for n in notices(app)), notices(app)
        await pilot.press("escape")
        await nothing_happened(pilot, app)
        await pilot.press("K")
        await pilot.pause(ConfirmScreen.ARMING_S)  # read, then y: done
        await pilot.press("y")
        await pilot_until(pilot, lambda: node_state(app, "broker-1") in ("killed", "down"), "broker-1 killed")


async def test_an_offset_typed_right_after_o_goes_to_the_from_field(demo: Any) -> None:
    """Before: `o` (the from field) moved the focus a frame later, so "ord" typed fast put `d` to the records table
    (d: delete a topic, said elsewhere) and only the rest in the field."""
    closing: list[Any] = []
    app = browsing_app(demo, closing)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await ready(pilot, app)
            await pilot.press("b")
            pane = app.query_one(MessagesPane)
            await pilot_until(pilot, lambda: pane.page is not None, "the page")
            assert app._driver is not None  # noqa: SLF001 - the keys sent as the terminal sends them
            for key in ("o", "1", "2"):
                event = events.Key(key, key)
                event.set_sender(app)
                app._driver.send_message(event)  # noqa: SLF001 - queued at once, as a fast typist's keys are
            field = app.query_one("#browse-from", Input)
            await pilot_until(pilot, lambda: field.value == "12", f"12 in the from field, not {field.value!r}")
            assert app.focused is field and not notices(app)
    finally:
        for close in closing:
            close()
