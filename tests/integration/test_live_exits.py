"""Every way out of the live view, with a lab cluster it started: q, ctrl+c, SIGTERM, SIGHUP with the terminal
gone, SIGINT, a bug in the app, and q with --detach. The app runs as a user runs it: `kafkatop` in a terminal (a
pty), on a lab of REAL child processes (a real ZooKeeper and a stand-in broker JVM, see
tests/fixtures/standin_install.py) on free ports. After each way out, what the app started is stopped, or, with
--detach, left running and said so."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.kafka_homes import open_install
from kafkatop.backends.lab.spec import ClusterSpec
from kafkatop.backends.lab.state import STATE_FILE
from kafkatop.backends.model.nodes import NodeState
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from tests.conftest import wait_for
from tests.fixtures.standin_install import make_standin_install
from tests.integration.test_supervisor import free_port_block

# The child: kafkatop's own entry point; "error" first makes a bug of the app's (a TEST DOUBLE of one: a handler
# that raises once the lab is up); "stuck", a Textual driver that never gives the terminal back (a TEST DOUBLE: its
# close waits for ever); "tty" makes the pty its controlling terminal, as a terminal window's or a tmux pane's command
# has it (the session's leader: closing the terminal then sends it SIGHUP and SIGCONT, from the kernel).
CHILD = """
import sys
from kafkatop.tui.cli.main import main
if sys.argv[1] == "tty":
    import fcntl, termios
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
if sys.argv[1] == "stuck":
    import threading
    from textual.drivers.linux_driver import LinuxDriver
    LinuxDriver.close = lambda self: threading.Event().wait()
if sys.argv[1] == "error":
    from kafkatop.tui.live.app import KafkatopApp
    shown = KafkatopApp.on_polled
    def failing(self, message):
        shown(self, message)
        if message.source == "nodes" and all(n.state.value == "up" for n in message.snapshot.nodes):
            raise RuntimeError("a bug in a pane")
    KafkatopApp.on_polled = failing
sys.exit(main(sys.argv[2:]))
"""


ANSI = re.compile(r"\x1b(\[[0-9;?<>=$]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")


# Asked whether it reports its size in band (mode 2048), a terminal that does answers "supported, not set"; Textual
# then sets the mode, and resets it on its way out (one write more).
IN_BAND_RESIZE_ASKED = b"\x1b[?2048$p"
IN_BAND_RESIZE_SUPPORTED = b"\x1b[?2048;2$y"


class Terminal:
    """`kafkatop` in a pty of 120x40, its output drained (a full pty would block the app). `controlling`: the pty is
    the app's controlling terminal (see CHILD); `in_band_resize`: the terminal says it reports its size in band."""

    def __init__(self, args: list[str], way: str, *, controlling: bool = False, in_band_resize: bool = False) -> None:
        self.in_band_resize = in_band_resize
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, way if way in ("error", "stuck") else "tty" if controlling else "-", *args],
            stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True,
        )  # fmt: skip
        os.close(slave)
        self.output = bytearray()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)  # EIO once every holder of the pty's other end has closed it
            except OSError:
                return
            if not chunk:
                return
            self.output += chunk
            ending_here = self.output[-(len(chunk) + len(IN_BAND_RESIZE_ASKED) - 1) :]  # a question asked just now
            if self.in_band_resize and IN_BAND_RESIZE_ASKED in ending_here:
                try:
                    self.type(IN_BAND_RESIZE_SUPPORTED.decode())
                except OSError:  # closed meanwhile
                    return

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def close(self) -> None:
        """The terminal goes away: reads fail from now on (EIO), as when a terminal window is closed. Once only: a
        second close would close whatever file got the number since (a later test's pipe)."""
        master, self.master = self.master, -1
        if master >= 0:
            os.close(master)

    def finish(self) -> None:
        """After the app exited: read what it wrote last (its goodbye line), then close."""
        self._reader.join(timeout=5)
        self.close()

    def text(self) -> str:
        """What was written, without the escape sequences."""
        return ANSI.sub("", self.output.decode("utf-8", "replace"))


