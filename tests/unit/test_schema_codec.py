"""SchemaCodec (backends/schemas/codec.py) on the formats without a schema and without a registry: string, JSON, hex,
base64 and auto read and written; the wire format said, not shown as garbage, when no registry is configured;
set_format checking the schema files named before remembering them. Decoding never raises."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kafkatop.backends.model.formats import FieldFormat, Format, FormatError, TopicFormat
from kafkatop.backends.schemas.codec import SchemaCodec

FORMATS = Path(__file__).resolve().parents[1] / "fixtures" / "formats"


def codec_for(fmt: Format, base_dir: Path | None = None) -> SchemaCodec:
    return SchemaCodec({"t": TopicFormat(key=FieldFormat(fmt), value=FieldFormat(fmt))}, None, base_dir)


def test_string_json_hex_and_base64_read_as_named() -> None:
    d = codec_for(Format.STRING).decode("t", "value", "héllo\n".encode())
    assert (d.text, d.value, d.structured, d.error) == ("héllo\n", "héllo\n", False, None)
    bad = codec_for(Format.STRING).decode("t", "value", b"ok\xff")
    assert bad.error == "not UTF-8: byte 2 is 0xff" and bad.text.startswith("00000000  6f 6b ff")
    d = codec_for(Format.JSON).decode("t", "key", b'{"a": [1, {"b": null}]}')
    assert d.structured and d.value == {"a": [1, {"b": None}]}
    assert d.text == json.dumps(d.value, indent=2) and d.compact() == '{"a":[1,{"b":null}]}'
    assert codec_for(Format.JSON).decode("t", "value", b"42").value == 42  # any JSON, when the format says JSON
    bad = codec_for(Format.JSON).decode("t", "value", b"{nope")
    assert bad.error is not None and bad.error.startswith("not JSON: ") and bad.text == "{nope"
    d = codec_for(Format.HEX).decode("t", "value", b"Hi\x00")
    assert (d.value, d.text) == ("486900", "00000000  48 69 00" + " " * 41 + "|Hi.|")
    d = codec_for(Format.BASE64).decode("t", "value", b"\x00\xff")
    assert (d.value, d.text) == ("AP8=", "AP8=")
    for fmt in Format:
        assert codec_for(fmt).decode("t", "value", None).value is None


def test_auto_reads_json_then_text_then_hex() -> None:
    auto = SchemaCodec({}, None)
    d = auto.decode("any", "value", b' [1, "x"]')
    assert (d.format, d.structured, d.value) == (Format.AUTO, True, [1, "x"])
    d = auto.decode("any", "value", b"42 is text")
    assert (d.structured, d.value, d.text) == (False, "42 is text", "42 is text")
    d = auto.decode("any", "value", b"\x01\x02\x03")
    assert d.value is None and d.text.startswith("00000000  01 02 03")
    big = auto.decode("any", "value", b"x" * 70_000)
    assert big.text.endswith("… 4,464 more bytes not shown") and big.value is None


def test_wire_format_without_a_registry_says_its_schema_id() -> None:
    data = b"\x00\x00\x00\x00\x07\x02\x06abc"
    for fmt in (Format.AUTO, Format.AVRO, Format.PROTOBUF, Format.JSON_SCHEMA):
        d = codec_for(fmt).decode("t", "value", data)
        assert (d.schema_id, d.note, d.error) == (7, "schema id 7 (no registry configured)", None)
        assert d.text.startswith("00000000  00 00 00 00 07 02 06 61")
    bare = codec_for(Format.AVRO).decode("t", "value", b"\x02\x06abc")
    assert bare.error == "not in the wire format, and no schema file to read avro with"


def test_plain_formats_written_from_text() -> None:
    assert codec_for(Format.STRING).encode("t", "value", "héllo") == "héllo".encode()
    assert SchemaCodec({}, None).encode("t", "value", '{"a":1}') == b'{"a":1}'  # auto: as a string
    typed = '{ "a" : 1.50 }'
    assert codec_for(Format.JSON).encode("t", "value", typed) == typed.encode()  # as typed, once it parses
    with pytest.raises(FormatError, match="^not JSON: "):
        codec_for(Format.JSON).encode("t", "value", "{a: 1}")
    assert codec_for(Format.HEX).encode("t", "key", "0x48 65 6c") == b"Hel"
    with pytest.raises(FormatError, match="^not hex: "):
        codec_for(Format.HEX).encode("t", "key", "4g")
    assert codec_for(Format.BASE64).encode("t", "key", "AP8=") == b"\x00\xff"
    with pytest.raises(FormatError, match="^not base64: "):
        codec_for(Format.BASE64).encode("t", "key", "AP8")


def test_schema_formats_need_a_schema_to_write_with() -> None:
    with pytest.raises(FormatError, match="avro needs a schema to write with"):
        codec_for(Format.AVRO).encode("t", "value", "{}")
    with pytest.raises(FormatError, match="^not JSON"):
        codec_for(Format.PROTOBUF).encode("t", "value", "nope")


def test_set_format_checks_the_schema_files_then_remembers(tmp_path: Path) -> None:
    remembered: list[tuple[str, TopicFormat]] = []
    codec = SchemaCodec({}, None, FORMATS, lambda topic, fmt: remembered.append((topic, fmt)))
    fine = TopicFormat(value=FieldFormat(Format.AVRO, schema_file="orders.avsc"))  # relative: the toml's folder's
    codec.set_format("orders", fine)
    assert remembered == [("orders", fine)] and codec.format_of("orders") == fine
    assert codec.format_of("other") == TopicFormat()

    def refused(field: FieldFormat) -> str:
        with pytest.raises(FormatError) as caught:
            codec.set_format("orders", TopicFormat(value=field))
        return str(caught.value)

    assert "No such file" in refused(FieldFormat(Format.AVRO, schema_file="missing.avsc"))
    (tmp_path / "bad.avsc").write_text('{"type": "record", "name": "R", "fields": [{"name": "a", "type": "intt"}]}')
    assert "is not an Avro schema" in refused(FieldFormat(Format.AVRO, schema_file=str(tmp_path / "bad.avsc")))
    (tmp_path / "bad.json").write_text('{"type": 12}')
    assert "is not a JSON Schema" in refused(FieldFormat(Format.JSON_SCHEMA, schema_file=str(tmp_path / "bad.json")))
    two = tmp_path / "two.proto"
    two.write_text('syntax = "proto3"; package p; message A { int32 a = 1; } message B { string b = 1; }')
    assert "defines 2 top-level messages (p.A, p.B)" in refused(FieldFormat(Format.PROTOBUF, schema_file=str(two)))
    said = refused(FieldFormat(Format.PROTOBUF, schema_file=str(two), message_type="C"))
    assert "has no message 'C': there are p.A, p.B" in said
    (tmp_path / "broken.proto").write_text('syntax = "proto3"; message A { int32 a = ; }')
    said = refused(FieldFormat(Format.PROTOBUF, schema_file=str(tmp_path / "broken.proto")))
    assert said.endswith("broken.proto does not compile: line 1, column 42: Expected field number.")
    assert "needs a schema registry" in refused(FieldFormat(Format.AVRO, subject="orders-value"))
    assert remembered == [("orders", fine)]  # none of those
    codec.set_format("orders", TopicFormat(value=FieldFormat(Format.PROTOBUF, schema_file=str(two), message_type="B")))
    assert len(remembered) == 2


def test_a_schema_file_that_cannot_be_read_is_said_in_the_record(tmp_path: Path) -> None:
    shutil.copy(FORMATS / "orders.avsc", tmp_path / "gone.avsc")
    codec = SchemaCodec({"t": TopicFormat(value=FieldFormat(Format.AVRO, schema_file="gone.avsc"))}, None, tmp_path)
    (tmp_path / "gone.avsc").unlink()
    d = codec.decode("t", "value", b"\x02")
    assert d.error is not None and "gone.avsc" in d.error and d.text.startswith("00000000  02")


def test_a_structured_value_is_indented_only_when_its_text_is_read() -> None:
    d = codec_for(Format.JSON).decode("t", "value", '{"a": [1, {"b": "é"}]}'.encode())
    assert d.shown == ""  # nothing indented yet: consume and the search read compact() and value
    assert d.compact() == '{"a":[1,{"b":"é"}]}'
    assert d.text == json.dumps({"a": [1, {"b": "é"}]}, indent=2, ensure_ascii=False)
    assert d.text is d.text  # made once
