"""The Messages tab at 80x24 and 160x45: a page opened with b on a partition (a JSON record in the detail pane), a
binary record's hex dump, and a search's matches. Fixed data, size and clock (TZ=UTC); the browser is
RecordedPages, a named test double that hands out fixed pages: a snapshot test shows them, the reading is tested
against the mock (test_browser_mock.py) and a real Kafka (test_consume_kafka.py)."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from textual.widgets import Input

from kafkatop.backends.model.formats import FieldFormat, Format, TopicFormat
from kafkatop.backends.model.messages import (
    PAGE_SIZE,
    BrowsedRecord,
    Isolation,
    Page,
    SearchProgress,
    SearchRequest,
    Seek,
    TimestampType,
)
from kafkatop.backends.schemas.codec import SchemaCodec
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.messages.pane import MessagesPane
from tests.fixtures.snapshots import TAKEN_AT, failover_snapshot
from tests.snapshots.test_app_snapshots import settled

SIZES = {"80x24": (80, 24), "160x45": (160, 45)}
BASE_MS = int(TAKEN_AT * 1000) - 60_000


def _record(partition: int, offset: int) -> BrowsedRecord:
    if offset % 5 == 3:
        value: bytes | None = b"\x00\x01\x02avro\xff\xfe" + bytes(range(16))
    elif offset % 5 == 4:
        value = None  # a tombstone
    else:
        value = json.dumps({"order": offset, "item": "book", "lines": [{"sku": "b-7", "qty": 2}]}).encode()
    return BrowsedRecord("purchases", partition, offset, BASE_MS + 250 * offset, TimestampType.CREATE_TIME,
                         f"customer-{offset % 7}".encode(), value, (("trace", f"t-{offset}".encode()),), 4)  # fmt: skip


class RecordedPages:
    """A TEST DOUBLE for MessageBrowser: fixed records 100-139 of whatever partition is asked, and a fixed search."""

    def page(self, topic: str, partition: int, seek: Seek, isolation: Isolation = "read_uncommitted",
             size: int = PAGE_SIZE) -> Page:  # fmt: skip
        return Page(topic, partition, 100, tuple(_record(partition, o) for o in range(100, 140)), 0, 140, isolation)

    def previous(self, page: Page, size: int = PAGE_SIZE) -> Page:
        return page

    def next(self, page: Page, size: int = PAGE_SIZE) -> Page:
        return page

    def search(
        self, request: SearchRequest, on_progress: Callable[[SearchProgress], None], cancelled: Callable[[], bool]
    ) -> SearchProgress:
        found = tuple(_record(1, o) for o in (100, 106, 112))  # JSON values holding "book"
        done = SearchProgress(140, 140, 3, found, 0.5, done=True)
        on_progress(done)
        return done

    def close(self) -> None:
        pass


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def app() -> KafkatopApp:
    sources = Sources(failover_snapshot, browser=RecordedPages())
    return KafkatopApp(sources, Settings(poll_interval_s=86_400, ensemble_interval_s=86_400), clock=lambda: TAKEN_AT)


def pressing(*keys: str) -> Callable[[Any], Awaitable[None]]:
    async def run(pilot: Any) -> None:
        await settled(pilot)
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False
        await pilot.pause()

    return run


SCREENS = {
    "page": ("down", "b"),  # purchases-0 from the Partitions tab: its page, the first record (JSON) in detail
    "binary": ("down", "b", "down", "down", "down"),  # offset 103: a hex dump
    "search": ("down", "b", "f", "b", "o", "o", "k", "enter"),
}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_messages_tab(snap_compare: Any, screen: str, size: str) -> None:
    assert snap_compare(app(), terminal_size=SIZES[size], run_before=pressing(*SCREENS[screen]))


# F's dialog on a topic whose formats name a schema file (the value's) and a subject and message type (the key's): the
# path shown whole, the fields readable at 80 columns. Formats only: the codec reads no schema until one is used.
FORMATS = TopicFormat(FieldFormat(Format.PROTOBUF, subject="purchases-key", message_type="shop.CustomerKey"),
                      FieldFormat(Format.AVRO, schema_file="schemas/formats/orders.avsc"))  # fmt: skip


async def formats_dialog(pilot: Any) -> None:
    await settled(pilot)
    app = pilot.app
    app.main_screen.show_tab("tab-messages")
    app.query_one("#browse-topic", Input).value = "purchases"
    await pilot.pause()
    app.query_one(MessagesPane).action_formats()
    await pilot.pause()
    for field in app.screen.query(Input):
        field.cursor_blink = False
    await pilot.pause()


@pytest.mark.parametrize("size", list(SIZES))
def test_the_formats_dialog(snap_compare: Any, size: str) -> None:
    sources = Sources(failover_snapshot, browser=RecordedPages(), codec=SchemaCodec({"purchases": FORMATS}, None))
    made = KafkatopApp(sources, Settings(poll_interval_s=86_400, ensemble_interval_s=86_400), clock=lambda: TAKEN_AT)
    assert snap_compare(made, terminal_size=SIZES[size], run_before=formats_dialog)
