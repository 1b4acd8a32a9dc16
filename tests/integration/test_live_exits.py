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
from kafkatop.backends.lab.install import open_install
from kafkatop.backends.lab.spec import ClusterSpec
from kafkatop.backends.model.nodes import NodeState
from tests.conftest import wait_for
from tests.fixtures.standin_install import make_standin_install
from tests.integration.test_supervisor import free_port_block

# The child: kafkatop's own entry point; "error" first makes a bug of the app's (a TEST DOUBLE of one: a handler
# that raises once the lab is up).
CHILD = """
import sys
from kafkatop.tui.cli.main import main
if sys.argv[1] == "error":
    from kafkatop.tui.live.app import KafkatopApp
    shown = KafkatopApp.on_nodes_polled
    def failing(self, message):
        shown(self, message)
        if all(n.state.value == "up" for n in message.snapshot.nodes):
            raise RuntimeError("a bug in a pane")
    KafkatopApp.on_nodes_polled = failing
sys.exit(main(sys.argv[2:]))
"""


ANSI = re.compile(r"\x1b(\[[0-9;?<>=$]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")


class Terminal:
    """`kafkatop` in a pty of 120x40, its output drained (a full pty would block the app)."""

    def __init__(self, args: list[str], way: str) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, "error" if way == "error" else "-", *args],
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
    alive = [p for p in pids if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
    if way == "detach":
        assert alive == pids  # left running on purpose; the fixture stops them
        assert LabCluster.open(lab.state_dir).snapshot().nodes[0].state is NodeState.UP
    else:
        assert alive == [], f"left running after {way}: {alive}"
        assert "Traceback" not in term.text() or way == "error"
