"""The partition table's cells: what each column holds as styled text, the colours of its faults, the widths the
columns need (worked out from the values, without drawing), and a row drawn as one line of segments."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from kafkatop.backends.insight.history import HistorySnapshot, Metric
from kafkatop.backends.model.cluster import Partition, Topic
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.tui.format import data_size, rate, sparkline
from kafkatop.tui.live.text import name_cell

COLUMNS = (
    "topic", "partition", "leader", "replicas", "isr", "min isr", "elr", "low", "high", "messages", "size",
    "isr history", "msg/s",
)  # fmt: skip
ISR_TREND, RATE_TREND = COLUMNS.index("isr history"), COLUMNS.index("msg/s")
SIZE = COLUMNS.index("size")  # the leader's replica's bytes on disk (the brokers' log directories, every 30 s)
SIZE_WIDTH = len("1023.9 MiB")  # data_size's widest
TREND_WIDTH = 10  # samples drawn per sparkline: the last ten polls

OFFLINE = "bold red"
UNDER_MIN_ISR = "bold magenta"  # acks=all producers are refused: worse than under-replicated, not yet offline
UNDER_REPLICATED = "yellow"

Piece = tuple[str, str]  # text and a Rich style string
Cell = tuple[Piece, ...]


@lru_cache(maxsize=4096)
def _ids(ids: tuple[int, ...], dead: tuple[int, ...] = (), style: str = "") -> Cell:
    pieces: list[Piece] = []
    for i, b in enumerate(ids):
        if i:
            pieces.append((",", style))
        pieces.append((str(b), f"{style} red strike" if b in dead else style))  # a replica on a dead broker
    return tuple(pieces)


@lru_cache(maxsize=4096)
def _leader(leader: int, offline: bool, preferred: bool, style: str) -> Cell:
    if offline:
        return (("-1 offline", style),)
    if not preferred:
        return ((str(leader), style), (" *", "dim"))  # not the preferred leader (first replica)
    return ((str(leader), style),)


def _min_isr(min_isr: int | None, under: bool) -> Cell:
    if min_isr is None:
        return (("-", "dim"),)
    return ((f"{min_isr} !", UNDER_MIN_ISR),) if under else ((str(min_isr), ""),)


def elr_cell(p: Partition, under_min_isr: bool) -> Cell:
    """The eligible leader replicas (KIP-966). Where the ISR is below min.insync.replicas (or empty: offline), which
    replicas may still be elected cleanly — the ISR and the ELR, every one holding each committed record — struck
    through where their broker is down; with none, the last known ELR. `-`: not read."""
    if p.elr is None:
        return (("-", "dim"),)
    return _elr(p.elr, p.last_known_elr, p.isr, p.replicas, p.offline_replicas, p.leader < 0, under_min_isr)


Ids = tuple[int, ...]


@lru_cache(maxsize=4096)  # rows in the same state share one cell: a failover puts thousands in a few states
def _elr(elr: Ids, last: Ids | None, isr: Ids, replicas: Ids, dead: Ids, offline: bool, under: bool) -> Cell:
    known = f"last known {','.join(map(str, last))}" if last else ""
    if not (under or offline):
        return (*_ids(elr), (f" · {known}" if elr else known, "dim")) if known else _ids(elr)
    style = OFFLINE if offline else UNDER_MIN_ISR
    clean = tuple(r for r in replicas if r in isr or r in elr)
    head: Cell = (*(_ids(elr) if elr else (("none", "dim"),)), (" → clean: ", style))
    if clean:
        return (*head, *_ids(clean, dead, style))
    return (*head, ("none", style), (f" ({known})" if known else "", "dim"))


def elr_width(parts: Sequence[Partition], min_isr: int | None) -> int:
    """The ELR column's width over `parts`: a pass of attribute tests, the cell worked out once per state where it
    says more than the ELR (under min ISR, offline, a last known ELR)."""
    width = 1
    states: set[tuple[Ids, Ids | None, Ids, Ids, Ids, bool, bool]] = set()
    for p in parts:
        elr = p.elr
        if elr is None:
            continue
        offline = p.leader < 0
        under = min_isr is not None and not offline and len(p.isr) < min_isr
        if under or offline or p.last_known_elr:
            states.add((elr, p.last_known_elr, p.isr, p.replicas, p.offline_replicas, offline, under))
        elif elr:
            width = max(width, _ids_width(elr))
    return max(width, *(len(cell_text(_elr(*state))) for state in states)) if states else width


def partition_row(
    p: Partition,
    changed: bool = False,
    isr_trend: str = "",
    rate_trend: str = "",
    min_isr: int | None = None,
    size: int | None = None,
) -> tuple[Cell, ...]:
    """A row's cells as styled pieces; the styled ones are shared between rows in the same state. `min_isr`: the
    topic's min.insync.replicas (None: not read); `size`: its leader's replica's bytes (None: not read)."""
    under_min_isr = p.under_min_isr(min_isr)
    fault = OFFLINE if p.offline else UNDER_MIN_ISR if under_min_isr else UNDER_REPLICATED if p.under_replicated else ""
    style = f"{fault} reverse" if changed else fault
    return (
        ((name_cell(p.topic), fault),),  # a mock's topic may be named anything, Kafka's 249 characters
        ((str(p.id), fault),),
        _leader(p.leader, p.offline, p.leader_is_preferred, style),
        _ids(p.replicas, p.offline_replicas),
        _ids(p.isr, (), style),
        _min_isr(min_isr, under_min_isr),
        elr_cell(p, under_min_isr),
        (("-" if p.low_watermark is None else str(p.low_watermark), ""),),
        (("-" if p.high_watermark is None else str(p.high_watermark), ""),),
        (("-" if p.messages is None else str(p.messages), ""),),
        (("-", "dim"),) if size is None else ((data_size(size), ""),),
        ((isr_trend, "yellow" if isr_trend and isr_trend[-1] != isr_trend[0] else "dim"),),
        ((rate_trend, "cyan"),),
    )


