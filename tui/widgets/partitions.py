"""The partition table: what `kafka-topics.sh --describe` prints, live, with watermarks, faults coloured."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from kafkatop.backends.model import ClusterSnapshot, Partition


def _ids(ids: tuple[int, ...], dead: tuple[int, ...] = ()) -> Text:
    text = Text()
    for i, b in enumerate(ids):
        if i:
            text.append(",")
        text.append(str(b), style="red strike" if b in dead else "")
    return text


def partition_row(p: Partition) -> tuple[str | Text, ...]:
    style = "bold red" if p.offline else "yellow" if p.under_replicated else ""
    leader = Text("-1 (offline)" if p.offline else str(p.leader), style=style)
    if not p.offline and not p.leader_is_preferred:
        leader.append(" *", style="dim")  # not the preferred leader (first replica)
    return (
        Text(p.topic, style=style),
        str(p.id),
        leader,
        _ids(p.replicas, p.offline_replicas),
        Text(",".join(map(str, p.isr)), style=style),
        "-" if p.low_watermark is None else str(p.low_watermark),
        "-" if p.high_watermark is None else str(p.high_watermark),
        "-" if p.messages is None else str(p.messages),
    )


class PartitionTable(DataTable[str | Text]):
    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.add_columns("topic", "partition", "leader", "replicas", "isr", "low", "high", "messages")

    def show(self, snapshot: ClusterSnapshot) -> None:
        self.clear()
        for p in snapshot.partitions:
            self.add_row(*partition_row(p), key=f"{p.topic}-{p.id}")
