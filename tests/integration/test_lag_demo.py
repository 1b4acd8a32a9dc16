"""Lag you can act on, in the live view on the demo cluster (the librdkafka mock, kafkatop's demo controller), driven
by Textual's pilot: the demo's group `billing` has committed offsets behind the end and no member, so with a 2 s
window it turns STOP, said in the Groups tab (status, lag time, why), counted in the status bar, and told as a
Timeline change; `u` reads its oldest unread records, and the lag time stops being a bound."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kafkatop.backends.demo.cluster import DEMO_GROUP
from kafkatop.backends.demo.source import DemoSource
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.records.browser import MessageBrowser
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.lag import LagRules, LagStatus
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.widgets.line_table import LineTable
from kafkatop.tui.live.widgets.status_bar import StatusBar
from tests.conftest import pilot_until
from tests.fixtures.demo import demo_with_consoles


@pytest.fixture
def demo() -> Iterator[Any]:
    with demo_with_consoles() as made:
        yield made


async def test_the_demo_group_turns_stop_and_e_reads_its_lag_time_exactly(demo: Any) -> None:
    cluster, control, consoles = demo
    connection = KafkaConnection.parse(cluster.bootstrap_servers)
    admin = AdminSource(connection, timeout_s=1.0, watch_groups=cluster.groups)
    source = DemoSource(control, admin, consoles.consumer_views, cluster.groups)
    browser = MessageBrowser(connection, timeout_s=5.0)
    sources = Sources(source.poll, control, None, None, consoles, browser=browser)
    app = KafkatopApp(sources, Settings(poll_interval_s=0.2, lag_rules=LagRules(window_s=2.0)))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("5")  # Groups
            table = app.query_one("#groups", LineTable)

            def status() -> str | None:
                return table.row(DEMO_GROUP)[6] if DEMO_GROUP in table._all else None  # noqa: SLF001

            await pilot_until(pilot, lambda: status() == "OK", "billing evaluated")
            assert table.row(DEMO_GROUP)[5].startswith("≥")  # written before the first poll: a bound
            await pilot_until(pilot, lambda: status() == "STOP", "billing STOP once a window without a member passed")
            assert "groups not OK 1" in app.query_one(StatusBar).text.plain
            note = str(app.query_one("#group-note").render())
            assert "STOP: orders-" in note and "no member; offset" in note
            timeline = app.view.timeline
            assert timeline is not None and any(
                e.after == LagStatus.STOP and DEMO_GROUP in e.text for e in timeline.events
            ), "the status change on the timeline"
            await pilot.press("u")
            await pilot_until(pilot, lambda: not table.row(DEMO_GROUP)[5].startswith("≥"), "the lag time read exactly")
            lag = app.view.lag
            assert lag is not None
            judged = lag.group(DEMO_GROUP)
            assert judged is not None and all(p.exact for p in judged.partitions if p.lag)
            seconds = judged.lag_seconds(lag.taken_at)
            assert seconds is not None and 0 < seconds < 120  # the demo wrote them when it started, seconds ago
    finally:
        browser.close()
