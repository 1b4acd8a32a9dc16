"""`kafkatop produce --json`: the lines `kafkatop consume --json` prints read back as the records they describe,
byte for byte (key, value, headers, timestamp, partition), kcat -J's lines too; bad lines refused with their number;
each record placed (its own partition, --partition, --repartition) and encoded in its topic's format."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from kafkatop.backends.insight.produce_input import encoded, json_record
from kafkatop.backends.insight.record_json import as_json
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.model.formats import FieldFormat, Format, FormatError, TopicFormat
from kafkatop.backends.model.messages import BrowsedRecord, TimestampType
from kafkatop.backends.model.produce import BadLine, ProducerRecord
from kafkatop.tui.cli.produce import Progress, _placer, encoders_of, records

RECORDS = [
    BrowsedRecord("t", 0, 0, 1_700_000_000_000, TimestampType.CREATE_TIME, b"k", b'{"a": "\xc3\xa9\\n"}'),
    BrowsedRecord("t", 2, 5, 1, TimestampType.CREATE_TIME, None, None),  # no key, a tombstone
    BrowsedRecord("t", 1, 9, 0, TimestampType.CREATE_TIME, b"", b""),  # an empty key and value, not nulls
    BrowsedRecord("t", 1, 10, 42, TimestampType.CREATE_TIME, b"\xff\x00k", b"\x00\x01\xc3\x28\n",
                  (("n", b"1"), ("bin", b"\x80\x81"), ("none", None), ("empty", b""), ("n", b"2"))),
    BrowsedRecord("t", 0, 1, 7, TimestampType.LOG_APPEND_TIME, "é\u2028".encode(), b"\t\"\\",
                  (("h\u00e9", "v\u00e9".encode()),), leader_epoch=3),
]  # fmt: skip


@pytest.mark.parametrize("r", RECORDS, ids=range(len(RECORDS)))
def test_a_consumed_line_reads_back_as_its_record(r: BrowsedRecord) -> None:
    record = json_record(as_json(r), 1)
    assert record is not None
    assert (record.key, record.value, record.headers) == (r.key, r.value, r.headers)
    assert (record.partition, record.timestamp_ms) == (r.partition, r.timestamp_ms)


def test_header_values_that_are_not_utf8_are_carried_as_base64() -> None:
    line = json.loads(as_json(RECORDS[3]))
    assert line["headers"] == ["n", "1", "bin", "gIE=", "none", None, "empty", "", "n", "2"]  # kcat -J's shape
    assert line["headers_encoding"] == [None, "base64", None, None, None]  # one entry per header
    assert (line["key_encoding"], line["payload_encoding"]) == ("base64", "base64")
    assert "headers_encoding" not in json.loads(as_json(RECORDS[4]))  # only when a header needs it


def test_only_the_fields_a_record_can_set_are_read() -> None:
    line = b'{"topic":"other","partition":-1,"offset":99,"tstype":"logappend","ts":-1,"broker":3,"key":null,' \
           b'"payload":"v","value_schema_id":7,"leader_epoch":5}'  # fmt: skip
    assert json_record(line, 1) == ProducerRecord(None, b"v")  # partition -1 and ts -1: none of its own
    assert json_record(b'{"payload":"v","partition":2,"ts":5}', 1) == ProducerRecord(None, b"v", (), 2, 5)
    assert json_record(b"   \n", 1) is None  # a blank line is skipped


def test_kcat_lines_with_raw_bytes_read_back_byte_for_byte() -> None:
    # kcat -J prints bytes that are not UTF-8 as they are (no valid JSON text, but its own output): kept.
    line = b'{"topic":"t","partition":0,"offset":1,"tstype":"create","ts":5,"broker":1,"headers":["bin","\x80\x81"],' \
           b'"key":"k\xff","payload":"\\u0000\\u0001\xc3("}'  # fmt: skip
    assert json_record(line, 1) == ProducerRecord(b"k\xff", b"\x00\x01\xc3(", (("bin", b"\x80\x81"),), 0, 5)


def test_a_decoded_value_goes_as_its_json_text_for_its_format() -> None:
    record = json_record(b'{"key":7,"payload":{"id":1,"name":"\xc3\xa9"}}', 1, frozenset({"value"}))
    assert record is not None and (record.key, record.value) == (b"7", '{"id":1,"name":"é"}'.encode())


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b'{"payload": "v"', "not JSON (Expecting ',' delimiter at column 16): one record per line"),
        (b'["v"]', "not a JSON object"),
        (b'{"payload":"@@","payload_encoding":"base64"}', "payload: not base64 (@@)"),
        (b'{"payload":"v","payload_encoding":"hex"}', "payload_encoding 'hex': base64 is the only one"),
        (b'{"payload":"\\ud800"}', "payload: not Unicode text (a lone surrogate)"),
        (b'{"headers":["a"]}', "headers: a flat list of names and values"),
        (b'{"headers":["a","b"],"headers_encoding":[]}', "headers_encoding: a list of 1 entries"),
        (b'{"headers":["a","!"],"headers_encoding":["base64"]}', "header 'a': not base64"),
        (b'{"headers":[1,"b"]}', "header 1's name must be text"),
        (b'{"partition":-2}', "partition: a whole number, 0 or more (or -1 for none), not -2"),
        (b'{"partition":true}', "partition: a whole number, 0 or more (or -1 for none), not true"),
        (b'{"ts":"now"}', 'ts: a whole number, 0 or more (or -1 for none), not "now"'),
    ],
)  # fmt: skip
def test_bad_json_lines_are_refused_with_their_number(line: bytes, message: str) -> None:
    with pytest.raises(BadLine) as caught:
        json_record(line, 12)
    assert str(caught.value).startswith("line 12: ") and message in str(caught.value), caught.value


def _args(**given: object) -> argparse.Namespace:
    return argparse.Namespace(**{"topic": "t", "partition": None, "repartition": False, **given})


def test_each_json_record_keeps_its_partition_when_the_topic_has_it() -> None:
    lines = io.BytesIO(b"".join(as_json(r) for r in RECORDS))
    assert [r.partition for _, r in records(lines, json_record, {}, _placer(_args(), 3))] == [0, 2, 1, 1, 0]
    with pytest.raises(BadLine, match=r"^line 2: partition 2 does not exist: topic 't' has 2 partitions; give "
                       "--repartition"):  # fmt: skip
        list(records(io.BytesIO(b"".join(as_json(r) for r in RECORDS)), json_record, {}, _placer(_args(), 2)))
    lines.seek(0)
    placed = records(lines, json_record, {}, _placer(_args(repartition=True), 2))
    assert {r.partition for _, r in placed} == {None}  # the partitioner's
    lines.seek(0)
    assert {r.partition for _, r in records(lines, json_record, {}, _placer(_args(partition=1), 2))} == {1}


def test_records_are_read_as_needed_and_numbered_by_line() -> None:
    lines = io.BytesIO(b'{"payload":"a"}\n\n{"payload":"b"}\n{bad\n{"payload":"never read"}\n')
    read = records(lines, json_record, {}, _placer(_args(), 1))
    assert [(n, r.value) for n, r in (next(read), next(read))] == [(1, b"a"), (3, b"b")]  # the blank line 2 skipped
    with pytest.raises(BadLine, match="^line 4: "):
        next(read)
    assert lines.read() == b'{"payload":"never read"}\n'  # nothing after the bad line was read


def test_formats_encode_text_and_leave_bytes_as_given() -> None:
    def upper(text: str) -> bytes:
        if text == "bad":
            raise FormatError("field 'id' is missing")
        return text.upper().encode()

    record = ProducerRecord(b"k", b"v", (("h", b"x"),), 1, 5)
    assert encoded(record, {"value": upper}, 1) == ProducerRecord(b"k", b"V", (("h", b"x"),), 1, 5)
    given_as_bytes = ProducerRecord(b"k", b"\xff", binary=frozenset({"value"}))
    assert encoded(given_as_bytes, {"key": upper, "value": upper}, 1).value == b"\xff"
    assert encoded(ProducerRecord(None, None), {"key": upper, "value": upper}, 1) == ProducerRecord(None, None)
    with pytest.raises(BadLine, match="^line 4: the value: field 'id' is missing$"):
        encoded(ProducerRecord(None, b"bad"), {"value": upper}, 4)
    with pytest.raises(BadLine, match="^line 5: the key is not UTF-8 text, which its format reads$"):
        encoded(ProducerRecord(b"\xff", b"v"), {"key": upper}, 5)


class Upper:
    """A RecordCodec stand-in: a topic's formats, and text encoded as its upper case."""

    def __init__(self, fmt: TopicFormat) -> None:
        self.fmt = fmt

    def format_of(self, topic: str) -> TopicFormat:
        return self.fmt

    def encode(self, topic: str, which: str, text: str) -> bytes:
        return f"{topic}/{which}:{text.upper()}".encode()


