"""Messages posted by workers to the app (past-tense nouns: what happened). Each carries frozen snapshots only."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from kafkatop.backends.insight.history import HistorySnapshot
from kafkatop.backends.insight.timeline.model import TimelineSnapshot
from kafkatop.backends.model.acls import Grant
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.lag import LagSnapshot
from kafkatop.backends.model.operations import OperationStep
from kafkatop.tui.live.sources import Settings, Sources


@dataclass
class Polled(Message):
    """A source's delivery (polling.py's SOURCES): a poll's snapshot — for the cluster, ZooKeeper's pushed state laid
    over the last one too — and the timeline and history it moved, both built in the worker."""

    source: str  # its name in SOURCES: the LiveView field it fills
    snapshot: object  # that source's snapshot (the consoles': what they did since the last drain)
    timeline: TimelineSnapshot | None = None
    history: HistorySnapshot | None = None
    lag: LagSnapshot | None = None  # the cluster's: each group's lag in time and status, as of this poll
    delta: bool = False  # what happened since the last one (the consoles'): each taken, never collapsed

    def can_replace(self, message: Message) -> bool:
        # A backlog of a source's snapshots collapses to the newest: only the latest state matters.
        return isinstance(message, Polled) and message.source == self.source and not self.delta


@dataclass
class OperationRecorded(Message):
    """An operator's step (an election, a reassignment, …) told to the timeline."""

    step: OperationStep
    timeline: TimelineSnapshot


@dataclass
class PollFailed(Message):
    """A source could not be read (a replay of a failure; live failures come from the worker's end)."""

    source: str  # its name in SOURCES
    reason: str
    at: float


@dataclass
class ReplayProgressed(Message):
    """A replayed entry was delivered, or the replay was paused, stepped or sped up."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ReplayProgressed)


@dataclass
class ActionFinished(Message):
    """A user action (kill, create topic, …) ended; `error` says why when it failed."""

    what: str
    error: str | None = None
    grants: tuple[Grant, ...] = ()  # it failed on the authorizer's refusal: what would let it through (M)


@dataclass
class ContextOpened(Message):
    """Another context's sources are built (tui/cli/switcher.py): the view switches to them."""

    name: str
    sources: Sources
    settings: Settings
    first: ClusterSnapshot | None = None  # its first poll, made before the switch: the new screen's first frame has it
