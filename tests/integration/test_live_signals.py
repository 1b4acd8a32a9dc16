"""The live view on a real terminal (a pty): SIGTERM and SIGHUP quit it as q does — the terminal given back (the
app's alternate screen left), exit 128 + the signal's number as a shell reports it — instead of ending the process
where it stood. (With a lab cluster started by the app: tests/integration/test_live_exits.py.)"""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"


def read_until(fd: int, proc: subprocess.Popen[bytes], wanted: bytes, timeout_s: float) -> bytes:
    out = b""
    deadline = time.monotonic() + timeout_s
    while wanted not in out:
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {wanted!r}; got {out[-300:]!r}")
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                out += os.read(fd, 65536)
            except OSError:  # the pty closed: the process has gone
                break
    return out


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_quits_the_live_view_and_gives_the_terminal_back(tmp_path: Path, sig: signal.Signals) -> None:
    leader, follower = pty.openpty()
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path), "COLUMNS": "100", "LINES": "30"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kafkatop.tui.cli", "--demo"],
        stdin=follower, stdout=follower, stderr=follower, env=env, start_new_session=True,
    )  # fmt: skip
    os.close(follower)
    try:
        read_until(leader, proc, b"broker-3", timeout_s=60)  # the demo is on screen
        proc.send_signal(sig)
        tail = read_until(leader, proc, LEAVE_ALTERNATE_SCREEN, timeout_s=30)
        assert proc.wait(timeout=30) == 128 + sig
        assert b"Traceback" not in tail
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        os.close(leader)
