"""Shared fixtures: a real ZooKeeper (from pyspark's jars), the librdkafka mock cluster, a compiled JVM stand-in."""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from kazoo.client import KazooClient
from textual.css.query import NoMatches

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.zookeeper.server import ZooKeeperServer
from kafkatop.tui.live.screens.confirm import ConfirmScreen

FIXTURES = Path(__file__).parent / "fixtures"
NEEDS_KAFKA = "needs a real Kafka: set KAFKA_HOME to an Apache Kafka install to run (e.g. /opt/kafka_2.13-4.1.0)"


@pytest.fixture(autouse=True)
def _confirmations_armed_at_once(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pilot presses y in the same instant as the key that asked (a typist's next key comes 0.1 s later), which
    ConfirmScreen takes for a word typed on: its arming delay is off in every test but those about it (`arming`)."""
    if request.node.get_closest_marker("arming") is None:
        monkeypatch.setattr(ConfirmScreen, "ARMING_S", 0.0)


@pytest.fixture(autouse=True)
def _audit_trail_kept_apart(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The writes tests send are audited (tui/cli/audit.py) to $XDG_STATE_HOME/kafkatop/audit.jsonl: one folder for
    the session, never the developer's own trail (a test that sets XDG_STATE_HOME itself sets it after this)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-state"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The one place that decides: tests marked `kafka` run against a real Apache Kafka (KAFKA_HOME), and are skipped,
    saying so, where it is unset."""
    if os.environ.get("KAFKA_HOME"):
        return
    skip = pytest.mark.skip(reason=NEEDS_KAFKA)
    for item in items:
        if "kafka" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def kafka_home() -> Path:
    """The Apache Kafka install of the `kafka` tests."""
    home = Path(os.environ["KAFKA_HOME"])
    if not (home / "bin" / "kafka-server-start.sh").is_file():
        pytest.fail(f"KAFKA_HOME={home} has no bin/kafka-server-start.sh: not an Apache Kafka install")
    return home


T = TypeVar("T")


def wait_for(condition: Callable[[], T], timeout_s: float = 10.0, interval_s: float = 0.02, what: str = "") -> T:
    """Poll `condition` until it returns something truthy; fail with `what` after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what or condition}")
        time.sleep(interval_s)


@pytest.fixture(scope="session")
def zookeeper_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ZooKeeperServer]:
    """One real ZooKeeper for the session; tests isolate themselves with a chroot each (see `zk_chroot`)."""
    server = ZooKeeperServer(tmp_path_factory.mktemp("zookeeper"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


_chroots = itertools.count()


@pytest.fixture
def zk_chroot(zookeeper_server: ZooKeeperServer) -> Iterator[tuple[str, KazooClient]]:
    """A fresh chroot on the session's ZooKeeper: (connect string with chroot, a client inside it)."""
    chroot = f"/kafkatop-test-{next(_chroots)}"
    hosts = f"{zookeeper_server.address}{chroot}"
    root = KazooClient(hosts=zookeeper_server.address)
    root.start(timeout=10)
    root.ensure_path(chroot)
    client = KazooClient(hosts=hosts)
    client.start(timeout=10)
    try:
        yield hosts, client
    finally:
        client.stop()
        client.close()
        root.delete(chroot, recursive=True)
        root.stop()
        root.close()


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No developer's file leaks in: XDG_CONFIG_HOME, XDG_STATE_HOME and the working folder are tmp_path's (contexts
    are read from ~/.config/kafkatop/config.toml and ./kafkatop.toml)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def mock_cluster() -> Iterator[MockCluster]:
    with MockCluster(3) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def standin_classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The compiled `kafka.Kafka` stand-in (tests/fixtures/standin): a real JVM with Kafka's main class."""
    javac = shutil.which("javac")
    if javac is None:
        pytest.fail("javac not found: the process tests need a JDK (Java 17) to build their stand-in broker")
    out = tmp_path_factory.mktemp("standin-classes")
    subprocess.run([javac, "-d", str(out), str(FIXTURES / "standin" / "kafka" / "Kafka.java")], check=True, timeout=120)
    return out


@pytest.fixture
def spawn() -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    """Start child processes that are always killed (by pid, their own process group) and reaped at the end."""
    started: list[subprocess.Popen[bytes]] = []

    def _spawn(cmd: list[str], **kw: object) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(cmd, start_new_session=True, **kw)  # type: ignore[call-overload]
        started.append(proc)
        return proc

    yield _spawn
    for proc in started:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait(10)


def _holds(condition: Callable[[], object]) -> bool:
    """A condition that queries a widget of a screen still being composed (a context switch swaps the main screen)
    does not hold yet; it is asked again."""
    try:
        return bool(condition())
    except NoMatches:
        return False


async def pilot_until(
    pilot: Any, condition: Callable[[], object], what: str = "the condition", timeout_s: float = 15.0
) -> None:
    """In a Textual pilot test: let the app run until `condition()` holds; fail with `what` after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not _holds(condition):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        await pilot.pause(0.02)
