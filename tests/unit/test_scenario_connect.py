"""A scenario's Kafka Connect (backends/checks/scenario/connectors.py): a task counts as running only on a worker that
is up (a killed worker's status says RUNNING until the group notices), `worker:NAME` is the node running the first
task, `{dir}` is a folder of the run's own, removed when the run closes, and an earlier run's connector is deleted
before this run's is created. The real thing (two workers, one killed): tests/integration/test_scenario_kafka.py
(`connect`)."""

from __future__ import annotations

import os
from collections.abc import Mapping

import pytest

from kafkatop.backends.checks.scenario.connectors import ScenarioConnect
from kafkatop.backends.model.connect import Connector, ConnectSnapshot, ConnectTask
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.nodes import NodesSnapshot, NodeState, NodeView, ProcessRole


def worker(name: str, port: int, state: NodeState) -> NodeView:
    return NodeView(name, ProcessRole.CONNECT, None, state, None, (port,), None, None, None, None)


class RecordedWorkers:
    """TEST DOUBLE of ConnectCluster: the connectors a poll answers, and the creates and deletes asked of it (what
    two real workers do with them: test_scenario_kafka.py)."""

    urls = ("http://127.0.0.1:30930",)

    def __init__(self, tasks: tuple[ConnectTask, ...]) -> None:
        self.tasks = tasks
        self.asked: list[tuple[str, str, Mapping[str, str] | None]] = []

    def poll(self) -> ConnectSnapshot:
        found = (Connector("sink", "sink", "FileStreamSink", "RUNNING", "127.0.0.1:30930", self.tasks, ()),)
        return ConnectSnapshot(0.0, (), found if self.tasks else ())

    def create(self, name: str, config: Mapping[str, str]) -> None:
        self.asked.append(("create", name, dict(config)))

    def delete(self, name: str) -> None:
        self.asked.append(("delete", name, None))


NODES = NodesSnapshot(0.0, "lab", "lab", (worker("connect-1", 30930, NodeState.KILLED),
                                          worker("connect-2", 30931, NodeState.UP)), False)  # fmt: skip


def test_a_task_counts_only_on_a_worker_that_is_up() -> None:
    stale = RecordedWorkers((ConnectTask("sink", 0, "RUNNING", "127.0.0.1:30930"),))
    connect = ScenarioConnect(stale, lambda: NODES, "connect")  # type: ignore[arg-type]
    assert connect.running("sink") == (0, "task 0 RUNNING on connect-1 (127.0.0.1:30930), which is down")
    assert connect.worker_of("sink") == "connect-1"
    moved = RecordedWorkers((ConnectTask("sink", 0, "RUNNING", "127.0.0.1:30931"),))
    connect = ScenarioConnect(moved, lambda: NODES, "connect")  # type: ignore[arg-type]
    assert connect.running("sink") == (1, "task 0 RUNNING on connect-2 (127.0.0.1:30931)")
    unassigned = RecordedWorkers((ConnectTask("sink", 0, "UNASSIGNED", ""),))
    connect = ScenarioConnect(unassigned, lambda: NODES, "connect")  # type: ignore[arg-type]
    assert connect.running("sink") == (0, "task 0 UNASSIGNED on no worker")
    with pytest.raises(KafkatopError, match="has no task assigned to a worker yet"):
        connect.worker_of("sink")


def test_dir_is_the_runs_own_and_an_earlier_connector_is_made_again() -> None:
    workers = RecordedWorkers((ConnectTask("sink", 0, "RUNNING", "127.0.0.1:30931"),))  # an earlier run's
    connect = ScenarioConnect(workers, lambda: NODES, "connect")  # type: ignore[arg-type]
    said = connect.create("sink", (("connector.class", "FileStreamSink"), ("file", "{dir}/out.txt")))
    (deleted, created) = workers.asked
    assert deleted == ("delete", "sink", None) and created[:2] == ("create", "sink")
    assert created[2] is not None
    folder = os.path.dirname(created[2]["file"])
    assert os.path.isdir(folder) and os.path.basename(folder).startswith("kafkatop-scenario-connect-")
    assert said == f"connector sink created again (an earlier run's was deleted); {{dir}} is {folder}"
    connect.close()
    assert not os.path.exists(folder)


def test_no_workers_is_said() -> None:
    connect = ScenarioConnect(None, lambda: NODES, "connect")
    with pytest.raises(KafkatopError, match=r"no Kafka Connect workers to ask \(\[cluster\] connect = 2 starts them\)"):
        connect.create("sink", (("connector.class", "FileStreamSink"),))
