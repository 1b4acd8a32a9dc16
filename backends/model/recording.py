"""A recording of the live view: what its sources delivered, in order, and what the user did — enough to play the
session back through the same app (`kafkatop --replay FILE`). Standard library only.

A recording is JSON lines: a header (`kafkatop_recording`: its format), then one line per entry: `at` (time.time()
when it happened), `kind`, and its `payload` (codec.py). A payload equal to the last one of its kind but for its
`taken_at` is written as `"same": true` with the new `taken_at`, so a quiet cluster costs a few bytes a poll.

A recording is read from a file that may hold anything: reading one raises RecordingError and nothing else.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Literal, cast, get_args

from kafkatop.backends.model.acls import AclsSnapshot
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.codec import JSON, CodecError, decode, encode
from kafkatop.backends.model.connect import ConnectSnapshot
from kafkatop.backends.model.consoles import ConsoleActivity
from kafkatop.backends.model.disks import BrokerDisks
from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.nodes import NodeAction, NodesSnapshot
from kafkatop.backends.model.operations import OperationStep
from kafkatop.backends.model.quorum import QuorumSnapshot
from kafkatop.backends.model.scenario_report import ScenarioState
from kafkatop.backends.model.zookeeper import EnsembleSnapshot, ZkEvent

RECORDING_FORMAT = 1
MARK = "kafkatop_recording"

RecordKind = Literal[
    "cluster", "cluster-failed", "nodes", "ensemble", "ensemble-failed", "zookeeper", "consoles", "action",
    "action-finished", "operation", "connect", "connect-failed", "acls", "acls-failed",
    "log_dirs", "log_dirs-failed", "scenario",
]  # fmt: skip
# What the live view had beside the cluster poll.
Source = Literal["control", "ensemble", "zookeeper", "clients", "connect", "acls", "log_dirs"]


class RecordingError(BadInput):
    """A file that is not a kafkatop recording, or one this kafkatop cannot read; the message says which line."""


NOT_AN_ENTRY = "not an entry of a kafkatop recording"
WRITTEN_BY_US = "was it written by kafkatop --record?"
MAX_SHOWN = 400  # characters of a codec's message: one line on the terminal, whatever the file held


def _short(text: str) -> str:
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


def _time(value: object) -> float | None:
    """A time as recorded (seconds since the epoch), or None for anything else: NaN would stall the replay."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


@dataclass(frozen=True, slots=True)
class RecordingHeader:
    started_at: float
    title: str  # the cluster as the live view named it: "lab 'lab' · KRaft · Kafka 4.1.0"
    sources: tuple[Source, ...] = ()
    banner: str | None = None
    format: int = RECORDING_FORMAT


@dataclass(frozen=True, slots=True)
class SourceFailed:
    reason: str


@dataclass(frozen=True, slots=True)
class ZooKeeperPush:
    """What ZooKeeper's watches delivered at once: the events, then the mirror they left (None: the watches lost
    ZooKeeper, and the polls alone tell until they are back)."""

    events: tuple[ZkEvent, ...]
    snapshot: ClusterSnapshot | None


@dataclass(frozen=True, slots=True)
class ActionTaken:
    """A node action of the user's, recorded before it ran."""

    action: NodeAction
    node: str
    broker_id: int | None = None


@dataclass(frozen=True, slots=True)
class ActionDone:
    what: str
    error: str | None = None


Payload = (
    ClusterSnapshot | NodesSnapshot | EnsembleSnapshot | QuorumSnapshot | ZooKeeperPush | ConsoleActivity
    | ActionTaken | ActionDone | SourceFailed | OperationStep | ConnectSnapshot | AclsSnapshot | BrokerDisks
    | ScenarioState
)  # fmt: skip
PAYLOADS: dict[str, Any] = {
    "cluster": ClusterSnapshot,
    "cluster-failed": SourceFailed,
    "nodes": NodesSnapshot,
    "ensemble": EnsembleSnapshot | QuorumSnapshot,
    "ensemble-failed": SourceFailed,
    "zookeeper": ZooKeeperPush,
    "consoles": ConsoleActivity,
    "action": ActionTaken,
    "action-finished": ActionDone,
    "operation": OperationStep,
    "connect": ConnectSnapshot,  # recorded without each connector's REST answer (`raw`): the view never shows it
    "connect-failed": SourceFailed,
    "acls": AclsSnapshot,  # recorded when it changed: a poll that finds the same ACLs is not written again
    "acls-failed": SourceFailed,
    "log_dirs": BrokerDisks,  # every 30 s; written as "same" while no replica's size changed
    "log_dirs-failed": SourceFailed,
    "scenario": ScenarioState,  # where a scenario's run is, each time it moves (its pane, replayed as it was)
}
assert set(PAYLOADS) == set(get_args(RecordKind))
# Snapshots with a taken_at: written as "same" when nothing else changed.
_TIMED = ("cluster", "nodes", "ensemble", "connect", "log_dirs")


