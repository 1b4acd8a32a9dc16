"""Recordings on disk (backends/recording/file.py): whatever bytes a `--replay` file holds, reading it either gives the
recording or one RecordingError naming the file, the line and what was wrong; it is read line by line, within a
bound; and a recording, which holds what the cluster's records said, is written readable by its owner only."""

from __future__ import annotations

import gzip
import json
import os
import re
import stat
from pathlib import Path
from typing import Any

import pytest

from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.codec import CodecError, decode
from kafkatop.backends.model.recording import (
    ActionDone,
    EntryWriter,
    Recorded,
    RecordingError,
    RecordingHeader,
    header_line,
)
from kafkatop.backends.recording import file
from kafkatop.backends.recording.file import RecordingWriter, read_recording
from tests.fixtures.snapshots import failover_snapshot

HEADER = RecordingHeader(1.0, "lab 'lab' · KRaft · Kafka 4.1.0", ("control",))


def dumps(data: object) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode()


def cluster_line(**changed: Any) -> dict[str, Any]:
    """A cluster entry as written, its payload changed where `changed` says (dotted paths, [i] for an index)."""
    line: Any = EntryWriter().line(Recorded(2.0, "cluster", failover_snapshot()))
    for dotted, value in changed.items():
        *parents, last = re.findall(r"\w+", dotted)
        node: Any = line
        for key in parents:
            node = node[int(key)] if key.isdigit() else node[key]
        node[int(last) if last.isdigit() else last] = value
    return line


GOOD = [dumps(cluster_line()), dumps({"at": 3.0, "kind": "action-finished", "payload": {"what": "kill broker-1"}})]


def write(path: Path, *lines: bytes, header: bytes | None = None, gz: bool = False) -> Path:
    """A recording: the header (line 1), then `lines` (from line 2), each ended by a newline."""
    text = b"".join(line + b"\n" for line in (dumps(header_line(HEADER)) if header is None else header, *lines))
    path.write_bytes(gzip.compress(text) if gz else text)
    return path


