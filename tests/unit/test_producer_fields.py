"""The producer console's key, headers and format fields as pure code (tui/live/tabs/produce/fields.py): headers
parsed, formats said, lines made records in a topic's formats by the real codec (backends/schemas/codec.py, JSON and
hex: no schema read), and sent through the Consoles port — here Sent, a TEST DOUBLE that keeps what it was given."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from kafkatop.backends.model.consoles import ClientError, NoSuchTopic
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.formats import FieldFormat, Format, FormatError, RegisteredSchema, TopicFormat
from kafkatop.backends.schemas.codec import SchemaCodec
from kafkatop.tui.live.tabs.produce.fields import (
    Typed,
    encode_lines,
    format_said,
    line_placeholder,
    parse_headers,
    send_lines,
)


@pytest.mark.parametrize(
    ("text", "headers"),
    [
        ("", ()),
        ("source=kafkatop", (("source", b"kafkatop"),)),
        (" a = 1 , b=x=y,", (("a", b" 1 "), ("b", b"x=y"))),  # a name's spaces dropped, a value kept as typed
        ("a=,a=2", (("a", b""), ("a", b"2"))),  # empty value; a name twice, as Kafka allows
        ("city=Zürich", (("city", "Zürich".encode()),)),
    ],
)
def test_headers_are_parsed(text: str, headers: tuple[tuple[str, bytes], ...]) -> None:
    assert parse_headers(text) == headers


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("a=1,b", "headers: 'b' has no '=': write name=value, several separated by commas"),
        ("=1", "headers: '=1' has no name before its '=' (write name=value)"),
        ("a=1,  =2", "headers: '=2' has no name before its '=' (write name=value)"),
    ],
)
def test_a_bad_header_says_which(text: str, said: str) -> None:
    with pytest.raises(KafkatopError) as raised:
        parse_headers(text)
    assert str(raised.value) == said


AVRO = FieldFormat(Format.AVRO, schema_file="orders.avsc")


def test_the_formats_are_said_value_first() -> None:
    assert format_said(None) == "value: text"
    assert format_said(TopicFormat()) == "value: text"
    assert format_said(TopicFormat(value=AVRO)) == "value: avro (orders.avsc)"
    assert format_said(TopicFormat(FieldFormat(Format.STRING), FieldFormat(Format.STRING))) == "value: string"
    keyed = TopicFormat(FieldFormat(Format.PROTOBUF, subject="orders-key"), AVRO)
    assert format_said(keyed) == "value: avro (orders.avsc) · key: protobuf (subject orders-key)"
    order = RegisteredSchema("orders-value", 2, 7, "AVRO", "{}")
    said = "value: text · registry has avro (orders-value): F in Messages sets it"
    assert format_said(TopicFormat(), order) == said  # auto: lines go as text, while the registry has a subject
    payment = RegisteredSchema("orders-value", 1, 8, "PROTOBUF", "")
    assert format_said(TopicFormat(), payment).startswith("value: text · registry has protobuf (orders-value)")
    assert format_said(TopicFormat(value=AVRO), order) == "value: avro (orders.avsc)"  # chosen: nothing to hint
    assert line_placeholder(None).startswith("a message; ")
    assert line_placeholder(TopicFormat(value=AVRO)).startswith("a JSON value; ")
    assert line_placeholder(TopicFormat(value=FieldFormat(Format.HEX))).startswith("a value in hex; ")


def codec(key: Format = Format.AUTO, value: Format = Format.JSON) -> SchemaCodec:
    return SchemaCodec({"t": TopicFormat(FieldFormat(key), FieldFormat(value))}, None)


def test_lines_are_encoded_in_the_topics_formats() -> None:
    plain = encode_lines(None, "t", ["a:b", "ü"], None, None)  # no codec: UTF-8, as typed
    assert [(r.key, r.value, r.typed) for r in plain] == [(None, b"a:b", None), (None, "ü".encode(), None)]
    keyed = encode_lines(None, "t", ["k1:v1", "k2:v2"], "ignored", ":")  # a line's own key wins
    assert [(r.key, r.value) for r in keyed] == [(b"k1", b"v1"), (b"k2", b"v2")]
    hexed = encode_lines(codec(value=Format.HEX), "t", ["48 69"], "k", None)
    assert [(r.key, r.value, r.typed) for r in hexed] == [(b"k", b"Hi", Typed("k", "48 69"))]
    jsons = encode_lines(codec(Format.JSON), "t", ['{"a": 1}'], "[1]", None)
    assert [(r.key, r.value) for r in jsons] == [(b"[1]", b'{"a": 1}')]


def test_a_line_that_does_not_fit_names_its_number_and_the_field() -> None:
    with pytest.raises(FormatError, match=r"^value: not JSON: "):
        encode_lines(codec(), "t", ["{"], None, None)
    with pytest.raises(FormatError, match=r"^line 2: value: not JSON: "):
        encode_lines(codec(), "t", ["{}", "{", "[]"], None, None)
    with pytest.raises(FormatError, match=r"^key: not JSON: "):  # the key field's: not a line's
        encode_lines(codec(Format.JSON), "t", ["{}", "{}"], "k1", None)
    with pytest.raises(FormatError, match=r"^line 2: key: not JSON: "):  # a line's own key
        encode_lines(codec(Format.JSON), "t", ['"a":{}', "b:{}"], None, ":")


class Sent:
    """TEST DOUBLE of the Consoles port's send_record: keeps what it was given; refuses from the `refuse_at`th on."""

    def __init__(self, refuse_at: int | None = None, error: ClientError | None = None) -> None:
        self.records: list[tuple[str, bytes | None, bytes | None, tuple[tuple[str, bytes], ...]]] = []
        self.refuse_at, self.error = refuse_at, error or ClientError("the producer's queue is full")

    def send_record(
        self, topic: str, key: bytes | None, value: bytes | None, headers: Sequence[tuple[str, bytes]] = ()
    ) -> int:
        if self.refuse_at is not None and len(self.records) + 1 >= self.refuse_at:
            raise self.error
        self.records.append((topic, key, value, tuple(headers)))
        return 100 + len(self.records)


def test_lines_are_sent_with_the_headers_and_a_refusal_says_how_many_went() -> None:
    consoles = Sent()
    headers = (("h", b"1"),)
    sent = send_lines(consoles, codec(), "t", ['{"a": 1}', "[2]"], "k", None, headers)  # type: ignore[arg-type]
    assert sent.seqs == (101, 102) and sent.failed is None
    assert sent.typed == (Typed("k", '{"a": 1}'), Typed("k", "[2]"))
    assert consoles.records == [("t", b"k", b'{"a": 1}', headers), ("t", b"k", b"[2]", headers)]

    partly = send_lines(Sent(refuse_at=3), None, "t", ["a", "b", "c"], None, None, ())  # type: ignore[arg-type]
    assert (
        partly.seqs == (101, 102) and partly.failed == "the producer's queue is full (2 of 3 lines were queued before)"
    )
    nothing = Sent(refuse_at=1, error=NoSuchTopic("t", "no topic 't'"))
    with pytest.raises(NoSuchTopic):  # raised as it is: the panel says which key creates it
        send_lines(nothing, None, "t", ["a", "b"], None, None, ())  # type: ignore[arg-type]
    with pytest.raises(FormatError):  # encoded before any is sent
        send_lines(consoles, codec(), "t", ["{}", "{"], None, None, ())  # type: ignore[arg-type]
    assert len(consoles.records) == 2
