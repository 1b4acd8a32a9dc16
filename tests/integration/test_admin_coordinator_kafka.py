"""AdminSource's group polling against a real Apache Kafka: the coordinator of a watched group is killed with kill -9,
restarted, then given the group back by a preferred leader election, while AdminSource polls on. The process must
live through all of it (librdkafka 2.16 aborts or segfaults on the way if group requests go through an AdminClient:
see kafkatop.backends.kafka.groups.group_reader.GroupReader), and report what it can with a Problem for what it cannot.

The polling runs in a subprocess, so that an abort is a failed test and not a dead pytest. A 3-node combined KRaft lab
(kafkatop's supervisor; RF 3 for __consumer_offsets, as the labs set it) binds 127.0.0.1 on free ports; every node is
stopped by recorded pid. Set KAFKA_HOME to an Apache Kafka 4.x install to run it; without it the test is skipped.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, ElectionType, KafkaError, KafkaException, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient

from kafkatop.backends.kafka.cluster.topics import TopicAdmin
from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.kafka_homes import open_install
from kafkatop.backends.lab.runner import port_is_free
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.group_placement import OFFSETS_TOPIC, offsets_partition
from kafkatop.backends.model.nodes import NodeState
from tests.conftest import wait_for
from tests.integration.test_supervisor import Clusters

pytestmark = pytest.mark.kafka

ROOT = Path(__file__).resolve().parents[2]
TOPIC = "orders"
PARTITIONS = 6
MESSAGES = 10  # per partition
GROUP = "billing"  # one live member, committed offsets behind the high watermark
COMMITTED = {p: 4 + p % 3 for p in range(PARTITIONS)}
OTHER_COMMITTED = {p: 7 for p in range(PARTITIONS)}
POLL_TIMEOUT_S = 2.0
OUTAGE_S = 15.0  # polling with the coordinator dead
AFTER_S = 15.0  # polling after it is back
AFTER_ELECTION_S = 10.0  # polling after it leads its __consumer_offsets partitions again
SETTLING = {
    KafkaError.NOT_COORDINATOR,
    KafkaError.COORDINATOR_NOT_AVAILABLE,
    KafkaError.COORDINATOR_LOAD_IN_PROGRESS,
    KafkaError._TIMED_OUT,
}

# One JSON line per poll; the member joins GROUP and consumes without committing, so the offsets stay COMMITTED.
POLLER = textwrap.dedent(
    """
    import json, sys, threading, time
    from confluent_kafka import Consumer
    from kafkatop.backends.kafka.admin.admin import AdminSource
    from kafkatop.backends.model.connection import KafkaConnection

    bootstrap, topic, group, other, timeout_s = sys.argv[1:6]
    stop = threading.Event()

    def member():
        consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
                             "auto.offset.reset": "earliest", "log_level": 0})
        consumer.subscribe([topic])
        while not stop.is_set():
            consumer.poll(0.2)
        consumer.close()

    def stdin_closed():
        sys.stdin.read()
        stop.set()

    threading.Thread(target=member).start()
    threading.Thread(target=stdin_closed, daemon=True).start()
    source = AdminSource(KafkaConnection.parse(bootstrap), watch_groups=[group, other], timeout_s=float(timeout_s))
    while not stop.is_set():
        t = time.monotonic()
        snap = source.poll()
        took = time.monotonic() - t
        groups = {
            g.group_id: {
                "state": g.state.value,
                "coordinator": g.coordinator,
                "members": [sorted(tp.partition for tp in m.assignment) for m in g.members],
                "committed": {str(o.partition): o.committed for o in g.offsets if o.topic == topic},
                "lag": g.total_lag,
            }
            for g in snap.groups
        }
        alive = sorted(b.id for b in snap.brokers_alive)
        problems = [str(p) for p in snap.problems]
        threads = threading.active_count()
        print(json.dumps({"at": time.time(), "took": took, "alive": alive, "groups": groups, "problems": problems,
                          "threads": threads}), flush=True)
        time.sleep(0.3)
    source.close()
    print("survived", flush=True)
    """
)


class Poller:
    """The polling subprocess, its JSON lines read as they come."""

    def __init__(self, bootstrap: str, other: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", POLLER, bootstrap, TOPIC, GROUP, other, str(POLL_TIMEOUT_S)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.polls: list[dict[str, Any]] = []
        self.lines: list[str] = []
        self.stderr = ""
        self._readers = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for t in self._readers:
            t.start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            if line.startswith("{"):
                self.polls.append(json.loads(line))

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def since(self, t: float) -> list[dict[str, Any]]:
        return [p for p in self.polls if p["at"] >= t]

    def alive_for(self, seconds: float) -> None:
        """Waits `seconds`, failing at once if the subprocess dies meanwhile."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            assert self.proc.poll() is None, self.death()
            time.sleep(0.1)

    def stop(self) -> int:
        """Asks the subprocess to stop; it must close its clients and exit within 30 s (else it is killed)."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(
                f"the polling process did not exit within 30 s of being asked to: {self.death()}"
            ) from None
        for t in self._readers:
            t.join(timeout=5)
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def death(self) -> str:
        code = self.proc.poll()
        for t in self._readers:
            t.join(timeout=5)
        name = f" ({signal.Signals(-code).name})" if code is not None and code < 0 else ""
        return f"the polling process died: exit {code}{name}; stderr: {self.stderr[-2000:]}"


def commit(bootstrap: str, group: str, offsets: dict[int, int]) -> None:
    """Commits, retrying while __consumer_offsets, just created, still settles (NOT_COORDINATOR, load in progress)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    tps = [KafkaTopicPartition(TOPIC, p, o) for p, o in offsets.items()]

    def committed() -> bool:
        try:
            consumer.commit(offsets=tps, asynchronous=False)
        except KafkaException as e:
            if e.args[0].code() not in SETTLING:
                raise
            return False
        return True

    try:
        wait_for(committed, timeout_s=60, interval_s=0.5, what=f"offsets of {group} committed")
    finally:
        consumer.close()