def refused(path: Path, line: int, says: str) -> None:
    with pytest.raises(RecordingError) as caught:
        read_recording(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: line {line}: "), message
    assert says in message, message
    assert "\n" not in message and len(message) < 600, message


# --- every kind of bad line: a RecordingError on its line -------------------------------------------------------------
# (the bad line, inserted as line 3 after a good entry, and what the message says)
BAD_LINES: list[tuple[str, bytes, str]] = [
    ("bad UTF-8", b'{"at":3.0,"kind":"action-finished","payload":{"what":"\xff\xfe"}}', "not UTF-8 text"),
    ("bad JSON", b'{"at":3.0,"kind":', "not JSON"),
    ("a blank line", b"", "not JSON"),
    ("deep nesting", b"[" * 100_000, "nested too deeply"),
    ("deep nesting in a payload", b'{"at":3,"kind":"cluster","payload":' + b'{"a":' * 100_000, "nested too deeply"),
    ("a number too long", b'{"at":3' + b"1" * 5000 + b',"kind":"cluster","payload":{}}', "not JSON"),
    ("not an object", b"[1,2,3]", "not an entry of a kafkatop recording"),
    ("a string", b'"cluster"', "not an entry of a kafkatop recording"),
    ("unknown kind", b'{"at":3.0,"kind":"weather","payload":{}}', "'weather'"),
    ("kind not a string", b'{"at":3.0,"kind":["cluster"],"payload":{}}', "not an entry"),
    ("no time", b'{"kind":"action-finished","payload":{"what":"x"}}', "'at'"),
    ("time a string", b'{"at":"3","kind":"action-finished","payload":{"what":"x"}}', "'at'"),
    ("time a boolean", b'{"at":true,"kind":"action-finished","payload":{"what":"x"}}', "'at'"),
    ("time not finite", b'{"at":NaN,"kind":"action-finished","payload":{"what":"x"}}', "'at'"),
    ("time infinite", b'{"at":1e999,"kind":"action-finished","payload":{"what":"x"}}', "'at'"),
    ("no payload", b'{"at":3.0,"kind":"action-finished"}', "payload"),
    ("payload not an object", b'{"at":3.0,"kind":"cluster","payload":[1]}', "payload: expected an object"),
    ("a field missing", b'{"at":3.0,"kind":"action-finished","payload":{}}', "needs 'what'"),
    ("a field of the wrong type", dumps(cluster_line(**{"payload.cluster_id": 7})), "payload.cluster_id: expected str"),
    (
        "deep in the payload",
        dumps(cluster_line(**{"payload.topics[1].partitions[2].leader": "x"})),
        "payload.topics[1].partitions[2].leader: expected int",
    ),
    (
        "an array where a number goes",
        dumps(cluster_line(**{"payload.topics[0].partitions[0].isr": 3})),
        "payload.topics[0].partitions[0].isr: expected an array",
    ),
    ("an enum that is not", dumps(cluster_line(**{"payload.mode": "raft"})), "payload.mode"),
    ("a union tag of nothing", b'{"at":3,"kind":"ensemble","payload":{"@":"Weather"}}', "'Weather'"),
    ("a float not finite", dumps(cluster_line(**{"payload.taken_at": float("inf")})), "payload.taken_at"),
    ("a lone surrogate", b'{"at":3.0,"kind":"action-finished","payload":{"what":"\\ud800"}}', "not valid Unicode"),
    ("same before any", b'{"at":3.0,"kind":"nodes","same":true,"taken_at":3.0}', "repeats a nodes entry"),
    ("same without its time", b'{"at":3.0,"kind":"cluster","same":true}', "taken_at"),
    ("same with a text time", b'{"at":3.0,"kind":"cluster","same":true,"taken_at":"3.5"}', "taken_at"),
    ("same of an untimed kind", b'{"at":3.0,"kind":"action-finished","same":true,"taken_at":3.0}', "same"),
]


@pytest.mark.parametrize(("line", "says"), [(line, says) for _, line, says in BAD_LINES],
                         ids=[name for name, _, _ in BAD_LINES])  # fmt: skip
@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_a_bad_line_is_refused_with_its_number(tmp_path: Path, line: bytes, says: str, gz: bool) -> None:
    path = write(tmp_path / ("r.jsonl.gz" if gz else "r.jsonl"), GOOD[0], line, GOOD[1], gz=gz)
    refused(path, 3, says)


@pytest.mark.parametrize(
    ("header", "says"),
    [
        (b"shopping list", "not JSON"),
        (b"\xff\xfe{}", "not UTF-8 text"),
        (b"[" * 100_000, "nested too deeply"),
        (b'{"hello":1}', "not a kafkatop recording"),
        (b"[1]", "not a kafkatop recording"),
        (dumps({**header_line(HEADER), "kafkatop_recording": 2}), "recorded in format 2; this kafkatop reads format 1"),
        (dumps({**header_line(HEADER), "started_at": "yesterday"}), "started_at"),
        (dumps({**header_line(HEADER), "sources": ["weather"]}), "sources"),
    ],
    ids=["text", "utf8", "deep", "unmarked", "array", "format", "time", "sources"],
)
def test_a_bad_header_is_refused_on_line_1(tmp_path: Path, header: bytes, says: str) -> None:
    refused(write(tmp_path / "r.jsonl", *GOOD, header=header), 1, says)


def test_bad_gzip_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00garbage, not deflate" * 10)
    refused(path, 1, "gzip")
    good = gzip.compress(write(tmp_path / "plain.jsonl", *GOOD).read_bytes())
    path.write_bytes(good[:-8] + b"\0\0\0\0" + good[-4:])  # a wrong CRC: found at the end of the data
    refused(path, 4, "gzip")


def test_an_empty_file_is_not_a_recording(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_bytes(b"")
    with pytest.raises(RecordingError, match="empty.jsonl: empty, not a kafkatop recording"):
        read_recording(tmp_path / "empty.jsonl")


def test_a_directory_or_a_missing_file_is_told(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="missing.jsonl: no such file"):
        read_recording(tmp_path / "missing.jsonl")
    with pytest.raises(RecordingError, match=f"{tmp_path}: cannot read it"):
        read_recording(tmp_path)


# --- bounds: a line, and the whole recording --------------------------------------------------------------------------
def test_a_line_longer_than_the_bound_is_refused_before_it_is_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(file, "MAX_LINE_BYTES", 4096)
    long_entry = dumps({"at": 3.0, "kind": "action-finished", "payload": {"what": "x" * 5000}})
    refused(write(tmp_path / "r.jsonl", GOOD[0], GOOD[1], long_entry), 4, "longer than 4 KiB")
    no_newline = tmp_path / "one.bin"
    no_newline.write_bytes(b"x" * 100_000)  # not a recording, and no line ends: read no further than the bound
    refused(no_newline, 1, "longer than 4 KiB")
    assert len(GOOD[0]) < 4096
    assert len(read_recording(write(tmp_path / "ok.jsonl", *GOOD)).entries) == 2


def test_the_bound_holds_a_poll_of_10000_partitions() -> None:
    """bench/scale.py's cluster (100 topics x 100 partitions, 1,000 groups with 100 committed offsets each) polls
    to a ~12 MiB line: the bound leaves room for several times that."""
    assert file.MAX_LINE_BYTES >= 4 * 12 * 2**20
    assert file.MAX_RECORDING_BYTES >= 100 * file.MAX_LINE_BYTES // 4


def test_a_recording_larger_than_the_bound_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(file, "MAX_RECORDING_BYTES", len(dumps(header_line(HEADER))) + len(GOOD[0]) + 10)
    refused(write(tmp_path / "r.jsonl", *GOOD), 3, "uncompressed")


# --- a recording cut short (a crash): what was written before plays ---------------------------------------------------
def test_a_last_line_cut_short_is_left_out(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", *GOOD)
    path.write_bytes(path.read_bytes() + GOOD[0][:40])  # no newline: cut while it was written
    assert [e.kind for e in read_recording(path).entries] == ["cluster", "action-finished"]
    path.write_bytes(path.read_bytes() + b"\n")  # ended, so written whole: not JSON is an error
    refused(path, 4, "not JSON")


def test_a_gzip_recording_cut_short_plays_what_it_holds(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl.gz"
    with RecordingWriter(path, HEADER) as writer:
        for i in range(2000):
            writer.record(float(i), "action-finished", ActionDone(f"kill broker-{i} {os.urandom(8).hex()}"))
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])
    entries = read_recording(path).entries
    assert 100 < len(entries) < 2000
    assert [e.at for e in entries] == [float(i) for i in range(len(entries))]


# --- the codec: only CodecError, whatever the data --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("hint", "data", "says"),
    [
        (dict[int, str], [[1]], "expected a [key, value] pair"),
        (dict[int, str], [5], "expected a [key, value] pair"),
        (dict[int, str], 5, "expected an object"),
        (frozenset[Any], [[1], [2]], "frozenset"),
        (float, float("nan"), "expected a finite number"),
        (float, float("-inf"), "expected a finite number"),
        (ClusterSnapshot, {"source": "x" * 10_000}, "needs"),
    ],
)
def test_the_codec_raises_only_codec_errors(hint: Any, data: Any, says: str) -> None:
    with pytest.raises(CodecError, match=re.escape(says)) as caught:
        decode(hint, data)
    assert len(str(caught.value)) < 600


def test_a_nan_where_none_may_be_reads_as_unknown() -> None:
    """A source's NaN (a latency nothing was measured for) is written as JSON's NaN: the optional field reads None."""
    assert decode(float | None, float("nan")) is None
    assert decode(float | None, 1.5) == 1.5


# --- recordings are private -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["session.jsonl", "session.jsonl.gz"])
def test_a_recording_is_readable_by_its_owner_only(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    with RecordingWriter(path, HEADER) as writer:
        writer.record(2.0, "cluster", failover_snapshot())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    recording = read_recording(path)
    assert recording.header == HEADER and recording.entries[0].payload == failover_snapshot()


@pytest.mark.parametrize("name", ["session.jsonl", "session.jsonl.gz"])
def test_a_recording_written_over_an_open_file_makes_it_private(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"an older recording, larger than the new one " * 100)
    path.chmod(0o644)
    with RecordingWriter(path, HEADER):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600  # before anything is written
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_recording(path).header == HEADER  # the old content gone, not left after the new


def test_the_format_is_sniffed_not_named(tmp_path: Path) -> None:
    """A gzip recording renamed without its .gz (or the other way round) still plays."""
    gz = write(tmp_path / "r.jsonl", *GOOD, gz=True)
    assert len(read_recording(gz).entries) == 2
    plain = write(tmp_path / "r.jsonl.gz", *GOOD)
    assert len(read_recording(plain).entries) == 2
