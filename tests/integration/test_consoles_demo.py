"""The producer and consumer consoles and the offset reset as people use them, on the demo cluster (the librdkafka
mock over real sockets) at 80×24, driven by Textual's pilot: each test is a repro from `kafkatop --demo` that failed
before the consoles were reworked (issue 13)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from textual import events
from textual.widgets import Input, RichLog, Select, Static

from kafkatop.backends.demo.cluster import DemoCluster
from kafkatop.backends.demo.node_control import DemoControl
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.groups.group_offsets import GroupAdmin
from kafkatop.backends.kafka.records.consoles import Consoles
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.consoles import ClientError
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.groups.reset_offsets import ResetPreviewScreen
from tests.conftest import pilot_until
from tests.fixtures.demo import demo_with_consoles

SMALL = (80, 24)

Demo = tuple[DemoCluster, DemoControl, Consoles]


@pytest.fixture
def demo() -> Iterator[Demo]:
    with demo_with_consoles() as made:
        yield made


def make_app(demo: Demo, consoles: Any = None) -> KafkatopApp:
    cluster, control, hub = demo
    admin = AdminSource(KafkaConnection.parse(cluster.bootstrap_servers), timeout_s=1.0, watch_groups=cluster.groups)
    return KafkatopApp(Sources(admin.poll, control, None, None, consoles or hub), Settings(poll_interval_s=0.2))


def text_of(app: KafkatopApp, selector: str) -> str:
    return str(app.main_screen.query_one(selector, Static).render())


def log_lines(app: KafkatopApp, selector: str) -> list[str]:
    return [line.text for line in app.main_screen.query_one(selector, RichLog).lines]


def delivered(app: KafkatopApp) -> list[tuple[str, int, int, str]]:
    """(topic, partition, offset, value) of each ✓ line in the producer's log."""
    found = (re.match(r"✓ (.+)-(\d+) @(\d+)(?: key=\S+)?  (.*)$", line) for line in log_lines(app, "#deliveries"))
    return [(m[1], int(m[2]), int(m[3]), m[4]) for m in found if m]


async def on_tab(pilot: Any, app: KafkatopApp, index: int) -> None:
    await pilot_until(pilot, lambda: app.snapshot is not None and app.snapshot.groups, "the first poll, with groups")
    app.main_screen.action_tab(index)
    await pilot.pause()


async def producer_ready(pilot: Any, app: KafkatopApp, topic: str = "purchases", partition: str = "") -> Input:
    await on_tab(pilot, app, 3)
    app.query_one("#produce-topic", Input).value = topic
    app.query_one("#target-partition", Input).value = partition
    line = app.query_one("#produce-line", Input)
    line.focus()
    return line


# --- the producer ---------------------------------------------------------------------------------------------------
async def test_a_paste_of_four_lines_sends_all_four_in_order_with_one_summary(demo: Demo) -> None:
    app = make_app(demo)
    async with app.run_test(size=SMALL) as pilot:
        line = await producer_ready(pilot, app, partition="0")  # one partition: offsets show the order
        line.post_message(events.Paste("first\nsecond\r\nthird\n\nfourth\n"))  # a blank line is not a message
        await pilot_until(pilot, lambda: len(delivered(app)) == 4, "four delivery reports")
        sent = delivered(app)
        assert [value for _, _, _, value in sent] == ["first", "second", "third", "fourth"]
        offsets = [offset for _, _, offset, _ in sent]
        assert offsets == sorted(offsets) and len(set(offsets)) == 4
        assert {(topic, partition) for topic, partition, _, _ in sent} == {("purchases", 0)}
        assert text_of(app, "#produce-status") == "4 pasted lines sent to purchases"
        assert line.value == ""  # (an Input alone kept "first" in the field and sent nothing)

        line.value = "typed "  # a paste goes where the cursor is, and what was typed before it is sent with it
        line.post_message(events.Paste("one\ntwo"))
        await pilot_until(pilot, lambda: len(delivered(app)) == 6, "two more")
        assert [value for *_, value in delivered(app)[4:]] == ["typed one", "two"]


