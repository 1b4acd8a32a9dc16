"""The Spark tab's keys: the palette's count from anywhere; `g` and `l` are its pane's (scope "spark")."""

from __future__ import annotations

from functools import partial

from kafkatop.tui.live.action import LiveAction
from kafkatop.tui.live.tabs.spark.pane import SparkPane
from kafkatop.tui.live.tabs.tab import TabScreen

SPARK = "tab-spark"
_COUNT = partial(LiveAction, section="Spark", scope="spark", needs="spark", footer=True)

# fmt: off
ACTIONS: tuple[LiveAction, ...] = (
    LiveAction("spark-count", (), "spark_count", "Count",
        help="the Spark tab, counting the picked topic per partition (`g` there)",
        section="Spark", palette="Count the topic with Spark", needs="spark"),
    _COUNT("count", ("g",), "count", "Count",
        help="count the picked topic per partition with Spark"),
    _COUNT("live-counts", ("l",), "live", "Live counts",
        help="live counts from a streaming query"),
)
# fmt: on


class SparkKeys:
    def __init__(self, screen: TabScreen) -> None:
        self.screen = screen

    def action_spark_count(self) -> None:
        self.screen.show_tab(SPARK)
        self.screen.query_one(SparkPane).action_count()
