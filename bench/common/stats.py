"""Summary statistics printed by every benchmark: median first, with p90, min and max beside it; and its verdict."""

from __future__ import annotations

import statistics
from collections.abc import Mapping


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile, q in 0..100."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil(n * q / 100), at least 1
    return ordered[int(rank) - 1]


def stats_line(values_ms: list[float], digits: int = 1) -> str:
    if not values_ms:  # a figure that could not be taken is said so, not a traceback that loses the others
        return "no value (none measured)"
    f = f"6.{digits}f"
    return (
        f"median {statistics.median(values_ms):{f}} ms   p90 {percentile(values_ms, 90):{f}} ms   "
        f"min {min(values_ms):{f}} ms   max {max(values_ms):{f}} ms"
    )


def median(values: list[float]) -> float:
    """The median; NaN when there is no value (a figure that could not be taken prints as nan, not a traceback)."""
    return statistics.median(values) if values else float("nan")


def worst(values: list[float]) -> float:
    """The largest value; NaN when there is none."""
    return max(values, default=float("nan"))


def verdict(ok: bool) -> str:
    """The last word of a RESULT line."""
    return "PASS" if ok else "FAIL"


def print_kinds(times_ms: Mapping[str, list[float]]) -> None:
    """One stats line for each kind of measurement, indented under its heading."""
    for kind, values in times_ms.items():
        print(f"  {kind:9s} {stats_line(values)}")


def slowest_refresh(times_ms: Mapping[str, list[float]]) -> float:
    """The slowest median of the kinds measured but the first build (a one-off, reported apart)."""
    return max(statistics.median(v) for k, v in times_ms.items() if k != "first")
