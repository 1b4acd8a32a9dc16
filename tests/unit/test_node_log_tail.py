"""The Log tab's tail (tui/live/widgets/nodes.py): the newest lines that fit once wrapped, so a long line never
pushes the newest off the bottom of the pane (a broker's lines are often wider than an 80-column terminal)."""

from __future__ import annotations

from kafkatop.tui.live.widgets.nodes import _newest_that_fit

LINES = ("a" * 10, "b" * 25, "c" * 5, "d" * 30)


def test_wrapped_lines_take_their_rows_and_the_newest_is_always_shown() -> None:
    # width 10: d takes 3 rows, c 1, b 3, a 1
    assert _newest_that_fit(LINES, 10, 3) == ("d" * 30,)
    assert _newest_that_fit(LINES, 10, 4) == ("c" * 5, "d" * 30)
    assert _newest_that_fit(LINES, 10, 6) == ("c" * 5, "d" * 30)
    assert _newest_that_fit(LINES, 10, 7) == ("b" * 25, "c" * 5, "d" * 30)
    assert _newest_that_fit(LINES, 10, 8) == LINES
    assert _newest_that_fit(LINES, 10, 2) == ("d" * 30,)  # wider than the pane: still the newest, not nothing


def test_before_the_pane_has_a_size_every_line() -> None:
    assert _newest_that_fit(LINES, 0, 0) == LINES
    assert _newest_that_fit((), 80, 20) == ()
