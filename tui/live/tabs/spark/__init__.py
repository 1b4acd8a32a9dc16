"""Spark: a topic counted per partition by PySpark (a separate Spark process), once or live."""

from __future__ import annotations

from pathlib import Path

from kafkatop.tui.live.tabs.spark.keys import ACTIONS, SPARK, SparkKeys
from kafkatop.tui.live.tabs.spark.pane import SparkPane
from kafkatop.tui.live.tabs.tab import Tab, showing

CSS = Path(__file__).with_name("spark.tcss")  # its rules: layout and colour beside the tab
TAB = Tab(
    SPARK,
    "Spark",
    showing(lambda c: SparkPane(c.sources.spark, clock=c.clock)),
    ACTIONS,
    SparkKeys,
    css=CSS,
    purpose="a topic counted per partition by PySpark, once or live",
)
