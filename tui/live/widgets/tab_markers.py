"""Where the tab bar hides tabs: a lab's twelve tabs overflow 80 columns, and Textual's bar scrolls them out of sight
with no sign ("Me…", and no Connect nor ACLs to be seen). A marker at each end says how many tabs lie beyond it
(`◂ 2`, `3 ▸`); a click there shows the nearest of them, and `?` lists them all. The markers lie over the bar's ends
(position absolute): the bar keeps its width, so where Textual scrolls it to centre the active tab stays true."""

from __future__ import annotations

from typing import Literal

from textual import events
from textual.containers import Container
from textual.widgets import Tab, Tabs

from kafkatop.tui.live.text import Static

Side = Literal["left", "right"]
MARK = 4  # a marker's width: `◂ 2 ` or ` 2 ▸`


class TabMarker(Static):
    """How many tabs the bar hides on its side (over the bar's end: the tabs there are counted as hidden)."""

    def __init__(self, side: Side) -> None:
        super().__init__("", id=f"tabs-beyond-{side}", classes="tab-marker")
        self.side: Side = side
        self.beyond: list[Tab] = []

    def show_count(self, beyond: list[Tab]) -> None:
        self.beyond = beyond
        self.display = bool(beyond)
        count = len(beyond)
        self.update(f"◂ {count} " if self.side == "left" else f" {count} ▸")  # MARK wide (up to 9 tabs a side)
        self.tooltip = "hidden here: " + ", ".join(str(t.label.plain) for t in beyond) if beyond else None

    def on_click(self, event: events.Click) -> None:
        event.stop()
        if self.beyond and isinstance(tabs := self.parent, Tabs):
            nearest = self.beyond[-1] if self.side == "left" else self.beyond[0]
            if nearest.id is not None:
                tabs.active = nearest.id  # the tab is shown, and the bar scrolls to it


class TabMarkers:
    """The two markers of one tab bar, kept true as it scrolls, changes its tabs or its width."""

    def __init__(self, tabs: Tabs) -> None:
        self.tabs = tabs
        self.left, self.right = TabMarker("left"), TabMarker("right")
        scroll = tabs.query_one("#tabs-scroll", Container)
        tabs.mount(self.left, self.right, after=scroll)  # after: drawn over the bar
        for attribute in ("scroll_x", "virtual_size"):
            tabs.watch(scroll, attribute, lambda _: self.update(), init=False)

    def update(self) -> None:
        """Which tabs lie wholly or partly out of the bar's sight, on each side; worked out at once from the scroll
        position and the tabs' places (not after a refresh: a screenshot or a key may come first). The sight is the
        bar less the markers shown over its ends: a marker that comes hides what is under it, so the count is
        settled before it is shown."""
        tabs = self.tabs
        scroll = tabs.query_one("#tabs-scroll", Container)
        shown = [t for t in tabs.query("#tabs-list > Tab").results(Tab) if t.display]
        start, full = scroll.scroll_x, tabs.size.width
        left: list[Tab] = []
        right: list[Tab] = []
        for _ in range(3):  # settles: a marker only narrows the sight
            low, high = start + MARK * bool(left), start + full - MARK * bool(right)  # what the markers leave in sight
            # A tab whose label is cut counts (its padding may be out of sight: the label is whole).
            now_left = [t for t in shown if t.virtual_region.x + t.styles.gutter.left < low]
            now_right = [t for t in shown if t.virtual_region.right - t.styles.gutter.right > high]
            if (bool(now_left), bool(now_right)) == (bool(left), bool(right)):
                left, right = now_left, now_right
                break
            left, right = now_left, now_right
        self.left.show_count(left)
        self.right.show_count(right)
        self.right.styles.offset = (max(0, full - MARK), 0)
