"""Client errors on the failover timeline: a producer's failed deliveries and a consumer's errors, folded so that the
repeats of one error are one line with a count. A producer on a dead leader fails every message; unfolded, its errors
would push the failover itself out of the bounded log. Not thread-safe on its own: Timeline holds the lock."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from kafkatop.backends.insight.timeline.incidents import Incidents
from kafkatop.backends.insight.timeline.log import EventLog, Record
from kafkatop.backends.insight.timeline.model import EventKind, TimelineEvent
from kafkatop.backends.model.topic_partition import TopicPartition

# The same client error again within this time is counted on the first event.
# librdkafka retries a dead broker with a backoff that grows to 10 s, so a repeat may come that long after the last.
FOLD_CLIENT_ERRORS_S = 30.0


# librdkafka's details that change from one report of an error to the next: how long a connection lived, how many
# repeats it suppressed, and which of a client's connections to the broker saw it (a broker's or the group
# coordinator's). Left out, the reports of one error are one line.
_VOLATILE_DETAILS = (
    re.compile(r" \(after \d+ms in state \w+(?:, \d+ identical error\(s\) suppressed)?\)"),
    re.compile(r" ?\(?\d+ identical error\(s\) suppressed\)?"),
    re.compile(r"(?:GroupCoordinator(?:/\d+)?: )?(?:[\w.\-\[\]:]+/(?:\d+|bootstrap)|[\w.\-\[\]]+:\d+): (?=\S)"),
    re.compile(r"GroupCoordinator(?:/\d+)?: (?=\S)"),  # the coordinator's connection, named without its address
)


ClientSource = Literal["producer", "consumer"]


def fold_key(text: str) -> str:
    """What two reports of one client error have in common: the text without librdkafka's changing details."""
    for pattern in _VOLATILE_DETAILS:
        text = pattern.sub("", text)
    return " ".join(text.split())


@dataclass(slots=True, eq=False)
class _Fold:
    """A client error's line and its repeats: when last seen, and who reported it."""

    record: Record
    last: float
    clients: list[str]
    text: str  # as first reported, without the clients


def _client_line(source: str, clients: list[str], text: str) -> str:
    return f"{source}: {', '.join(clients)} {text}" if clients else f"{source}: {text}"


class ClientErrors:
    """The clients' errors put on the log, each with its repeats, and each console consumer's current error."""

    def __init__(self, log: EventLog, incidents: Incidents) -> None:
        self._log = log
        self._incidents = incidents
        self._folds: dict[tuple[str, str], _Fold] = {}  # client error → its event and repeats
        self._consumer_errors: dict[str, str | None] = {}

    def record(
        self, source: ClientSource, text: str, at: float, partition: TopicPartition | None, client: str | None
    ) -> None:
        """See Timeline.record_client_error."""
        kind = EventKind.PRODUCER_ERROR if source == "producer" else EventKind.CONSUMER_ERROR
        key = (source, fold_key(text))
        fold = self._folds.get(key)
        latest = self._incidents.latest
        latest_start = latest.started_at if latest is not None else None
        # Never across an incident's start: the errors after it belong to the incident.
        if (
            fold is not None
            and at - fold.last <= FOLD_CLIENT_ERRORS_S
            and (latest_start is None or fold.record.event.at >= latest_start)
        ):
            if client is not None and client not in fold.clients:
                fold.clients.append(client)
            fold.record.event = replace(
                fold.record.event,
                count=fold.record.event.count + 1,
                text=_client_line(source, fold.clients, fold.text),
            )
            fold.last = max(fold.last, at)
            self._log.changed()
            return
        for k in [k for k, f in self._folds.items() if at - f.last > FOLD_CLIENT_ERRORS_S]:
            del self._folds[k]
        clients = [client] if client is not None else []
        event = TimelineEvent(at, kind, source, _client_line(source, clients, text), partition=partition)
        new = self._log.add(event, source)
        if new is not None:
            self._incidents.place(new, None)
            self._folds[key] = _Fold(new, at, clients, text)

    def consumer_error(self, name: str, error: str | None) -> bool:
        """Keeps a consumer's current error; whether it is a new one to record."""
        previous = self._consumer_errors.get(name)
        self._consumer_errors[name] = error
        return error is not None and error != previous

    def keep_consumers(self, names: set[str]) -> None:
        """Forgets the consumers not named: stopped consumers keep no state."""
        for name in [n for n in self._consumer_errors if n not in names]:
            del self._consumer_errors[name]
