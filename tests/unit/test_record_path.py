"""The path form of the browser's search and filter (backends/insight/record_path.py): what each expression keeps of
a decoded record, JSON's types in comparisons, the key read only when asked for, and bad input said in one line."""

from __future__ import annotations

import pytest

from kafkatop.backends.insight.record_path import json_equal, looks_like_path, parse_path
from kafkatop.backends.model.formats import JsonValue, RecordField

ORDER: JsonValue = {
    "customer": {"id": 42, "email": None, "name": "Alice Martin", "vip": True},
    "items": [{"sku": "A-1", "qty": 2}, {"sku": "B-2", "qty": 1}],
    "total": 10.5,
    "status": "NEW",
    "tags": ["red", "blue"],
    "odd key": {"x": 1},
    "prix": "12 €",
}
KEY: JsonValue = {"id": 7}


@pytest.mark.parametrize(
    ("expression", "kept"),
    [
        (".customer.id == 42", True), (".customer.id == 42.0", True), (".customer.id == 43", False),
        ('.customer.id == "42"', False), (".customer.vip == true", True), (".customer.vip == 1", False),
        (".customer.email == null", True), (".customer.id != 42", False), ('.status != "PAID"', True),
        ('.items[0].sku == "A-1"', True), ('.items[1].sku == "A-1"', False), ('.items[-1].sku == "B-2"', True),
        (".items[5].sku", False), ('.items[*].sku == "B-2"', True), (".items[*].qty > 1", True),
        (".items[*].qty > 2", False), (".total > 10.5", False), (".total >= 10.5", True), (".total < 1e2", True),
        (".total > 10", True), ('.status < "OLD"', True), ('.status > 1', False), ('.customer.name ~ "ali"', True),
        ('.customer.name ~ "ALI"', True), ('.customer.name ~ "bob"', False), (".customer.name ~ /^Al/", True),
        (".customer.name ~ /^al/", False), (".customer.name ~ /^al/i", True), ('.tags ~ "RED"', True),
        ('.customer ~ "alice"', True), (".customer.id ~ 4", True), ('.prix ~ "€"', True), (".customer.email", False),
        (".customer.name", True), (".nothing", False), (".items[0]", True), (".", True), ('.["odd key"].x == 1', True),
        (".['odd key'].x == 1", True), (".nothing == null", False), (".nothing != 1", False),
        ("not .nothing == 1", True), ("key.id == 7", True), ("key.id == 8", False), ("value.total == 10.5", True),
        ('.status == "NEW" and .total > 10', True), ('.status == "NEW" and .total > 11', False),
        ('.status == "PAID" or .total > 10', True), ('.a or .b and .c', False),
        ('(.status == "PAID" or .total > 10) and key.id == 7', True), ("not (.total > 10)", False),
        ('.status=="NEW"', True), ('  .status  ==  "NEW"  ', True), ('.items == [1]', None),
    ],
)  # fmt: skip
def test_what_an_expression_keeps(expression: str, kept: bool | None) -> None:
    if kept is None:
        with pytest.raises(ValueError, match="column"):
            parse_path(expression)
        return
    assert parse_path(expression).matches(ORDER, KEY) is kept


def test_a_text_value_and_a_null_record() -> None:
    """A string-format value is a str: `value` compares it whole and `~` searches it; a tombstone is null."""
    assert parse_path('value == "hello world"').matches("hello world")
    assert parse_path('value ~ "WORLD"').matches("hello world")
    assert not parse_path(".x").matches("hello world")
    assert parse_path("value == null").matches(None)
    assert not parse_path(".").matches(None)


def test_the_key_is_decoded_only_when_the_expression_reads_it() -> None:
    asked: list[RecordField] = []

    def value_of(which: RecordField) -> JsonValue:
        asked.append(which)
        return ORDER if which == "value" else KEY

    query = parse_path('.status == "PAID" and key.id == 7')
    assert query.fields == frozenset({"key", "value"})
    assert not query.matches_lazily(value_of)
    assert asked == ["value"]  # `and` stopped at the first false: the key was never asked for
    assert parse_path(".total").fields == frozenset({"value"})


def test_json_equality() -> None:
    assert json_equal([1, {"a": 2.0}], [1.0, {"a": 2}])
    assert not json_equal([True], [1])
    assert not json_equal({"a": 1}, {"a": 1, "b": None})
    assert not json_equal(None, 0)


@pytest.mark.parametrize(
    ("expression", "said"),
    [
        ("", "path: empty; give one such as .customer.id == 42"),
        (".customer.id = 42", "path, column 14: expected an operator (==, !=, <, <=, >, >= or ~; = alone is none), "
                              "found '='"),
        (".a ==", 'path, column 6: expected a literal: a number, a "string", true, false or null, found the end'),
        (".a > true", "path, column 6: expected a number or a string after >, found 'true'"),
        (".a ~ ", "path, column 6: expected a string or a /regex/ after ~ (.name ~ \"ali\"), found the end"),
        ("foo", "path, column 1: expected a path: .field, key.field or value.field (or not, or '('), found 'foo'"),
        (".a.", "path, column 4: expected a field name right after '.' (or [\"a name\"] for any other), found the end"),
        (".a. b", "path, column 5: expected a field name right after '.' (or [\"a name\"] for any other), found 'b'"),
        (".items[x]", "path, column 8: expected an index (0, -1), a \"name\" or * inside [ ], found 'x'"),
        (".items[0", "path, column 9: expected ']', found the end"),
        (".a == 1 and", "path, column 12: expected a path: .field, key.field or value.field (or not, or '('), "
                        "found the end"),
        ("(.a", "path, column 4: expected ')', found the end"),
        (".a b", "path, column 4: expected and, or, or the end, found 'b'"),
        (".a == 1 2", "path, column 9: expected and, or, or the end, found '2'"),
        (".a ! 1", "path, column 4: expected an operator (==, !=, <, <=, >, >= or ~), and or or, found '!'"),
        ('.a == "\\q"', "path, column 7: expected a string with JSON's escapes (\\\" \\\\ \\n \\u00e9), found "
                        "'\"\\\\q\"'"),
        (".a ~ /(/", "path, column 6: not a regular expression: missing ), unterminated subpattern at position 0"),
        (".a == /x/", 'path, column 7: expected a literal: a number, a "string", true, false or null, found \'/x/\''),
        (".a == bob", 'path, column 7: expected a literal: a number, a "string", true, false or null, found \'bob\''),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_saying_where_and_what_was_expected(expression: str, said: str) -> None:
    with pytest.raises(ValueError) as raised:
        parse_path(expression)
    assert str(raised.value) == said
    assert "\n" not in said


@pytest.mark.parametrize(
    ("text", "is_path"),
    [
        (".customer.id == 42", True), (".com", True), ("key.id == 7", True), ("value.x", True), ("key[0]", True),
        ('value ~ "a"', True), ("key == 1", True), ("not .x", True), ("( .a or .b)", True), ("  .a", True),
        ("book", False), ("key", False), ("keyboard", False), ("key lime", False), ("not sure", False),
        ("(see above)", False), ("a.b", False), ("", False),
    ],
)  # fmt: skip
def test_which_search_texts_are_paths(text: str, is_path: bool) -> None:
    assert looks_like_path(text) is is_path
