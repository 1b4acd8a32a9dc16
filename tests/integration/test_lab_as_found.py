"""A lab is shown as found (issue 38, point 9), by the live view on a lab of REAL processes — a stand-in Kafka install
whose ZooKeeper is real and whose brokers are stand-in JVMs (tests/fixtures/standin_install.py) — driven headless
(`compose_app(..., terminal=False)`, Textual's pilot):
- broker 1 stopped and broker 2 killed -9 (to watch ELR), then the view opened: neither is started again, poll after
  poll, the view says so, and quitting leaves the running node running;
- a read-only context on a stopped lab: nothing started, no key that starts, stops or adds a node acts, and the lab's
  state file is not written, on the way out either.
On a real Kafka 4.1: tests/integration/test_lab_as_found_kafka.py. Ports: 19500-19699, this module's own range."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.runner import port_is_free
from kafkatop.backends.lab.state import STATE_FILE
from kafkatop.backends.model.nodes import ControlError, NodesSnapshot, NodeState
from kafkatop.tui.cli.compose import compose_app, compose_sources
from kafkatop.tui.cli.contexts import apply_context
from kafkatop.tui.cli.parser import build_parser
from kafkatop.tui.live.app import KafkatopApp
from tests.conftest import pilot_until, wait_for
from tests.integration.test_supervisor import Clusters, dead, kafka39  # noqa: F401 - fixtures used here

pytestmark = pytest.mark.timeout(240)

POLLS = 5  # node polls watched after the first frame: long enough for a start-up's lab.up() to have shown


def port_block(count: int, low: int = 19500, high: int = 19700) -> int:
    """A first port in [low, high) with `count` free ports after it."""
    for base in range(low, high - count):
        if all(port_is_free(base + i) for i in range(count)):
            return base
    raise AssertionError(f"no {count} free ports in {low}-{high}")


def make_lab(clusters: Clusters, home: Path, name: str) -> LabCluster:  # noqa: F811
    """ZooKeeper and brokers 1 and 2 (a stand-in Kafka 3.9: ZooKeeper mode), on this module's ports."""
    base = port_block(10)
    return clusters.make(home, name=name, brokers=2, base_port=base, controller_port=base + 4, zookeeper_port=base + 8)


def notices(app: KafkatopApp) -> list[str]:
    return [n.message for n in app._notifications]  # noqa: SLF001 - what the user was told


async def watch_polls(pilot: object, app: KafkatopApp, count: int) -> list[NodesSnapshot]:
    """The next `count` node polls the view shows."""
    seen: list[NodesSnapshot] = []

    def another() -> bool:
        nodes = app.view.nodes
        if nodes is not None and (not seen or nodes.taken_at != seen[-1].taken_at):
            seen.append(nodes)
        return len(seen) >= count

    await pilot_until(pilot, another, f"{count} node polls", timeout_s=60)
    return seen


@pytest.fixture
def found_args(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The developer's own contexts and state stay out: the live view reads only tmp_path's."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    yield tmp_path


async def test_nodes_found_stopped_or_killed_stay_so(
    kafka39: Path,  # noqa: F811
    clusters: Clusters,  # noqa: F811
    found_args: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    lab = make_lab(clusters, kafka39, "e")
    lab.up(timeout_s=90)
    lab.stop("broker-1")  # as `kafkatop stop broker-1`
    killed = lab.snapshot().node("broker-2").pid
    assert killed is not None
    os.kill(killed, signal.SIGKILL)  # as `kill -9` from a shell: kafkatop still means it to run (failed)
    wait_for(lambda: lab.snapshot().node("broker-2").pid is None, timeout_s=10, what="broker-2 gone")
    zookeeper = lab.snapshot().node("zookeeper").pid
    assert zookeeper is not None

    args = build_parser().parse_args(["--name", "e", "--state-dir", str(lab.state_dir.parent), "--interval", "0.3"])
    with ExitStack() as stack:
        app = compose_app(args, stack, terminal=False)
        async with app.run_test(size=(120, 40)) as pilot:
            polls = await watch_polls(pilot, app, POLLS)
            for nodes in polls:
                assert [(n.name, n.state, n.pid is None) for n in nodes.nodes] == [
                    ("zookeeper", NodeState.UP, False), ("broker-1", NodeState.DOWN, True),
                    ("broker-2", NodeState.FAILED, True),
                ], nodes  # fmt: skip
            said = notices(app)
            assert any("broker-1 (down), broker-2 (failed) not running: shown as found" in m for m in said), said
            timeline = app.view.timeline
            assert timeline is None or not timeline.incidents  # found so: no incident of the view's own making
    out = capsys.readouterr().out
    assert "lab cluster 'e' left running (as found)" in out, out
    nodes = LabCluster.open(lab.state_dir).snapshot()
    assert [n.pid is None for n in nodes.nodes] == [False, True, True]
    assert nodes.node("zookeeper").pid == zookeeper  # left running, as found

    # Shown again after a switch back (the switcher hands the lab it opened), a lab is neither started nor adopted
    # anew: one this kafkatop started, running now, is still stopped on the way out.
    started_here = LabCluster.open(lab.state_dir)
    with ExitStack() as stack:
        sources, _, same = compose_sources(args, stack, terminal=False, lab=started_here)
    assert same is started_here and not started_here.adopted and sources.startup is None


async def test_a_read_only_context_on_a_stopped_lab_starts_nothing(
    kafka39: Path,  # noqa: F811
    clusters: Clusters,  # noqa: F811
    found_args: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    lab = make_lab(clusters, kafka39, "rolab")
    state = lab.state_dir / STATE_FILE
    recorded = state.read_bytes()
    (found_args / "kafkatop.toml").write_text(
        f'[contexts.rolab]\nlab = "rolab"\nstate-dir = "{lab.state_dir.parent}"\nread-only = true\n'
    )
    args = build_parser().parse_args(["--context", "rolab", "--interval", "0.3"])
    apply_context(args)
    hint = "context 'rolab' is read-only: kafkatop starts nothing here; `kafkatop up --name rolab --state-dir "
    with ExitStack() as stack:
        app = compose_app(args, stack, terminal=False)
        assert app.sources.startup is None and app.settings.read_only
        async with app.run_test(size=(120, 40)) as pilot:
            await watch_polls(pilot, app, 2)
            await pilot.press("0")  # the process table
            for key in ("s", "t", "K", "R", "a", "A"):  # start, stop, kill -9, restart, add broker, add connector
                await pilot.press(key)
            said = notices(app)
            for refused in ("s (start)", "t (stop)", "K (kill -9)", "R (restart)", "a (add broker)",
                            "A (add connector)"):  # fmt: skip
                assert any(f"context 'rolab' is read-only: {refused} writes" in m for m in said), (refused, said)
            control = app.sources.control
            assert control is not None
            with pytest.raises(ControlError, match="context 'rolab' is read-only: start broker-1 writes"):
                control.start("broker-1")  # and the port refuses too, whatever asks
            for nodes in await watch_polls(pilot, app, POLLS):
                assert all(n.pid is None and n.state is NodeState.DOWN for n in nodes.nodes), nodes
                assert all(n.detail is not None and hint in n.detail for n in nodes.nodes), nodes
            assert any("lab cluster 'rolab' is not running; " + hint in m for m in said), said
    assert "lab cluster 'rolab' left as found: none of its nodes runs" in capsys.readouterr().out
    assert state.read_bytes() == recorded  # nothing written, on the way out either
    assert all(n.pid is None for n in LabCluster.open(lab.state_dir).snapshot().nodes)
