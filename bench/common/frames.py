"""When a headless Textual app draws its frames: the screen's compositor refresh, wrapped (measuring hooks only).

The app is typed `Any`: a benchmark may drive the app of another tree (bench/scale.py's "today").
"""

from __future__ import annotations

import time
from typing import Any


def frames_drawn(app: Any) -> list[float]:
    """When each frame finished drawing, appended as they are drawn."""
    times: list[float] = []
    screen = app.screen
    original = screen._compositor_refresh

    def timed() -> None:
        original()
        times.append(time.perf_counter())

    screen._compositor_refresh = timed
    return times


def first_after(times: list[float], t: float) -> float | None:
    """The first frame finished at or after `t`."""
    return next((f for f in times if f >= t), None)


def frame_spans(app: Any, encode: bool = True) -> list[tuple[float, float]]:
    """(start, end) of each frame drawn.

    With `encode`, the hook also turns each update into the terminal's escape sequences, which a headless app skips
    (App._display returns early when headless) and a real terminal pays for on every frame.
    """
    times: list[tuple[float, float]] = []
    screen = app.screen
    original = screen._compositor_refresh
    original_display = app._display

    def display(screen: Any, renderable: Any) -> None:
        if renderable is not None and hasattr(renderable, "render_segments"):
            renderable.render_segments(app.console)
        original_display(screen, renderable)

    def timed() -> None:
        t0 = time.perf_counter()
        original()
        times.append((t0, time.perf_counter()))

    screen._compositor_refresh = timed
    if encode:
        app._display = display
    return times


class FrameWatch:
    """Frames as a terminal user sees them: each frame's end and the widgets it drew, for timing an interaction
    without Textual's Pilot.

    `Pilot.press` and `Pilot.pause` wait by queueing a callback on every widget of the screen (about 170 in kafkatop)
    and then force a frame: inside the measured window, that is work a real terminal never sees, and a frame drawn
    because the test asked. Here a key goes in as the driver delivers it (`App._post_message` of a Key event), or a
    message is posted as a worker does; the app is then left alone for `settle_s`, and the interaction's time is the
    end of the last frame in that window that drew one of the widgets it changes.
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.frames: list[tuple[float, frozenset[Any]]] = []  # (end, widgets drawn)
        screen = app.screen
        compositor = screen._compositor
        original_update, original_refresh = compositor.update_widgets, screen._compositor_refresh
        dirty: set[Any] = set()

        def update_widgets(widgets: Any) -> None:
            dirty.update(widgets)
            original_update(widgets)

        def refresh() -> None:
            original_refresh()
            self.frames.append((time.perf_counter(), frozenset(dirty)))
            dirty.clear()

        compositor.update_widgets = update_widgets
        screen._compositor_refresh = refresh

    async def time(self, act: Any, *changed: Any, settle_s: float = 0.15) -> float:
        """Milliseconds from `act()` to the end of the last frame that drew one of `changed` (a frame of the whole
        screen counts), the app left alone for `settle_s` after it; NaN when no such frame was drawn."""
        import asyncio

        await asyncio.sleep(settle_s)  # whatever came before is drawn, and the screen's update timer is idle
        self.frames.clear()
        t0 = time.perf_counter()
        act()
        await asyncio.sleep(settle_s)
        screen = self.app.screen
        ends = [end for end, drawn in self.frames if screen in drawn or not drawn.isdisjoint(changed)]
        return (max(ends) - t0) * 1000 if ends else float("nan")

    def key(self, key: str) -> Any:
        """An act: `key` as the terminal's driver delivers it."""
        from textual import events

        def press() -> None:
            event = events.Key(key, key if len(key) == 1 else None)
            event.set_sender(self.app)
            self.app.post_message(event)

        return press