def trends(history: HistorySnapshot | None, p: Partition) -> tuple[str, str]:
    """The trend cells' text: ISR size over the window (a dip is a failover seen afterwards), the rate of records."""
    if history is None:
        return "", ""
    tp = TopicPartition(p.topic, p.id)
    isr, rates = history.isr_size(tp)[-TREND_WIDTH:], history.records_per_s(tp)[-TREND_WIDTH:]
    rate_text = f"{sparkline(rates, TREND_WIDTH)} {rate(rates[-1])}" if rates else ""
    return sparkline(isr, TREND_WIDTH, top=float(len(p.replicas))), rate_text


def cell_text(cell: Cell) -> str:
    return "".join(text for text, _ in cell)


# --- widths ----------------------------------------------------------------------------------------------------------
@lru_cache(maxsize=4096)
def _ids_width(ids: tuple[int, ...]) -> int:
    return len(",".join(map(str, ids)))


def _digits(value: int | None) -> int:
    return 1 if value is None else len(str(value))


def topic_widths(topic: Topic, parts: Sequence[Partition]) -> tuple[int, ...]:
    """The widths (topic to messages, ELR included) that `parts`, the topic's partitions or those the filter kept,
    need, from their values without drawing them: from the summary of the topic (worked out in the poll's worker), or
    for the filter's, of a topic of those alone. Only the ELR's goes over the partitions, and only where it was read."""
    summary = (topic if parts is topic.partitions else replace(topic, partitions=tuple(parts))).summary
    moved = summary.non_preferred_leaders
    extent = summary.extent
    top = extent.largest_leader  # an offline partition's is -1
    leader = max(
        len("-1 offline") if summary.offline else 0,
        len(str(top)) if top >= 0 else 0,
        len(str(max(p.leader for p in moved))) + 2 if moved else 0,  # " *": not the preferred leader
    )
    min_isr = topic.min_insync_replicas
    return (
        len(name_cell(topic.name)),
        _digits(extent.largest_id),
        leader,
        max(map(_ids_width, extent.replica_lists), default=0),
        max(map(_ids_width, extent.isr_lists), default=0),
        0 if min_isr is None else len(str(min_isr)) + (2 if summary.under_min_isr else 0),
        elr_width(parts, min_isr),
        _digits(extent.largest_low),
        _digits(extent.largest_high),
        _digits(summary.largest),
    )


