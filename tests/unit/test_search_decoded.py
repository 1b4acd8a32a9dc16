"""The browser's search over decoded records (payloads.compile_search with a decode): a word in a record whose bytes
are not its text is found in its decoded text, decoding only such records and only when the bytes do not match; a
path reads the decoded key or value, each once, and without a codec reads the bytes as JSON."""

from __future__ import annotations

import json

import pytest

from kafkatop.backends.insight.payloads import compile_search, plain_value
from kafkatop.backends.model.formats import (
    AUTO,
    Decoded,
    FieldFormat,
    Format,
    JsonValue,
    RecordField,
    TopicFormat,
    wire_schema_id,
)
from kafkatop.backends.model.messages import SearchRequest

AVRO_VALUES = TopicFormat(value=FieldFormat(Format.AVRO, schema_file="orders.avsc"))
AVRO_BOTH = TopicFormat(FieldFormat(Format.AVRO, schema_file="key.avsc"), AVRO_VALUES.value)


class Decoding:
    """A stand-in "Avro": the bytes are the JSON text reversed (after the wire format's header, when there is one), so
    a word is never found in them as they are."""

    def __init__(self) -> None:
        self.calls: list[tuple[RecordField, bytes | None]] = []

    def __call__(self, which: RecordField, data: bytes | None) -> Decoded:
        self.calls.append((which, data))
        if data is None:
            return Decoded(Format.AVRO, "", None)
        schema_id = wire_schema_id(data)
        value: JsonValue = json.loads(data[5 if schema_id is not None else 0 :][::-1])
        return Decoded(Format.AVRO, json.dumps(value, indent=2), value, structured=True)


def avro(value: object) -> bytes:
    return json.dumps(value).encode()[::-1]


def test_a_word_inside_a_record_whose_bytes_are_not_its_text_is_found_decoded() -> None:
    decode = Decoding()
    matches = compile_search(SearchRequest("t", "Alice"), decode, AVRO_VALUES)
    assert matches(None, avro({"name": "Alice"}), None)
    assert not matches(None, avro({"name": "Bob"}), None)
    assert [which for which, _ in decode.calls] == ["value", "value"]
    assert not compile_search(SearchRequest("t", "Alice"))(None, avro({"name": "Alice"}), None)  # bytes only


def test_what_the_bytes_match_is_never_decoded() -> None:
    decode = Decoding()
    matches = compile_search(SearchRequest("t", "ecilA"), decode, AVRO_VALUES)
    assert matches(None, avro({"name": "Alice"}), None)
    assert decode.calls == []


def test_json_and_text_are_searched_as_bytes_the_wire_format_decoded() -> None:
    decode = Decoding()
    matches = compile_search(SearchRequest("t", "xyz"), decode, AUTO)
    assert not matches(b"k", b'{"name": "Alice"}', None)
    assert decode.calls == []  # auto, and the bytes are text: nothing to decode
    assert matches(None, bytes([0, 0, 0, 0, 7]) + avro({"name": "xyz"}), None)  # auto: the wire format decoded
    assert len(decode.calls) == 1
    assert not compile_search(SearchRequest("t", "xyz"), decode, AVRO_VALUES)(b"k1", avro({"a": 1}), None)
    assert len(decode.calls) == 2  # the value; the key, auto and not in the wire format, as it is


@pytest.mark.parametrize(
    ("request_", "found"),
    [
        (SearchRequest("t", "alice", ignore_case=True), True),
        (SearchRequest("t", "alice"), False),
        (SearchRequest("t", r'"name": "Al\w+"', regex=True), True),
        (SearchRequest("t", '"name": "Alice",\n  "n": 1'), True),  # its JSON, indented
        (SearchRequest("t", "Alice", fields=("key",)), False),
    ],
)
def test_the_decoded_text_is_searched_as_the_bytes_are(request_: SearchRequest, found: bool) -> None:
    assert compile_search(request_, Decoding(), AVRO_VALUES)(None, avro({"name": "Alice", "n": 1}), None) is found


def test_a_path_reads_the_decoded_value_and_the_key_only_when_it_asks_for_it() -> None:
    decode = Decoding()
    matches = compile_search(SearchRequest("t", ".customer.id == 42 or .customer.id == 43"), decode, AVRO_VALUES)
    assert matches(avro({"k": 1}), avro({"customer": {"id": 43}}), None)
    assert [which for which, _ in decode.calls] == ["value"]  # once, though the path reads it twice
    decode.calls.clear()
    matches = compile_search(SearchRequest("t", "key.k == 1 and .customer.id == 42"), decode, AVRO_BOTH)
    assert not matches(avro({"k": 2}), avro({"customer": {"id": 42}}), None)
    assert [which for which, _ in decode.calls] == ["key"]


def test_a_path_without_a_codec_reads_the_bytes_as_auto_does() -> None:
    matches = compile_search(SearchRequest("t", '.items[0].sku == "A-1"'))
    assert matches(None, b'{"items": [{"sku": "A-1"}]}', None)
    assert not matches(None, b'{"items": []}', None)
    assert not matches(None, b"not json", None)
    assert not matches(None, None, None)
    assert compile_search(SearchRequest("t", 'value == "42"'))(None, b"42", None)  # text: a bare number is text
    assert (plain_value(b" [1, 2]"), plain_value(b"{broken"), plain_value(b"\xff"), plain_value(None)) == (
        [1, 2], "{broken", None, None)  # fmt: skip


def test_a_path_reads_json_and_text_itself_and_asks_the_codec_for_the_rest() -> None:
    """The codec's pretty text is not needed for a path: JSON is parsed here, only the wire format decoded."""
    decode = Decoding()
    matches = compile_search(SearchRequest("t", ".n == 1"), decode, AUTO)
    assert matches(None, b'{"n": 1}', None)
    assert decode.calls == []
    assert matches(None, bytes([0, 0, 0, 0, 7]) + avro({"n": 1}), None)
    assert len(decode.calls) == 1
    json_values = TopicFormat(value=FieldFormat(Format.JSON))
    assert compile_search(SearchRequest("t", ".n == 1"), decode, json_values)(None, b'{"n": 1}', None)
    assert len(decode.calls) == 1


def test_a_path_is_a_regex_when_regex_is_ticked_and_a_bad_path_is_refused() -> None:
    assert compile_search(SearchRequest("t", ".com", regex=True))(None, b"example.com", None)
    assert not compile_search(SearchRequest("t", ".com"))(None, b"example.com", None)  # a path: no field com
    with pytest.raises(ValueError, match="path, column 5: expected an operator"):
        compile_search(SearchRequest("t", ".id = 7"))
