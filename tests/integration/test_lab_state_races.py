"""Two kafkatops changing one lab's state file at once (the live view and a `kafkatop start 2` in another shell):
each change is a read-modify-write under the file lock, so neither writes the other's change over with an older view.
Real processes, a real state file and real flock; the nodes' pids are the writers' own (live processes)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.kafka_homes import open_install
from kafkatop.backends.lab.spec import ClusterSpec
from tests.fixtures.standin_install import make_standin_install
from tests.integration.test_supervisor import free_port_block

ROUNDS = 200

# Each writer owns one node: every round, under the lock, it first checks that the state file still holds what it
# wrote last (its node's pid and intent), then writes the next intent. A lost update shows as a round that finds
# its own last write gone.
WRITER = textwrap.dedent(
    """
    import json, os, sys, time
    import psutil
    from pathlib import Path
    from kafkatop.backends.lab.state import LabState, RunningNode
    from kafkatop.backends.model.nodes import NodeState

    state_dir, node, go = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    state = LabState.load(state_dir)
    me = psutil.Process().create_time()
    cycle = (NodeState.UP, NodeState.DOWN, NodeState.KILLED)
    while not go.exists():
        time.sleep(0.001)
    lost, last = 0, None
    for i in range({rounds}):
        with state.file_lock():
            entry = next(n for n in json.loads((state_dir / "cluster.json").read_text())["nodes"] if n["name"] == node)
            if last is not None and (entry.get("intent") != last or entry.get("pid") != os.getpid()):
                lost += 1
            last = cycle[i % 3].value
            state.intent[node] = cycle[i % 3]
            state.running[node] = RunningNode(os.getpid(), me, None, 0)
            state.save()
    print(lost)
    """
).format(rounds=ROUNDS)


def test_two_kafkatops_changing_different_nodes_lose_nothing(tmp_path: Path, standin_classes: Path) -> None:
    home = make_standin_install(tmp_path / "install", standin_classes, "4.1.0")
    base = free_port_block(8)
    cluster, _ = LabCluster.create_or_open(
        tmp_path / "state", open_install(home), ClusterSpec(base_port=base, controller_port=base + 4)
    )
    go = tmp_path / "go"
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(cluster.state_dir), node, str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for node in ("broker-1", "broker-2")
    ]
    try:
        go.touch()
        results = [w.communicate(timeout=120) for w in writers]
    finally:
        for w in writers:
            w.kill()
            w.wait()
    for (out, errors), w in zip(results, writers, strict=True):
        assert w.returncode == 0, errors
        assert out.strip() == "0", f"a writer found its own change gone in {out.strip()} of {ROUNDS} rounds"
    # Both writers' last changes are on disk (the writers have exited, so their pids are recorded, not adopted).
    nodes = {n["name"]: n for n in json.loads((cluster.state_dir / "cluster.json").read_text())["nodes"]}
    last = ("up", "down", "killed")[(ROUNDS - 1) % 3]
    assert nodes["broker-1"]["intent"] == last and nodes["broker-2"]["intent"] == last
    assert nodes["broker-1"]["pid"] == writers[0].pid and nodes["broker-2"]["pid"] == writers[1].pid
