"""The command line's value types (tui/cli/values.py): each reads its value or, refusing it, says what it expected
and what it was given."""

from __future__ import annotations

import argparse
from collections.abc import Callable

import pytest

from kafkatop.tui.cli.values import PORT, SECONDS, converted, fraction, number, offset, whole


def refusal(parse: Callable[[str], object], value: str) -> str:
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        parse(value)
    return str(refused.value)


def test_converted_reads_the_value_or_says_what_it_expected() -> None:
    assert converted(" 42 ", int, "a count") == 42 and converted("0.5", float, "seconds") == 0.5
    assert refusal(lambda v: converted(v, int, "a count"), "4x") == "expected a count; not '4x'"


@pytest.mark.parametrize(
    ("parse", "value", "said"),
    [
        (offset, "end", "expected an offset (1200, or -50 for 50 before the end); not 'end'"),
        (PORT, "http", "expected a port, from 1 to 65535; not 'http'"),
        (PORT, "70000", "expected a port, from 1 to 65535; not 70000"),
        (whole(0, what="a partition"), "-1", "expected a partition, 0 or more; not -1"),
        (SECONDS, "soon", "expected a number of seconds above 0; not 'soon'"),
        (SECONDS, "inf", "expected a number of seconds above 0; not 'inf'"),
        (number(above=None, at_least=0.0), "-1", "expected a number of seconds at least 0; not '-1'"),
        (fraction, "1.5", "expected a fraction from 0 to 1 such as 0.3; not '1.5'"),
        (fraction, "half", "expected a fraction from 0 to 1 such as 0.3; not 'half'"),
    ],
)
def test_each_type_says_what_it_expected(parse: Callable[[str], object], value: str, said: str) -> None:
    assert refusal(parse, value) == said


def test_each_type_reads_a_good_value() -> None:
    assert (offset("-50"), PORT("9092"), SECONDS(" 2.5 "), fraction("0.3")) == (-50, 9092, 2.5, 0.3)