def offsets_leaders(bootstrap: str) -> dict[int, int]:
    """Leader of each __consumer_offsets partition, from metadata alone."""
    topic = AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10).topics[OFFSETS_TOPIC]
    return {pid: pm.leader for pid, pm in topic.partitions.items()}


def port_block_below_ephemeral(count: int) -> int:
    """A first port with `count` free ports after it, below Linux's ephemeral range (32768-60999).

    Not free_port_block's ports: those are ephemeral, and a client reconnecting to a killed broker's port in that range
    can be given that very port as its own and connect to itself (seen here: an ESTABLISHED 127.0.0.1:P -> 127.0.0.1:P
    socket of the polling process, then its TIME_WAIT), which keeps the broker from binding it again for a minute.
    """
    rng = random.Random()
    for _ in range(200):
        base = rng.randrange(20000, 32000 - count)
        if all(port_is_free(base + i) for i in range(count)):
            return base
    raise AssertionError("no block of free ports below the ephemeral range")


def billing_is(poll: dict[str, Any], coordinator: int | None = None) -> bool:
    """GROUP as it should be: Stable, its one member assigned every partition, its commits and lag right."""
    g = poll["groups"].get(GROUP)
    expected_lag = sum(MESSAGES - c for c in COMMITTED.values())
    return (
        g is not None
        and g["state"] == "Stable"
        and g["members"] == [list(range(PARTITIONS))]
        and g["committed"] == {str(p): c for p, c in COMMITTED.items()}
        and g["lag"] == expected_lag
        and (coordinator is None or g["coordinator"] == coordinator)
    )


def other_is_right(poll: dict[str, Any], other: str) -> bool:
    g = poll["groups"].get(other)
    return g is not None and g["committed"] == {str(p): c for p, c in OTHER_COMMITTED.items()}


