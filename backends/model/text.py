"""Text from outside — a name any client may choose, a record, an error text of Kafka, Connect, a registry or a file —
as a terminal may show it: each character a terminal would act on instead of showing, or show as something else,
written out as its escape (standard library only).

Hidden are the controls (Cc: ESC starts a sequence that may set the terminal's title or clipboard, CR rewrites the
line, C1's U+009B is a CSI to some terminals), the invisible format characters (Cf: the bidi overrides, U+202E shows
"gnp.exe" for "exe.png"; zero-width characters), surrogates, and the line and paragraph separators. They are written
as Python writes them in a string: \\n, \\t, \\r, \\x1b, \\u202e, \\U000e0001. A backslash is left as it is: the text is
for reading, not for turning back into the original."""

from __future__ import annotations

import shlex
import unicodedata
from collections.abc import Sequence

HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def hidden(char: str) -> bool:
    """Whether a terminal would act on `char` (or show it as something else)."""
    return unicodedata.category(char) in HIDDEN_CATEGORIES


def escaped(char: str) -> str:
    """`char` as it is shown: itself, or its escape when it is hidden."""
    named = _NAMED.get(char)
    if named is not None:
        return named
    if not hidden(char):
        return char
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str, *, lines: bool = False) -> str:
    """`text` with every hidden character as its escape. `lines`: a text of several lines (a trace, a record's
    detail, a log), whose newlines and tabs stay as they are."""
    if text.isprintable():  # the common case, in C: nothing to escape
        return text
    if lines:
        return "".join(c if c in "\n\t" else escaped(c) for c in text)
    return "".join(escaped(c) for c in text)


def unprintable(text: str, *, lines: bool = False) -> bool:
    """Whether `printable` would change `text`."""
    return not text.isprintable() and any((c not in "\n\t" or not lines) and escaped(c) != c for c in text)


def shell_word(text: str) -> str:
    """`text` as one word of a POSIX shell line that a terminal may show and a user may paste: shlex's quoting, or,
    where it holds a hidden character, bash's $'…' with that character's escape (\\x1b, \\u202e), which bash, zsh and
    ksh read back as the character itself — a line printed at a terminal still names what it names."""
    if not unprintable(text):
        return shlex.quote(text)
    body = "".join("\\\\" if c == "\\" else "\\'" if c == "'" else escaped(c) for c in text)
    return f"$'{body}'"


def shell_line(words: Sequence[str]) -> str:
    """`shlex.join`, each word as `shell_word` writes it."""
    return " ".join(shell_word(w) for w in words)
