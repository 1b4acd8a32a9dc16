"""The machine a benchmark runs on and what the process costs it: load, busy CPU, resident memory, versions.

psutil is imported where it is used: a child process that only measures does not load it before it must.
"""

from __future__ import annotations

import os
from typing import Any


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f} (1 min) {five:.2f} (5 min), {os.cpu_count()} CPUs"


def machine_busy() -> float:
    """CPU seconds the whole machine spent busy so far, all cores added (idle and iowait are not busy)."""
    import psutil

    t = psutil.cpu_times()
    return float(sum(t) - t.idle - getattr(t, "iowait", 0.0))


def rss_mb() -> float:
    """This process's resident memory, MB."""
    import psutil

    return float(psutil.Process().memory_info().rss) / 2**20


def version_str(v: Any) -> str:
    """confluent_kafka.version()/libversion() answer (str, int) in most releases, a bare str in some."""
    return str(v[0] if isinstance(v, tuple) else v)


class BusyProcesses:
    """`count` processes that keep a CPU busy each (`while True: pass`), for figures taken "at load N": started on
    entering, killed on leaving (by pid, only these)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._procs: list[Any] = []

    def __enter__(self) -> BusyProcesses:
        import subprocess
        import sys
        import time

        self._procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(self.count)]
        time.sleep(3.0)  # running, and the scheduler sharing the CPUs among them
        return self

    def __exit__(self, *exc: object) -> None:
        for proc in self._procs:
            proc.kill()
        for proc in self._procs:
            proc.wait(10)
        self._procs = []
