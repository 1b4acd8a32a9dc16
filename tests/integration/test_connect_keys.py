"""The Connect tab's keys, each reaching the port with what was asked, and refused where they must be: outside the tab
(they say how to get there), in a read-only context (nothing sent), in a replay, where there is no Connect (the demo
says it has none). The workers are RecordedConnect, a TEST DOUBLE answering what a real Kafka 4.1 lab's workers
answered (the real workers are driven by tests/integration/test_connect_tab_kafka.py); the app runs headless."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from textual.widgets import Input, Static, TabbedContent

from kafkatop.backends.model.recording import Recorded, Recording, RecordingHeader
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.replay import Replay
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.connect.connector_offsets import NOT_STOPPED, ConnectorOffsetsScreen
from kafkatop.tui.live.tabs.connect.connector_restart import RestartConnectorScreen
from kafkatop.tui.live.tabs.connect.pane import NO_DEMO, NO_SOURCE, ConnectPane
from kafkatop.tui.live.widgets.line_table import LineTable
from tests.conftest import pilot_until
from tests.fixtures.connect_views import RecordedConnect, connect_lab, connect_snapshot
from tests.fixtures.snapshots import TAKEN_AT, RecordedControl

SETTINGS = Settings(poll_interval_s=86_400, ensemble_interval_s=86_400, connect_interval_s=86_400, launch="lab")


def app_with(connect: RecordedConnect | None, launch: Literal["lab", "attach", "demo"] = "lab",
             read_only: bool = False) -> KafkatopApp:  # fmt: skip
    cluster, nodes, quorum = connect_lab()
    sources = Sources(lambda: cluster, RecordedControl(nodes), lambda: quorum, connect=connect)
    return KafkatopApp(sources, replace(SETTINGS, launch=launch, read_only=read_only), clock=lambda: TAKEN_AT)


async def settled(pilot: Any) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def notices(app: KafkatopApp) -> list[str]:
    return [n.message for n in app._notifications]


async def test_each_key_reaches_the_workers_with_the_highlighted_connector() -> None:
    connect = RecordedConnect()
    app = app_with(connect)
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        await pilot.press("N")
        assert app.query_one(TabbedContent).active == "tab-connect"
        assert app.query_one(ConnectPane).selected_connector.name == "broken-sink"  # type: ignore[union-attr]
        for key in ("Z", "U", "S"):
            await pilot.press(key)
            await settled(pilot)
        await pilot.press("B")
        assert isinstance(app.screen, RestartConnectorScreen)
        await pilot.press("f")  # only what failed
        await settled(pilot)
        await pilot.press("j", "D")
        assert isinstance(app.screen, ConfirmScreen) and "lines-in" in app.screen.question
        await pilot.press("y")
        await settled(pilot)
        assert connect.calls == [("pause", "broken-sink"), ("resume", "broken-sink"), ("stop", "broken-sink"),
                                 ("restart", "broken-sink", True, True), ("delete", "lines-in")]  # fmt: skip
        done = [e.text for e in app.timeline.snapshot().events]
        assert "connector broken-sink paused (its tasks stop processing and stay assigned) from kafkatop" in done
        assert "connector lines-in deleted from kafkatop" in done


async def test_offsets_are_reset_only_once_stopped_and_after_a_confirmation() -> None:
    stopped = connect_snapshot("connectors_paused_stopped.json")  # lines-in STOPPED, lines-out PAUSED
    connect = RecordedConnect(stopped)
    app = app_with(connect)
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        await pilot.press("N", "j", "j", "O")  # lines-out: PAUSED
        await settled(pilot)
        assert isinstance(app.screen, ConnectorOffsetsScreen)
        assert "lines-0  offset 200" in str(app.screen.query_one("#connector-offsets-text", Static).render())
        await pilot.press("x")
        assert str(app.screen.query_one("#connector-offsets-status", Static).render()) == NOT_STOPPED
        await pilot.press("escape", "k", "O")  # lines-in: STOPPED
        await settled(pilot)
        await pilot.press("x")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settled(pilot)
        assert connect.calls == [("reset_offsets", "lines-in")]
        reset = "connector lines-in offsets reset (KIP-875) from kafkatop: The offsets for this connector have been " \
            "reset successfully"  # fmt: skip
        assert reset in [e.text for e in app.timeline.snapshot().events]


async def test_a_file_the_worker_refuses_creates_nothing(tmp_path: Any) -> None:
    connect = RecordedConnect()
    app = app_with(connect)
    bad = tmp_path / "bad.properties"
    bad.write_text("name=bad-sink\nconnector.class=FileStreamSink\nfile=/tmp/out.txt\n")
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        await pilot.press("N", "A")
        app.screen.query_one("#connector-file").value = str(bad)  # type: ignore[attr-defined]
        await pilot.press("enter")
        state = app.screen.query_one("#connector-state", Static)
        await pilot_until(pilot, lambda: "refuses bad-sink" in str(state.render()), "the refusal")
        assert "topics: Must configure one of topics or topics.regex" in str(state.render())
        await pilot.press("enter")  # checked again, and refused again: never created
        await settled(pilot)
        assert [c[0] for c in connect.calls] == ["validate", "validate"]
        await pilot.press("escape")
        assert isinstance(app.screen.query_one(ConnectPane), ConnectPane)


async def test_refused_outside_the_tab_in_a_read_only_context_and_where_there_is_no_connect() -> None:
    connect = RecordedConnect()
    app = app_with(connect, read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        await pilot.press("Z")  # read-only: refused before anything, whichever tab
        assert "writes to the cluster" in notices(app)[-1]
        await pilot.press("N", "O")
        await settled(pilot)
        await pilot.press("x")
        assert "read-only" in str(app.screen.query_one("#connector-offsets-status", Static).render())
        assert connect.calls == []

    app = app_with(RecordedConnect())
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        await pilot.press("Z")
        assert notices(app)[-1] == "Z acts on the connector highlighted in Connect: press N, pick a connector, then Z"

    app = app_with(None, launch="demo")
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        await pilot.press("N")
        assert app.query_one(TabbedContent).active == "tab-connect"
        assert str(app.query_one("#connect-workers", Static).render()) == NO_DEMO
        await pilot.press("Z")
        assert notices(app)[-1] == NO_DEMO

    app = app_with(None, launch="attach")
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        assert "Connect" not in app.main_screen.tab_titles()
        await pilot.press("N")
        assert notices(app)[-1] == NO_SOURCE and app.query_one(TabbedContent).active != "tab-connect"


async def test_a_replay_shows_the_recorded_connect_and_acts_on_nothing() -> None:
    header = RecordingHeader(TAKEN_AT, "lab 'tab'", ("control", "connect"))
    recording = Recording(header, (Recorded(TAKEN_AT, "connect", connect_snapshot()),))
    app = KafkatopApp(Sources(lambda: connect_lab()[0]), Settings(), replay=Replay(recording))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot_until(pilot, lambda: app.view.connect is not None, "the replayed poll")
        await pilot.press("N")
        assert app.query_one(TabbedContent).active == "tab-connect"
        assert app.query_one(ConnectPane).selected_connector.name == "broken-sink"  # type: ignore[union-attr]
        await pilot.press("Z")
        assert "a replay only plays back what was recorded" in notices(app)[-1]


async def test_workers_of_another_kafka_cluster_are_shown_so_and_never_acted_on() -> None:
    """A stranger's Connect on the lab's REST ports (its workers answer with another Kafka cluster's id): the workers
    line says so, and no key sends it anything."""
    connect = RecordedConnect()
    cluster, nodes, quorum = connect_lab()
    stranger = replace(cluster, cluster_id="AnotherClusterIdXXXXXX")
    sources = Sources(lambda: stranger, RecordedControl(nodes), lambda: quorum, connect=connect)
    app = KafkatopApp(sources, SETTINGS, clock=lambda: TAKEN_AT)
    async with app.run_test(size=(160, 45)) as pilot:
        await settled(pilot)
        await pilot.press("N")
        await settled(pilot)
        line = str(app.query_one("#connect-workers", Static).render())
        assert "is Kafka Connect of cluster fwTy585NRi6lUAEJvXPE0A, not this one: not acted on" in line
        for key in ("Z", "S", "D", "A"):
            await pilot.press(key)
            await settled(pilot)
        assert connect.calls == []
        assert any("answers as Kafka Connect of cluster" in n and "nothing was asked of it" in n for n in notices(app))


async def test_a_resize_that_changes_the_process_tables_columns_keeps_the_highlighted_process() -> None:
    """Below 100 columns the process table drops its port and cpu columns: the process the user highlighted stays
    highlighted, so K still aims at it (it used to fall back to the first row, a controller)."""
    from kafkatop.tui.live.widgets.nodes import NodeTable

    app = app_with(RecordedConnect())
    async with app.run_test(size=(160, 45)) as pilot:
        await settled(pilot)
        await pilot.press("0", "G")  # the last process: a Connect worker
        table = app.query_one(NodeTable)
        assert table.selected_name == "connect-2"
        for size in ((80, 24), (160, 45), (90, 30)):
            await pilot.resize_terminal(*size)
            await settled(pilot)
            assert table.selected_name == "connect-2", size


async def test_escape_in_a_connectors_tasks_goes_back_to_the_connectors_and_the_footer_says_so() -> None:
    app = app_with(RecordedConnect())
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        await pilot.press("N", "enter")  # Enter on a connector: its tasks
        assert app.focused is not None and app.focused.id == "connect-tasks"
        escape = app.screen.active_bindings.get("escape")
        assert escape is not None and escape.binding.description == "Back to connectors" and escape.binding.show
        await pilot.press("escape")
        assert app.focused is not None and app.focused.id == "connectors"


async def test_shift_tab_back_into_the_connectors_file_keeps_its_path(tmp_path: Any) -> None:
    """Back in the file field (shift+Tab), a key typed goes after the path: it used to select it all, and the key
    replaced it."""
    app = app_with(RecordedConnect())
    path = str(tmp_path / "sink.json")
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        await pilot.press("N", "A")
        field = app.screen.query_one("#connector-file", Input)
        await pilot.press(*path)
        await pilot.press("tab")
        assert app.focused is not field
        await pilot.press("shift+tab")
        assert app.focused is field
        await pilot.press("x")
        assert field.value == path + "x" and field.cursor_position == len(path) + 1


async def test_the_restart_and_offsets_dialogs_say_the_state_of_the_latest_poll() -> None:
    """B opened on a PAUSED connector, then a poll saying it RUNS (a resume just done): the dialog says RUNNING, as
    the table does, not what it read when it opened; the same for O's title."""
    paused = connect_snapshot("connectors_paused_stopped.json")  # lines-out PAUSED
    connect = RecordedConnect(paused, connect_snapshot())  # the next poll: lines-out RUNNING, 2 tasks
    app = app_with(connect)
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        await pilot.press("N", "j", "j")
        assert app.query_one(ConnectPane).selected_connector.name == "lines-out"  # type: ignore[union-attr]
        await pilot.press("B")
        assert isinstance(app.screen, RestartConnectorScreen)
        detail = app.screen.query_one("#dialog-detail", Static)
        assert str(detail.render()).startswith("It is PAUSED; 0 of")
        app.poll_now("connect")
        await pilot_until(pilot, lambda: str(detail.render()).startswith("It is RUNNING; 2 of 2 task(s) RUNNING"),
                          "the dialog following the poll")  # fmt: skip
        await pilot.press("escape", "O")
        await settled(pilot)
        assert isinstance(app.screen, ConnectorOffsetsScreen)
        title = str(app.screen.query_one("#connector-offsets-title", Static).render())
        assert title == "Offsets of connector lines-out (sink, RUNNING)", title


async def test_a_lab_without_workers_gives_the_add_connect_of_this_lab() -> None:
    """A lab started with --name and --state-dir: the hint's commands carry them (`kafkatop add-connect` alone would
    look for the default lab)."""
    cluster, nodes, quorum = connect_lab()
    sources = Sources(lambda: cluster, RecordedControl(nodes), lambda: quorum)
    settings = replace(SETTINGS, lab_flags="--name e --state-dir '/tmp/my labs'")
    app = KafkatopApp(sources, settings, clock=lambda: TAKEN_AT)
    async with app.run_test(size=(200, 40)) as pilot:
        await settled(pilot)
        await pilot.press("N")
        said = str(app.query_one("#connect-workers", Static).render())
        assert "`kafkatop add-connect --name e --state-dir '/tmp/my labs'`" in said, said
        assert "`kafkatop up --connect N --name e --state-dir '/tmp/my labs'`" in said, said


async def test_a_file_source_waiting_for_its_file_says_so_in_the_tab() -> None:
    """The client found lines-in's file missing on this host (a lab's workers): its state says it waits, its tasks'
    rows say for what, the path as text (its escape shown, not acted on, no markup read in `[red]`)."""
    path = "/tmp/none/in\x1b[31m[red].txt"
    base = connect_snapshot()
    waiting = replace(base, connectors=tuple(replace(c, waiting_for=path) if c.name == "lines-in" else c
                                             for c in base.connectors))  # fmt: skip
    app = app_with(RecordedConnect(waiting))
    async with app.run_test(size=(160, 40)) as pilot:
        await settled(pilot)
        await pilot.press("N", "j")
        pane = app.query_one(ConnectPane)
        assert pane.selected_connector is not None and pane.selected_connector.name == "lines-in"
        connectors, tasks = app.query_one("#connectors", LineTable), app.query_one("#connect-tasks", LineTable)
        assert connectors.row("lines-in")[3] == "RUNNING waiting for its file"
        assert connectors.row("lines-out")[3] == "RUNNING"
        assert tasks.row("connector")[3] == f"waiting for {path}: it does not exist yet"
        drawn = "".join(tasks.row_strip(i).text for i in range(tasks.row_count))
        assert "waiting for /tmp/none/in\\x1b[31m[red].txt: it does not exist yet" in drawn, drawn
        await pilot.press("enter", "k", "enter")  # the connector's own row: no trace, what it waits for
        said = "lines-in is RUNNING: waiting for /tmp/none/in\\x1b[31m[red].txt: it does not exist yet"
        assert notices(app)[-1] == said  # a notice escapes it too


async def test_the_connectors_file_completes_its_path(tmp_path: Any) -> None:
    """Before: no completion in the file field; a path is typed whole. As a shell's Tab: → takes the rest."""
    (tmp_path / "file-sink.properties").write_text("name=s\n", encoding="utf-8")
    app = app_with(RecordedConnect())
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        await pilot.press("N", "A")
        field = app.screen.query_one("#connector-file", Input)
        await pilot.press(*f"{tmp_path}/file-")
        await pilot_until(pilot, lambda: field._suggestion.endswith("file-sink.properties"), "the suggestion")  # noqa: SLF001
        await pilot.press("right")
        assert field.value == f"{tmp_path}/file-sink.properties"
