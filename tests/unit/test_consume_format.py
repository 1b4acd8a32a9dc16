"""`kafkatop consume`'s output: kcat's -f tokens, kafka-console-consumer.sh's `null`, kcat -J's fields."""

from __future__ import annotations

import json

import pytest

from kafkatop.backends.model.messages import BrowsedRecord, TimestampType
from kafkatop.tui.cli.consume import as_json, compile_format, render
from kafkatop.tui.cli.exits import UsageError

RECORD = BrowsedRecord("orders", 2, 41, 1795996800123, TimestampType.CREATE_TIME, b"k7", b'{"id": 7}',
                       (("trace", b"t-1"), ("empty", None)), 3)  # fmt: skip


def test_every_token_renders_its_field() -> None:
    fmt = compile_format("%t|%p|%o|%k|%v|%s|%K|%S|%T|%h|%e|%%")
    assert render(fmt, RECORD) == b'orders|2|41|k7|{"id": 7}|{"id": 7}|2|9|1795996800123|trace=t-1,empty=|3|%\n'


def test_escapes_and_the_newline_that_ends_each_record() -> None:
    assert render(compile_format("%k\\t%v\\n"), RECORD) == b'k7\t{"id": 7}\n'
    assert render(compile_format("%o"), RECORD) == b"41\n"


def test_a_missing_key_or_value_prints_as_kcat_or_as_kafka_console_consumer() -> None:
    tombstone = BrowsedRecord("orders", 0, 1, None, TimestampType.NOT_AVAILABLE, None, None)
    assert render(compile_format("%k|%v %K %S %T %e"), tombstone) == b"| -1 -1 -1 -1\n"  # kcat -f
    assert render(compile_format("%v"), tombstone, b"null") == b"null\n"  # the default: the console consumer's


def test_binary_is_written_as_it_is() -> None:
    binary = BrowsedRecord("b", 0, 0, 1, TimestampType.LOG_APPEND_TIME, None, b"\x00\xff\n")
    assert render(compile_format("%v"), binary) == b"\x00\xff\n\n"


def test_an_unknown_token_names_the_ones_there_are() -> None:
    with pytest.raises(UsageError, match=r"--format: no token %x; there are %t topic, %p partition"):
        compile_format("%o %x")


def test_json_has_kcats_fields_and_says_when_bytes_are_base64() -> None:
    out = json.loads(as_json(RECORD))
    assert out == {"topic": "orders", "partition": 2, "offset": 41, "tstype": "create", "ts": 1795996800123,
                   "leader_epoch": 3, "headers": ["trace", "t-1", "empty", None], "key": "k7",
                   "payload": '{"id": 7}'}  # fmt: skip
    binary = json.loads(as_json(BrowsedRecord("b", 0, 0, 5, TimestampType.LOG_APPEND_TIME, None, b"\xff\x00")))
    assert (binary["tstype"], binary["key"], binary["payload"], binary["payload_encoding"]) == (
        "logappend",
        None,
        "/wA=",
        "base64",
    )
