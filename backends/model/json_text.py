"""JSON from outside (a line to produce, a record's value, a schema, a file, a worker's answer) read with a bound on
its nesting. Python's json parser recurses once per level and raises RecursionError near 1,000 levels — an error no
caller expects — and what walks a parsed document (a pretty-printer, a path search, a schema validator) recurses
too, so a document nested deeper than MAX_DEPTH is refused before it is parsed, as bad JSON: TooDeep is a
json.JSONDecodeError (a ValueError), so every place that refuses bad JSON refuses it the same way, with its line and
column. Standard library only."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

MAX_DEPTH = 100  # levels of arrays and objects: far beyond a record or a config, far below Python's limits
# A string (skipped: brackets in it are text) or a bracket. The string's end quote may be missing (a document cut
# short): json.loads says what is wrong with it then.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)
_TOKEN_BYTES = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)
_OPEN: frozenset[str | bytes] = frozenset(("[", "{", b"[", b"{"))
_CLOSE: frozenset[str | bytes] = frozenset(("]", "}", b"]", b"}"))


class TooDeep(json.JSONDecodeError):
    """A document nested deeper than `limit` levels, refused where it opens one level too many."""

    def __init__(self, limit: int, doc: str, pos: int) -> None:
        super().__init__(too_deep(limit), doc, pos)
        self.limit = limit


def too_deep(limit: int = MAX_DEPTH) -> str:
    return f"nested too deeply (more than {limit} levels)"


def deepest_at(text: str | bytes, limit: int = MAX_DEPTH) -> int | None:
    """Where `text` opens an array or object nested deeper than `limit` levels (its index), or None."""
    if isinstance(text, str):
        if text.count("[") + text.count("{") <= limit:  # most documents: no deeper than their brackets are many
            return None
        tokens: Iterator[re.Match[str]] | Iterator[re.Match[bytes]] = _TOKEN.finditer(text)
    else:
        if text.count(b"[") + text.count(b"{") <= limit:
            return None
        tokens = _TOKEN_BYTES.finditer(text)
    depth = 0
    for token in tokens:
        found = token.group()
        if found in _OPEN:
            depth += 1
            if depth > limit:
                return token.start()
        elif found in _CLOSE:
            depth -= 1
    return None


def loads(text: str | bytes, limit: int = MAX_DEPTH) -> Any:
    """`json.loads(text)`, but a document nested deeper than `limit` raises TooDeep (a JSONDecodeError)."""
    at = deepest_at(text, limit)
    if at is not None:
        raise _too_deep(text, at, limit)
    try:
        return json.loads(text)
    except RecursionError:  # not reached within the limit; kept so that no document can raise it
        raise _too_deep(text, 0, limit) from None


def _too_deep(text: str | bytes, at: int, limit: int) -> TooDeep:
    if isinstance(text, str):
        return TooDeep(limit, text, at)
    head = text[:at].decode("utf-8", errors="replace")  # the position in characters, for the line and column
    return TooDeep(limit, head + text[at:].decode("utf-8", errors="replace"), len(head))
