"""The kafkatop live view: starts a poller per source (polling.py), turns what the workers deliver into one LiveView
that every pane draws itself from, and runs the user's actions in a worker. The screen (main_screen.py) holds the
layout, the tabs and the keys; every source and actuator comes in through `Sources` (ports), blocking in workers."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

from textual import on, work
from textual.notifications import SeverityLevel
from textual.worker import Worker, WorkerState, get_current_worker

from kafkatop.backends.insight.timeline.model import TimelineSnapshot
from kafkatop.backends.insight.timeline.timeline import Timeline
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.recording import ActionDone
from kafkatop.backends.model.text import printable
from kafkatop.tui.live.actions import ClusterActions
from kafkatop.tui.live.collector import after_the_frame
from kafkatop.tui.live.commands import LiveCommands
from kafkatop.tui.live.feed import Feed
from kafkatop.tui.live.grant_key import GrantKeeping
from kafkatop.tui.live.main_screen import MainScreen
from kafkatop.tui.live.messages import (
    AclsPolled,
    ActionFinished,
    ClusterPolled,
    ConnectPolled,
    ConsolesDrained,
    EnsemblePolled,
    NodesPolled,
    OperationRecorded,
    PollFailed,
    ReplayProgressed,
)
from kafkatop.tui.live.polling import Poller
from kafkatop.tui.live.replay import Replay
from kafkatop.tui.live.sources import Settings, Sources, Switcher
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.widgets.pane import LivePane, failure_text, grants_of
from kafkatop.tui.live.widgets.replay import ReplayBar


class KafkatopApp(GrantKeeping):  # ContextSwitching, and M (grant_key.py)
    CSS_PATH = "app.tcss"
    TITLE = "kafkatop"
    COMMANDS = GrantKeeping.COMMANDS | {LiveCommands}

    def __init__(
        self,
        sources: Sources | Callable[[], ClusterSnapshot],
        settings: Settings | None = None,
        clock: Callable[[], float] = time.time,
        replay: Replay | None = None,
        switcher: Switcher | None = None,
    ) -> None:
        super().__init__()
        self.switcher, self._kept = switcher, {}
        self.sources = sources if isinstance(sources, Sources) else Sources(poll_cluster=sources)
        self.settings = settings if settings is not None else Settings()
        self.replay, self.clock = replay, (replay.clock if replay is not None else clock)
        self.view = LiveView()
        self.last_action: ActionFinished | None = None
        # Fed by the workers (the timeline and history are thread-safe and bounded); the panes draw their snapshots.
        self.feed = Feed(self.post_message, self.sources.recorder if replay is None else None)
        self.cluster_actions = ClusterActions(self)
        self._pollers, self._panes = {}, []

    def get_default_screen(self) -> MainScreen:
        return MainScreen("replay" if self.replay is not None else self.settings.mode)

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:  # fmt: skip
        """Every notice, a pane's and a screen's too (theirs come here): text, never markup, controls escaped."""
        super().notify(printable(message, lines=True), title=printable(title), severity=severity, timeout=timeout,
                       markup=False)  # fmt: skip

    # --- what tests, the screen and the command line read ----------------------------------------------------------
    @property
    def main_screen(self) -> MainScreen:
        """The screen with the tabs: polls keep drawing it while a dialog is open on top."""
        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

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

    def hold(self) -> None:
        """No further poll (a screenshot held still)."""
        for poller in self._pollers.values():
            poller.hold()

    def poll_now(self, source: str) -> None:
        if source in self._pollers:
            self._pollers[source].now()

    def panes_mounted(self, panes: list[LivePane]) -> None:
        """The screen is up: each of its panes is handed every LiveView from here on, and the sources start."""
        self._panes = panes
        self._show()
        self._start()

    def select_node(self, name: str | None) -> None:
        if name != self.view.selected_node:
            self._show(selected_node=name)

    # --- start: a poller per source ------------------------------------------------------------------------------
    def _start(self) -> None:
        if self.replay is not None:
            self.run_worker(self._play, group="replay", thread=True, exit_on_error=False)
            return
        s, src, feed = self.settings, self.sources, self.feed
        if src.startup is not None:
            self.act("cluster started", src.startup)
        self._add_poller("cluster", s.poll_interval_s, lambda: feed.cluster(src.poll_cluster()))
        if (control := src.control) is not None:
            self._add_poller("nodes", s.poll_interval_s, lambda: feed.nodes(control.poll()))
        if (poll_ensemble := src.poll_ensemble) is not None:
            self._add_poller("ensemble", s.ensemble_interval_s, lambda: feed.ensemble(poll_ensemble()))
        if (consoles := src.consoles) is not None:
            self._add_poller("consoles", s.drain_interval_s, lambda: feed.drain(consoles))
        if (connect := src.connect) is not None:
            self._add_poller("connect", s.connect_interval_s, lambda: feed.connect(connect.poll()))
        if (acls := src.acls) is not None:
            self._add_poller("acls", s.acls_interval_s, lambda: feed.acls(acls.poll()))
        if src.zookeeper is not None:
            watch = partial(feed.follow_zookeeper, src.zookeeper, lambda: get_current_worker().is_cancelled)
            self.run_worker(watch, group="watch-zookeeper", thread=True, exit_on_error=False)

    def _add_poller(self, source: str, interval_s: float, poll: Callable[[], None]) -> None:
        poller = self._pollers[source] = Poller(self, source, interval_s, poll)
        poller.now()

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
        self.call_after_refresh(self.call_later, after_the_frame, [retired])  # see collector.after_the_frame

    def _timeline(self, current: TimelineSnapshot | None) -> TimelineSnapshot | None:
        """The newer of the view's timeline and `current` (a worker's snapshot, possibly older than another's)."""
        shown = self.view.timeline
        return current if current is not None and (shown is None or current.revision > shown.revision) else shown

    def on_cluster_polled(self, message: ClusterPolled) -> None:
        if self.shutting_down:
            return
        if message.snapshot.mode == "zk":
            self.main_screen.zookeeper_mode()
        timeline = self._timeline(message.timeline)
        self._show(cluster=message.snapshot, history=message.history, failure=None, timeline=timeline)

    def on_nodes_polled(self, message: NodesPolled) -> None:
        self._show(nodes=message.snapshot, timeline=self._timeline(message.timeline))

    def on_ensemble_polled(self, message: EnsemblePolled) -> None:
        self._show(ensemble=message.snapshot, ensemble_problem=None, timeline=self._timeline(message.timeline))

    def on_connect_polled(self, message: ConnectPolled) -> None:
        self._show(connect=message.snapshot, connect_problem=None, timeline=self._timeline(message.timeline))

    def on_acls_polled(self, message: AclsPolled) -> None:
        self._show(acls=message.snapshot, acls_problem=None)

    def on_consoles_drained(self, message: ConsolesDrained) -> None:
        self._show(consoles=message.activity, timeline=self._timeline(message.timeline))

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
        poller = self._pollers.get(group.removeprefix("poll-"))
        if poller is not None and event.worker is poller.worker:  # not a poll of a context switched away from
            poller.finished()
            if error is not None and poller.source not in ("nodes", "consoles"):  # those two keep theirs
                self.on_poll_failed(PollFailed(poller.source, failure_text(error), self.clock()))
        elif error is not None and group in ("switch", "close-context"):
            title = "context not switched" if group == "switch" else ""
            self.notify(failure_text(error), title=title, severity="error")
        elif error is not None and group == "watch-zookeeper":
            self.notify(f"ZooKeeper's watches stopped ({failure_text(error)}): changes are seen at the next poll",
                        severity="warning", timeout=8)  # fmt: skip

    def on_poll_failed(self, message: PollFailed) -> None:
        self.feed.failed(message.source, message.reason, message.at)
        if message.source == "cluster":
            self._show(failure=message.reason, failed_at=message.at)  # the last good data stays, with its age
        else:  # ensemble_problem, connect_problem, acls_problem: their panes say it
            self._show(**{f"{message.source}_problem": message.reason})

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
        self.feed.action_done(ActionDone(message.what, message.error), self.clock())
        self.last_action = message
        if message.error:
            self.notify(message.error, title="failed", severity="error", timeout=8)
        else:
            self.notify(message.what, timeout=3)
        for source in ("nodes", "cluster", "connect", "acls"):
            self.poll_now(source)
