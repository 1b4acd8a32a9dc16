"""A path over a record's decoded key or value (Decoded.value: JSON-able data), as the browser's search and `/`
filter take it: `.customer.id == 42`, `.items[0].sku == "A-1"`, `.total > 10.5`, `.name ~ "ali"`, `.customer.email`.

    expression  := test | expression and expression | expression or expression | not expression | ( expression )
    test        := path [operator literal]
    path        := . | .name | key | value, then .name, [index] (-1: the last), ["a name"] or [*] (every element)
    operator    := == != < <= > >= ~
    literal     := 42, -1.5e3, "text" (JSON's escapes) or 'text', true, false, null; after ~ also /regex/ or /regex/i

A path starting with `.` reads the value; `key…` the key, `value…` the value (said explicitly). A path alone is true
when it is there and not null. Comparisons follow JSON's types: 42 == 42.0, but "42" != 42 and true != 1; `<`, `>`
compare numbers with numbers and strings with strings, anything else is false. A field that is not there makes every
comparison false, `!=` too (`not .status == "PAID"` also keeps the records without a status). `~` is "contains",
ignoring case: in a string, or in the compact JSON of a number, an array or an object (`.tags ~ "red"`); `~ /re/` is
a regular expression searched the same way (`/re/i` ignoring case). `[*]` matches when any element does. `and`
binds tighter than `or`.

`parse_path` reads the text once into a PathQuery (ValueError, one line saying where and what was expected); the
query asks for the key or the value only when it needs it, so a record's other field is never decoded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from kafkatop.backends.model.formats import JsonValue, RecordField

OPERATORS = ("==", "!=", "<=", ">=", "<", ">", "~")
_OPERATORS_SAID = "==, !=, <, <=, >, >= or ~"
_TOKEN = re.compile(
    r"""\s*(?:
        (?P<number>-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)(?![\w.])
      | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
      | (?P<regex>/(?:[^/\\]|\\.)*/i?)
      | (?P<op>==|!=|<=|>=|<|>|~)
      | (?P<word>[^\W\d][\w-]*)
      | (?P<punct>[.\[\]()*])
      | (?P<bad>=|\S)
    )""",
    re.VERBOSE,
)
_STARTS = re.compile(r"\s*(?:not\s+|\(\s*)*(?:\.|(?:key|value)\s*(?:[.\[]|==|!=|<|>|~))")

# The values a path leads to: none where it leads nowhere (no such field, an index past the end).
Values = Iterator[JsonValue]
ValueOf = Callable[[RecordField], JsonValue]
Test = Callable[[ValueOf], bool]


def looks_like_path(text: str) -> bool:
    """Whether a search text is a path (`.x`, `key.id == 7`, `value ~ "a"`, `not .x`, `(.a or .b)`), not words."""
    return _STARTS.match(text) is not None


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # number, string, regex, op, word, punct, bad, end
    text: str
    at: int  # 0-based column

    @property
    def said(self) -> str:
        return "the end" if self.kind == "end" else repr(self.text)


def _tokens(text: str) -> list[_Token]:
    found: list[_Token] = []
    at = 0
    while True:
        m = _TOKEN.match(text, at)
        if m is None or m.lastgroup is None:
            found.append(_Token("end", "", len(text)))
            return found
        found.append(_Token(m.lastgroup, m.group(m.lastgroup), m.start(m.lastgroup)))
        at = m.end()


def _kind(v: object) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int | float):
        return "number"
    return "string" if isinstance(v, str) else "array" if isinstance(v, list) else "object"


def json_equal(a: object, b: object) -> bool:
    """Equality as JSON means it: 42 == 42.0, "42" != 42, true != 1, arrays and objects element by element."""
    kind = _kind(a)
    if kind != _kind(b):
        return False
    if kind == "array":
        assert isinstance(a, list) and isinstance(b, list)
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if kind == "object":
        assert isinstance(a, dict) and isinstance(b, dict)
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return a == b


def _compact(v: object) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, separators=(",", ":"))


PathStep = str | int | None  # a field's name, an index, or None: every element ([*])


def _children(v: JsonValue, step: PathStep) -> Values:
    """What one step of a path leads to from `v`: nothing where it leads nowhere."""
    if step is None:
        if isinstance(v, list):
            yield from v
        elif isinstance(v, dict):
            yield from v.values()
    elif isinstance(step, str):
        if isinstance(v, dict) and step in v:
            yield v[step]
    elif isinstance(v, list) and -len(v) <= step < len(v):
        yield v[step]


_NUMBERS = (int, float)  # type(v) in it: a bool is not a number in JSON


def _same(literal: object) -> Callable[[JsonValue], bool]:
    """JSON's equality with a literal (a number, a string, true, false or null), cheaply: asked of every record."""
    if literal is None or isinstance(literal, bool):
        return lambda v: v is literal
    if isinstance(literal, str):
        return lambda v: type(v) is str and v == literal
    return lambda v: type(v) in _NUMBERS and v == literal