@pytest.mark.timeout(400)
@pytest.mark.parametrize("offsets_rf", [3, 1], ids=["offsets-rf3", "offsets-rf1"])
def test_group_polling_survives_the_coordinator_killed_restarted_and_moved_back(
    clusters: Clusters, offsets_rf: int, kafka_home: Path
) -> None:
    """RF 3 for __consumer_offsets (as the labs set it): Kafka moves the group to another broker once the controller
    fences the dead one. RF 1 (Kafka's stock setting): it cannot, the group has no coordinator until the broker is
    back, and AdminSource says so from metadata without asking."""
    home = kafka_home
    assert open_install(home).version.at_least(3, 3), "KRaft lab clusters need Kafka 3.3 or newer"
    base = port_block_below_ephemeral(12)
    cluster: LabCluster = clusters.make(
        home,
        name=f"coord-rf{offsets_rf}",
        mode="kraft",
        brokers=3,
        heap="256m",
        base_port=base,
        controller_port=base + 4,
        zookeeper_port=base + 8,
        broker_properties=(("offsets.topic.replication.factor", str(offsets_rf)),),
    )
    snap = cluster.up(timeout_s=120)
    assert [n.state for n in snap.nodes] == [NodeState.UP] * 3
    bootstrap = snap.bootstrap_servers

    with TopicAdmin(KafkaConnection.parse(bootstrap)) as topics:
        topics.create_topic(TOPIC, partitions=PARTITIONS, replication_factor=3)
    producer = Producer({"bootstrap.servers": bootstrap})
    for p in range(PARTITIONS):
        for i in range(MESSAGES):
            producer.produce(TOPIC, value=f"m{i}".encode(), partition=p)
    assert producer.flush(30) == 0
    commit(bootstrap, GROUP, COMMITTED)  # the first commit creates __consumer_offsets (50 partitions)
    leaders = offsets_leaders(bootstrap)
    offsets_pid = offsets_partition(GROUP, len(leaders))
    coordinator = leaders[offsets_pid]
    # A second group, coordinated by another broker: it must keep being reported while GROUP's coordinator is dead.
    other = next(
        name
        for name in (f"audit-{i}" for i in range(200))
        if leaders[offsets_partition(name, len(leaders))] not in (coordinator, -1)
    )
    commit(bootstrap, other, OTHER_COMMITTED)

    poller = Poller(bootstrap, other)
    try:
        wait_for(
            lambda: poller.proc.poll() is None and any(billing_is(p) for p in poller.polls[-3:]),
            timeout_s=60,
            interval_s=0.2,
            what=f"{GROUP} Stable with its member, as AdminSource sees it",
        )
        assert poller.proc.poll() is None, poller.death()
        before = poller.polls[-1]
        # Kafka's placement, computed from metadata, is the coordinator DescribeGroups names.
        assert before["groups"][GROUP]["coordinator"] == coordinator
        assert other_is_right(before, other) and before["groups"][other]["state"] == "Empty"

        # kill -9 of the coordinator: the controller fences it only after missed heartbeats.
        killed_at = time.time()
        assert cluster.kill(str(coordinator)).state is NodeState.KILLED
        poller.alive_for(OUTAGE_S)
        restarted_at = time.time()
        assert cluster.start(str(coordinator)).state is NodeState.UP
        poller.alive_for(AFTER_S)

        # With RF 3, a preferred leader election gives the restarted broker its __consumer_offsets partition back: the
        # group moves again, from a broker that stays up and now answers NOT_COORDINATOR for it. (RF 1: a no-op.)
        elected_at = time.time()
        admin = AdminClient({"bootstrap.servers": bootstrap})
        admin.elect_leaders(ElectionType.PREFERRED, [KafkaTopicPartition(OFFSETS_TOPIC, offsets_pid)]).result(30)
        poller.alive_for(AFTER_ELECTION_S)
    except BaseException:
        poller.kill()
        raise
    code = poller.stop()
    assert code == 0 and poller.lines[-1:] == ["survived"], poller.death()

    polls = poller.polls
    # The poll deadline held throughout: no poll much longer than its timeout, no long silence between polls.
    assert max(p["took"] for p in polls) < POLL_TIMEOUT_S + 0.5
    gaps = [b["at"] - a["at"] for a, b in zip(polls, polls[1:], strict=False)]
    assert max(gaps) < POLL_TIMEOUT_S + 1.5

    outage = [p for p in polls if killed_at <= p["at"] < restarted_at]
    assert len(outage) >= 5
    # While the coordinator was dead, GROUP was reported with a Problem that names it, not silently dropped…
    assert any(any(f" {GROUP}: " in problem for problem in p["problems"]) for p in outage)
    assert all(GROUP in p["groups"] for p in outage)
    # …and the other group, on a live coordinator, kept its offsets (the poll under way at the kill may not).
    other_right = sum(other_is_right(p, other) for p in outage)
    assert other_right >= len(outage) - 1, [
        (round(p["at"] - killed_at, 1), p["groups"].get(other), [x for x in p["problems"] if other in x])
        for p in outage
        if not other_is_right(p, other)
    ]
    if offsets_rf > 1:
        # Kafka moved GROUP to another broker: it was whole again before its old coordinator came back.
        moved = [p for p in outage if billing_is(p) and p["groups"][GROUP]["coordinator"] != coordinator]
        assert moved, [p["groups"].get(GROUP) for p in outage]
        outcome = (
            f"whole again on broker {moved[0]['groups'][GROUP]['coordinator']} "
            f"{moved[0]['at'] - killed_at:.1f} s after the kill"
        )
    else:
        # No other replica: once the broker is fenced, metadata shows the partition leaderless and GROUP is not asked
        # (its poll does not wait on a coordinator that is not there).
        said = f"admin: group {GROUP}: no coordinator: {OFFSETS_TOPIC}-{offsets_pid} has no leader"
        told = [p for p in outage if any(problem.startswith(said) for problem in p["problems"])]
        assert told, [p["problems"] for p in outage]
        assert not any(billing_is(p) for p in outage)
        outcome = (
            f"said to have no coordinator from {told[0]['at'] - killed_at:.1f} s after the kill ({len(told)} polls)"
        )

    after_restart = [p for p in polls if restarted_at <= p["at"] < elected_at]
    assert after_restart
    assert all(billing_is(p) for p in after_restart[-3:]), [p["groups"].get(GROUP) for p in after_restart[-3:]]
    assert all(other_is_right(p, other) for p in after_restart[-3:])

    after_election = poller.since(elected_at)
    last = after_election[-3:]
    assert last and all(billing_is(p, coordinator=coordinator) for p in last), [p["groups"] for p in last]
    assert all(other_is_right(p, other) for p in last)
    assert not [problem for problem in last[-1]["problems"] if GROUP in problem or other in problem]
    # Discarded describing clients are destroyed on threads that end: no thread piles up poll after poll.
    threads = [p["threads"] for p in polls]
    assert max(threads) <= threads[0] + 8 + 3 and threads[-1] <= threads[0] + 8
    print(
        f"\n__consumer_offsets RF {offsets_rf}: coordinator of {GROUP}: broker {coordinator} "
        f"({OFFSETS_TOPIC}-{offsets_pid}); killed: {len(outage)} polls, {other} whole in {other_right}; {GROUP} "
        f"{outcome}; restarted: {len(after_restart)} polls; after the election: {len(after_election)} polls; "
        f"longest poll {max(p['took'] for p in polls):.2f} s; Python threads {threads[0]}..{max(threads)}"
    )
