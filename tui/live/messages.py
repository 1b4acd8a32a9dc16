"""Messages posted by workers to the app (past-tense nouns: what happened). Each carries frozen snapshots only."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from kafkatop.backends.insight.history import HistorySnapshot
from kafkatop.backends.insight.timeline.model import TimelineSnapshot
from kafkatop.backends.model.acls import AclsSnapshot, Grant
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connect import ConnectSnapshot
from kafkatop.backends.model.consoles import ConsoleActivity
from kafkatop.backends.model.nodes import NodesSnapshot
from kafkatop.backends.model.operations import OperationStep
from kafkatop.backends.ports import EnsembleView
from kafkatop.tui.live.sources import Settings, Sources


@dataclass
class ClusterPolled(Message):
    """A new view of the cluster: a metadata poll, or ZooKeeper's pushed state over the last one."""

    snapshot: ClusterSnapshot
    history: HistorySnapshot | None = None  # built in the worker: the UI thread only draws it
    timeline: TimelineSnapshot | None = None

    def can_replace(self, message: Message) -> bool:
        # A backlog of snapshots collapses to the newest: only the latest state matters.
        return isinstance(message, ClusterPolled)


@dataclass
class NodesPolled(Message):
    snapshot: NodesSnapshot
    timeline: TimelineSnapshot | None = None

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, NodesPolled)


@dataclass
class EnsemblePolled(Message):
    snapshot: EnsembleView
    timeline: TimelineSnapshot | None = None

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, EnsemblePolled)


@dataclass
class ConnectPolled(Message):
    """Kafka Connect's workers, connectors and tasks, as its REST API answered."""

    snapshot: ConnectSnapshot
    timeline: TimelineSnapshot | None = None

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ConnectPolled)


@dataclass
class AclsPolled(Message):
    """The cluster's ACL bindings and its authorizer, or why they could not be read (the snapshot's `error`)."""

    snapshot: AclsSnapshot

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, AclsPolled)


@dataclass
class ConsolesDrained(Message):
    """What the producer and consumers did since the last drain, batched into one UI update."""

    activity: ConsoleActivity
    timeline: TimelineSnapshot | None = None


@dataclass
class OperationRecorded(Message):
    """An operator's step (an election, a reassignment, …) told to the timeline."""

    step: OperationStep
    timeline: TimelineSnapshot


@dataclass
class PollFailed(Message):
    """A source could not be read (a replay of a failure; live failures come from the worker's end)."""

    source: str  # the poller's: "cluster", "ensemble", "connect", "acls"
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
