"""The whole app on the demo cluster (the librdkafka mock, with kafkatop's demo controller), driven by Textual's
pilot: the keys for kill and restart, sending from the producer console and consuming in the consumer console, and
what the app then shows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from kafkatop.backends.demo.cluster import DemoCluster
from kafkatop.backends.demo.consoles import DemoConsoles
from kafkatop.backends.demo.node_control import DemoControl
from kafkatop.backends.demo.source import DemoSource
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.records.browser import MessageBrowser
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.messages import PollFailed
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.partitions.pane import PartitionTable
from kafkatop.tui.live.widgets.nodes import NodeTable
from kafkatop.tui.live.widgets.status_bar import StatusBar
from tests.conftest import pilot_until
from tests.fixtures.demo import demo_with_consoles


@pytest.fixture
def demo() -> Iterator[tuple[DemoCluster, DemoControl, DemoConsoles]]:
    with demo_with_consoles() as made:
        yield made


def make_app(
    demo: tuple[DemoCluster, DemoControl, DemoConsoles],
    browser: MessageBrowser | None = None,
    settings: Settings | None = None,
) -> KafkatopApp:
    cluster, control, consoles = demo
    admin = AdminSource(KafkaConnection.parse(cluster.bootstrap_servers), timeout_s=1.0, watch_groups=cluster.groups)
    source = DemoSource(control, admin, consoles.consumer_views, cluster.groups)  # as compose.py wires the demo
    return KafkatopApp(
        Sources(source.poll, control, None, None, consoles, browser=browser), settings or Settings(poll_interval_s=0.2)
    )


def log_text(app: KafkatopApp, selector: str) -> str:
    return "\n".join(line.text for line in app.query_one(selector).lines)


def node_state(app: KafkatopApp, name: str) -> str | None:
    nodes = getattr(app.view.nodes, "nodes", ())
    return next((n.state.value for n in nodes if n.name == name), None)


async def test_kill_key_moves_leadership_and_start_key_brings_the_broker_back(demo: Any) -> None:
    app = make_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        table = app.query_one(NodeTable)
        await pilot_until(pilot, lambda: table.row_count == 3 and app.query_one(PartitionTable).row_count > 0, "data")
        # The mock places replicas from a random broker on: the victim is whichever leads most.
        victim = Counter(p.leader for p in app.snapshot.partitions).most_common(1)[0][0]
        name = f"broker-{victim}"
        led = [p for p in app.snapshot.partitions if p.leader == victim]
        table.focus()
        table.move_cursor(row=table.get_row_index(name))
        await pilot.press("K", "y")  # kill -9, confirmed
        await pilot_until(pilot, lambda: node_state(app, name) == "killed", f"{name} killed")

        def leadership_moved() -> bool:
            snap = app.snapshot
            return snap is not None and not any(p.leader == victim for p in snap.partitions)

        await pilot_until(pilot, leadership_moved, f"no partition led by broker {victim}")
        rows = app.query_one(PartitionTable)
        moved = led[0]
        assert rows.row(f"{moved.topic}-{moved.id}")[2] != str(victim)  # the table shows the new leader
        await pilot.press("s")
        await pilot_until(pilot, lambda: node_state(app, name) == "up", f"{name} up again")
        assert app.last_action is not None and app.last_action.error is None


async def test_send_from_producer_and_receive_in_consumer_console(demo: Any) -> None:
    app = make_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot_until(pilot, lambda: app.snapshot is not None, "first poll")
        await pilot.press("3")  # Produce
        app.query_one("#produce-topic").value = "purchases"
        app.query_one("#produce-line").focus()
        await pilot.press(*"hello kafkatop", "enter")
        await pilot_until(pilot, lambda: "✓ purchases-" in log_text(app, "#deliveries"), "the delivery report")
        assert "hello kafkatop" in log_text(app, "#deliveries")

        app.main_screen.action_tab(4)  # Consume (the digit keys would type into the focused input)
        await pilot.pause()
        app.query_one("#consume-topics").value = "purchases"
        app.query_one("#consume-group").value = "console-test"
        await pilot.click("#start-consumer")
        await pilot_until(pilot, lambda: "hello kafkatop" in log_text(app, "#received"), "the message consumed")
        assert "c1 ← purchases-" in log_text(app, "#received")


async def test_bad_producer_input_is_shown_where_it_was_typed(demo: Any) -> None:
    app = make_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot_until(pilot, lambda: app.snapshot is not None, "first poll")
        await pilot.press("3")
        app.query_one("#produce-topic").value = "no-such-topic"
        app.query_one("#produce-line").focus()
        await pilot.press(*"x", "enter")

        def error() -> str:
            return str(app.query_one("#produce-status").render())

        await pilot_until(pilot, lambda: "no-such-topic" in error(), "the error under the input")
        app.query_one("#target-partition").value = "abc"
        await pilot.press(*"y", "enter")
        await pilot_until(pilot, lambda: "not a partition number" in error(), "the partition error")


async def test_create_topic_dialog_reports_kafkas_answer_without_crashing(demo: Any) -> None:
    cluster, control, consoles = demo
    admin = AdminSource(KafkaConnection.parse(cluster.bootstrap_servers), timeout_s=1.0)

    def topic_admin() -> Any:
        from kafkatop.backends.kafka.cluster.topics import TopicAdmin

        return TopicAdmin(KafkaConnection.parse(cluster.bootstrap_servers), timeout_s=5.0)

    app = KafkatopApp(Sources(admin.poll, control, None, topic_admin, consoles), Settings(poll_interval_s=0.2))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot_until(pilot, lambda: app.snapshot is not None, "first poll")
        await pilot.press("c")
        await pilot.pause()
        await pilot.press(*"new-topic", "enter")  # defaults: 3 partitions, RF 3
        # The librdkafka mock refuses CreateTopics: the refusal is reported, the app goes on.
        await pilot_until(pilot, lambda: app.last_action is not None, "the create action to finish")
        assert app.last_action.what == "topic new-topic created"
        assert app.last_action.error and "new-topic" in app.last_action.error
        assert app.screen is app.screen_stack[0]  # back on the main screen


async def test_durability_check_from_the_app(demo: Any) -> None:
    """`v`, a topic and Run: sequenced records while the leader of partition 0 is killed and started again; the
    report (0 lost, 0 duplicated) and the verdict appear in the dialog, and the killed broker is back."""
    from textual.widgets import Input, Static

    from kafkatop.backends.checks.durability.run import DurabilityCheck
    from kafkatop.tui.live.screens.durability import DurabilityScreen

    cluster, control, consoles = demo
    admin = AdminSource(KafkaConnection.parse(cluster.bootstrap_servers), timeout_s=1.0, watch_groups=cluster.groups)

    def make(settings: Any, on_progress: Any) -> Any:
        return DurabilityCheck(
            KafkaConnection.parse(cluster.bootstrap_servers), settings, control, on_progress=on_progress
        )

    app = KafkatopApp(
        Sources(admin.poll, control, None, None, consoles, durability=make), Settings(poll_interval_s=0.2)
    )
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot_until(pilot, lambda: app.snapshot is not None, "the first poll")
        topic = next(t.name for t in app.snapshot.topics if len(t.partitions[0].replicas) >= 3)
        await pilot.press("v")
        screen = app.screen
        assert isinstance(screen, DurabilityScreen)
        screen.query_one("#dur-topic", Input).value = topic
        screen.query_one("#dur-records", Input).value = "2000"
        await pilot.click("#dur-run")
        report = screen.query_one("#dur-report", Static)
        await pilot_until(pilot, lambda: "verdict:" in str(report.render()), "the report", timeout_s=60)
        text = str(report.render())
        assert "total" in text and "verdict: " in text
        totals = next(line for line in text.splitlines() if line.startswith("total"))
        sent, acked, failed, read, lost, duplicated, out_of_order = (int(v) for v in totals.split()[1:8])
        assert (sent, acked, read, lost, duplicated, out_of_order) == (2000, 2000, 2000, 0, 0, 0)
        # The polls went on drawing the main screen under the dialog, and the killed broker is up again.
        await pilot_until(pilot, lambda: all(n.state.value == "up" for n in app.view.nodes.nodes), "every node up")
    admin.close()


async def test_transactions_key_on_the_demo_says_where_to_see_them(demo: Any) -> None:
    """`i` without a cluster that lists transactions (the demo's mock) says so in one line, and opens nothing."""
    from kafkatop.tui.live.screens.transactions import TransactionsScreen

    app = make_app(demo)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot_until(pilot, lambda: app.snapshot is not None, "the first poll")
        await pilot.press("i")
        await pilot.pause()
        said = [str(n.message) for n in app._notifications]  # noqa: SLF001
        assert any("the demo's mock answers no ListTransactions" in s for s in said), said
        assert not isinstance(app.screen, TransactionsScreen)


async def test_the_status_bar_is_as_tall_as_its_text_after_a_resize(demo: Any) -> None:
    """At 160 columns the bar's line holds the cluster id; at 80 a shorter line, one row — not the two rows the long
    line would take at 80 (a bar that kept its old height left a blank row under it)."""
    app = make_app(demo)
    async with app.run_test(size=(160, 45)) as pilot:
        bar = app.query_one(StatusBar)
        await pilot_until(pilot, lambda: "cluster mockCluster" in bar.text.plain, "the wide line")
        await pilot.resize_terminal(80, 24)
        await pilot_until(pilot, lambda: not bar.text.plain.startswith("cluster"), "the narrow line")
        await pilot_until(pilot, lambda: bar.size.height == 1, "one row")
        await pilot.resize_terminal(60, 24)  # narrower than the line: it wraps, and the bar grows to hold it
        await pilot_until(pilot, lambda: bar.size.height == 2, "two rows at 60 columns")


async def test_a_failure_quoting_a_huge_name_keeps_the_bar_to_three_rows(demo: Any) -> None:
    """A broker's error may quote a topic's name of any length: the bar shows the start of it and the age of the data,
    at most three rows, and the partition table keeps the screen."""
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        bar = app.query_one(StatusBar)
        table = app.query_one(PartitionTable)
        await pilot_until(pilot, lambda: table.row_count > 0, "the partitions")
        app.on_poll_failed(PollFailed("cluster", f"UNKNOWN_TOPIC_OR_PART: {'t' * 10_000} is gone", app.clock()))
        await pilot_until(pilot, lambda: "data" in bar.text.plain.splitlines()[-1], "the failure and its age")
        await pilot_until(pilot, lambda: bar.size.height == 3, "three rows")
        assert "…" in bar.text.plain and "is gone" not in bar.text.plain
        assert table.size.height >= 10