# Above this many rows, the trend columns are as wide as the widest of the whole history (worked out once per poll),
# not of the rows shown: a keystroke of `/` must not look up 20,000 series.
EXACT_TRENDS_UP_TO = 1_000


class TrendWidths:
    """The widths of the trend columns over the rows shown, from the series' lengths and last rates, as drawn. Over
    many rows, those of the whole history, kept for the history they were worked out from."""

    def __init__(self) -> None:
        self._whole: tuple[HistorySnapshot, tuple[int, int]] | None = None

    def __call__(
        self, history: HistorySnapshot, rows: Sequence[Partition], isr_width: int, rate_width: int
    ) -> tuple[int, int]:
        if len(rows) > EXACT_TRENDS_UP_TO:
            isr_all, rate_all = self._of_whole(history)
            return max(isr_width, isr_all), max(rate_width, rate_all)
        isr = [len(history.isr_size(TopicPartition(p.topic, p.id))) for p in rows]
        rates = [history.records_per_s(TopicPartition(p.topic, p.id)) for p in rows]
        return _trend_widths_of(isr, rates, isr_width, rate_width)

    def _of_whole(self, history: HistorySnapshot) -> tuple[int, int]:
        if self._whole is not None and self._whole[0] is history:
            return self._whole[1]
        isr, rates = history.extent(Metric.ISR_SIZE), history.extent(Metric.RECORDS_PER_S)
        below = rates.largest_below(999_950)
        above = rates.lasts[-1] if rates.lasts and rates.lasts[-1] >= 999_950 else None
        widths = _trend_widths(isr.longest, rates.longest, below, above, 0, 0)
        self._whole = (history, widths)
        return widths


def _trend_widths_of(
    isr: list[int], rates: Sequence[tuple[float, ...]], isr_width: int, rate_width: int
) -> tuple[int, int]:
    lasts = [r[-1] for r in rates if r]
    below = [v for v in lasts if v < 999_950]
    above = [v for v in lasts if v >= 999_950]
    samples = max((len(r) for r in rates), default=0)
    return _trend_widths(
        max(isr, default=0), samples, max(below, default=None), max(above, default=None), isr_width, rate_width
    )


def _trend_widths(
    isr_samples: int, rate_samples: int, below: float | None, above: float | None, isr_width: int, rate_width: int
) -> tuple[int, int]:
    """`below`, `above`: the largest last rate under 999,950/s and the largest from there. rate()'s text grows with the
    rate below 1 M/s ("999.9k/s"; 999,950 is "1000.0k/s"), and again above: the widest is one of the two."""
    if rate_samples:
        text = max(len(rate(below)) if below is not None else 0, len(rate(above)) if above is not None else 0)
        rate_width = max(rate_width, min(rate_samples, TREND_WIDTH) + 1 + text)
    return max(isr_width, min(isr_samples, TREND_WIDTH)), rate_width


# --- drawing ---------------------------------------------------------------------------------------------------------
@lru_cache(maxsize=256)
def _style(spec: str) -> Style:
    return Style.parse(spec) if spec.strip() else Style()


@lru_cache(maxsize=1024)
def _on(base: Style, spec: str) -> Style:
    return base + _style(spec) if spec else base


def draw_line(cells: Sequence[Cell], columns: Sequence[int], widths: Sequence[int], base: Style) -> Strip:
    """The cells of `columns`, each padded to its width with a space either side, on `base`. Text in one style runs
    into one segment (a plain cell and its padding are one): Textual's compositor and its colour filter then go over
    a few segments a line, not three a cell."""
    segments: list[Segment] = []
    run: list[str] = []
    current = base
    for i in columns:
        used = 0
        if current is not base:
            segments.append(Segment("".join(run), current))
            run, current = [], base
        run.append(" ")
        for text, spec in cells[i]:
            style = _on(base, spec) if spec else base
            if style is not current:
                segments.append(Segment("".join(run), current))
                run, current = [], style
            run.append(text)
            used += len(text)
        pad = " " * (widths[i] - used + 1)
        if current is not base:
            segments.append(Segment("".join(run), current))
            run, current = [], base
        run.append(pad)
    if run:
        segments.append(Segment("".join(run), current))
    return Strip(segments, sum(widths[i] + 2 for i in columns))
