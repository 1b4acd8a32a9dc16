"""Produce: the producer console (acks, idempotence, key, headers, formats); opens in its topic field."""

from __future__ import annotations

from kafkatop.tui.live.tabs.produce.pane import ProducerPane
from kafkatop.tui.live.tabs.tab import Tab, showing

TAB = Tab(
    "tab-produce",
    "Produce",
    showing(
        lambda c: ProducerPane(c.sources.consoles, c.settings.read_only_reason, c.sources.codec, c.sources.schemas)
    ),
    work_field="#produce-topic",
    purpose="the producer console: records typed and sent, acks, key, headers, formats",
)
