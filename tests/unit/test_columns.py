"""The one aligner (backends/model/columns.py) every printed table goes through."""

from __future__ import annotations

from kafkatop.backends.model.columns import aligned_lines, printf_line, widest


def test_widest_takes_the_longest_value_or_the_least() -> None:
    assert widest(["ab", "abcd"]) == 4
    assert widest(["ab"], 15) == 15
    assert widest([], 10) == 10


def test_printf_line_pads_the_columns_with_a_width_only() -> None:
    assert printf_line([4, 3], ["a", 1, "last"]) == "a    1   last"
    assert printf_line([2, 2], ["a", "b"]) == "a  b "  # every cell with a width is padded, the last too
    assert printf_line([3], ["abcd", "x"]) == "abcd x"  # a wider cell is not cut
    assert printf_line([2, 2], ["a", "b"], sep="\t") == "a \tb "


def test_aligned_lines_two_spaces_apart_no_trailing_space() -> None:
    assert aligned_lines([("NAME", "N"), ("a", "10")]) == ["NAME  N", "a     10"]
    assert aligned_lines([("NAME", "N"), ("a", "10")], figures=True) == ["NAME   N", "a     10"]
    assert aligned_lines([("A", ""), ("bb", "")]) == ["A", "bb"]
