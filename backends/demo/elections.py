"""Leader elections in the demo: the librdkafka mock has no ElectLeaders, so the demo's controller
(controller_elections.py), which already elects leaders when a broker goes down, answers it with Kafka's rules — and
says it is the demo."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kafkatop.backends.demo.node_control import DemoControl
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.elections import ElectionResults, ElectionType
from kafkatop.backends.model.topic_partition import TopicPartition

DEMO_ELECTIONS = (
    "DEMO: the demo's controller elects, by Kafka's rules (the mock has no ElectLeaders); its replicas share one "
    "log, so an unclean election loses nothing here"
)


class DemoElections:
    """The LeaderElections port for the demo."""

    def __init__(self, control: DemoControl) -> None:
        self._control = control

    @property
    def note(self) -> str | None:
        return DEMO_ELECTIONS

    def elect(self, election_type: ElectionType, partitions: Sequence[TopicPartition] | None) -> ElectionResults:
        results = self._control.elect_leaders(election_type, partitions)
        return ElectionResults(election_type, tuple(sorted(results, key=lambda r: r.partition)), note=DEMO_ELECTIONS)

    def log_ends(
        self, snapshot: ClusterSnapshot, replicas: Mapping[TopicPartition, int]
    ) -> tuple[dict[TopicPartition, int], list[str]]:
        if not replicas:
            return {}, []
        return {}, ["the demo's replicas share one log: none lags, and there is no log end of its own to read"]

    def close(self) -> None:
        """Nothing to close: the controller belongs to the demo."""