@dataclass(frozen=True, slots=True)
class Recorded:
    at: float
    kind: RecordKind
    payload: Payload


@dataclass(frozen=True, slots=True)
class Recording:
    header: RecordingHeader
    entries: tuple[Recorded, ...]

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset(e.kind for e in self.entries)


def header_line(header: RecordingHeader) -> dict[str, JSON]:
    data = encode(header, RecordingHeader)
    assert isinstance(data, dict)
    return {MARK: header.format, **data}


def read_header(data: object) -> RecordingHeader:
    if not isinstance(data, dict) or MARK not in data:
        raise RecordingError("not a kafkatop recording (its first line has no kafkatop_recording mark)")
    recorded_in = data[MARK]
    if type(recorded_in) is not int or recorded_in != RECORDING_FORMAT:
        raise RecordingError(
            f"recorded in format {_short(repr(recorded_in))}; this kafkatop reads format {RECORDING_FORMAT}: replay "
            "it with the kafkatop that recorded it"
        )
    try:
        header: RecordingHeader = decode(RecordingHeader, {k: v for k, v in data.items() if k != MARK}, "header")
    except CodecError as e:
        raise RecordingError(_short(f"unreadable header: {e}")) from None
    return header


class EntryWriter:
    """Entries as JSON-able lines, each timed snapshot that repeats the last of its kind written as "same"."""

    def __init__(self) -> None:
        self._last: dict[str, JSON] = {}

    def line(self, entry: Recorded) -> dict[str, JSON]:
        payload = encode(entry.payload, PAYLOADS[entry.kind])
        out: dict[str, JSON] = {"at": entry.at, "kind": entry.kind}
        if entry.kind in _TIMED and isinstance(payload, dict):
            untimed = {k: v for k, v in payload.items() if k != "taken_at"}
            if self._last.get(entry.kind) == untimed:
                return {**out, "same": True, "taken_at": payload.get("taken_at")}
            self._last[entry.kind] = untimed
        return {**out, "payload": payload}


class EntryReader:
    """The inverse of EntryWriter: lines (decoded JSON) back to entries, "same" ones from the last of their kind."""

    def __init__(self) -> None:
        self._last: dict[str, Payload] = {}

    def entry(self, data: object, where: str) -> Recorded:
        """`data` (one line, as JSON gave it) as an entry; RecordingError, starting with `where`, for anything else."""
        if not isinstance(data, dict):
            raise RecordingError(
                f"{where}: {NOT_AN_ENTRY}: expected an object with 'at', 'kind' and 'payload', not "
                f"{'an array' if isinstance(data, list) else _short(repr(data))}; {WRITTEN_BY_US}"
            )
        kind = data.get("kind")
        if not isinstance(kind, str) or kind not in PAYLOADS:
            shown = "it has no 'kind'" if kind is None else f"'kind' is {_short(repr(kind))}"
            raise RecordingError(f"{where}: {NOT_AN_ENTRY}: {shown}, not one of {', '.join(PAYLOADS)}; {WRITTEN_BY_US}")
        entry = f"{'an' if kind[0] in 'aeio' else 'a'} {kind} entry"
        at = _time(data.get("at"))
        if at is None:
            raise RecordingError(f"{where}: {entry} without its time: 'at' must be a finite number of seconds")
        payload: Payload
        if "same" in data:
            if data["same"] is not True or kind not in _TIMED:
                raise RecordingError(f"{where}: {entry} cannot be written as 'same'")
            taken_at = _time(data.get("taken_at"))
            if taken_at is None:
                raise RecordingError(f"{where}: 'same' as the last, {entry} needs 'taken_at', a finite number")
            last = self._last.get(kind)
            if last is None:
                raise RecordingError(f"{where}: repeats a {kind} entry that never came")
            payload = replace(last, taken_at=taken_at)  # type: ignore[arg-type]
        elif "payload" not in data:
            raise RecordingError(f"{where}: {entry} without its payload")
        else:
            try:
                payload = decode(PAYLOADS[kind], data["payload"], "payload")
            except CodecError as e:
                raise RecordingError(_short(f"{where}: {entry} that does not fit: {e}")) from None
            except RecursionError:  # JSON nested nearly as deep as it parses, where the model has no such depth
                raise RecordingError(f"{where}: {entry} nested too deeply") from None
        self._last[kind] = payload
        return Recorded(at, cast(RecordKind, kind), payload)
