"""Text columns, aligned once for every table kafkatop prints: the layouts it copies from Kafka's tools (Java's
printf("%-Ns"), N a column's width), and kafkatop's own tables. Standard library only."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def widest(values: Iterable[str], least: int = 0) -> int:
    """A column's width: its widest value, at least `least` (Kafka's tools mostly give 15)."""
    return max([least, *(len(v) for v in values)])


def printf_line(widths: Sequence[int], cells: Sequence[object], sep: str = " ") -> str:
    """Java's printf("%-W1s %-W2s … %s"): each cell (its str()) left-aligned to its column's width, the cells past
    the widths (a table's last, mostly) as they are."""
    padded = [str(c).ljust(w) for w, c in zip(widths, cells[: len(widths)], strict=True)]
    return sep.join([*padded, *(str(c) for c in cells[len(widths) :])])


def aligned_lines(rows: Sequence[Sequence[str]], *, figures: bool = False) -> list[str]:
    """kafkatop's own tables: each column as wide as its widest cell, columns two spaces apart, no trailing space;
    `figures`: every column after the first (numbers) aligned to the right."""
    widths = [widest(r[i] for r in rows) for i in range(len(rows[0]))]

    def line(row: Sequence[str]) -> str:
        cells = (c.rjust(w) if figures and i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True)))
        return "  ".join(cells).rstrip()

    return [line(r) for r in rows]
