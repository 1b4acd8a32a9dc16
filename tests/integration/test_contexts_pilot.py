"""Contexts in the live view, driven by its keys over two librdkafka mock clusters named as contexts in a kafkatop.toml:
`w` lists them and switches without restarting (the old context's clients closed, each one's timeline kept); a
read-only context has no writing key in its footer or palette, answers one that is typed with one line, and its
producer sends nothing; a cluster that is not kafkatop's asks for its name typed before a topic is deleted."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from textual.actions import parse
from textual.widgets import Input

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.recording import ActionTaken
from kafkatop.tui.cli.compose import compose_app
from kafkatop.tui.cli.contexts import apply_context
from kafkatop.tui.cli.parser import build_parser
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.commands import offered
from kafkatop.tui.live.keymap import SCREEN_ACTIONS
from kafkatop.tui.live.main_screen import MainScreen
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.screens.contexts import ContextsScreen
from kafkatop.tui.live.tabs.produce.pane import ProducerPane
from kafkatop.tui.live.widgets.status_bar import StatusBar
from tests.conftest import pilot_until

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def clusters(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, MockCluster]]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    with MockCluster(3) as a, MockCluster(3) as b:
        a.create_topic("orders", 3, 3)
        b.create_topic("payments", 2, 3)
        (tmp_path / "kafkatop.toml").write_text(
            f'[contexts.a]\nbootstrap-server = "{a.bootstrap_servers}"\ncolour = "green"\n\n'
            f'[contexts.b]\nbootstrap-server = "{b.bootstrap_servers}"\nread-only = true\ncolour = "red"\n'
        )
        yield {"a": a, "b": b}


@pytest.fixture
async def app(clusters: dict[str, MockCluster], tmp_path: Path) -> AsyncIterator[KafkatopApp]:
    args = build_parser().parse_args(["--context", "a", "--state-dir", str(tmp_path / "state")])
    apply_context(args)
    with ExitStack() as stack:
        yield compose_app(args, stack, terminal=False)


def _shows(app: KafkatopApp, cluster: MockCluster) -> bool:
    snapshot = app.view.cluster
    return snapshot is not None and {b.port for b in snapshot.brokers} == {
        int(address.rpartition(":")[2]) for address in cluster.bootstrap_servers.split(",")
    }


async def _switch(pilot: object, app: KafkatopApp, name: str, cluster: MockCluster) -> None:
    await pilot.press("w")  # type: ignore[attr-defined]
    await pilot_until(pilot, lambda: isinstance(app.screen, ContextsScreen), "the context switcher")
    picker = app.screen
    assert isinstance(picker, ContextsScreen)
    picker.dismiss(name)
    await pilot_until(
        pilot,
        lambda: (
            app.settings.context == name
            and _shows(app, cluster)
            and app.main_screen.query_one(StatusBar).text.plain.startswith(f" {name} ")
        ),
        f"context {name} drawn",
    )


async def test_w_switches_contexts_keeping_each_ones_timeline(
    app: KafkatopApp, clusters: dict[str, MockCluster]
) -> None:
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot_until(pilot, lambda: _shows(app, clusters["a"]), "context a's cluster")
        assert app.main_screen.query_one(StatusBar).text.plain.startswith(" a ")
        a_feed = app.feed
        a_feed.action(ActionTaken("kill", "broker-1", 1))  # an incident on a's timeline
        await pilot_until(pilot, lambda: app.view.timeline is not None and app.view.timeline.incidents, "a's incident")

        await pilot.press("w")
        await pilot_until(pilot, lambda: isinstance(app.screen, ContextsScreen), "the context switcher")
        await pilot.press("escape")  # stays: nothing switched
        await pilot.pause(0.2)
        assert app.settings.context == "a" and isinstance(app.screen, MainScreen)

        await _switch(pilot, app, "b", clusters["b"])
        switcher = app.switcher
        assert switcher is not None
        await pilot_until(pilot, lambda: "a" not in switcher._open, "a's clients closed")  # noqa: SLF001
        bar = app.main_screen.query_one(StatusBar).text.plain
        assert bar.startswith(" b ") and "READ-ONLY" in bar, bar
        assert app.feed is not a_feed and app.view.timeline is not None and not app.view.timeline.incidents

        await _switch(pilot, app, "a", clusters["a"])
        assert app.feed is a_feed  # a's timeline and history, as they were
        assert app.view.timeline is not None and len(app.view.timeline.incidents) == 1
        assert "READ-ONLY" not in app.main_screen.query_one(StatusBar).text.plain


async def test_a_read_only_context_refuses_every_write_in_the_app(
    app: KafkatopApp, clusters: dict[str, MockCluster]
) -> None:
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot_until(pilot, lambda: _shows(app, clusters["a"]), "context a's cluster")
        screen = app.main_screen
        writes = [a for a in SCREEN_ACTIONS if a.writes]
        assert any(screen.check_action(*parse(a.bound)[1:]) for a in writes)  # a writes: the keys are there
        await _switch(pilot, app, "b", clusters["b"])
        screen = app.main_screen
        for action in writes:  # absent from the footer (a binding whose check_action is False is not shown)
            assert screen.check_action(*parse(action.bound)[1:]) is False, action.id
        assert not {c.title for c in offered(screen)} & {a.palette for a in writes}  # nor offered by the palette

        for key in ("c", "K", "E"):
            await pilot.press(key)
            await pilot.pause(0.1)
            assert isinstance(app.screen, MainScreen), f"{key} opened {type(app.screen).__name__}"
        said = [n.message for n in app._notifications]  # noqa: SLF001
        assert any("context 'b' is read-only: c (create topic) writes to the cluster" in m for m in said), said
        assert any("K (kill -9)" in m for m in said), said

        await pilot.press("3")  # Produce: a line typed and Enter sends nothing, and the line stays
        producer = screen.query_one(ProducerPane)
        screen.query_one("#produce-topic", Input).value = "payments"
        line = screen.query_one("#produce-line", Input)
        line.focus()
        await pilot.press(*"Kcdx")  # typed in a field, K, c, d and x are letters, not kill, create or delete
        assert line.value == "Kcdx"
        await pilot.press("enter")
        await pilot.pause(0.2)
        status = str(producer.query_one("#produce-status").render())
        assert "read-only: producing writes to the cluster; nothing was sent" in status, status
        assert line.value == "Kcdx"


async def test_deleting_a_topic_of_a_cluster_not_kafkatops_asks_for_its_name(
    app: KafkatopApp, clusters: dict[str, MockCluster]
) -> None:
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot_until(pilot, lambda: _shows(app, clusters["a"]) and app.view.cluster.topic("orders"), "orders")  # type: ignore[union-attr]
        await pilot.press("d")
        await pilot_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation")
        confirm = app.screen
        assert isinstance(confirm, ConfirmScreen) and confirm.typed == "a"
        await pilot.press("y")  # a reflex does nothing: y is typed into the field
        await pilot.pause(0.1)
        assert app.screen is confirm and confirm.query_one("#typed", Input).value == "y"
        await pilot.press("escape")
        await pilot.pause(0.1)
        assert isinstance(app.screen, MainScreen)
        assert app.view.cluster is not None and app.view.cluster.topic("orders") is not None


async def test_quitting_while_the_new_context_mounts_ends_cleanly(
    app: KafkatopApp, clusters: dict[str, MockCluster]
) -> None:
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot_until(pilot, lambda: _shows(app, clusters["a"]), "context a's cluster")
        app.switch_context("b")
        await pilot_until(pilot, lambda: app.settings.context == "b", "b handed over", timeout_s=10)
        await pilot.press("q")  # the new screen may be half mounted: the app ends without an error
    assert app.return_code in (0, None)


# --- start-up warnings on screen (issue 38, point 8) -----------------------------------------------------------------
def _toasts(app: KafkatopApp) -> list[str]:
    """The notices drawn on the screen shown, as their text."""
    from textual.widgets._toast import Toast

    return [str(t.render()) for t in app.screen.query(Toast)]


@pytest.mark.parametrize("first", ["b", "a"], ids=["started in b", "switched to b"])
async def test_a_context_kept_read_only_is_said_on_screen_at_start_and_on_a_switch(
    clusters: dict[str, MockCluster], tmp_path: Path, first: str
) -> None:
    """The user's `[contexts.b]` is read-only; a project file (its folder's name is markup, which must stay text)
    redefines it without: it stays read-only, and the warning that said so on stderr, hidden once the live view takes
    the terminal, is a notice on screen — when the view starts in b, and when `w` switches to b."""
    user = tmp_path / "config" / "kafkatop" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text(f'[contexts.b]\nbootstrap-server = "{clusters["b"].bootstrap_servers}"\nread-only = true\n')
    project = tmp_path / "[bold red]x" / "kafkatop.toml"
    project.parent.mkdir()
    project.write_text(f'[contexts.a]\nbootstrap-server = "{clusters["a"].bootstrap_servers}"\n\n'
                       f'[contexts.b]\nbootstrap-server = "{clusters["b"].bootstrap_servers}"\n')  # fmt: skip
    kept = f"{project}: [contexts.b] redefines the one in {user} without read-only; it stays read-only"
    args = build_parser().parse_args(["--context", first, "--config", str(project)])
    apply_context(args)
    with ExitStack() as stack:
        app = compose_app(args, stack, terminal=False)
        async with app.run_test(size=(160, 40), notifications=True) as pilot:  # toasts drawn
            if first == "a":
                await pilot_until(pilot, lambda: _shows(app, clusters["a"]), "context a's cluster")
                assert not app._notifications  # noqa: SLF001 - a has nothing to warn about
                await _switch(pilot, app, "b", clusters["b"])
            assert app.settings.read_only
            await pilot_until(pilot, lambda: any(kept in t for t in _toasts(app)), "the warning on screen")
            (warning,) = [n for n in app._notifications if kept in n.message]  # noqa: SLF001
            assert (warning.severity, warning.markup, warning.timeout >= 30) == ("warning", False, True)
            assert "[bold red]x" in warning.message  # the folder's name as written
