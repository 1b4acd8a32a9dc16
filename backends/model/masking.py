"""Masked data (README "Masked data"): a context's `mask` rules and `show-records = false`, applied to a record before
anything else sees it — the browser's rows, its detail and searches, an export, `consume`, the consumer console,
a recording. Standard library only.

A rule is a path into the key, the value or the headers, as the browser's paths write them — `.card.number` (the
value's), `value.items[*].pan`, `key.ssn`, `key` (the whole key), `headers.authorization` (a header's value, by name,
any case; `headers["x-trace.id"]`) — or a regular expression over every text in the record: `~ /\\b\\d{16}\\b/`
(`/…/i`: any case). A matched value becomes `[masked]`.

It fails closed: a field a rule reaches but that cannot be read as text (Avro, Protobuf, any bytes that are not UTF-8)
is masked whole; so is a text field that is not JSON when a path reaches into it."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.messages import BrowsedRecord

MASKED = "[masked]"
HIDDEN_RECORD = b"[hidden: show-records = false]"
Field = Literal["key", "value", "headers"]
ANY: Any = object()  # `[*]`: every element
_STEP = re.compile(r'\.(?P<name>[A-Za-z_][\w$-]*)|\[(?:(?P<index>-?\d+)|"(?P<quoted>[^"]*)"|(?P<any>\*))\]')
_PATTERN = re.compile(r"~\s*/(?P<re>.*)/(?P<flags>[A-Za-z]*)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class MaskPath:
    field: Field
    steps: tuple[Any, ...]  # names, indexes, ANY; headers: (its name, lower case)

    def __str__(self) -> str:
        return self.field + "".join(_step_text(s) for s in self.steps)


@dataclass(frozen=True, slots=True)
class MaskRules:
    paths: tuple[MaskPath, ...] = ()
    patterns: tuple[re.Pattern[str], ...] = ()
    show_records: bool = True

    @property
    def active(self) -> bool:
        return bool(self.paths or self.patterns or not self.show_records)

    def merged(self, other: MaskRules) -> MaskRules:
        """Both sets of rules: a project's file adds to the user's masks, never takes one away."""
        return MaskRules(tuple(dict.fromkeys((*self.paths, *other.paths))),
                         tuple(dict.fromkeys((*self.patterns, *other.patterns))),
                         self.show_records and other.show_records)  # fmt: skip

    def describe(self) -> str:
        if not self.show_records:
            return "records hidden (show-records = false)"
        rules = [str(p) for p in self.paths]
        rules += [f"~ /{p.pattern}/{'i' if p.flags & re.IGNORECASE else ''}" for p in self.patterns]
        return f"masked: {', '.join(rules)}"


def _step_text(step: Any) -> str:
    if step is ANY:
        return "[*]"
    if isinstance(step, int):
        return f"[{step}]"
    return f".{step}" if re.fullmatch(r"[A-Za-z_][\w$-]*", step) else f'["{step}"]'


def parse_mask(rules: Sequence[object], show_records: object, where: str) -> MaskRules:
    """A context's `mask = [...]` and `show-records`; BadInput naming `where` and the rule otherwise."""
    if not isinstance(show_records, bool):
        raise BadInput(f"{where}: show-records is true or false, not {show_records!r}")
    paths: list[MaskPath] = []
    patterns: list[re.Pattern[str]] = []
    for rule in rules:
        if not isinstance(rule, str) or not rule.strip():
            raise BadInput(f'{where}: mask is a list of paths and patterns (".card.number", "~ /\\\\d{{16}}/"), '
                           f"not {rule!r}")  # fmt: skip
        text = rule.strip()
        found = _PATTERN.fullmatch(text)
        if found is not None:
            if found.group("flags") not in ("", "i"):
                raise BadInput(f"{where}: mask {rule!r}: /…/{found.group('flags')}: the one flag is i (any case)")
            try:
                pattern = re.compile(found.group("re"), re.IGNORECASE if found.group("flags") else 0)
            except re.error as e:
                raise BadInput(f"{where}: mask {rule!r}: not a regular expression ({e})") from None
            if pattern.search("") is not None:  # it would mask the gaps between characters, and show them all
                raise BadInput(f"{where}: mask {rule!r} matches empty text: write one that needs a character "
                               "(\\d+, not \\d*)")  # fmt: skip
            patterns.append(pattern)
            continue
        paths.append(_path(text, where))
    return MaskRules(tuple(paths), tuple(patterns), show_records)


