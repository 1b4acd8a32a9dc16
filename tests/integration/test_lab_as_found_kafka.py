"""A lab is shown as found (issue 38, point 9), on a real Apache Kafka 4.1: a KRaft lab of one controller and two
brokers, opened by the live view (headless: `compose_app(..., terminal=False)`, Textual's pilot).
- Stopped, through a read-only context: nothing is started (not one node, poll after poll), no key starts one, and
  the lab's state file is not written, on the way out either.
- Running with broker 1 stopped (an experiment in progress): broker 1 stays stopped, poll after poll, while the view
  reads the cluster from broker 2; quitting leaves the controller and broker 2 running, as found.
Both on one lab: a start is ~30 s on a small machine. Ports: 19500-19699."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import psutil
import pytest

from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.state import STATE_FILE
from kafkatop.backends.model.nodes import NodeState
from kafkatop.tui.cli.compose import compose_app
from kafkatop.tui.cli.contexts import apply_context
from kafkatop.tui.cli.parser import build_parser
from tests.conftest import pilot_until
from tests.integration.test_lab_as_found import POLLS, found_args, notices, port_block, watch_polls  # noqa: F401
from tests.integration.test_supervisor import Clusters

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(420)]


async def test_a_kraft_lab_is_shown_as_found(
    clusters: Clusters,
    kafka_home: Path,
    found_args: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = port_block(12)
    lab = clusters.make(kafka_home, name="found", mode="kraft", controllers=1, brokers=2, heap="256m",
                        base_port=base, controller_port=base + 5, zookeeper_port=base + 10)  # fmt: skip
    root = lab.state_dir.parent
    names = [n.name for n in lab.snapshot().nodes]
    assert names == ["controller-101", "broker-1", "broker-2"]

    # 1. Stopped, through a read-only context: nothing started, nothing written.
    state = lab.state_dir / STATE_FILE
    recorded = state.read_bytes()
    (found_args / "kafkatop.toml").write_text(f'[contexts.rolab]\nlab = "found"\nstate-dir = "{root}"\n'
                                              "read-only = true\n")  # fmt: skip
    args = build_parser().parse_args(["--context", "rolab", "--interval", "0.5"])
    apply_context(args)
    with ExitStack() as stack:
        app = compose_app(args, stack, terminal=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("0", "s", "a")  # the process table, then start and add broker: refused
            for nodes in await watch_polls(pilot, app, POLLS):
                assert all(n.pid is None and n.state is NodeState.DOWN for n in nodes.nodes), nodes
            said = notices(app)
            assert any("lab cluster 'found' is not running; context 'rolab' is read-only" in m for m in said), said
            assert any("s (start) writes to the cluster" in m for m in said), said
    assert "lab cluster 'found' left as found: none of its nodes runs" in capsys.readouterr().out
    assert state.read_bytes() == recorded
    assert all(n.pid is None for n in LabCluster.open(lab.state_dir).snapshot().nodes)

    # 2. Running, broker 1 stopped: it stays stopped, and quitting leaves the rest running.
    lab.up(timeout_s=180)
    lab.stop("broker-1")  # as `kafkatop stop broker-1`: controlled shutdown
    found = {n.name: n.pid for n in lab.snapshot().nodes}
    assert found["broker-1"] is None and found["controller-101"] is not None and found["broker-2"] is not None
    args = build_parser().parse_args(["--name", "found", "--state-dir", str(root), "--interval", "0.5"])
    with ExitStack() as stack:
        app = compose_app(args, stack, terminal=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot_until(
                pilot, lambda: app.view.cluster is not None and [b.id for b in app.view.cluster.brokers_alive] == [2],
                "the view reading the cluster from broker 2", timeout_s=60,
            )  # fmt: skip
            for nodes in await watch_polls(pilot, app, POLLS):
                assert {n.name: (n.state, n.pid) for n in nodes.nodes} == {
                    "controller-101": (NodeState.UP, found["controller-101"]), "broker-1": (NodeState.DOWN, None),
                    "broker-2": (NodeState.UP, found["broker-2"]),
                }, nodes  # fmt: skip
            said = notices(app)
            assert any("broker-1 (down) not running: shown as found" in m for m in said), said
            assert app.view.timeline is None or not app.view.timeline.incidents  # nothing happened: no incident
    assert "lab cluster 'found' left running (as found)" in capsys.readouterr().out
    after = LabCluster.open(lab.state_dir).snapshot()
    assert {n.name: n.pid for n in after.nodes} == found
    assert all(psutil.pid_exists(pid) for pid in found.values() if pid is not None)
