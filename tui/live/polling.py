"""The one poll loop of the live view: each source of feed.py's SOURCES that the view has is polled by a `Poller`.

A poll runs in a thread worker (group `poll-<source>`) that calls the source and posts its message. Polls of one
source never overlap, and the next one is scheduled `interval_s` after the last one ended, so a slow source slows its
own pane, never the app. At most one timer is pending per source. A poll that fails is told on the UI thread by the
app's single handler of worker state changes.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from textual.app import App
from textual.timer import Timer
from textual.worker import Worker, get_current_worker

from kafkatop.tui.live.feed import SOURCES, Feed, LiveSource
from kafkatop.tui.live.gc_pacing import trim_heap
from kafkatop.tui.live.sources import Settings, Sources


class Poller:
    def __init__(
        self,
        app: App[None],
        source: str,
        interval_s: float,
        poll: Callable[[], None],
    ) -> None:
        self.app = app
        self.source = source
        self.group = f"poll-{source}"
        self.interval_s = interval_s
        self._poll = poll
        self.running = False
        self.held = False  # no timer is set while held: a replay paused, a screenshot held still
        self._again = False
        self._timer: Timer | None = None
        self.worker: Worker[None] | None = None  # the poll under way, or the last one

    def now(self) -> None:
        """Poll now; if a poll is under way, poll again as soon as it ends."""
        if self.running:
            self._again = True
            return
        self._cancel_timer()
        self.running = True
        self.worker = self.app.run_worker(
            self._poll, name=self.group, group=self.group, thread=True, exit_on_error=False
        )

    def finished(self) -> None:
        """The poll's worker ended (UI thread; a failure is the app's to tell): the next poll scheduled."""
        self.running = False
        if self.held:
            return
        if self._again:
            self._again = False
            self.now()
            return
        self._cancel_timer()
        self._timer = self.app.set_timer(self.interval_s, self.now)

    def hold(self) -> None:
        """No further poll until release()."""
        self.held = True
        self._cancel_timer()

    def release(self) -> None:
        self.held = False
        if not self.running:
            self.now()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None


class Polling:
    """The pollers of one context's sources: started once its screen is up, held when it is switched away from."""

    def __init__(self, app: App[None]) -> None:
        self.app = app
        self.pollers: dict[str, Poller] = {}

    def start(self, sources: Sources, settings: Settings, feed: Feed) -> None:
        for source in SOURCES:
            if (poll := source.reads(sources)) is not None:
                poller = Poller(self.app, source.name, source.interval_s(settings), partial(_poll, source, poll, feed))
                self.pollers[source.name] = poller
                poller.now()
        if (zookeeper := sources.zookeeper) is not None:  # ZooKeeper mode: what its watches push, as it comes
            watch = partial(feed.follow_zookeeper, zookeeper, lambda: get_current_worker().is_cancelled)
            self.app.run_worker(watch, group="watch-zookeeper", thread=True, exit_on_error=False)
        if sources.writes is not None:  # the session's writes, told as they end (some on the Timeline)
            sources.writes.watch(feed.write)

    def now(self, source: str) -> None:
        if source in self.pollers:
            self.pollers[source].now()

    def hold(self) -> None:
        for poller in self.pollers.values():
            poller.hold()

    def ended(self, worker: Worker[Any]) -> Poller | None:
        """The poller whose poll `worker` was (not one of a context switched away from), told that it ended."""
        poller = self.pollers.get((worker.group or "").removeprefix("poll-"))
        if poller is None or worker is not poller.worker:
            return None
        poller.finished()
        return poller


def _poll(source: LiveSource[Any], poll: Callable[[], object | None], feed: Feed) -> None:
    if source.name == "cluster":
        trim_heap()
    if (polled := poll()) is not None:  # None: nothing new (the consoles did nothing)
        source.deliver(feed, polled, None)