def test_only_the_fields_a_format_writes_go_through_the_codec() -> None:
    assert encoders_of(None, "t") == {}
    assert encoders_of(Upper(TopicFormat()), "t") == {}  # auto: the bytes read
    plain = TopicFormat(FieldFormat(Format.STRING), FieldFormat(Format.AUTO))
    assert encoders_of(Upper(plain), "t") == {}
    encoders = encoders_of(Upper(TopicFormat(value=FieldFormat(Format.JSON))), "t")
    assert list(encoders) == ["value"] and encoders["value"]("x") == b"t/value:X"
    assert encoders_of(
        Upper(TopicFormat(FieldFormat(Format.JSON), FieldFormat(Format.JSON))), "t", ("key",)
    ).keys() == {"key"}  # --json writes only the fields its flags name


def test_a_decoded_field_is_refused_without_a_format_to_encode_it() -> None:
    exported = b'{"topic":"t","partition":0,"offset":0,"key":"k","payload":{"id":1},"value_schema_id":7}'
    with pytest.raises(BadLine) as caught:
        json_record(exported, 3)
    assert str(caught.value) == (
        "line 3: payload is a decoded value (value_schema_id 7), not the record's bytes: give --value-format avro, "
        "protobuf or json-schema (with --value-schema or --value-subject, or the registry's TOPIC-value) to encode "
        "it, or export with `kafkatop consume --json` without --value-format, which keeps the bytes"
    )
    with pytest.raises(BadLine, match=r"^line 1: key is a decoded key \(a JSON array\), not the record's bytes: give "
                       r"--key-format json to send it as JSON text, or export"):  # fmt: skip
        json_record(b'{"key":[1,2],"payload":"v"}', 1)
    record = json_record(exported, 3, frozenset({"value"}))
    assert record is not None and (record.key, record.value) == (b"k", b'{"id":1}')  # its format encodes it
    assert json_record(b'{"key":null,"payload":"{\\"id\\":1}"}', 1) is not None  # text that is JSON: bytes


def test_the_line_read_last_is_known_when_encoding_it_fails() -> None:
    def registry_down(text: str) -> bytes:
        raise SourceUnavailable("schema registry http://127.0.0.1:9", "connection refused")

    progress = Progress()
    lines = io.BytesIO(b'{"payload":"a"}\n\n{"payload":"b"}\n')
    place = _placer(argparse.Namespace(partition=None, repartition=False, topic="t"), 1)
    read = records(lines, json_record, {"value": registry_down}, place, progress)
    with pytest.raises(SourceUnavailable):
        next(read)
    assert progress.line == 1
