"""How the message browser shows a record's bytes (JSON pretty-printed, text, hex) and what its search matches."""

from __future__ import annotations

import json

import pytest

from kafkatop.backends.insight.payloads import SHOWN_BYTES, compile_search, hex_dump, kind_of, pretty, preview
from kafkatop.backends.model.messages import SearchRequest


def test_json_objects_and_arrays_are_pretty_printed_other_text_is_left_as_it_is() -> None:
    kind, text = pretty(b'{"id":7,"items":["a","b"],"name":"caf\xc3\xa9"}')
    assert kind == "json"
    assert json.loads(text) == {"id": 7, "items": ["a", "b"], "name": "café"}
    assert text.splitlines()[1] == '  "id": 7,'
    assert pretty(b"[1, 2]")[0] == "json"
    assert pretty(b"42") == ("text", "42")  # a bare number is text to a reader
    assert pretty(b'{"broken": ') == ("text", '{"broken": ')
    assert pretty(b"line one\nline two") == ("text", "line one\nline two")


def test_binary_and_terminal_controls_are_a_hex_dump_never_raw() -> None:
    kind, text = pretty(b"\x00\x01binary\xff")
    assert kind == "binary"
    assert text == "00000000  00 01 62 69 6e 61 72 79 ff                       |..binary.|"
    # An escape sequence or a bidi override would drive or mislead the terminal: shown as hex, not as text.
    assert kind_of(b"\x1b[31mred") == "binary"
    assert kind_of("abc\u202edef".encode()) == "binary"
    assert kind_of(b"tab\tand\r\nnewline") == "text"
    assert (kind_of(None), kind_of(b"")) == ("null", "empty")


def test_a_hex_dump_is_cut_and_says_how_much_more() -> None:
    dump = hex_dump(bytes(range(256)) * 40, width=8, limit=64)
    lines = dump.splitlines()
    assert len(lines) == 9
    assert lines[1] == "00000008  08 09 0a 0b 0c 0d 0e 0f  |........|"
    assert lines[-1] == "… 10176 more bytes"


def test_a_preview_is_one_escaped_line() -> None:
    assert preview(None) == "null"
    assert preview(b"a\nb\tc") == "a\\nb\\tc"
    assert preview(b"\x00\xff\x10", 80) == "0x00ff10"
    assert preview(b"x" * 500, 20).startswith("x" * 20)
    assert len(preview(bytes(100), 20)) <= 21


@pytest.mark.parametrize(
    ("request_", "key", "value", "headers", "expected"),
    [
        (SearchRequest("t", "book"), b"k1", b'{"item": "book"}', (), True),
        (SearchRequest("t", "book", fields=("key",)), b"k1", b'{"item": "book"}', (), False),
        (SearchRequest("t", "BOOK"), None, b"a book", (), False),
        (SearchRequest("t", "BOOK", ignore_case=True), None, b"a book", (), True),
        (SearchRequest("t", r"id\": ?7\b", regex=True), None, b'{"id": 7}', (), True),
        (SearchRequest("t", r"id\": ?7\b", regex=True), None, b'{"id": 70}', (), False),
        (SearchRequest("t", "trace-9"), None, None, (("trace", b"trace-9"),), True),
        (SearchRequest("t", "trace"), None, None, (("trace", None),), True),  # a header's name
        (SearchRequest("t", "trace", fields=("value",)), None, None, (("trace", b"x"),), False),
        (SearchRequest("t", "\xff"), None, b"\xc3\xbf", (), True),  # UTF-8 of the text, found in the bytes
    ],
)
def test_the_search_matches_what_it_is_asked_on_the_fields_it_is_asked(
    request_: SearchRequest, key: bytes | None, value: bytes | None, headers: tuple[tuple[str, bytes | None], ...],
    expected: bool,
) -> None:  # fmt: skip
    assert compile_search(request_)(key, value, headers) is expected


def test_a_search_without_text_fields_or_a_valid_regex_is_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="nothing to search for"):
        compile_search(SearchRequest("t", ""))
    with pytest.raises(ValueError, match="no field to search"):
        compile_search(SearchRequest("t", "x", fields=()))
    with pytest.raises(ValueError, match="not a regular expression: missing \\)"):
        compile_search(SearchRequest("t", "(", regex=True))


def test_a_large_payload_shows_its_head_and_how_much_more() -> None:
    big = json.dumps({"rows": ["é" * 10] * 20_000}, ensure_ascii=False).encode()
    kind, text = pretty(big)
    assert kind == "text" and text.startswith('{"rows": ["éééééééééé"')
    assert text.endswith(f"… {len(big) - SHOWN_BYTES:,} more bytes not shown")
    kind, text = pretty(b"\x00" * (SHOWN_BYTES + 10), hex_width=8)
    assert kind == "binary" and text.endswith("… 10 more bytes not shown")
    assert preview("é".encode() * 100_000, 10).startswith("éééééééééé")  # a cut character is not binary
