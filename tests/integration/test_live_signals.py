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

import psutil
import pytest

from tests.conftest import wait_for

LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"
ENTER_ALTERNATE_SCREEN = b"\x1b[?1049h"


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


def demo_on_a_pty(tmp_path: Path, *python_args: str) -> tuple[int, subprocess.Popen[bytes]]:
    """`python PYTHON_ARGS --demo` on a pty of 100x30, in a session of its own: (the pty's leader side, the process)."""
    leader, follower = pty.openpty()
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path), "COLUMNS": "100", "LINES": "30"}
    proc = subprocess.Popen(
        [sys.executable, *python_args, "--demo"],
        stdin=follower, stdout=follower, stderr=follower, env=env, start_new_session=True,
    )  # fmt: skip
    os.close(follower)
    return leader, proc


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_quits_the_live_view_and_gives_the_terminal_back(tmp_path: Path, sig: signal.Signals) -> None:
    leader, proc = demo_on_a_pty(tmp_path, "-m", "kafkatop.tui.cli")
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


# `kafkatop --demo` with the pty as its controlling terminal (the session's leader, as a terminal window's or a tmux
# pane's command): closing the terminal then sends it SIGHUP and SIGCONT, from the kernel.
CONTROLLED = """
import fcntl, sys, termios
fcntl.ioctl(0, termios.TIOCSCTTY, 0)
from kafkatop.tui.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_closed_controlling_terminal_ends_the_live_view(tmp_path: Path) -> None:
    """Textual's driver took the kernel's SIGCONT for a return from Ctrl-Z and started its writer again on the dead
    terminal; that writer died on EIO, and the way out waited for ever on its full queue (with a terminal that reports
    its size in band, as this one says it does, the queue is one write fuller: full). Tested with the lab, the
    recording and `kafkatop down` beside it in tests/integration/test_live_exits.py."""
    leader, proc = demo_on_a_pty(tmp_path, "-c", CONTROLLED)
    try:
        shown = read_until(leader, proc, b"\x1b[?2048$p", timeout_s=60)  # asked whether it reports its size in band
        os.write(leader, b"\x1b[?2048;2$y")  # it does
        if b"broker-3" not in shown:
            read_until(leader, proc, b"broker-3", timeout_s=60)  # the demo is on screen
        os.close(leader)
        leader = -1
        assert proc.wait(timeout=30) == 128 + signal.SIGHUP
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        if leader >= 0:
            os.close(leader)


def test_a_suspended_live_view_resumes(tmp_path: Path) -> None:
    """Only the SIGCONT after a suspension (Ctrl-Z, SIGTSTP) resumes the app, as before: the terminal given back, then
    taken again (the alternate screen left and entered anew), and q still quits. A SIGCONT with no suspension
    before it changes nothing."""
    leader, proc = demo_on_a_pty(tmp_path, "-m", "kafkatop.tui.cli")
    try:
        read_until(leader, proc, b"broker-3", timeout_s=60)
        proc.send_signal(signal.SIGCONT)  # no suspension before it: nothing to resume
        later = read_until(leader, proc, b"\x1b", timeout_s=30)  # the app goes on drawing
        proc.send_signal(signal.SIGTSTP)
        later += read_until(leader, proc, LEAVE_ALTERNATE_SCREEN, timeout_s=30)
        assert ENTER_ALTERNATE_SCREEN not in later  # the first SIGCONT took nothing anew
        wait_for(lambda: psutil.Process(proc.pid).status() == psutil.STATUS_STOPPED, timeout_s=10, what="a stop")
        proc.send_signal(signal.SIGCONT)
        read_until(leader, proc, ENTER_ALTERNATE_SCREEN, timeout_s=30)
        os.write(leader, b"q")
        read_until(leader, proc, LEAVE_ALTERNATE_SCREEN, timeout_s=30)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        os.close(leader)
