"""How the browser shows a decoded record (tabs/messages/record_view.py): a row's one line per key and value, the
format and schema said, deep values folded, characters that would drive a terminal escaped, and what `/` keeps; and
which schema `h` opens (record_schema.py)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from kafkatop.backends.model.formats import Decoded, Format
from kafkatop.backends.model.messages import BrowsedRecord, TimestampType
from kafkatop.backends.model.text import printable
from kafkatop.tui.live.tabs.messages.record_schema import SchemaWanted, schema_wanted
from kafkatop.tui.live.tabs.messages.record_view import (
    ShownRecord,
    fold,
    record_detail,
    record_filter,
    record_row,
    schema_line,
)
from kafkatop.tui.live.text import shown_visual

RECORD = BrowsedRecord("orders", 0, 7, 1_700_000_000_000, TimestampType.CREATE_TIME, b"k7", b"\x00\x00\x00\x00\x07\x02")
AVRO = Decoded(Format.AVRO, '{\n  "id": 7\n}', {"id": 7, "name": "Ali"}, True, 7, "orders-value", 2)


def text_of(shown: ShownRecord, unfold: bool = False) -> str:
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(record_detail(shown, 1_700_000_060, unfold))
    return out.getvalue()


def test_a_row_shows_the_decoded_value_in_one_line_and_what_could_not_be_read_says_so() -> None:
    key = Decoded(Format.STRING, "k7", "k7")
    assert [str(c) for c in record_row(ShownRecord(RECORD, key, AVRO))][3:] == ["k7", '{"id":7,"name":"Ali"}']
    note = Decoded(Format.AUTO, "", None, schema_id=7, note="schema id 7 (no registry configured)")
    said = "[schema id 7 (no registry configured)] 0x000000000702"
    assert str(record_row(ShownRecord(RECORD, None, note))[4]) == said
    assert str(record_row(ShownRecord(RECORD))[4]) == "0x000000000702"  # no codec: the bytes as before
    bidi = Decoded(Format.JSON, "", {"a": "x\u202ey\n"}, True)
    assert str(record_row(ShownRecord(RECORD, None, bidi))[4]) == '{"a":"x\\u202ey\\n"}'


@pytest.mark.parametrize(
    ("decoded", "said"),
    [
        (AVRO, "avro · schema id 7 · subject orders-value v2"),
        (Decoded(Format.PROTOBUF, "", {}, True, 3), "protobuf · schema id 3"),
        (Decoded(Format.AUTO, "", {"a": 1}, True), "json (auto)"),
        (Decoded(Format.AUTO, "hi", "hi"), "text (auto)"),
        (Decoded(Format.AUTO, "", None, schema_id=9, note="n"), "auto · schema id 9"),
        (Decoded(Format.HEX, "", "00"), "hex"),
    ],
)
def test_the_format_and_the_schema_are_said(decoded: Decoded, said: str) -> None:
    assert schema_line(decoded) == said


def test_the_detail_shows_the_schema_the_note_and_the_value_pretty_printed() -> None:
    note = Decoded(Format.AVRO, "", None, schema_id=7, note="schema id 7 (no registry configured)")
    text = text_of(ShownRecord(RECORD, Decoded(Format.STRING, "k7", "k7"), AVRO))
    short = 'value · avro · schema id 7 · subject orders-value v2, 6 B  {"id":7,"name":"Ali"} · h: its schema\n'
    assert short in text  # short: on its heading's line; then the key that opens its schema
    assert "key · string, 2 B\nk7\n" in text  # no schema id: no key to open one
    longer = Decoded(Format.AVRO, "", {"id": 7, "name": "Ali" * 20}, True, 7)
    assert '\n  "name": "AliAli' in text_of(ShownRecord(RECORD, None, longer))
    text = text_of(ShownRecord(RECORD, None, note))
    assert "schema id 7 (no registry configured)\n00000000  00 00 00 00 07 02" in text
    failed = Decoded(Format.AVRO, "", None, error="not Avro for schema id 7: EOF")
    assert "not Avro for schema id 7: EOF\n00000000" in text_of(ShownRecord(RECORD, None, failed))


def test_a_null_key_or_value_says_null_whatever_its_format() -> None:
    """As without a codec: "key · null" (auto, or any format, reads nothing from no bytes)."""
    tombstone = BrowsedRecord("orders", 0, 8, None, TimestampType.NOT_AVAILABLE, None, None)
    nothing = Decoded(Format.AUTO, "", None)
    for shown in (ShownRecord(tombstone), ShownRecord(tombstone, nothing, Decoded(Format.AVRO, "", None))):
        text = text_of(shown)
        assert "\nkey · null\n" in text and text.endswith("\nvalue · null\n"), text
        assert [str(c) for c in record_row(shown)][3:] == ["null", "null"]


def test_deep_and_long_values_are_folded_and_unfold() -> None:
    deep: object = {"a": {"b": {"c": {"d": {"e": {"f": {"g": 1}}}}}}, "list": list(range(60))}
    folded, did = fold(deep, depth=3, items=50)  # type: ignore[arg-type]
    assert did
    assert folded == {"a": {"b": {"c": "{… 1 field}"}}, "list": [*range(50), "… 10 more items"]}
    assert fold({"a": [1, 2]}) == ({"a": [1, 2]}, False)
    value = Decoded(Format.JSON, "", {"l": list(range(60))}, True)
    assert "… 10 more items" in text_of(ShownRecord(RECORD, None, value))
    assert "59" in text_of(ShownRecord(RECORD, None, value), unfold=True)


def test_what_would_drive_a_terminal_is_escaped() -> None:
    assert printable("a\x1b[31mb\u202ec\n\té", lines=True) == "a\\x1b[31mb\\u202ec\n\té"


def test_the_filter_keeps_rows_by_path_or_by_words_in_the_decoded_values() -> None:
    shown = ShownRecord(RECORD, Decoded(Format.STRING, "k7", "k7"), AVRO)
    cells = record_row(shown)
    assert record_filter('.name ~ "ali"')(shown, cells)
    assert not record_filter(".id > 7")(shown, cells)
    assert record_filter('key == "k7"')(shown, cells)
    assert record_filter("ALI 7")(shown, cells)  # every word, in a cell or the decoded text
    assert not record_filter("bob")(shown, cells)
    plain = ShownRecord(BrowsedRecord("t", 0, 1, None, TimestampType.NOT_AVAILABLE, None, b'{"id": 7}'))
    assert record_filter(".id == 7")(plain, record_row(plain))  # no codec: the bytes as auto reads them
    with pytest.raises(ValueError, match="column 5"):
        record_filter(".id = 7")


def test_h_opens_the_values_schema_else_the_keys_or_says_why_there_is_none() -> None:
    def opened(shown: ShownRecord) -> tuple[object, ...] | str:
        wanted = schema_wanted(shown)
        return wanted if isinstance(wanted, str) else (wanted.which, wanted.schema_id, wanted.subject, wanted.version)

    assert isinstance(schema_wanted(ShownRecord(RECORD, None, AVRO)), SchemaWanted)
    keyed = Decoded(Format.AVRO, "", {"id": 7}, True, 3, "orders-key", 1)
    assert opened(ShownRecord(RECORD, keyed, AVRO)) == ("value", 7, "orders-value", 2)
    assert opened(ShownRecord(RECORD, keyed, Decoded(Format.AUTO, "", {"a": 1}, True))) == ("key", 3, "orders-key", 1)
    by_id = Decoded(Format.AUTO, "", None, schema_id=9, note="schema id 9 (no registry configured)")
    assert opened(ShownRecord(RECORD, None, by_id)) == ("value", 9, None, None)  # no subject named: by its id
    plain = ShownRecord(RECORD, Decoded(Format.STRING, "k7", "k7"), Decoded(Format.AUTO, "", {"a": 1}, True))
    assert opened(plain) == ("orders-0 @ 7: neither its key nor its value carries a schema id (Confluent's wire "
                             "format): no schema to open")  # fmt: skip
    assert opened(ShownRecord(RECORD)) == "orders-0 @ 7 is shown as its bytes (no formats here): no schema to open"


def test_a_registrys_error_text_in_the_detail_reaches_the_terminal_escaped() -> None:
    """Issue 38: a registry's error holding OSC 52 and OSC 0 (the clipboard, the title) set both, shown in Messages'
    detail as a Text in a Group; the detail as the widget is given it (`shown_visual`) holds no ESC or BEL."""
    error = "Subject not found \x1b]52;c;cHduZWQ=\x07\x1b]0;PWNED\x07"
    failed = Decoded(Format.AVRO, "", None, error=error)
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(shown_visual(record_detail(ShownRecord(RECORD, None, failed),
                                                                                     1_700_000_060)))  # fmt: skip
    assert "\x1b" not in out.getvalue() and "\x07" not in out.getvalue()
    assert "Subject not found \\x1b]52;c;cHduZWQ=" in out.getvalue()
