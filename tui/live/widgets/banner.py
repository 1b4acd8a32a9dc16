"""The notice above everything (the DEMO's): in full on a tall terminal; its first clause alone, on one line, on a
short one, where every line is a row of the partition table."""

from __future__ import annotations

import re

from textual.app import ComposeResult
from textual.containers import Vertical

from kafkatop.tui.live.text import Static


def headline(text: str) -> str:
    """The banner's first clause: up to its first colon or full stop."""
    return re.split(r"[:.](\s|$)", text, maxsplit=1)[0]


class Banner(Vertical):
    def __init__(self, text: str, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self.text = text

    def compose(self) -> ComposeResult:
        yield Static(self.text, classes="full")
        yield Static(headline(self.text), classes="headline")
