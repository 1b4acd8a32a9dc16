"""Child processes a benchmark started: ended by their own pid, never by name."""

from __future__ import annotations

import os
import signal
import subprocess
from typing import Any


def wait_or_kill(proc: subprocess.Popen[Any], timeout_s: float, *, group: bool = False) -> bool:
    """Waits up to `timeout_s` for `proc` to exit, then kills it (with `group`, its whole process group: a child
    started with start_new_session leads its own). Returns whether it had to be killed."""
    try:
        proc.wait(timeout_s)
        return False
    except subprocess.TimeoutExpired:
        if group:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
        proc.wait()
        return True


def quit_and_wait(proc: subprocess.Popen[str], timeout_s: float) -> bool:
    """Asks a child that reads commands on stdin (a mock cluster's host) to quit, then waits for it as wait_or_kill
    does. Returns whether it had to be killed."""
    assert proc.stdin is not None
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    return wait_or_kill(proc, timeout_s)
