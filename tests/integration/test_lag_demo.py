"""Lag you can act on, in the live view on the demo cluster (the librdkafka mock, kafkatop's demo controller), driven
by Textual's pilot: the demo's group `billing` has committed offsets behind the end and no member, so with a 2 s
window it turns STOP, said in the Groups tab (status, lag time, why), counted in the status bar, and told as a
Timeline change; `u` reads its oldest unread records, and the lag time stops being a bound. A console consumer paused
(Consume: Pause/Resume) stays in its group while records arrive: its group turns STALL, and OK once resumed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kafkatop.backends.demo.cluster import DEMO_GROUP
from kafkatop.backends.kafka.records.browser import MessageBrowser
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.lag import GroupLag, LagRules, LagStatus
from kafkatop.tui.live.sources import Settings
from kafkatop.tui.live.text import DataTable, Input
from kafkatop.tui.live.widgets.line_table import LineTable
from kafkatop.tui.live.widgets.status_bar import StatusBar
from tests.conftest import pilot_until
from tests.fixtures.demo import demo_with_consoles
from tests.integration.test_app_demo import make_app


@pytest.fixture
def demo() -> Iterator[Any]:
    with demo_with_consoles() as made:
        yield made


async def test_the_demo_group_turns_stop_and_u_reads_its_lag_time_exactly(demo: Any) -> None:
    cluster = demo[0]
    browser = MessageBrowser(KafkaConnection.parse(cluster.bootstrap_servers), timeout_s=5.0)
    app = make_app(demo, browser, Settings(poll_interval_s=0.2, lag_rules=LagRules(window_s=2.0)))
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


async def test_a_paused_console_consumer_turns_its_group_stall_and_ok_once_resumed(demo: Any) -> None:
    app = make_app(demo, settings=Settings(poll_interval_s=0.2, lag_rules=LagRules(window_s=2.0)))
    consoles = demo[2]
    async with app.run_test(size=(120, 40)) as pilot:
        app.main_screen.action_tab(4)  # Consume (a digit would type into its focused field)
        await pilot.pause()
        app.query_one("#consume-topics", Input).value = "purchases"
        app.query_one("#consume-group", Input).value = "audit"
        await pilot.click("#start-consumer")
        await pilot_until(pilot, lambda: consumer_state(app) == "consuming", "c1 consuming")

        def audit() -> GroupLag | None:
            return app.view.lag.group("audit") if app.view.lag is not None else None

        def status() -> str | None:
            judged = audit()
            return judged.status.value if judged is not None else None

        # Its first commit (auto.commit.interval.ms: 5 s) is what a stuck consumer holds on to.
        await pilot_until(pilot, lambda: (a := audit()) is not None and len(a.partitions) == 3, "audit committed")
        await pilot.click("#pause-consumer")
        await pilot_until(pilot, lambda: consumer_state(app) == "paused", "c1 paused")
        consoles.send_test_messages("purchases", 30)  # arriving while it holds its partitions and fetches nothing
        await pilot_until(pilot, lambda: status() == "STALL", "audit STALL: a member holds its offsets", 40.0)
        await pilot.press("escape")
        app.main_screen.action_tab(5)  # Groups
        await pilot.pause()
        table = app.query_one("#groups", LineTable)
        await pilot_until(pilot, lambda: "audit" in table._all and table.row("audit")[6] == "STALL", "in the table")  # noqa: SLF001
        note = str(app.query_one("#group-note").render())
        assert "STALL: purchases-" in note and "a member holds offset" in note
        timeline = app.view.timeline
        assert timeline is not None and timeline.open_incident is not None
        assert timeline.open_incident.title == "group audit behind"  # its own incident: none was open

        app.main_screen.action_tab(4)
        await pilot.pause()
        await pilot.click("#pause-consumer")
        await pilot_until(pilot, lambda: consumer_state(app) == "consuming", "c1 resumed")
        await pilot_until(pilot, lambda: status() == "OK", "audit OK: caught up once resumed", 40.0)
        app.main_screen.action_tab(8)  # Timeline (the demo has no Quorum tab)
        await pilot_until(pilot, lambda: "recovered" in str(app.query_one("#steps").render()), "the recovery shown")
        incident = next(i for i in app.view.timeline.incidents if i.title == "group audit behind")  # type: ignore[union-attr]
        assert incident.recovered and incident.steps[0].event.after == LagStatus.STALL


def consumer_state(app: Any) -> str | None:
    return (
        str(app.query_one("#consumers", DataTable).get_row("c1")[2]) if app.query_one("#consumers").row_count else None
    )
