"""Enter on a failed task (or connector) in Connect: its Java stack trace, scrolled as a record is (record.py). Each
frame is one line, folded where the screen ends: word-wrapped, each `at` would stand alone on a line of its own."""

from __future__ import annotations

from kafkatop.tui.live.screens.record import RecordScreen


class TraceScreen(RecordScreen):
    """Its look (the frames unwrapped) in app.tcss."""