@pytest.fixture
def lab(tmp_path: Path, standin_classes: Path) -> Iterator[LabCluster]:
    home = make_standin_install(tmp_path / "install", standin_classes, "3.9.0")
    ports = free_port_block(12)
    spec = ClusterSpec(
        name="exits", brokers=1, base_port=ports, zookeeper_port=ports + 8, controller_port=ports + 4, heap="32m"
    )
    cluster, _ = LabCluster.create_or_open(tmp_path / "state", open_install(home), spec)
    yield cluster
    try:
        cluster.down(timeout_s=5)
    finally:
        for node in LabCluster.open(cluster.state_dir).snapshot().nodes:
            if node.pid is not None and psutil.pid_exists(node.pid):
                psutil.Process(node.pid).kill()


def up_pids(lab: LabCluster) -> list[int] | None:
    nodes = LabCluster.open(lab.state_dir).snapshot().nodes
    if all(n.state is NodeState.UP and n.pid is not None for n in nodes):
        return [n.pid for n in nodes if n.pid is not None]
    return None


def why_not_restarted(text: str, lab: LabCluster) -> str:
    """What the view said about broker-1 and its restart (the notices scroll by), its log's tail and the state file:
    enough to tell a refused start from a start that failed."""
    said = list(dict.fromkeys(line.strip() for line in text.splitlines() if "restart" in line or "broker-1" in line))
    state = lab.state_dir / STATE_FILE
    return "\n".join([
        "the view said:", *said[-40:], "broker-1's log:", lab.log_tail("broker-1", 30),
        "state:", state.read_text() if state.is_file() else "(no state file)", "screen:", text[-1500:],
    ])  # fmt: skip


WAYS = {
    # way: (exit status, what the user is told)
    "q": (0, "stopping zookeeper, broker-1 of lab cluster 'exits', started here"),
    "ctrl+c": (0, "stopping zookeeper, broker-1 of lab cluster 'exits', started here"),
    "SIGTERM": (128 + signal.SIGTERM, "quit on SIGTERM"),
    "SIGHUP": (128 + signal.SIGHUP, None),  # the terminal is gone: nobody to tell
    "SIGINT": (128 + signal.SIGINT, "quit on SIGINT"),
    "error": (1, "RuntimeError: a bug in a pane"),
    "detach": (0, "lab cluster 'exits' left running (--detach)"),
}


