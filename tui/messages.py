"""Messages posted by workers to the app (past-tense nouns: what happened)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message

from kafkatop.backends.model import ClusterSnapshot


@dataclass
class ClusterPolled(Message):
    snapshot: ClusterSnapshot
    history: Any = None  # backends.history.HistorySnapshot, built in the worker: the UI thread only draws it

    def can_replace(self, message: Message) -> bool:
        # A backlog of snapshots collapses to the newest: only the latest state matters.
        return isinstance(message, ClusterPolled)


@dataclass
class ClusterPollFailed(Message):
    reason: str
    at: float


@dataclass
class NodesPolled(Message):
    snapshot: Any  # backends.control.NodesSnapshot

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, NodesPolled)


@dataclass
class EnsemblePolled(Message):
    snapshot: Any  # backends.ensemble.EnsembleSnapshot or backends.quorum.QuorumSnapshot, or None
    problem: str | None = None

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, EnsemblePolled)


@dataclass
class ActionFinished(Message):
    """A user action (kill, create topic, send, …) ended; `error` says why when it failed."""

    what: str
    error: str | None = None


@dataclass
class ClientsDrained(Message):
    """What the producer and consumers did since the last drain, batched into one UI update."""

    deliveries: list[Any]
    received: list[Any]
    changes: list[Any]
    dropped: int
    consumers: tuple[Any, ...]