async def test_a_refused_paste_sends_nothing_and_says_why(demo: Demo) -> None:
    app = make_app(demo)
    async with app.run_test(size=SMALL) as pilot:
        line = await producer_ready(pilot, app)
        app.query_one("#key-separator", Input).value = ":"
        line.post_message(events.Paste("k1:v1\nno separator here\nk3:v3"))
        await pilot_until(pilot, lambda: "No key separator found on line number 2" in text_of(app, "#produce-status"))
        assert text_of(app, "#produce-status").endswith("(3 pasted lines not sent: paste them again)")
        await pilot.pause(0.3)
        assert log_lines(app, "#deliveries") == []  # not one of them


async def test_a_refused_line_stays_in_the_field_with_the_reason(demo: Demo) -> None:
    app = make_app(demo)
    async with app.run_test(size=SMALL) as pilot:
        line = await producer_ready(pilot, app, topic="nope")
        await pilot.press(*"hello", "enter")
        await pilot_until(pilot, lambda: text_of(app, "#produce-status") == "no topic 'nope': press c to create it")
        assert line.value == "hello"
        app.query_one("#produce-topic", Input).value = "purchases"
        app.query_one("#target-partition", Input).value = "7"
        line.focus()
        await pilot.press("enter")
        await pilot_until(pilot, lambda: "partition 7 does not exist: topic 'purchases' has 3 partitions (0–2)"
                          in text_of(app, "#produce-status"))  # fmt: skip
        assert line.value == "hello"
        app.query_one("#target-partition", Input).value = ""
        line.focus()
        await pilot.press("enter")
        await pilot_until(pilot, lambda: [v for *_, v in delivered(app)] == ["hello"], "sent once fixed")
        assert line.value == "" and text_of(app, "#produce-status") == ""


class RefusingConsoles:
    """TEST DOUBLE: the demo's consoles, whose producer refuses every send the way Kafka's client does when its queue
    stays full (a refusal the panel cannot foresee)."""

    def __init__(self, hub: Consoles) -> None:
        self.hub = hub

    def send_record(self, topic: str, key: bytes | None, value: bytes | None, headers: Any = ()) -> int:
        raise ClientError(
            "the producer's queue is full (100000 messages waiting for Kafka): wait, or check the brokers"
        )

    def __getattr__(self, name: str) -> Any:
        return getattr(self.hub, name)


async def test_a_line_the_producer_refuses_comes_back_to_the_field(demo: Demo) -> None:
    app = make_app(demo, RefusingConsoles(demo[2]))
    async with app.run_test(size=SMALL) as pilot:
        line = await producer_ready(pilot, app)
        await pilot.press(*"keep me", "enter")
        await pilot_until(pilot, lambda: "the producer's queue is full" in text_of(app, "#produce-status"))
        assert line.value == "keep me"  # (it was erased before)


async def test_enter_in_the_count_field_sends_the_test_messages(demo: Demo) -> None:
    app = make_app(demo)
    async with app.run_test(size=SMALL) as pilot:
        await producer_ready(pilot, app)
        count = app.query_one("#test-count", Input)
        count.value = "5"
        count.focus()
        await pilot.press("enter")
        await pilot_until(pilot, lambda: len(delivered(app)) == 5, "five test messages")
        assert sorted(value for *_, value in delivered(app)) == ["m1", "m2", "m3", "m4", "m5"]
        assert text_of(app, "#produce-status") == "5 test messages sent to purchases"


