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
