"""The live view's tabs, in the tab bar's order (the number keys count them): a new tab is a package beside these, its
declaration a `Tab` (tabs/tab.py), and one line here."""

from __future__ import annotations

from kafkatop.tui.live.tabs import (
    acls,
    brokers,
    connect,
    consume,
    groups,
    log,
    messages,
    partitions,
    produce,
    quorum,
    schemas,
    spark,
    timeline,
)
from kafkatop.tui.live.tabs.tab import Tab

TABS: tuple[Tab, ...] = (
    partitions.TAB,
    brokers.TAB,
    produce.TAB,
    consume.TAB,
    groups.TAB,
    log.TAB,
    quorum.TAB,
    spark.TAB,
    timeline.TAB,
    # After the nine with digits, so that they keep their numbers: b, N, W and H show these from anywhere.
    messages.TAB,
    connect.TAB,
    acls.TAB,
    schemas.TAB,
)
