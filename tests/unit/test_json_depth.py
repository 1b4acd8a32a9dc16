"""A JSON document nested deeper than MAX_DEPTH levels, from anywhere outside (a line to produce, a record, a
schema, a connector's file, an offsets file, a reassignment or election file, a ZooKeeper znode, the remembered
formats), is refused as bad JSON, with its line and column — never a RecursionError (backends/model/json_text.py).
Python's own parser raises one near 1,000 levels; a document of 990 levels parses, and whatever walks it after
(a pretty-printer, a path, a schema) may raise one too: both are refused here, and 100 levels still read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafkatop.backends.insight.payloads import kind_of, plain_value, pretty
from kafkatop.backends.insight.produce_input import json_record
from kafkatop.backends.insight.schema_text import schema_text
from kafkatop.backends.model.connect import ConnectRefused
from kafkatop.backends.model.connect_files import parse_connector_file, read_offsets_file
from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.format_config import read_remembered
from kafkatop.backends.model.formats import Format, FormatError
from kafkatop.backends.model.json_text import MAX_DEPTH, TooDeep, deepest_at, loads
from kafkatop.backends.model.produce import BadLine
from kafkatop.backends.model.reassignment import parse_plan_json
from kafkatop.backends.schemas.avro import parse_avro
from kafkatop.backends.schemas.json_schema import json_schema_of
from kafkatop.backends.schemas.plain import decode_plain, encode_plain
from kafkatop.backends.zookeeper.znodes import MalformedZnode, parse_broker_registration
from kafkatop.tui.cli.elect import read_election_file
from kafkatop.tui.cli.exits import UsageError

DEPTHS = (MAX_DEPTH + 1, 990, 100_000)  # one too many; one Python parses; one it cannot


def arrays(depth: int) -> str:
    return "[" * depth + "]" * depth


def objects(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


@pytest.mark.parametrize("depth", DEPTHS)
def test_a_document_nested_too_deeply_is_refused_as_bad_json(depth: int) -> None:
    for text in (arrays(depth), objects(depth), "\n\n  " + arrays(depth)):
        with pytest.raises(TooDeep) as refused:
            loads(text)
        assert isinstance(refused.value, json.JSONDecodeError) and isinstance(refused.value, ValueError)
        assert refused.value.msg == f"nested too deeply (more than {MAX_DEPTH} levels)"
        with pytest.raises(TooDeep):
            loads(text.encode())
    with pytest.raises(TooDeep) as refused:
        loads("\n\n  " + arrays(depth))
    assert (refused.value.lineno, refused.value.colno) == (3, 3 + MAX_DEPTH)  # where it opens level 101


def test_as_deep_as_the_limit_reads_and_brackets_in_strings_do_not_count() -> None:
    assert loads(arrays(MAX_DEPTH)) == json.loads(arrays(MAX_DEPTH))
    assert loads(objects(MAX_DEPTH).encode()) == json.loads(objects(MAX_DEPTH))
    text = json.dumps({"text": "[" * 5000, "escaped": '\\"[[[[' * 500, "list": [[["]]]]]]"]]]})
    assert deepest_at(text) is None and loads(text)["list"] == [[["]]]]]]"]]]
    assert deepest_at('"' + "[" * 500) is None  # a string cut short: json.loads says what is wrong
    with pytest.raises(json.JSONDecodeError) as bad:
        loads("[1,")
    assert not isinstance(bad.value, TooDeep)


@pytest.mark.parametrize("depth", DEPTHS)
def test_produce_json_refuses_the_line_with_its_number(depth: int) -> None:
    with pytest.raises(BadLine) as refused:
        json_record(('{"payload": ' + arrays(depth) + "}").encode(), 3)
    assert str(refused.value) == f"line 3: nested too deeply (more than {MAX_DEPTH} levels)"
    assert refused.value.number == 3
    record = json_record(('{"payload": ' + arrays(MAX_DEPTH - 1) + "}").encode(), 1, frozenset({"value"}))
    assert record is not None and record.value == arrays(MAX_DEPTH - 1).encode()


@pytest.mark.parametrize("depth", DEPTHS)
def test_a_record_nested_too_deeply_is_shown_as_its_text(depth: int) -> None:
    data = arrays(depth).encode()
    assert kind_of(data) == "text" and pretty(data)[0] == "text"
    assert plain_value(data) == arrays(depth)
    for fmt in (Format.JSON, Format.AUTO):
        decoded = decode_plain(fmt, data)
        assert not decoded.structured
    assert decode_plain(Format.JSON, data).error == f"not JSON: nested too deeply (more than {MAX_DEPTH} levels): " \
        f"line 1 column {MAX_DEPTH + 1} (char {MAX_DEPTH})"  # fmt: skip
    with pytest.raises(FormatError, match="nested too deeply"):
        encode_plain(Format.JSON, arrays(depth))


@pytest.mark.parametrize("depth", DEPTHS)
def test_a_schema_nested_too_deeply_is_refused_or_shown_as_served(depth: int) -> None:
    with pytest.raises(FormatError, match="is not JSON: nested too deeply"):
        parse_avro(objects(depth), "orders.avsc")
    with pytest.raises(FormatError, match="is not JSON: nested too deeply"):
        json_schema_of(objects(depth), "orders.schema.json")
    shown = schema_text("JSON", objects(depth))
    assert shown.language == "text" and "not JSON" in (shown.note or "")


@pytest.mark.parametrize("depth", DEPTHS)
def test_files_and_znodes_nested_too_deeply_are_refused_saying_where(depth: int, tmp_path: Path) -> None:
    deep = '{"name": "c", "config": {"connector.class": "X", "x": ' + arrays(depth) + "}}"
    with pytest.raises(ConnectRefused, match=r"c\.json: not valid JSON \(line 1, column \d+: nested too deeply"):
        parse_connector_file(deep, "c.json")
    offsets = tmp_path / "offsets.json"
    offsets.write_text('{"offsets": ' + arrays(depth) + "}")
    with pytest.raises(ConnectRefused, match="not valid JSON"):
        read_offsets_file(offsets)
    with pytest.raises(BadInput, match="not JSON .*nested too deeply"):
        parse_plan_json('{"partitions": ' + arrays(depth) + "}", "plan.json")
    election = tmp_path / "election.json"
    election.write_text('{"partitions": ' + arrays(depth) + "}")
    with pytest.raises(UsageError, match="not JSON .*nested too deeply"):
        read_election_file(str(election))
    with pytest.raises(MalformedZnode, match="nested too deeply"):
        parse_broker_registration(1, objects(depth).encode())
    (tmp_path / "formats.json").write_text(objects(depth))
    assert read_remembered(tmp_path, "lab:lab") == {}
