"""The cluster's feature levels in the Quorum tab, as `kafka-features.sh describe` (and `kafkatop features`) prints
them: what the broker asked supports, and what the cluster has finalized. The poll re-reads them rarely; this draws
the snapshot's."""

from __future__ import annotations

from rich import box
from rich.text import Text

from kafkatop.backends.model.features import FeatureLevels, level_text
from kafkatop.tui.live.text import Table


def features_table(levels: FeatureLevels) -> Table:
    epoch = "-" if levels.epoch is None else str(levels.epoch)
    table = Table(
        title=f"feature levels · epoch {epoch} · from {levels.broker}",
        title_justify="left",
        expand=True,
        box=box.SIMPLE_HEAD,
        padding=(0, 1, 0, 0),
        pad_edge=False,
    )
    for column in ("feature", "supported min", "supported max", "finalized"):
        table.add_column(column, no_wrap=True)
    for f in levels.features:
        finalized = level_text(f.name, f.finalized_level)
        table.add_row(
            f.name,
            level_text(f.name, f.supported_min),
            level_text(f.name, f.supported_max),
            # 0 is off; below what the broker supports, an upgrade is possible (kafka-features.sh upgrade).
            Text(
                finalized,
                style="dim" if f.finalized_level == 0 else "yellow" if f.finalized_level < f.supported_max else "",
            ),
        )
    return table
