"""A part of the live view that draws itself from the app's LiveView: at once while it is on screen, and again when
it is shown (its tab brought to the front) — so tabs out of sight cost nothing, and nothing has to remember to
redraw them."""

from __future__ import annotations

from textual.widget import Widget

from kafkatop.tui.live.state import LiveView


class LivePane:
    """Mixed into a widget: the app feeds every pane each new LiveView; `draw` renders it."""

    _fed: LiveView | None = None

    def feed(self, view: LiveView) -> None:
        self._fed = view
        if isinstance(self, Widget) and self.is_on_screen:
            self.draw(view)

    def redraw(self) -> None:
        """Draw the last view again (after a change of the pane's own, such as a picked topic)."""
        if self._fed is not None:
            self.draw(self._fed)

    def on_show(self) -> None:
        self.redraw()

    def draw(self, view: LiveView) -> None:
        raise NotImplementedError