def _compare(op: str, literal: object) -> Callable[[JsonValue], bool]:
    """The test of one value found by the path against the literal."""
    if op in ("==", "!="):
        same = _same(literal)
        return same if op == "==" else lambda v: not same(v)
    if op == "~":
        if isinstance(literal, re.Pattern):
            pattern = literal
            return lambda v: v is not None and pattern.search(_compact(v)) is not None
        needle = _compact(literal).casefold()
        return lambda v: v is not None and needle in _compact(v).casefold()
    kinds = (str,) if isinstance(literal, str) else _NUMBERS
    order: dict[str, Callable[[object, object], bool]] = {
        "<": lambda a, b: a < b,  # type: ignore[operator]
        "<=": lambda a, b: a <= b,  # type: ignore[operator]
        ">": lambda a, b: a > b,  # type: ignore[operator]
        ">=": lambda a, b: a >= b,  # type: ignore[operator]
    }
    less = order[op]
    return lambda v: type(v) in kinds and less(v, literal)


@dataclass(frozen=True, slots=True)
class PathQuery:
    """A parsed expression: `matches(value, key)` on the decoded data, or `matches_lazily(value_of)` to decode a
    field only when the expression reaches it. `fields`: the fields it reads."""

    text: str
    fields: frozenset[RecordField]
    _test: Test

    def matches_lazily(self, value_of: ValueOf) -> bool:
        return self._test(value_of)

    def matches(self, value: JsonValue, key: JsonValue = None) -> bool:
        return self._test(lambda which: value if which == "value" else key)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.at = 0
        self.fields: set[RecordField] = set()

    @property
    def token(self) -> _Token:
        return self.tokens[self.at]

    def fail(self, expected: str, token: _Token | None = None) -> ValueError:
        t = token or self.token
        return ValueError(f"path, column {t.at + 1}: expected {expected}, found {t.said}")

    def take(self) -> _Token:
        t = self.tokens[self.at]
        self.at += 1
        return t

    def is_word(self, word: str) -> bool:
        return self.token.kind == "word" and self.token.text == word

    def parse(self) -> PathQuery:
        if self.token.kind == "end":
            raise ValueError("path: empty; give one such as .customer.id == 42")
        test = self.expression()
        if self.token.kind != "end":
            if self.token.kind in ("bad", "op"):
                raise self.fail(f"an operator ({_OPERATORS_SAID}), and or or")
            raise self.fail("and, or, or the end")
        return PathQuery(self.text, frozenset(self.fields), test)

    def expression(self) -> Test:
        return self.joined("or", self.conjunction, any)

    def conjunction(self) -> Test:
        return self.joined("and", self.unary, all)

    def joined(self, word: str, operand: Callable[[], Test], combine: Callable[[Iterator[bool]], bool]) -> Test:
        """Operands joined by `word` (and, or): one test that `combine`s theirs (all, any), lazily, left to right."""
        parts = [operand()]
        while self.is_word(word):
            self.take()
            parts.append(operand())
        if len(parts) == 1:
            return parts[0]
        return lambda value_of: combine(p(value_of) for p in parts)

    def unary(self) -> Test:
        if self.is_word("not"):
            self.take()
            inner = self.unary()
            return lambda value_of: not inner(value_of)
        if self.token.text == "(" and self.token.kind == "punct":
            self.take()
            inner = self.expression()
            if self.token.text != ")":
                raise self.fail("')'")
            self.take()
            return inner
        return self.test()

    def test(self) -> Test:
        which, steps = self.path()
        self.fields.add(which)
        if self.token.kind == "bad" and self.token.text == "=":
            raise self.fail(f"an operator ({_OPERATORS_SAID}; = alone is none)")
        compare: Callable[[JsonValue], bool] = lambda v: v is not None  # noqa: E731 - a path alone: there, not null
        if self.token.kind == "op":
            op = self.take().text
            compare = _compare(op, self.literal(op))
        if None in steps:

            def any_found(value_of: ValueOf) -> bool:
                values: list[JsonValue] = [value_of(which)]
                for step in steps:
                    values = [w for v in values for w in _children(v, step)]
                return any(compare(v) for v in values)

            return any_found

        # No [*]: one value or none, walked without building lists (a search asks this of every record).
        def one_found(value_of: ValueOf) -> bool:
            v = value_of(which)
            for step in steps:
                if isinstance(step, str):
                    if not isinstance(v, dict) or step not in v:
                        return False
                    v = v[step]
                else:
                    assert step is not None
                    if not isinstance(v, list) or not -len(v) <= step < len(v):
                        return False
                    v = v[step]
            return compare(v)

        return one_found

    def path(self) -> tuple[RecordField, list[PathStep]]:
        t = self.token
        steps: list[PathStep] = []
        if t.kind == "word" and t.text in ("key", "value"):
            self.take()
            which: RecordField = "key" if t.text == "key" else "value"
        elif t.kind == "punct" and t.text == ".":
            which = "value"
            self.take()
            if self.token.kind == "word" and self.token.at == t.at + 1:
                steps.append(self.take().text)
        else:
            raise self.fail("a path: .field, key.field or value.field (or not, or '(')")
        while True:
            t = self.token
            if t.kind == "punct" and t.text == ".":
                self.take()
                name = self.token
                if name.kind != "word" or name.at != t.at + 1:
                    raise self.fail("a field name right after '.' (or [\"a name\"] for any other)")
                steps.append(self.take().text)
            elif t.kind == "punct" and t.text == "[":
                self.take()
                steps.append(self.subscript())
            else:
                return which, steps

    def subscript(self) -> PathStep:
        t = self.take()
        if t.kind == "number" and re.fullmatch(r"-?\d+", t.text):
            step: PathStep = int(t.text)
        elif t.kind == "string":
            step = self.string(t)
        elif t.kind == "punct" and t.text == "*":
            step = None
        else:
            raise self.fail('an index (0, -1), a "name" or * inside [ ]', t)
        if self.token.text != "]":
            raise self.fail("']'")
        self.take()
        return step

    def string(self, t: _Token) -> str:
        if not t.text.startswith('"'):
            return re.sub(r"\\(.)", r"\1", t.text[1:-1])
        try:
            text: str = json.loads(t.text)
        except ValueError:
            raise self.fail("a string with JSON's escapes (\\\" \\\\ \\n \\u00e9)", t) from None
        return text

    def literal(self, op: str) -> object:
        t = self.take()
        if t.kind == "number":
            return float(t.text) if re.search(r"[.eE]", t.text) else int(t.text)
        if t.kind == "string":
            return self.string(t)
        if t.kind == "regex" and op == "~":
            body, flags = (t.text[1:-2], re.IGNORECASE) if t.text.endswith("/i") else (t.text[1:-1], 0)
            try:
                return re.compile(body.replace("\\/", "/"), flags)
            except re.error as e:
                raise ValueError(f"path, column {t.at + 1}: not a regular expression: {e}") from None
        if t.kind == "word" and t.text in ("true", "false", "null") and op not in ("<", "<=", ">", ">="):
            return {"true": True, "false": False, "null": None}[t.text]
        if op in ("<", "<=", ">", ">="):
            raise self.fail(f"a number or a string after {op}", t)
        if op == "~":
            raise self.fail('a string or a /regex/ after ~ (.name ~ "ali")', t)
        raise self.fail('a literal: a number, a "string", true, false or null', t)


def parse_path(text: str) -> PathQuery:
    """The expression as a query; ValueError saying at which column what was expected."""
    return _Parser(text).parse()
