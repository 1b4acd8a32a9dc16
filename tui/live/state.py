"""What the live view shows, in one frozen value: the latest snapshot of each source, and what the user picked.

The app replaces it as messages arrive and hands it to every pane (widgets/pane.py); a pane draws from it and
nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkatop.backends.insight.history import HistorySnapshot
from kafkatop.backends.insight.timeline.model import TimelineSnapshot
from kafkatop.backends.model.acls import AclsSnapshot
from kafkatop.backends.model.cluster import ClusterMode, ClusterSnapshot
from kafkatop.backends.model.connect import ConnectSnapshot
from kafkatop.backends.model.consoles import ConsoleActivity
from kafkatop.backends.model.disks import BrokerDisks
from kafkatop.backends.model.lag import LagSnapshot
from kafkatop.backends.model.nodes import NodesSnapshot
from kafkatop.backends.model.quorum import QuorumSnapshot
from kafkatop.backends.model.scenario_report import ScenarioState
from kafkatop.backends.ports import EnsembleView


@dataclass(frozen=True, slots=True)
class LiveView:
    cluster: ClusterSnapshot | None = None  # the last good one: kept on screen when a poll fails
    history: HistorySnapshot | None = None
    lag: LagSnapshot | None = None  # each group's lag in time and status (backends/insight/lag), with the history
    failure: str | None = None  # why the last cluster poll failed; None once one succeeds again
    failed_at: float | None = None
    nodes: NodesSnapshot | None = None
    ensemble: EnsembleView | None = None
    ensemble_problem: str | None = None
    timeline: TimelineSnapshot | None = None
    selected_node: str | None = None  # highlighted in the process table: its log is shown
    # The consoles' latest drain (deliveries, received records, rebalances): a delta, which the console panes take
    # whether on screen or not (LivePane.take), once each.
    consoles: ConsoleActivity | None = None
    connect: ConnectSnapshot | None = None  # Kafka Connect: the last poll that any worker answered
    connect_problem: str | None = None  # why the last poll of Connect failed; None once one succeeds again
    acls: AclsSnapshot | None = None  # the ACLs, the authorizer and who kafkatop is (its `error`: why not read)
    acls_problem: str | None = None  # why the last poll of the ACLs failed; None once one succeeds again
    log_dirs: BrokerDisks | None = None  # the brokers' log directories: the last read (every 30 s)
    log_dirs_problem: str | None = None  # why the last read of them failed; None once one succeeds again
    scenario: ScenarioState | None = None  # the scenario open (its pane): where its run is

    @property
    def mode(self) -> ClusterMode | None:
        return self.cluster.mode if self.cluster is not None else None

    @property
    def controller_id(self) -> int | None:
        """The active controller: from metadata in ZooKeeper mode; in KRaft, the quorum's leader."""
        if self.cluster is not None and self.cluster.controller_id is not None:
            return self.cluster.controller_id
        if isinstance(self.ensemble, QuorumSnapshot) and self.ensemble.leader_id >= 0:
            return self.ensemble.leader_id
        return None

    @property
    def data_age_s(self) -> float | None:
        """How old the cluster data on screen was when the last poll failed; None while polls succeed."""
        if self.failure is None or self.cluster is None or self.failed_at is None:
            return None
        return self.failed_at - self.cluster.taken_at