@pytest.mark.parametrize("way", list(WAYS))
def test_every_way_out_stops_what_the_app_started(lab: LabCluster, way: str) -> None:
    args = ["--state-dir", str(lab.state_dir.parent), "--name", "exits", "--interval", "0.5"]
    if way == "detach":
        args.append("--detach")
    term = Terminal(args, way)
    try:
        pids = wait_for(lambda: up_pids(lab), timeout_s=60, interval_s=0.2, what="the app to start the lab")
        assert pids is not None and len(pids) == 2
        time.sleep(1.0)  # the app has drawn the nodes up
        if way in ("q", "detach"):
            term.type("q")
        elif way == "ctrl+c":
            term.type("\x03")  # the key, in the app's raw mode: not a SIGINT
        elif way == "SIGHUP":
            term.close()
            os.kill(term.proc.pid, signal.SIGHUP)
        elif way != "error":
            os.kill(term.proc.pid, getattr(signal, way))
        status = term.proc.wait(timeout=60)
    finally:
        if term.proc.poll() is None:
            os.killpg(term.proc.pid, signal.SIGKILL)
            term.proc.wait(10)
        term.finish()
    expected_status, told = WAYS[way]
    assert status == expected_status, term.text()[-2000:]
    if told is not None:
        assert told in term.text(), term.text()[-2000:]
    assert "; exiting" not in term.text()  # the watchdog (tui/cli/ending.py) let the way out finish
    alive = [p for p in pids if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
    if way == "detach":
        assert alive == pids  # left running on purpose; the fixture stops them
        assert LabCluster.open(lab.state_dir).snapshot().nodes[0].state is NodeState.UP
    else:
        assert alive == [], f"left running after {way}: {alive}"
        assert "Traceback" not in term.text() or way == "error"


def alive_of(pids: list[int]) -> list[int]:
    return [p for p in pids if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]


@pytest.mark.parametrize("way", ["q", "SIGTERM"])
def test_a_driver_that_never_lets_go_ends_after_the_lab_is_stopped(lab: LabCluster, way: str) -> None:
    """Whatever Textual's driver does, the way out ends: a watchdog, started when it begins, stops the lab nodes the
    app started (the way out's own unwinding, which the stuck app never reached), then ends the process, saying so.
    Not before LET_GO_S: a way out that takes its time is not cut short."""
    args = ["--state-dir", str(lab.state_dir.parent), "--name", "exits", "--interval", "0.5"]
    term = Terminal(args, "stuck")
    try:
        pids = wait_for(lambda: up_pids(lab), timeout_s=60, interval_s=0.2, what="the app to start the lab")
        assert pids is not None and len(pids) == 2
        time.sleep(1.0)  # the app has drawn the nodes up
        t0 = time.monotonic()
        if way == "q":
            term.type("q")
        else:
            os.kill(term.proc.pid, signal.SIGTERM)
        status = term.proc.wait(timeout=60)
        took = time.monotonic() - t0
    finally:
        if term.proc.poll() is None:
            os.killpg(term.proc.pid, signal.SIGKILL)
            term.proc.wait(10)
        term.finish()
    assert status == (1 if way == "q" else 128 + signal.SIGTERM), term.text()[-2000:]
    assert took >= 9.5, f"ended {took:.1f} s after the way out began: the watchdog fired early"
    assert "kafkatop: the terminal did not let go within 10 s; exiting" in term.text(), term.text()[-2000:]
    assert "stopping zookeeper, broker-1 of lab cluster 'exits', started here" in term.text(), term.text()[-2000:]
    assert alive_of(pids) == [], "the watchdog ended kafkatop before the lab it started was stopped"


# The most a closed terminal may keep kafkatop alive (before, it could be for ever: point 7 of issue 23): the
# watchdog's LET_GO_S (tui/cli/ending.py), with room for a loaded machine. It should not take the watchdog.
GONE_WITHIN_S = 30.0


def test_a_closed_terminal_ends_the_live_view_of_a_found_lab(tmp_path: Path, standin_classes: Path) -> None:
    """As `tmux kill-session` on `kafkatop --state-dir S --record F` attached to a lab it found running, while
    `kafkatop down` and `rm -rf S` run beside it. The terminal is the app's controlling terminal: closing it sends
    the app SIGHUP and SIGCONT. Textual's driver took the SIGCONT for a return from Ctrl-Z and started a second writer
    thread on the dead terminal, which died on EIO; the way out then queued 30 writes for it (one of them because the
    terminal had said it reports its size in band), and the 31st, the writer's stop, waited for ever (SIGTERM ignored,
    as every signal is once the way out has begun). Now the process is gone at once, its recording complete, and
    nothing it started (nor the lab, stopped by `down`) is left."""
    from kafkatop.backends.recording.file import read_recording

    home = make_standin_install(tmp_path / "install", standin_classes, "3.9.0")
    ports = free_port_block(12)
    spec = ClusterSpec(
        name="found", brokers=1, base_port=ports, zookeeper_port=ports + 8, controller_port=ports + 4, heap="32m"
    )
    root = tmp_path / "state"
    record = tmp_path / "session.jsonl.gz"
    cluster, _ = LabCluster.create_or_open(root, open_install(home), spec)
    pids: list[int] = []
    started: list[int] = []  # what the live view started itself (none expected: it attaches)
    term: Terminal | None = None
    down: subprocess.Popen[bytes] | None = None
    try:
        cluster.up(timeout_s=60)
        found = wait_for(lambda: up_pids(cluster), timeout_s=10, what="the lab to be up")
        assert found is not None and len(found) == 2
        pids = found
        args = ["--state-dir", str(root), "--name", "found", "--interval", "0.5", "--record", str(record)]
        term = Terminal(args, "-", controlling=True, in_band_resize=True)
        shown = term
        wait_for(lambda: "zookeeper" in shown.text() and "broker-1" in shown.text(), timeout_s=60, what="the live view")
        time.sleep(1.0)  # a few polls recorded
        started = [c.pid for c in psutil.Process(term.proc.pid).children(recursive=True)]
        down = subprocess.Popen(
            [sys.executable, "-m", "kafkatop.tui.cli", "down", "--state-dir", str(root), "--name", "found"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        stopping = down

        def then_remove() -> None:  # `kafkatop down && rm -rf S`
            if stopping.wait(60) == 0:
                shutil.rmtree(root)

        beside = threading.Thread(target=then_remove, daemon=True)
        beside.start()
        term.close()  # the terminal goes, as tmux kill-session takes it
        t0 = time.monotonic()
        try:
            status = term.proc.wait(timeout=GONE_WITHIN_S)
        except subprocess.TimeoutExpired:
            threads = len(psutil.Process(term.proc.pid).threads())
            late = f"kafkatop still running {GONE_WITHIN_S} s after its terminal closed ({threads} threads)"
            raise AssertionError(late) from None
        took = time.monotonic() - t0
        beside.join(60)
        assert down.wait(timeout=1) == 0 and not root.exists()
    finally:
        if term is not None:
            if term.proc.poll() is None:
                os.killpg(term.proc.pid, signal.SIGKILL)
                term.proc.wait(10)
            term.close()
        if down is not None and down.poll() is None:
            down.kill()
            down.wait(10)
        for pid in alive_of(pids + started):
            psutil.Process(pid).kill()
    assert status == 128 + signal.SIGHUP
    assert took < 9.5, f"gone only after {took:.1f} s: the watchdog ended it, the terminal did not let go"
    assert alive_of(started) == [] and alive_of(pids) == []
    assert read_recording(record).entries  # the way out closed the recording, as on every way out


@pytest.mark.arming  # the view runs in its own process: its confirmations are armed as a user's are
def test_a_lab_found_running_is_left_running_with_the_nodes_restarted_in_it(
    tmp_path: Path, standin_classes: Path
) -> None:
    """`kafkatop up --detach`, then the live view, where the user restarts broker-1 (`R`, `y`): on `q` the lab is left
    as it was found — all of it running, the broker restarted from the view too — and the view says so."""
    home = make_standin_install(tmp_path / "install", standin_classes, "3.9.0")
    ports = free_port_block(12)
    spec = ClusterSpec(
        name="kept", brokers=1, base_port=ports, zookeeper_port=ports + 8, controller_port=ports + 4, heap="32m"
    )
    root = tmp_path / "state"
    cluster, _ = LabCluster.create_or_open(root, open_install(home), spec)
    term: Terminal | None = None
    try:
        cluster.up(timeout_s=60)
        cluster.release()  # as `up --detach` leaves it
        found = wait_for(lambda: up_pids(cluster), timeout_s=10, what="the lab to be up")
        assert found is not None and len(found) == 2
        term = Terminal(["--state-dir", str(root), "--name", "kept", "--interval", "0.5"], "-")
        shown = term
        wait_for(lambda: "broker-1" in shown.text(), timeout_s=60, what="the live view")
        time.sleep(2.0)  # the lab polled and drawn: the keys act on it
        term.type("0")
        time.sleep(0.3)
        term.type("j")  # zookeeper, then broker-1
        time.sleep(0.3)
        term.type("R")
        wait_for(lambda: "Restart broker-1" in shown.text(), timeout_s=10, what="the restart's confirmation")
        time.sleep(ConfirmScreen.ARMING_S)  # read, as a person does: a y sooner is taken for a word typed on
        term.type("y")
        try:
            restarted = wait_for(
                lambda: (pids := up_pids(cluster)) is not None and pids[1] != found[1] and pids,
                timeout_s=60, interval_s=0.2, what="broker-1 restarted from the view",
            )  # fmt: skip
        except AssertionError:
            raise AssertionError(why_not_restarted(shown.text(), cluster)) from None
        time.sleep(1.0)
        term.type("q")
        assert term.proc.wait(timeout=60) == 0
        term.finish()
        assert "lab cluster 'kept' left running (as found)" in term.text(), term.text()[-2000:]
        assert isinstance(restarted, list) and alive_of(restarted) == restarted
    finally:
        if term is not None and term.proc.poll() is None:
            os.killpg(term.proc.pid, signal.SIGKILL)
            term.proc.wait(10)
        cluster.down(timeout_s=5)