async def test_the_topic_is_picked_from_the_clusters_topics(demo: Demo) -> None:
    app = make_app(demo)
    async with app.run_test(size=SMALL) as pilot:
        await on_tab(pilot, app, 3)
        topic = app.query_one("#produce-topic", Input)
        await pilot_until(pilot, lambda: "orders, purchases" in topic.placeholder, "the topics in the placeholder")
        topic.focus()
        await pilot.press("p", "u")
        await pilot_until(pilot, lambda: topic._suggestion == "purchases", "the completion")
        await pilot.press("right")  # takes the completion
        assert topic.value == "purchases"
        picked = []
        for key in ("down", "down", "up"):  # the next topic in order, round the list
            await pilot.press(key)
            picked.append(topic.value)
        assert picked == ["orders", "purchases", "orders"]  # the demo's two topics, and nothing else

        app.main_screen.action_tab(4)  # the consumer's field takes several, and completes the last
        await pilot.pause()
        topics = app.query_one("#consume-topics", Input)
        topics.focus()
        await pilot.press(*"orders, pu", "right")
        assert topics.value == "orders, purchases"
        topics.value = "orders nope"
        await pilot.click("#start-consumer")
        await pilot_until(pilot, lambda: text_of(app, "#consume-status") == "no topic 'nope': press c to create it")


# --- the offset reset -----------------------------------------------------------------------------------------------
def committed(demo: Demo, topic: str = "orders") -> dict[int, int | None]:
    admin = GroupAdmin(demo[0].connection, timeout_s=5.0)
    try:
        return admin.committed_offsets("billing", topic)
    finally:
        admin.close()


async def ask_reset(pilot: Any, app: KafkatopApp, to: str, value: str) -> ResetPreviewScreen:
    app.query_one("#reset-to", Select).value = to
    await pilot.pause()
    field = app.query_one("#reset-value", Input)
    field.value = value
    field.focus()
    await pilot.press("enter")  # as the Reset… button
    await pilot_until(pilot, lambda: isinstance(app.screen, ResetPreviewScreen), "the preview")
    assert isinstance(app.screen, ResetPreviewScreen)
    return app.screen


async def test_an_offset_reset_is_previewed_then_confirmed_or_cancelled(demo: Demo) -> None:
    before = committed(demo)
    ends = {p: 5 + 5 * p for p in range(6)}  # the demo's orders: 5 + 5p records in partition p
    app = make_app(demo)
    async with app.run_test(size=SMALL) as pilot:
        await on_tab(pilot, app, 5)
        await pilot_until(pilot, lambda: app.query_one("#groups").row_count > 0, "the groups")

        screen = await ask_reset(pilot, app, "offset", "999999")
        assert str(screen.query_one("#reset-title").render()) == "Reset the offsets of group 'billing'?"
        plan = screen.plan
        assert [(m.topic, m.partition, m.current, m.target, m.clamped) for m in plan.moves] == [
            ("orders", p, before[p], ends[p], "log end") for p in range(6)
        ]
        assert "--reset-offsets --to-offset 999999 --dry-run" in str(screen.query_one("#reset-option").render())
        assert str(screen.query_one("#reset-summary").render()) == (
            "group 'billing' --to-offset 999999 on orders: 6 partitions, 6 to move, 6 clamped to the log end"
        )
        await pilot.press("escape")
        await pilot_until(pilot, lambda: not isinstance(app.screen, ResetPreviewScreen), "the preview gone")
        assert text_of(app, "#group-status") == "reset of group 'billing' cancelled: nothing changed"
        assert committed(demo) == before

        await ask_reset(pilot, app, "offset", "999999")
        await pilot.press("enter")
        await pilot_until(pilot, lambda: text_of(app, "#group-status").startswith("done"), "the reset done")
        assert text_of(app, "#group-status") == (
            "done: group 'billing' --to-offset 999999 on orders: 6 partitions, 6 moved, 6 clamped to the log end"
        )  # (it said "reset to offset 999999" before)
        assert committed(demo) == ends

        await ask_reset(pilot, app, "shift", "-3")  # n cancels, y confirms
        await pilot.press("n")
        await pilot_until(pilot, lambda: "cancelled" in text_of(app, "#group-status"))
        assert committed(demo) == ends
        await ask_reset(pilot, app, "shift", "-3")
        await pilot.press("y")
        await pilot_until(pilot, lambda: text_of(app, "#group-status").startswith("done"))
        assert committed(demo) == {p: e - 3 for p, e in ends.items()}


