"""The live view's scenarios on one cluster (Sources.scenarios): a run opened at a time, bound to the cluster's node
control, a poll of its own (the view's pollers keep theirs) and a topic admin; the view's `space` and `A` drive it
from a worker thread. Closing the view stops a run under way within a poll's interval."""

from __future__ import annotations

from collections.abc import Callable

from kafkatop.backends.check_ports import ScenarioSteps
from kafkatop.backends.checks.scenario.run import ScenarioRun
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.scenario import Scenario
from kafkatop.backends.model.scenario_report import ScenarioState
from kafkatop.backends.ports import ConnectCluster, LeaderElectionsFactory, NodeControl, TopicAdmin


class ScenarioRuns:
    def __init__(
        self,
        connection: KafkaConnection,
        control: NodeControl,
        poll: Callable[[], ClusterSnapshot],
        topics: Callable[[], TopicAdmin],
        close_poll: Callable[[], None] = lambda: None,
        elections: LeaderElectionsFactory | None = None,
        connect: ConnectCluster | None = None,
    ) -> None:
        self._connection, self._control, self._poll = connection, control, poll
        self._topics, self._close_poll, self._elections = topics, close_poll, elections
        self._connect = connect
        self._admin: TopicAdmin | None = None
        self.run: ScenarioRun | None = None
        self.closed = False

    def open(self, scenario: Scenario, on_progress: Callable[[ScenarioState], None]) -> ScenarioSteps:
        """A new run of `scenario`, nothing done yet (its state READY, told at once); the one before it is closed."""
        if self.closed:
            raise KafkatopError("the live view is closing")
        before = self.run
        if before is not None and before.busy:
            raise KafkatopError(f"scenario {before.scenario.name} is under way: wait for its step to end")
        if before is not None:
            before.close()
        if self._admin is None:
            self._admin = self._topics()
        run: ScenarioRun | None = None

        def stopped() -> bool:
            return self.closed or self.run is not run

        run = ScenarioRun(scenario, self._control, self._poll, self._connection, topics=self._admin,
                          on_progress=on_progress, by_key=True, cancelled=stopped,
                          elections=self._elections, connect=self._connect)  # fmt: skip
        self.run = run
        on_progress(run.state)
        return run

    def close(self) -> None:
        self.closed = True
        if self.run is not None and not self.run.busy:
            self.run.close()  # one under way closes itself when it sees `closed`
        if self._admin is not None:
            self._admin.close()
        self._close_poll()
