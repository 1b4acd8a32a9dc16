"""A scenario's Kafka Connect (`[cluster] connect = 2`): its connectors created through the workers' REST API, the
worker running a connector's task named as a node (`worker:NAME`), and whether a connector's tasks run on workers that
are up. A worker's status lags its death: after a kill -9, the status topic says RUNNING on the dead worker until the
group notices (session.timeout.ms) and, after scheduled.rebalance.max.delay.ms, gives its tasks to another; so a task
counts only where the node it names is up.

`{dir}` in a connector's config is a folder of the run's own (the lab's workers run on this host), removed when the
run is closed. A connector of the scenario's name found on the workers (a lab kept by an earlier run) is deleted
and created again with this run's config.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable

from kafkatop.backends.model.connect import ConnectTask
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.nodes import NodesSnapshot, NodeState, NodeView, ProcessRole
from kafkatop.backends.ports import ConnectCluster

RECREATE_S = 30.0


class ScenarioConnect:
    def __init__(self, connect: ConnectCluster | None, nodes: Callable[[], NodesSnapshot], scenario: str) -> None:
        self._connect = connect
        self._nodes = nodes
        self._scenario = scenario
        self._dir: str | None = None

    def create(self, name: str, config: tuple[tuple[str, str], ...]) -> str:
        """Creates connector `name`; what to say of it (the folder `{dir}` stands for)."""
        connect = self._workers()
        if any("{dir}" in value for _, value in config) and self._dir is None:
            self._dir = tempfile.mkdtemp(prefix=f"kafkatop-scenario-{self._scenario}-")
        folder = self._dir or ""
        # An earlier run's (a lab kept with --detach) is this scenario's own: made again, its {dir} this run's
        earlier = connect.poll().connector(name) is not None
        if earlier:
            connect.delete(name)
        deadline = time.monotonic() + RECREATE_S
        while True:
            try:
                connect.create(name, {key: value.replace("{dir}", folder) for key, value in config})
                break
            except KafkatopError:
                if not earlier or time.monotonic() >= deadline:
                    raise
                time.sleep(1.0)  # the delete goes round the workers' group first
        again = " again (an earlier run's was deleted)" if earlier else ""
        return f"connector {name} created{again}" + (f"; {{dir}} is {folder}" if folder else "")

    def worker_of(self, name: str) -> str:
        """The node running connector `name`'s first task: `connect-2`."""
        tasks = self._tasks(name)
        if not tasks or not tasks[0].worker_id:
            raise KafkatopError(f"connector {name} has no task assigned to a worker yet")
        node = self._node(tasks[0].worker_id)
        if node is None:
            raise KafkatopError(f"connector {name}'s task 0 runs on {tasks[0].worker_id}, not a worker of this lab")
        return node.name

    def running(self, name: str) -> tuple[int, str]:
        """How many of its tasks are RUNNING on a worker that is up, and what was seen."""
        tasks = self._tasks(name)
        if not tasks:
            return 0, f"connector {name} has no tasks (yet)"
        up = 0
        said = []
        for t in tasks:
            node = self._node(t.worker_id)
            where = f"{node.name} ({t.worker_id})" if node is not None else t.worker_id or "no worker"
            alive = node is not None and node.state is NodeState.UP
            up += t.state == "RUNNING" and alive
            said.append(f"task {t.task} {t.state} on {where}" + ("" if alive or node is None else ", which is down"))
        return up, "; ".join(said)

    def close(self) -> None:
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def _workers(self) -> ConnectCluster:
        if self._connect is None:
            raise KafkatopError("this cluster has no Kafka Connect workers to ask ([cluster] connect = 2 starts them)")
        return self._connect

    def _tasks(self, name: str) -> tuple[ConnectTask, ...]:
        snapshot = self._workers().poll()
        found = snapshot.connector(name)
        if found is None:
            raise KafkatopError(snapshot.problem or f"no connector {name} on the workers")
        return found.tasks

    def _node(self, worker_id: str) -> NodeView | None:
        """The lab's worker for `127.0.0.1:PORT` (its REST port)."""
        port = worker_id.rpartition(":")[2]
        if not port.isdigit():
            return None
        return next((n for n in self._nodes().nodes if n.role is ProcessRole.CONNECT and int(port) in n.ports), None)
