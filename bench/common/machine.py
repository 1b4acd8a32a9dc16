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