def _path(text: str, where: str) -> MaskPath:
    bad = BadInput(f'{where}: mask {text!r}: a path is .name… (the value), key…, value… or headers.NAME, or a '
                   'pattern ~ /regex/')  # fmt: skip
    field: Field = "value"
    rest = text
    for name in ("key", "value", "headers"):
        if text == name or text.startswith((name + ".", name + "[")):
            field, rest = name, text[len(name) :]
            break
    else:
        if not text.startswith("."):
            raise bad
        rest = "" if text == "." else text
    steps: list[Any] = []
    at = 0
    while at < len(rest):
        m = _STEP.match(rest, at)
        if m is None:
            raise bad
        at = m.end()
        if m.group("any"):
            steps.append(ANY)
        elif m.group("index") is not None:
            steps.append(int(m.group("index")))
        else:
            steps.append(m.group("name") or m.group("quoted"))
    if field == "headers":
        if len(steps) != 1 or not isinstance(steps[0], str):
            raise BadInput(f'{where}: mask {text!r}: a header is named once: headers.authorization, headers["x.y"]')
        steps = [steps[0].lower()]
    return MaskPath(field, tuple(steps))


def mask_record(r: BrowsedRecord, rules: MaskRules) -> BrowsedRecord:
    """The record as the rules let it be seen, with the fields that were masked named (`masked`)."""
    if not rules.active:
        return r
    if not rules.show_records:
        hidden = tuple((name, HIDDEN_RECORD) for name, _ in r.headers)
        key, value = (None if data is None else HIDDEN_RECORD for data in (r.key, r.value))
        return replace(r, key=key, value=value, headers=hidden, masked=("key", "value", "headers"))
    masked: list[str] = []
    key, changed = _field(r.key, [p.steps for p in rules.paths if p.field == "key"], rules.patterns)
    masked += ["key"] * changed
    value, changed = _field(r.value, [p.steps for p in rules.paths if p.field == "value"], rules.patterns)
    masked += ["value"] * changed
    named = {p.steps[0] for p in rules.paths if p.field == "headers"}
    headers: list[tuple[str, bytes | None]] = []
    for name, data in r.headers:
        if name.lower() in named and data is not None:
            headers.append((name, MASKED.encode()))
            masked.append("headers")
            continue
        kept, changed = _field(data, [], rules.patterns)
        headers.append((name, kept))
        masked += ["headers"] * changed
    if not masked:
        return r
    return replace(r, key=key, value=value, headers=tuple(headers), masked=tuple(dict.fromkeys(masked)))


def _field(data: bytes | None, paths: list[tuple[Any, ...]], patterns: tuple[re.Pattern[str], ...]
           ) -> tuple[bytes | None, bool]:  # fmt: skip
    """The field masked, and whether anything was."""
    if data is None or (not paths and not patterns):
        return data, False
    if any(not steps for steps in paths):
        return MASKED.encode(), True  # the whole field
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return MASKED.encode(), True  # bytes a rule cannot read: masked whole (fail closed)
    try:
        doc = json.loads(text) if paths or text.lstrip()[:1] in ("{", "[") else None
    except ValueError:
        doc = None
    if doc is None or not isinstance(doc, dict | list):
        if paths:
            return MASKED.encode(), True  # a path into a field that is not JSON: masked whole
        shown = _text(text, patterns)
        return (data, False) if shown == text else (shown.encode(), True)
    hits = [0]
    for steps in paths:
        doc = _at(doc, steps, hits)
    doc = _leaves(doc, patterns, hits)
    if not hits[0]:
        return data, False
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode(), True


def _at(node: Any, steps: tuple[Any, ...], hits: list[int]) -> Any:
    """`node` with what `steps` reach replaced by MASKED."""
    if not steps:
        hits[0] += 1
        return MASKED
    step, rest = steps[0], steps[1:]
    if isinstance(node, dict) and isinstance(step, str) and step in node:
        return {**node, step: _at(node[step], rest, hits)}
    if isinstance(node, list):
        if step is ANY:
            return [_at(item, rest, hits) for item in node]
        if isinstance(step, int) and -len(node) <= step < len(node):
            out = list(node)
            out[step] = _at(node[step], rest, hits)
            return out
    return node


def _leaves(node: Any, patterns: tuple[re.Pattern[str], ...], hits: list[int]) -> Any:
    """Every text and number in `node` (and every key of an object) with what the patterns find masked."""
    if not patterns:
        return node
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            shown = _text(k, patterns)
            hits[0] += shown != k
            out[shown] = _leaves(v, patterns, hits)
        return out
    if isinstance(node, list):
        return [_leaves(item, patterns, hits) for item in node]
    if isinstance(node, str | int | float) and not isinstance(node, bool):
        text = node if isinstance(node, str) else json.dumps(node)
        shown = _text(text, patterns)
        if shown != text:
            hits[0] += 1
            return shown
    return node


def _text(text: str, patterns: tuple[re.Pattern[str], ...]) -> str:
    for p in patterns:
        text = p.sub(MASKED, text)
    return text
