"""Playing a recording back through the live view: its entries delivered in order, with the time between them
(divided by the speed), pausable and steppable. The app delivers each entry exactly as it delivers what a live source
polled, so the same panes, timeline and history draw it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from kafkatop.backends.model.recording import Recorded, Recording

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
LONGEST_WAIT_S = 10.0  # a quiet stretch of the recording is played in at most this long (at 1×)


@dataclass(frozen=True, slots=True)
class ReplayState:
    delivered: int  # entries delivered so far
    total: int
    at: float | None  # the recorded time of the last entry delivered
    paused: bool
    speed: float

    @property
    def ended(self) -> bool:
        return self.delivered >= self.total


# A recording names what the view had beside the cluster poll in its own words (a file format, kept as written).
_RECORDED_AS = {"clients": "consoles", "ensemble": "poll_ensemble"}


class Replay:
    """Thread-safe: run() runs in a worker thread; the keys call pause/resume/step/faster/slower on the UI thread."""

    def __init__(self, recording: Recording, speed: float = 1.0, paused: bool = False) -> None:
        if not speed > 0:
            raise ValueError(f"the speed must be a positive number, not {speed:g}")
        self.recording = recording
        self.name = ""  # the file's name, for the banner
        self._speed = speed
        self._paused = paused
        self._steps = 0  # entries to deliver while paused
        self._delivered = 0
        self._at: float | None = None
        self._stop = False
        self._changed = threading.Condition()

    # --- what the app shows -----------------------------------------------------------------------------------
    def sources(self) -> frozenset[str]:
        """What the recorded view had, named as the live view's Sources members are (the cluster poll aside)."""
        return frozenset(_RECORDED_AS.get(s, s) for s in self.recording.header.sources)

    def state(self) -> ReplayState:
        with self._changed:
            return ReplayState(self._delivered, len(self.recording.entries), self._at, self._paused, self._speed)

    def clock(self) -> float:
        """The recorded time now: of the last entry delivered (the recording's start before the first)."""
        at = self._at
        return at if at is not None else self.recording.header.started_at

    # --- the keys --------------------------------------------------------------------------------------------------
    def toggle(self) -> None:
        with self._changed:
            self._paused = not self._paused
            self._steps = 0
            self._changed.notify_all()

    def step(self, entries: int = 1) -> None:
        """Paused: deliver the next `entries` at once."""
        with self._changed:
            self._paused = True
            self._steps += entries
            self._changed.notify_all()

    def faster(self) -> None:
        self._set_speed(+1)

    def slower(self) -> None:
        self._set_speed(-1)

    def _set_speed(self, direction: int) -> None:
        with self._changed:
            index = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - self._speed))
            self._speed = SPEEDS[max(0, min(len(SPEEDS) - 1, index + direction))]
            self._changed.notify_all()

    def stop(self) -> None:
        with self._changed:
            self._stop = True
            self._changed.notify_all()

    # --- the worker ------------------------------------------------------------------------------------------------
    def run(self, deliver: Callable[[Recorded], None], cancelled: Callable[[], bool],
            progressed: Callable[[], object] = bool) -> None:  # fmt: skip
        """Delivers each entry in its turn until the end or `cancelled()`; `progressed()` after each, and at the end."""
        try:
            self._run(deliver, cancelled, progressed)
        finally:
            progressed()

    def _run(self, deliver: Callable[[Recorded], None], cancelled: Callable[[], bool],
             progressed: Callable[[], object]) -> None:  # fmt: skip
        entries = self.recording.entries
        previous_at = entries[0].at if entries else None
        for entry in entries:
            if not self._wait_turn(entry.at - previous_at if previous_at is not None else 0.0, cancelled):
                return
            deliver(entry)
            previous_at = entry.at
            with self._changed:
                self._delivered += 1
                self._at = entry.at
            progressed()

    def _wait_turn(self, gap_s: float, cancelled: Callable[[], bool]) -> bool:
        """Until this entry's turn: its time after the last one (at the speed), or a step while paused. False when
        the replay is to stop."""
        with self._changed:
            waited = 0.0  # time actually waited while playing (a key wakes the wait early; a pause does not count)
            while True:
                if self._stop or cancelled():
                    return False
                if self._paused:
                    if self._steps > 0:
                        self._steps -= 1
                        return True
                    self._changed.wait(0.2)
                    continue
                due = min(max(gap_s, 0.0), LONGEST_WAIT_S) / self._speed
                if waited >= due:
                    return True
                began = time.monotonic()
                self._changed.wait(min(0.2, due - waited))
                waited += time.monotonic() - began
