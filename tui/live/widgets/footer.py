"""Textual's footer, rebuilt once for a burst of binding changes: a new screen's mount, resume and first focus change
its bindings five times in one go, and each rebuild cost 25–78 ms of a context switch (bench/context_switch.py)."""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class CoalescingFooter(Footer):
    _rebuild_due = False

    def bindings_changed(self, screen: Screen[object]) -> None:
        if self._rebuild_due:
            self._bindings_ready = True
            return  # the rebuild asked for reads the bindings as they are when it runs
        super().bindings_changed(screen)
        # Textual asks for a rebuild only in these conditions (textual/widgets/_footer.py)
        self._rebuild_due = bool(screen.app.app_focus and self.is_attached and screen is self.screen)

    async def recompose(self) -> None:
        self._rebuild_due = False
        await super().recompose()
