"""Messages posted by poll workers to the app (past-tense nouns: what happened)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from kafkatop.backends.model import ClusterSnapshot


@dataclass
class ClusterPolled(Message):
    snapshot: ClusterSnapshot

    def can_replace(self, message: Message) -> bool:
        # A backlog of snapshots collapses to the newest: only the latest state matters.
        return isinstance(message, ClusterPolled)


@dataclass
class ClusterPollFailed(Message):
    reason: str
    at: float
