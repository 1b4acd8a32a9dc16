"""A Kafka 4.1 lab with eligible leader replicas (KIP-966) after broker 3 was killed and broker 2 stopped: the partition
table's elr column (which replicas may still be elected cleanly where the ISR is below min.insync.replicas), and the
feature levels in the Quorum tab. Recorded data, fixed size, no clock, no network, no processes."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from kafkatop.backends.model.cluster import NO_LEADER, Broker, ClusterSnapshot, Partition, Topic
from kafkatop.backends.model.features import Feature, FeatureLevels
from kafkatop.backends.model.nodes import NodesSnapshot, NodeState
from kafkatop.backends.model.quorum import QuorumReplica, QuorumSnapshot
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Sources
from kafkatop.tui.live.tabs.partitions.pane import PartitionTable
from tests.fixtures.snapshots import TAKEN_AT, RecordedControl, kraft_lab
from tests.snapshots.test_app_snapshots import FROZEN, settled, settled_on_tab

# As `kafka-features.sh describe` printed them on a Kafka 4.1 lab (tests/fixtures/protocol/).
FEATURES = FeatureLevels(
    "127.0.0.1:9092",
    (
        Feature("eligible.leader.replicas.version", 0, 1, 1),
        Feature("group.version", 0, 1, 1),
        Feature("kraft.version", 0, 1, 0),
        Feature("metadata.version", 7, 27, 27),
        Feature("share.version", 0, 1, 0),
        Feature("transaction.version", 0, 2, 2),
    ),
    42,
)
DOWN = (2, 3)


def _p(topic: str, pid: int, leader: int, replicas: tuple[int, ...], isr: tuple[int, ...],
       elr: tuple[int, ...] = (), last: tuple[int, ...] = (), high: int = 40) -> Partition:  # fmt: skip
    offline = tuple(r for r in replicas if r in DOWN)
    return Partition(topic, pid, leader, replicas, isr, offline, 0, high, 3, elr, last)


def elr_cluster(features: FeatureLevels | None = FEATURES) -> ClusterSnapshot:
    """Broker 3 killed while the ISRs were full (3 left them as they fell to min.insync.replicas 2: not eligible), then
    broker 2 stopped (it left ISRs that fell below 2: eligible); payments lost both of its replicas, ledger's last
    eligible replicas came back from unclean shutdowns and were dropped."""
    brokers = (Broker(1, "127.0.0.1", 9092), Broker(2, "127.0.0.1", 9093, alive=False),
               Broker(3, "127.0.0.1", 9094, alive=False))  # fmt: skip
    replicas = [(1, 2, 3), (2, 3, 1), (3, 1, 2)]
    orders = Topic("orders", tuple(_p("orders", i, 1, r, (1,), (2,), high=40 + 7 * i) for i, r in enumerate(replicas)),
                   min_insync_replicas=2)  # fmt: skip
    events = Topic("events", (_p("events", 0, 1, (1, 2, 3), (1,)),), min_insync_replicas=1)
    audit = Topic("audit", (_p("audit", 0, 1, (1,), (1,)),), min_insync_replicas=1)
    payments = Topic("payments", (_p("payments", 0, NO_LEADER, (2, 3), (), (2, 3), (2,)),), min_insync_replicas=2)
    ledger = Topic("ledger", (_p("ledger", 0, NO_LEADER, (3, 2), (), (), (3,)),), min_insync_replicas=2)
    return ClusterSnapshot("recorded", TAKEN_AT, "md2BjPjkR3CBR7fgEXqAxg", "kraft", None, brokers,
                           (audit, events, ledger, orders, payments), features=features)  # fmt: skip


def elr_lab() -> tuple[NodesSnapshot, QuorumSnapshot]:
    _, nodes, quorum = kraft_lab()
    gone = {"broker-2": NodeState.DOWN, "broker-3": NodeState.KILLED}
    views = tuple(replace(n, state=gone[n.name], pid=None, cpu_percent=None, rss_bytes=None, uptime_s=None,
                          actions=frozenset({"start"}))
                  if n.name in gone else n for n in nodes.nodes)  # fmt: skip
    voters = (QuorumReplica(1, 1502, 0, 3, 3), QuorumReplica(2, 1480, 22, 9100, 9100),
              QuorumReplica(3, 1471, 31, 21000, 21000))  # fmt: skip
    return replace(nodes, nodes=views), QuorumSnapshot(TAKEN_AT, 1, 5, 1502, voters, ())


def elr_app(cluster: ClusterSnapshot) -> KafkatopApp:
    nodes, quorum = elr_lab()
    return KafkatopApp(Sources(lambda: cluster, RecordedControl(nodes), lambda: quorum), FROZEN, clock=lambda: TAKEN_AT)


@pytest.mark.parametrize("size", [(120, 36), (80, 24)], ids=["120x36", "80x24"])
def test_the_partition_table_with_elr(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(elr_app(elr_cluster()), terminal_size=size, run_before=settled)


def test_the_quorum_tab_with_feature_levels(snap_compare: Any) -> None:
    assert snap_compare(elr_app(elr_cluster()), terminal_size=(110, 36), run_before=settled_on_tab("7"))


async def test_no_elr_column_without_elr() -> None:
    """The same cluster without ELR finalized (Kafka before 4.0, the mock, ELR turned off): no elr column."""
    for features, shown in (
        (None, False),
        (replace(FEATURES, features=FEATURES.features[1:]), False),
        (FEATURES, True),
    ):
        app = elr_app(elr_cluster(features))
        async with app.run_test(size=(160, 36)) as pilot:
            await settled(pilot)
            table = pilot.app.query_one(PartitionTable)
            assert ("elr" in [table.COLUMNS[i] for i in table._columns]) is shown
            assert table.row("orders-0")[6] == "2 → clean: 1,2"
            assert table.row("payments-0")[6] == "2,3 → clean: 2,3"
            assert table.row("ledger-0")[6] == "none → clean: none (last known 3)"
            assert table.row("events-0")[6] == table.row("audit-0")[6] == ""
