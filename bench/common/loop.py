"""The event loop's lag: how late a short sleep wakes, again and again, while something else runs on the loop."""

from __future__ import annotations

import asyncio
import time


class LoopLag:
    """A task that sleeps `period_s` in a loop from start() until stop(); `samples` holds (perf_counter when it
    woke, ms late) for each sleep."""

    def __init__(self, period_s: float = 0.010) -> None:
        self.period_s = period_s
        self.samples: list[tuple[float, float]] = []
        self._running = False
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._running = True
        self._task = asyncio.get_running_loop().create_task(self._probe())

    async def stop(self) -> None:
        """Ends the probe after the sleep under way (its sample counts)."""
        self._running = False
        if self._task is not None:
            await self._task

    @property
    def lags_ms(self) -> list[float]:
        return [lag for _, lag in self.samples]

    async def _probe(self) -> None:
        while self._running:
            t0 = time.perf_counter()
            await asyncio.sleep(self.period_s)
            t1 = time.perf_counter()
            self.samples.append((t1, (t1 - t0 - self.period_s) * 1000))
