"""ZooKeeper mode, the labs' mode: the running app is fed by ZooKeeper's watches, not only by its polls.

A real ZooKeeper (from pyspark's jars) holds znodes written as Kafka writes them (tests/fixtures/kafka_znodes.py).
The metadata poll is a test double, `StalePoll`: no ZooKeeper-mode Kafka broker can run here, so it answers the state
read before the change, and its interval is a day — whatever the screen shows afterwards came from the watches.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace

import pytest
from kazoo.client import KazooClient

from kafkatop.backends.insight.timeline.model import EventKind
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.zookeeper.watch import ZooKeeperSource
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.partitions.pane import PartitionTable
from kafkatop.tui.live.widgets.status_bar import StatusBar
from tests.conftest import pilot_until
from tests.fixtures import kafka_znodes as kz

ASSIGNMENT = {0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2]}


class StalePoll:
    """Test double of the metadata poll: the cluster as it was before the change, stamped with the time of each
    call; it counts its calls."""

    def __init__(self, before: ClusterSnapshot) -> None:
        self.before = replace(before, source="admin")
        self.calls = 0

    def __call__(self) -> ClusterSnapshot:
        self.calls += 1
        return replace(self.before, taken_at=time.time())


@pytest.fixture
def lab(zk_chroot: tuple[str, KazooClient]) -> Iterator[tuple[str, KazooClient, list[KazooClient]]]:
    """Brokers 1-3 registered (each its own session), controller 1, topic `purchases` 3 × RF 3."""
    hosts, zk = zk_chroot
    sessions = [kz.register_broker(hosts, b, 19090 + b) for b in (1, 2, 3)]
    try:
        kz.write_cluster_id(zk, "zk-lab")
        kz.write_controller(zk, 1, 1)
        kz.create_topic(zk, "purchases", ASSIGNMENT)
        yield hosts, zk, sessions
    finally:
        for s in sessions:
            s.stop()
            s.close()


async def test_leader_isr_and_broker_changes_reach_the_screen_from_the_watches(
    lab: tuple[str, KazooClient, list[KazooClient]],
) -> None:
    hosts, zk, sessions = lab
    with ZooKeeperSource(hosts) as reader:
        poll = StalePoll(reader.snapshot())
    watch = ZooKeeperSource(hosts)
    app = KafkatopApp(Sources(poll, zookeeper=watch), Settings(poll_interval_s=86_400))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            table = app.query_one(PartitionTable)
            await pilot_until(pilot, lambda: table.row_count == 3 and watch.connected, "the first poll and the watch")

            # The controller moves purchases-0's leadership to broker 2, and broker 1 leaves its ISR.
            kz.set_partition_state(zk, "purchases", 0, 2, [2, 3], 1)
            await pilot_until(
                pilot, lambda: table.row("purchases-0")[2:5] == ("2 *", "1,2,3", "2,3"), "the new leader and ISR"
            )
            assert "reverse" in " ".join(style for _, style in table.row_cell("purchases-0", "isr"))  # just changed

            # Broker 1's session ends (kill -9 in ZooKeeper mode, once the session times out): it deregisters.
            sessions[0].stop()
            status = app.query_one(StatusBar)
            await pilot_until(pilot, lambda: "2 up 1 down" in status.text.plain, "broker 1 down in the status bar")
            assert poll.calls == 1, "only the watches could have told"

            kinds = {(e.kind, e.source) for e in app.timeline.snapshot().events}
            assert (EventKind.LEADER_CHANGED, "zookeeper") in kinds
            assert (EventKind.ISR_SHRUNK, "zookeeper") in kinds
            assert (EventKind.BROKER_DEREGISTERED, "zookeeper") in kinds
            incident = app.timeline.snapshot().incidents[-1]
            assert incident.first(EventKind.BROKER_DEREGISTERED, broker_id=1) is not None
    finally:
        watch.close()


async def test_watches_wait_for_a_zookeeper_that_is_not_kafkas_yet(zk_chroot: tuple[str, KazooClient]) -> None:
    """A lab's ZooKeeper is up before its first broker registers: the watch keeps trying, and follows once the
    cluster's znodes appear."""
    hosts, zk = zk_chroot
    poll = StalePoll(ClusterSnapshot("admin", time.time(), None, "zk", None, (), ()))
    watch = ZooKeeperSource(hosts)
    app = KafkatopApp(Sources(poll, zookeeper=watch), Settings(poll_interval_s=86_400))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause(0.5)
            assert not watch.connected  # no /brokers/ids: not a Kafka ZooKeeper yet
            session = kz.register_broker(hosts, 1, 19091)
            try:
                kz.create_topic(zk, "t", {0: [1]})
                await pilot_until(pilot, lambda: watch.connected, "the watch connected", timeout_s=20)
                kz.set_partition_state(zk, "t", 0, 1, [1], 3)
                table = app.query_one(PartitionTable)
                await pilot_until(pilot, lambda: table.row_count == 1, "the topic from ZooKeeper alone")
            finally:
                session.stop()
                session.close()
    finally:
        watch.close()
