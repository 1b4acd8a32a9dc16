"""Where the tab bar hides tabs: a lab's twelve tabs overflow 80 columns, and Textual's bar scrolls them out of sight
with no sign ("Me…", and no Connect nor ACLs to be seen). A marker at each end says how many tabs lie beyond it
(`◂ 2`, `3 ▸`); a click there shows the nearest of them, and `?` lists them all."""

from __future__ import annotations

from typing import Literal

from textual import events
from textual.containers import Container
from textual.widgets import Tab, Tabs

from kafkatop.tui.live.text import Static

Side = Literal["left", "right"]


class TabMarker(Static):
    """How many tabs the bar hides on its side (docked there, so it covers none)."""

    def __init__(self, side: Side) -> None:
        super().__init__("", id=f"tabs-beyond-{side}", classes="tab-marker")
        self.side: Side = side
        self.beyond: list[Tab] = []

    def show_count(self, beyond: list[Tab]) -> None:
        self.beyond = beyond
        self.display = bool(beyond)
        count = len(beyond)
        self.update(f"◂ {count} " if self.side == "left" else f" {count} ▸")
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
        tabs.mount(self.left, before=scroll)
        tabs.mount(self.right, after=scroll)
        for attribute in ("scroll_x", "virtual_size"):
            tabs.watch(scroll, attribute, lambda _: self.update(), init=False)

    def update(self) -> None:
        """After the bar's layout: which tabs lie wholly or partly out of its sight, on each side."""
        self.tabs.call_after_refresh(self._count)

    def _count(self) -> None:
        scroll = self.tabs.query_one("#tabs-scroll", Container)
        start, end = scroll.scroll_x, scroll.scroll_x + scroll.size.width
        shown = [t for t in self.tabs.query("#tabs-list > Tab").results(Tab) if t.display]
        before = self.left.display, self.right.display
        # A tab whose label is cut counts (its padding may be out of sight: the label is whole).
        self.left.show_count([t for t in shown if t.virtual_region.x + t.styles.gutter.left < start])
        self.right.show_count([t for t in shown if t.virtual_region.right - t.styles.gutter.right > end])
        if (self.left.display, self.right.display) != before:
            # A marker came or went: the bar's sight is narrower or wider now. The active tab back in the middle
            # of it (the bar centred it in the sight before), and count again.
            if (active := self.tabs.active_tab) is not None:
                self.tabs.call_after_refresh(scroll.scroll_to_center, active, animate=False, force=True)
            self.update()
