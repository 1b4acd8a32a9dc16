"""The kafkatop live view: starts a poller per source (feed.py's SOURCES), turns what they deliver into one LiveView
that every pane draws itself from, and runs the user's actions in a worker. The screen (main_screen.py) holds the
layout, the tabs and the keys; every source and actuator comes in through `Sources` (ports), blocking in workers.
The contexts (switching.py) and `M` (grant_key.py) are objects the app owns."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from textual import on, work
from textual.app import App
from textual.notifications import SeverityLevel
from textual.worker import Worker, WorkerState, get_current_worker

from kafkatop.backends.insight.timeline.model import TimelineSnapshot
from kafkatop.backends.insight.timeline.timeline import Timeline
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.recording import ActionDone
from kafkatop.backends.model.text import printable
from kafkatop.tui.live.actions import ClusterActions
from kafkatop.tui.live.commands import LiveCommands
from kafkatop.tui.live.feed import SOURCES, Feed, source
from kafkatop.tui.live.gc_pacing import after_the_frame
from kafkatop.tui.live.grant_key import GRANT, GrantKeeper
from kafkatop.tui.live.granting import GrantsMet
from kafkatop.tui.live.main_screen import MainScreen
from kafkatop.tui.live.messages import (
    ActionFinished,
    ContextOpened,
    OperationRecorded,
    Polled,
    PollFailed,
    ReplayProgressed,
)
from kafkatop.tui.live.polling import Polling
from kafkatop.tui.live.replay import Replay
from kafkatop.tui.live.sources import Settings, Sources, Switcher
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.switching import ContextSwitch
from kafkatop.tui.live.tabs import TABS
from kafkatop.tui.live.widgets.pane import LivePane, failure_text, grants_of
from kafkatop.tui.live.widgets.replay import ReplayBar


class KafkatopApp(App[None]):
    CSS_PATH = ["app.tcss", *(tab.css for tab in TABS if tab.css is not None)]  # what is shared, then each tab's
    TITLE = "kafkatop"
    COMMANDS = App.COMMANDS | {LiveCommands}

    def __init__(
        self,
        sources: Sources | Callable[[], ClusterSnapshot],
        settings: Settings | None = None,
        clock: Callable[[], float] = time.time,
        replay: Replay | None = None,
        switcher: Switcher | None = None,
    ) -> None:
        super().__init__()
        self.switcher, self.contexts = switcher, ContextSwitch(self, MainScreen)
        self.replay, self.clock = replay, (replay.clock if replay is not None else clock)
        self.grants = GrantKeeper(self)
        self.last_action: ActionFinished | None = None
        sources = sources if isinstance(sources, Sources) else Sources(poll_cluster=sources)
        # Fed by the workers (the timeline and history are thread-safe and bounded); the panes draw their snapshots.
        settings = settings if settings is not None else Settings()
        feed = Feed(self.post_message, sources.recorder if replay is None else None, settings.lag_rules)
        self.adopt(sources, settings, feed, LiveView())

    def adopt(self, sources: Sources, settings: Settings, feed: Feed, view: LiveView) -> None:
        """A context's sources, feed and view: polled and drawn once its screen's panes are mounted."""
        self.sources, self.settings, self.feed, self.view = sources, settings, feed, view
        self.polls = Polling(self)
        self._panes: list[LivePane] = []
        self.cluster_actions = ClusterActions(self)

    def get_default_screen(self) -> MainScreen:
        return MainScreen("replay" if self.replay is not None else self.settings.launch)

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:  # fmt: skip
        """Every notice, a pane's and a screen's too (theirs come here): text, never markup, controls escaped."""
        super().notify(printable(message, lines=True), title=printable(title), severity=severity, timeout=timeout,
                       markup=False)  # fmt: skip

    def on_mount(self) -> None:
        self.contexts.show_warnings()  # what the command line said on stderr before the screen hid it

    # --- what tests, the screen and the command line read ----------------------------------------------------------
    @property
    def main_screen(self) -> MainScreen:
        """The screen with the tabs: polls keep drawing it while a dialog is open on top."""
        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

    @property
    def shutting_down(self) -> bool:
        """Quitting: the screens are being taken down (children before their parents), and a worker's last message
        has nothing to draw on."""
        return not self.is_running or not self.screen_stack

    @property
    def snapshot(self) -> ClusterSnapshot | None:
        return self.view.cluster

    @property
    def timeline(self) -> Timeline:
        return self.feed.timeline

    def present(self) -> frozenset[str]:
        """The names of the Sources members this view has (live), or had (a replay: from the recording's header)."""
        if self.replay is not None:
            return self.replay.sources()
        return self.sources.present() | ({"switcher"} if self.switcher is not None else set())

    def hold(self) -> None:  # no further poll (a screenshot held still, a context switched away from)
        self.polls.hold()

    def poll_now(self, source: str) -> None:
        self.polls.now(source)

    def panes_mounted(self, panes: list[LivePane]) -> None:
        """The screen is up: each of its panes is handed every LiveView from here on, and the sources start."""
        self._panes = panes
        self._show()
        self._start()

    def select_node(self, name: str | None) -> None:
        if name != self.view.selected_node:
            self._show(selected_node=name)

    def switch_context(self, name: str) -> None:
        self.contexts.switch(name)

    def on_context_opened(self, message: ContextOpened) -> None:
        self.grants.forget()
        self.contexts.opened(message)

    # --- start: a poller per source ------------------------------------------------------------------------------
    def _start(self) -> None:
        if self.replay is not None:
            self.run_worker(self._play, group="replay", thread=True, exit_on_error=False)
            return
        if self.sources.startup is not None:
            self.act("cluster started", self.sources.startup)
        self.polls.start(self.sources, self.settings, self.feed)

    def _play(self) -> None:
        assert self.replay is not None
        worker = get_current_worker()
        self.replay.run(self.feed.replayed, lambda: worker.is_cancelled, lambda: self.post_message(ReplayProgressed()))

    # --- the view: one value, drawn by every pane that is on screen ------------------------------------------------
    def _show(self, **changes: Any) -> None:
        if self.shutting_down:
            return
        retired, self.view = self.view, replace(self.view, **changes)
        for pane in self._panes:
            pane.receive(self.view)
        self.screen.call_after_refresh(self.call_later, after_the_frame, [retired])  # see gc_pacing.after_the_frame

    def _timeline(self, current: TimelineSnapshot | None) -> TimelineSnapshot | None:
        """The newer of the view's timeline and `current` (a worker's snapshot, possibly older than another's)."""
        shown = self.view.timeline
        return current if current is not None and (shown is None or current.revision > shown.revision) else shown

    def on_polled(self, message: Polled) -> None:
        if self.shutting_down:
            return
        snapshot, row = message.snapshot, source(message.source)
        if isinstance(snapshot, ClusterSnapshot) and snapshot.mode == "zk":
            self.main_screen.tabs.get_tab("tab-quorum").label = "ZooKeeper"  # the tab shows ZooKeeper's ensemble
        changes: dict[str, object] = {message.source: snapshot, "timeline": self._timeline(message.timeline)}
        if row.problem is not None:
            changes[row.problem] = None  # read again: its problem is over
        if row.history:
            changes["history"], changes["lag"] = message.history, message.lag
        self._show(**changes)

    def on_operation_recorded(self, message: OperationRecorded) -> None:
        if message.timeline is not self.view.timeline:
            self._show(timeline=self._timeline(message.timeline))

    def on_replay_progressed(self) -> None:
        if self.replay is not None and not self.shutting_down:
            self.main_screen.query_one(ReplayBar).refresh_state()

    # --- workers' ends: the one place a failed worker is handled ---------------------------------------------------
    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        state, group = event.state, event.worker.group
        if state not in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED) or self.shutting_down:
            return
        error = event.worker.error if state is WorkerState.ERROR else None
        if (poller := self.polls.ended(event.worker)) is not None:
            if error is not None and source(poller.source).problem is not None:  # the others' panes keep theirs
                self.on_poll_failed(PollFailed(poller.source, failure_text(error), self.clock()))
        elif error is not None and group in ("switch", "close-context"):
            title = "context not switched" if group == "switch" else ""
            self.notify(failure_text(error), title=title, severity="error")
        elif error is not None and group == "watch-zookeeper":
            self.notify(f"ZooKeeper's watches stopped ({failure_text(error)}): changes are seen at the next poll",
                        severity="warning", timeout=8)  # fmt: skip

    def on_poll_failed(self, message: PollFailed) -> None:
        self.feed.failed(message.source, message.reason, message.at)
        problem = source(message.source).problem
        if problem is not None:  # the last good data stays; the cluster's with its age
            self._show(**{problem: message.reason}, **({"failed_at": message.at} if problem == "failure" else {}))

    # --- the user's actions: one worker; each end told as a notice and on the timeline ----------------------------
    def act(self, what: str, call: Callable[[], object]) -> None:
        """Runs `call` in the action worker; its end is an ActionFinished, told as a notice."""
        self._run_action(what, call)

    @work(thread=True, group="action", exit_on_error=False)
    def _run_action(self, what: str, call: Callable[[], object]) -> None:
        try:
            call()
        except Exception as e:  # noqa: BLE001 - a failed action is reported, never a crash
            self.post_message(ActionFinished(what, failure_text(e, self), grants_of(e)))
        else:
            self.post_message(ActionFinished(what))

    def on_action_finished(self, message: ActionFinished) -> None:
        if self.shutting_down:
            return
        self.grants.finished(message)
        self.feed.action_done(ActionDone(message.what, message.error), self.clock())
        self.last_action = message
        if message.error:
            self.notify(message.error, title="failed", severity="error", timeout=8)
        else:
            self.notify(message.what, timeout=3)
        for row in SOURCES:
            if row.after_actions:
                self.poll_now(row.name)

    # --- M: the last refusal's grants (grant_key.py) -----------------------------------------------------------------
    def on_grants_met(self, message: GrantsMet) -> None:
        self.grants.met(message.grants)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return bool(self.grants.grants_met) if action == GRANT else True

    def action_grant(self) -> None:
        self.grants.grant()
