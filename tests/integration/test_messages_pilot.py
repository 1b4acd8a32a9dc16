"""The Messages tab driven by its keys over the real MessageBrowser on librdkafka's mock cluster: b on a partition
opens its newest page, [ ] < > page and jump, a search finds and opens a match, bad input says what to type, Escape
leaves a field, and a cluster gone away is said on the status line while the app goes on."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from confluent_kafka import Producer
from textual.widgets import Input, Select, TabbedContent

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.kafka.records.browser import MessageBrowser
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.messages.pane import MessagesPane
from kafkatop.tui.live.tabs.partitions.pane import PartitionTable
from tests.conftest import pilot_until

pytestmark = pytest.mark.timeout(90)

PER_PARTITION = 240


@pytest.fixture(scope="module")
def cluster() -> Iterator[MockCluster]:
    with MockCluster(3) as mock:
        mock.create_topic("orders", 2, 3)
        producer = Producer({"bootstrap.servers": mock.bootstrap_servers})
        for p in range(2):
            for o in range(PER_PARTITION):
                value = json.dumps({"o": o, "item": "book" if o == 77 else "pen"}).encode()
                producer.produce("orders", value, key=f"k{o}".encode(), partition=p)
        assert producer.flush(20) == 0
        del producer
        yield mock


def _status(panel: MessagesPane) -> str:
    return str(panel.query_one("#browse-status").render())


async def test_browsing_paging_and_searching_by_key(cluster: MockCluster) -> None:
    connection = KafkaConnection.parse(cluster.bootstrap_servers)
    admin = AdminSource(connection, timeout_s=3)
    browser = MessageBrowser(connection, timeout_s=3)
    app = KafkatopApp(Sources(admin.poll, browser=browser), Settings(poll_interval_s=0.5))
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            table = app.query_one(PartitionTable)
            await pilot_until(pilot, lambda: table.row_count == 2, "the partitions")
            table.cursor_row = 1
            await pilot.press("b")
            panel = app.query_one(MessagesPane)
            assert app.query_one(TabbedContent).active == "tab-messages"
            await pilot_until(pilot, lambda: panel.page is not None, "the first page")
            assert panel.page is not None
            assert (panel.page.partition, panel.page.start, panel.page.next_start) == (1, 190, 240)
            assert "orders-1 · offsets 190–239 · log 0–239 (240 records)" in _status(panel)
            shown = panel.page
            await pilot.press("right_square_bracket")  # at the end: the newest page again, not an empty one
            await pilot_until(pilot, lambda: panel.page is not shown, "the newest page again")
            assert panel.page is not None and (panel.page.start, len(panel.page.records)) == (190, 50)
            await pilot.press("left_square_bracket")
            await pilot_until(pilot, lambda: panel.page is not None and panel.page.start == 140, "the page before")
            await pilot.press("less_than_sign")
            await pilot_until(pilot, lambda: panel.page is not None and panel.page.start == 0, "the beginning")
            await pilot.press("right_square_bracket")
            await pilot_until(pilot, lambda: panel.page is not None and panel.page.start == 50, "the next page")

            # Bad input: said on the status line, the page left as it was.
            await pilot.click("#browse-from")
            field = panel.query_one("#browse-from", Input)
            field.value = "yesterday"
            await pilot.press("enter")
            assert "from: 'yesterday': give an offset" in _status(panel)
            await pilot.press("escape")
            assert app.focused is panel.query_one("#message-table")
            panel.query_one("#browse-partition", Input).value = "7"
            panel.query_one("#browse-partition", Input).focus()
            await pilot.press("enter")
            assert "partition: 7 is not one of orders's (0–1)" in _status(panel)
            assert panel.page is not None and panel.page.start == 50
            await pilot.press("escape")

            # A search over the partition (from its start: the page was sought by its beginning).
            panel.query_one("#browse-partition", Input).value = "1"
            field.value = "beginning"
            await pilot.press("f")
            assert app.focused is panel.query_one("#search-text")
            for key in "book":
                await pilot.press(key)
            await pilot.press("enter")
            await pilot_until(pilot, lambda: panel.results is not None, "the search's end")
            assert panel.results is not None
            assert (panel.results.matches, panel.results.scanned) == (1, PER_PARTITION)
            assert "1 match for 'book' in 240 of 240 records of orders-1" in _status(panel)
            # One field only: the key k77 is found among keys, not among values.
            for searched, found in (("key", 1), ("value", 0)):
                panel.query_one("#search-in", Select).value = searched
                panel.query_one("#search-text", Input).value = "k77"
                panel.results = None
                await pilot.click("#search-run")
                await pilot_until(pilot, lambda: panel.results is not None, f"the search in {searched}")
                assert panel.results is not None and panel.results.matches == found
            panel.query_one("#search-in", Select).value = "everywhere"
            panel.query_one("#search-text", Input).value = "book"
            panel.results = None
            await pilot.click("#search-run")
            await pilot_until(pilot, lambda: panel.results is not None, "the search again")
            panel.query_one("#message-table").focus()
            await pilot.press("enter")  # the match's page
            await pilot_until(pilot, lambda: panel.results is None and panel.page is not None, "the match's page")
            assert panel.page is not None and (panel.page.partition, panel.page.start) == (1, 77)

            # The cluster goes away: said in words, the app goes on; back, and the next page reads.
            for broker in (1, 2, 3):
                cluster.set_broker_down(broker)
            await pilot.press("right_square_bracket")
            await pilot_until(pilot, lambda: "offsets" not in _status(panel) and "reading" not in _status(panel),
                              "the failed read", timeout_s=20)  # fmt: skip
            assert _status(panel).startswith("cannot read topic 'orders': ")
            assert panel.page is not None and panel.page.start == 77
            for broker in (1, 2, 3):
                cluster.set_broker_up(broker)
            await pilot.press("right_square_bracket")
            await pilot_until(pilot, lambda: panel.page is not None and panel.page.start == 127, "the next page",
                              timeout_s=30)  # fmt: skip
            await pilot.press("q")
    finally:
        browser.close()
        admin.close()
