"""When Python's cyclic garbage collector runs in the live view: not in a frame's way.

At 10,000 partitions the live view holds close to a million objects the collector tracks (each poll's snapshot, the
history's series, the timeline's events). Left to itself, Python collects all of them every few polls, 250 ms at a time
on this machine, in whichever frame or keystroke comes next (bench/scale.py counts the full collections). Here, what
survives a frame is frozen: the automatic collections then only go over what came since the last frame, a few
milliseconds. Frozen objects are never collected, so that a cycle frozen while alive and dropped later is not kept
for ever, everything is unfrozen and collected once every FULL_EVERY_S, after a frame. Acyclic objects, a poll's
snapshot among them, are freed as soon as the last reference goes, frozen or not.

CPython holds a full collection back until the long-lived objects grew by a quarter; frozen ones are not counted, so
once frozen that rule always passes and every 10th collection of the middle generation is a full one. At 10,000
partitions that was two per poll in the poll worker (holding the GIL: a keystroke waits), 10–35 ms each, freeing
nothing. So while frozen, a full collection comes after FULL_AFTER_YOUNG middle ones (ten times CPython's default).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

FULL_EVERY_S = 600.0
FULL_AFTER_YOUNG = 100


class Collector:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._full_at = clock()

    def settled(self) -> None:
        """A frame was drawn: what is alive now is kept out of the automatic collections."""
        now = self._clock()
        if now - self._full_at >= FULL_EVERY_S:
            self._full_at = now
            gc.unfreeze()
            gc.collect()
        gc.freeze()
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, FULL_AFTER_YOUNG)


_COLLECTOR = Collector()


def after_the_frame(retired: list[object]) -> None:
    """`app.screen.call_after_refresh(app.call_later, after_the_frame, [old_view])`: what a poll replaced is freed after
    the frame, not in its way (39,000 partitions, their history and timeline: ~10 ms of freeing, where the last
    reference goes). The screen's call_after_refresh, not the app's: the screen runs it once idle with nothing left to
    draw (Screen._on_idle), where the app's ran before the frame. As a message of the app's own, it makes the app's
    message loop let go of the poll's message, which it would otherwise hold until the next message (a keystroke);
    the old view is in a list emptied here, as this message is held in turn. Then the collector is settled."""
    retired.clear()
    _COLLECTOR.settled()


_TRIM: list[Callable[[int], int] | None] = []  # glibc's malloc_trim, looked up once; [None] where there is none


def trim_heap() -> None:
    """Hand what the last poll freed back to the system (glibc's malloc_trim; elsewhere nothing). At 39,000
    partitions a poll's snapshots, answers and librdkafka's metadata come and go in many threads' malloc arenas, which
    glibc keeps as free space: the view's resident memory grew to ~550 MB where ~20 MB was Python's (bench/scale.py
    --shape anchor). Called in the poll's worker, before its poll: ctypes lets go of the GIL for the call."""
    if not _TRIM:
        try:
            import ctypes

            libc = ctypes.CDLL("libc.so.6")
            _TRIM.append(libc.malloc_trim)
        except (OSError, AttributeError):  # not glibc: musl, macOS
            _TRIM.append(None)
    if (trim := _TRIM[0]) is not None:
        trim(0)
