"""Numbers as people read them, shared by the tables of the app and of the headless commands."""

from __future__ import annotations


def human_size(n: int | None, compact: bool = False) -> str:
    """331 MB, or 331M where columns are tight (the process table must fit 80 columns)."""
    if n is None:
        return "-"
    unit = "" if compact else " "
    return (
        f"{n / 2**20:.0f}{unit}M{'' if compact else 'B'}"
        if n < 2**30
        else f"{n / 2**30:.1f}{unit}G{'' if compact else 'B'}"
    )


def data_size(n: int) -> str:
    """Bytes of data at any scale: 512 B, 14.1 KiB, 98.9 MiB, 1.2 GiB."""
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024:
            return f"{n} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"


def human_duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


SPARK_BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: tuple[float, ...] | list[float], width: int = 12, top: float | None = None) -> str:
    """The last `width` values as bars from ▁ (0) to █ (`top`, else the largest shown)."""
    shown = values[-width:]
    if not shown:
        return ""
    high = top if top is not None else max(shown)
    if high <= 0:
        return SPARK_BARS[0] * len(shown)
    last = len(SPARK_BARS) - 1
    return "".join(SPARK_BARS[max(0, min(last, round(v / high * last)))] for v in shown)


def rate(per_s: float | None) -> str:
    """Records per second, short: 0/s, 37/s, 1.2k/s, 3.4M/s."""
    if per_s is None:
        return "-"
    if per_s < 1000:
        return f"{per_s:.0f}/s"
    if per_s < 1_000_000:
        return f"{per_s / 1000:.1f}k/s"
    return f"{per_s / 1_000_000:.1f}M/s"