async def test_the_view_resets_to_current_and_by_duration_with_the_commands_plan(demo: Demo) -> None:
    """The live view offers --to-current and --by-duration too: the plan `kafkatop groups --reset-offsets` prints."""
    before = committed(demo)
    app = make_app(demo)
    async with app.run_test(size=SMALL) as pilot:
        await on_tab(pilot, app, 5)
        await pilot_until(pilot, lambda: app.query_one("#groups").row_count > 0, "the groups")
        app.query_one("#reset-to", Select).value = "current"
        await pilot.pause()
        assert app.query_one("#reset-value", Input).disabled
        await pilot.click("#reset-offsets")
        await pilot_until(pilot, lambda: isinstance(app.screen, ResetPreviewScreen), "the preview")
        screen = app.screen
        assert isinstance(screen, ResetPreviewScreen)
        assert [m.target for m in screen.plan.moves] == [
            before[p] if before[p] is not None else 5 + 5 * p for p in range(6)
        ]  # none committed: the log end, as the tool
        assert "--reset-offsets --to-current --dry-run" in str(screen.query_one("#reset-option").render())
        await pilot.press("escape")
        await pilot_until(pilot, lambda: not isinstance(app.screen, ResetPreviewScreen), "the preview gone")
        screen = await ask_reset(pilot, app, "duration", "PT1H30M")
        assert "--by-duration PT1H30M --dry-run" in str(screen.query_one("#reset-option").render())
        await pilot.press("escape")
        await pilot_until(pilot, lambda: not isinstance(app.screen, ResetPreviewScreen), "the preview gone")
        app.query_one("#reset-to", Select).value = "duration"
        await pilot.pause()
        field = app.query_one("#reset-value", Input)
        field.value = "90 minutes"
        field.focus()
        await pilot.press("enter")
        await pilot_until(pilot, lambda: "a duration is ISO-8601" in text_of(app, "#group-status"), "the refusal")
    assert committed(demo) == before


# --- 80×24 ----------------------------------------------------------------------------------------------------------
def on_screen(app: KafkatopApp, selector: str) -> bool:
    region = app.main_screen.query_one(selector).region
    return region.width > 0 and region.right <= SMALL[0] and region.bottom <= SMALL[1] - 1  # above the footer


async def test_the_three_tabs_are_usable_at_80x24(demo: Demo) -> None:
    app = make_app(demo)
    async with app.run_test(size=SMALL) as pilot:
        await on_tab(pilot, app, 3)
        for selector in ("#produce-topic", "#target-partition", "#key-separator", "#produce-line", "#test-count",
                         "#send-test", "#acks", "#compression", "#deliveries"):  # fmt: skip
            assert on_screen(app, selector), selector
        assert app.query_one("#produce-topic").region.width >= 24  # (4 columns of text before)
        assert app.query_one("#deliveries").region.height >= 3

        app.main_screen.action_tab(4)
        await pilot.pause()
        for selector in ("#consume-topics", "#consume-group", "#from-beginning", "#start-consumer", "#pause-consumer",
                         "#stop-consumer", "#consumers", "#received"):  # fmt: skip
            assert on_screen(app, selector), selector
        assert app.query_one("#consume-topics").region.width >= 24  # ("rders" before)
        app.query_one("#consume-topics", Input).value = "orders"
        await pilot.click("#start-consumer")
        await pilot_until(pilot, lambda: any("orders #" in line for line in log_lines(app, "#received")), "records")
        log = app.query_one("#received", RichLog)
        assert log.region.height >= 3
        # A line longer than the log wraps rather than being cut at the edge.
        assert all(strip.cell_length <= log.scrollable_content_region.width for strip in log.lines)
        await pilot.click("#stop-consumer")

        app.main_screen.action_tab(5)
        await pilot.pause()
        for selector in ("#groups", "#group-offsets", "#reset-to", "#reset-value", "#reset-offsets"):
            assert on_screen(app, selector), selector  # (the Reset button was off screen)
