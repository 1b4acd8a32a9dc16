"""The kafkatop app: composes widgets, runs poll workers, routes their messages. It never fetches data itself."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from textual import work
from textual.app import App, ComposeResult
from textual.timer import Timer
from textual.widgets import Footer, Static

from kafkatop.backends.errors import KafkatopError
from kafkatop.backends.model import ClusterSnapshot
from kafkatop.tui.messages import ClusterPolled, ClusterPollFailed
from kafkatop.tui.widgets.brokers import BrokerTable
from kafkatop.tui.widgets.partitions import PartitionTable
from kafkatop.tui.widgets.status_bar import StatusBar


@dataclass(frozen=True)
class Settings:
    poll_interval_s: float = 1.0
    banner: str | None = None  # e.g. the DEMO notice


class KafkatopApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "kafkatop"
    BINDINGS = [("q", "quit", "Quit"), ("r", "refresh", "Refresh now")]

    def __init__(
        self,
        poll_cluster: Callable[[], ClusterSnapshot],
        settings: Settings = Settings(),
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__()
        self._poll_cluster = poll_cluster
        self.settings = settings
        self._clock = clock
        self.snapshot: ClusterSnapshot | None = None
        self.failure: str | None = None
        self._next_poll: Timer | None = None

    def compose(self) -> ComposeResult:
        if self.settings.banner:
            yield Static(self.settings.banner, id="banner")
        yield StatusBar()
        yield BrokerTable()
        yield PartitionTable()
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(StatusBar).show(None, None, None)
        self.poll_cluster()

    # --- polling: one worker at a time; the next poll is scheduled when the last one ended -----------------------
    @work(thread=True, group="poll-admin", exclusive=False, exit_on_error=False)
    def poll_cluster(self) -> None:
        try:
            self.post_message(ClusterPolled(self._poll_cluster()))
        except KafkatopError as e:
            self.post_message(ClusterPollFailed(str(e), self._clock()))
        except Exception as e:  # noqa: BLE001 - a library surprise must not end the app; show it instead
            self.post_message(ClusterPollFailed(f"{type(e).__name__}: {e}", self._clock()))

    def _schedule_next_poll(self) -> None:
        # One pending poll at most: a manual refresh must not start a second chain of timers.
        if self._next_poll is not None:
            self._next_poll.stop()
        self._next_poll = self.set_timer(self.settings.poll_interval_s, self.poll_cluster)

    def on_cluster_polled(self, message: ClusterPolled) -> None:
        self.snapshot, self.failure = message.snapshot, None
        self.query_one(StatusBar).show(self.snapshot, None, None)
        self.query_one(BrokerTable).show(self.snapshot)
        self.query_one(PartitionTable).show(self.snapshot)
        self._schedule_next_poll()

    def on_cluster_poll_failed(self, message: ClusterPollFailed) -> None:
        # Keep the last good data on screen, with its age.
        self.failure = message.reason
        age = message.at - self.snapshot.taken_at if self.snapshot is not None else None
        self.query_one(StatusBar).show(self.snapshot, self.failure, age)
        self._schedule_next_poll()

    def action_refresh(self) -> None:
        if not any(w.group == "poll-admin" and w.is_running for w in self.workers):
            if self._next_poll is not None:
                self._next_poll.stop()
            self.poll_cluster()
