"""Leader elections and new partitions against a real Apache Kafka, each compared with Kafka's own tool on the same
cluster: `kafkatop elect-leaders` with kafka-leader-election.sh, `kafkatop add-partitions` with kafka-topics.sh
--alter.

One lab per module: a dedicated KRaft controller and 3 brokers (so two brokers can be down while the quorum stands),
auto.leader.rebalance.enable=false so that only an election moves leaders back, 127.0.0.1 on ports of 22000-22999,
a 256m heap each; every node stopped by recorded pid at the end. Set KAFKA_HOME to an Apache Kafka 4.x install to run
it; without it the tests are skipped.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Producer

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.topics import TopicAdmin
from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.runner import port_is_free
from kafkatop.backends.model.cluster import NO_LEADER, ClusterSnapshot, Partition
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.model.nodes import NodeState
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.model.topics import TopicError
from tests.conftest import wait_for
from tests.integration.test_bad_input import kafkatop, kafkatop_typed
from tests.integration.test_supervisor import Clusters

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(900)]

PORTS = range(22100, 22900, 20)  # this suite's share of the machine's ports
FENCED_S = 40.0  # a killed broker is fenced after broker.session.timeout.ms (9 s), once the controller sees it


class Lab:
    def __init__(self, cluster: LabCluster, home: Path, tmp: Path) -> None:
        self.cluster = cluster
        self.home = home
        self.tmp = tmp
        self.bootstrap = cluster.snapshot().bootstrap_servers
        self.connection = KafkaConnection.parse(self.bootstrap)

    # --- reading the cluster --------------------------------------------------------------------------------------
    def metadata(self, full: bool = False) -> ClusterSnapshot:
        source = AdminSource(self.connection, timeout_s=5.0, include_internal=True)
        try:
            return source.poll(topics_only=not full)
        finally:
            source.close()

    def partitions(self, topic: str, full: bool = False) -> dict[int, Partition]:
        try:
            found = self.metadata(full).topic(topic)
        except SourceUnavailable:
            return {}
        return {p.id: p for p in found.partitions} if found is not None else {}

    def alive(self) -> set[int]:
        try:
            return {b.id for b in self.metadata().brokers_alive}
        except SourceUnavailable:
            return set()

    # --- acting -----------------------------------------------------------------------------------------------------
    def kill(self, broker: int) -> None:
        self.cluster.kill(f"broker-{broker}")
        wait_for(lambda: broker not in self.alive(), FENCED_S, 0.5, f"broker {broker} fenced")

    def start(self, broker: int) -> None:
        self.cluster.start(f"broker-{broker}", timeout_s=120)
        wait_for(lambda: broker in self.alive(), 60, 0.5, f"broker {broker} back in the metadata")

    def all_up(self) -> None:
        for node in self.cluster.snapshot().nodes:
            if node.node.is_broker and node.state is not NodeState.UP and node.node.node_id is not None:
                self.start(node.node.node_id)

    def kafka_tool(self, tool: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.home / "bin" / tool), "--bootstrap-server", self.bootstrap, *args],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    def kafkatop(self, *argv: str) -> subprocess.CompletedProcess[str]:
        return kafkatop(*argv, "--bootstrap-server", self.bootstrap, cwd=self.tmp)

    def typed(self, answer: str, *argv: str) -> tuple[int, str, str]:
        """kafkatop with a terminal for stdin and stderr, `answer` typed: (exit status, stdout, the terminal)."""
        return kafkatop_typed(answer, *argv, "--bootstrap-server", self.bootstrap, cwd=self.tmp)

    def produce(self, topic: str, partition: int, count: int, tag: str) -> None:
        producer = Producer({"bootstrap.servers": self.bootstrap, "acks": "all", "log_level": 0})
        for i in range(count):
            producer.produce(topic, value=f"{tag}-{i}".encode(), partition=partition)
        assert producer.flush(30) == 0


def _free_base() -> int:
    for base in PORTS:
        if all(port_is_free(base + i) for i in range(12)):
            return base
    raise AssertionError("no free block of 12 ports in 22100-22900")


@pytest.fixture(scope="module")
def lab(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    root = tmp_path_factory.mktemp("elect-lab")
    clusters = Clusters(root)
    base = _free_base()
    try:
        cluster = clusters.make(
            kafka_home, name="elect", mode="kraft", brokers=3, controllers=1, heap="256m", base_port=base,
            controller_port=base + 10, zookeeper_port=base + 11,
            broker_properties=(("auto.leader.rebalance.enable", "false"),),
        )  # fmt: skip
        cluster.up(timeout_s=180)
        yield Lab(cluster, kafka_home, root)
    finally:
        clusters.cleanup()  # down(), then kill any recorded pid still alive (start time verified)


def election_file(lab: Lab, *partitions: TopicPartition) -> str:
    path = lab.tmp / f"election-{time.monotonic_ns()}.json"
    path.write_text(json.dumps({"partitions": [{"topic": tp.topic, "partition": tp.partition} for tp in partitions]}))
    return str(path)


def normalized(lines: str) -> list[tuple[str, frozenset[str]]]:
    """kafka-leader-election.sh's lines with their partition lists as sets (its tool lists them in hash order,
    kafkatop in order), and a Java exception's class as Kafka's error name (PreferredLeaderNotAvailableException:
    PREFERRED_LEADER_NOT_AVAILABLE), which is what kafkatop prints."""
    out = []
    for line in lines.strip().splitlines():
        line = re.sub(
            r"org\.apache\.kafka\.common\.errors\.(\w+)Exception",
            lambda m: re.sub(r"(?<!^)(?=[A-Z])", "_", m.group(1)).upper(),
            line,
        )
        prefix, sep, parts = line.partition(" for partitions ")
        out.append((prefix, frozenset(parts.split(", "))) if sep else (line, frozenset()))
    return out


def moved_off(lab: Lab, topic: str, broker: int) -> set[int]:
    return {pid for pid, p in lab.partitions(topic).items() if p.preferred_leader == broker and p.leader != broker}


def in_sync(lab: Lab, topic: str) -> bool:
    parts = lab.partitions(topic)
    return bool(parts) and all(set(p.isr) == set(p.replicas) and p.leader != NO_LEADER for p in parts.values())


# --- preferred ------------------------------------------------------------------------------------------------------
def test_preferred_election_puts_back_leaders_a_restart_left_moved(lab: Lab) -> None:
    try:
        with TopicAdmin(lab.connection) as admin:
            admin.create_topic("orders", 6, 2)
        wait_for(lambda: in_sync(lab, "orders"), 30, 0.2, "orders led and in sync")
        preferred_1 = {pid for pid, p in lab.partitions("orders").items() if p.preferred_leader == 1}
        assert preferred_1, "6 partitions over 3 brokers: broker 1 is the preferred leader of some"

        def kill_and_restart_1() -> None:
            lab.kill(1)
            lab.start(1)
            wait_for(lambda: in_sync(lab, "orders"), 60, 0.5, "broker 1 back in every ISR")
            assert moved_off(lab, "orders", 1) == preferred_1, "leaders moved away stay moved"

        kill_and_restart_1()
        dry = lab.kafkatop("elect-leaders", "--election-type", "preferred", "--topic", "orders", "--dry-run")
        assert dry.returncode == 0, dry.stderr
        assert normalized(dry.stdout)[0] == ("Would elect (PREFERRED)", frozenset(f"orders-{p}" for p in preferred_1))
        assert "nothing was sent (--dry-run)" in dry.stderr
        assert moved_off(lab, "orders", 1) == preferred_1  # nothing was sent

        # Kafka's tool first (its --partition takes one: the topic's partitions go in a JSON file) …
        every = [TopicPartition("orders", p) for p in range(6)]
        started = time.monotonic()
        theirs = lab.kafka_tool("kafka-leader-election.sh", "--election-type", "preferred",
                                "--path-to-json-file", election_file(lab, *every))  # fmt: skip
        their_time = time.monotonic() - started
        assert theirs.returncode == 0, theirs.stdout + theirs.stderr
        assert moved_off(lab, "orders", 1) == set()
        # … then the same moves again, and kafkatop's.
        kill_and_restart_1()
        started = time.monotonic()
        ours = lab.kafkatop("elect-leaders", "--election-type", "preferred", "--topic", "orders")
        took = time.monotonic() - started
        assert ours.returncode == 0, ours.stderr
        assert normalized(ours.stdout) == normalized(theirs.stdout), (ours.stdout, theirs.stdout)
        assert normalized(ours.stdout) == [
            ("Successfully completed leader election (PREFERRED)", frozenset(f"orders-{p}" for p in preferred_1)),
            ("Valid replica already elected", frozenset(f"orders-{p}" for p in set(range(6)) - preferred_1)),
        ]
        assert moved_off(lab, "orders", 1) == set()
        print(f"kafka-leader-election.sh: {their_time:.1f} s, kafkatop elect-leaders: {took:.1f} s (each a new "
              f"process); kafka-leader-election.sh's lines:\n{theirs.stdout}kafkatop's:\n{ours.stdout}")  # fmt: skip

        # Refused by Kafka: the preferred leader is down. The same line, but for Kafka's error name.
        victim = next(pid for pid, p in lab.partitions("orders").items() if p.preferred_leader == 2)
        lab.kill(2)
        theirs = lab.kafka_tool("kafka-leader-election.sh", "--election-type", "preferred", "--topic", "orders",
                                "--partition", str(victim))  # fmt: skip
        ours = lab.kafkatop("elect-leaders", "--election-type", "preferred", "--topic", "orders",
                            "--partition", str(victim))  # fmt: skip
        assert theirs.returncode == ours.returncode == 1
        assert normalized(ours.stdout) == normalized(theirs.stdout) == [
            (f"Error completing leader election (PREFERRED) for partition: orders-{victim}: "
             "PREFERRED_LEADER_NOT_AVAILABLE: The preferred leader was not available.", frozenset()),
        ]  # fmt: skip
        for said in (theirs.stderr, ours.stderr):
            assert "1 replica(s) could not be elected" in said
        assert "Traceback" not in ours.stderr
    finally:
        lab.all_up()


# --- unclean --------------------------------------------------------------------------------------------------------
def test_unclean_election_asks_first_then_loses_what_it_said(lab: Lab) -> None:
    try:
        made = lab.kafka_tool("kafka-topics.sh", "--create", "--topic", "risky", "--replica-assignment", "2:3,2:3,2:3")
        assert made.returncode == 0, made.stdout + made.stderr
        wait_for(lambda: in_sync(lab, "risky"), 30, 0.2, "risky led and in sync")
        for p in (0, 1, 2):
            lab.produce("risky", p, 100, "copied")
        wait_for(lambda: all(p.high_watermark == 100 for p in lab.partitions("risky", full=True).values()), 30, 0.2)
        lab.kill(3)  # the follower: the ISR shrinks to broker 2 alone
        for p in (0, 1, 2):
            lab.produce("risky", p, 40, "only-on-2")  # acknowledged with acks=all: the ISR is {2}
        lab.kill(2)  # the last in-sync replica
        lab.start(3)  # alive, 40 records behind, not in the ISR (nor in Kafka 4's ELR)
        offline = lab.partitions("risky")
        assert all(p.leader == NO_LEADER for p in offline.values()), offline

        asked = ("elect-leaders", "--election-type", "unclean", "--topic", "risky", "--partition", "0")
        refused = lab.kafkatop(*asked)  # no terminal, no --yes
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert "broker 3's log ends at offset 100" in refused.stderr
        assert "nothing was sent: an unclean election needs a confirmation" in refused.stderr
        assert refused.stdout == ""
        assert lab.partitions("risky")[0].leader == NO_LEADER

        dry = lab.kafkatop(*asked, "--dry-run")
        assert dry.returncode == 0, dry.stderr
        assert dry.stdout.splitlines()[:2] == [
            "Would elect (UNCLEAN) for partitions risky-0",
            "  risky-0: leader none → 3 (3 is alive but not in the ISR (empty): it would lead with what it has)",
        ]
        assert lab.partitions("risky")[0].leader == NO_LEADER

        # On a terminal it asks, and on a cluster named by its address (not a lab of kafkatop's) for that address
        # typed, as GitHub asks for a repository's name: anything else sends nothing, "yes" included.
        name = lab.bootstrap.split(",")[0]
        for wrong in ("no", "yes"):
            status, out, terminal = lab.typed(wrong, *asked)
            assert (status, out) == (1, ""), terminal
            assert f"type {name} to go ahead (anything else cancels)" in terminal
            assert "not confirmed: nothing was sent" in terminal
        assert lab.partitions("risky")[0].leader == NO_LEADER
        status, out, terminal = lab.typed(name, *asked)
        assert (status, out) == (0, "Successfully completed leader election (UNCLEAN) for partitions risky-0\n"), (
            terminal
        )

        ours = lab.kafkatop(
            "elect-leaders", "--election-type", "unclean", "--topic", "risky", "--partition", "2", "--yes"
        )
        theirs = lab.kafka_tool("kafka-leader-election.sh", "--election-type", "unclean", "--topic", "risky",
                                "--partition", "1")  # fmt: skip
        assert ours.returncode == theirs.returncode == 0, ours.stderr + theirs.stderr
        assert ours.stdout == "Successfully completed leader election (UNCLEAN) for partitions risky-2\n"
        assert theirs.stdout == ours.stdout.replace("risky-2", "risky-1")
        led = wait_for(lambda: all(p.leader == 3 for p in lab.partitions("risky", full=True).values()) and
                       lab.partitions("risky", full=True), 30, 0.5, "risky led by broker 3")  # fmt: skip
        # What kafkatop said would be lost is what was lost: the log now ends where broker 3's did.
        assert {pid: p.high_watermark for pid, p in led.items()} == {0: 100, 1: 100, 2: 100}

        again = ("elect-leaders", "--election-type", "unclean", "--topic", "risky", "--partition", "0")
        ours, theirs = lab.kafkatop(*again), lab.kafka_tool("kafka-leader-election.sh", *again[1:])
        assert ours.stdout == theirs.stdout == "Valid replica already elected for partitions risky-0\n"
    finally:
        lab.all_up()


# --- new partitions -------------------------------------------------------------------------------------------------
def test_add_partitions_and_its_refusals_in_kafka_topics_words(lab: Lab) -> None:
    with TopicAdmin(lab.connection) as admin:
        admin.create_topic("grow", 3, 2)
    wait_for(lambda: len(lab.partitions("grow")) == 3, 30, 0.2)

    dry = lab.kafkatop("add-partitions", "--topic", "grow", "--partitions", "5", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert (
        dry.stdout
        == "Kafka accepts 2 more partition(s) for topic grow: 3 → 5 (validated; nothing changed: --dry-run)\n"
    )
    assert len(lab.partitions("grow")) == 3

    added = lab.kafkatop("add-partitions", "--topic", "grow", "--partitions", "5")
    assert added.returncode == 0, added.stderr
    assert added.stdout == "Added 2 partition(s) to topic grow: 3 → 5.\n"
    assert "warning: keys will map to other partitions" in added.stderr
    assert len(wait_for(lambda: len(lab.partitions("grow")) == 5 and lab.partitions("grow"), 30, 0.2)) == 5

    # The same refusals as kafka-topics.sh, in its words ("Error while executing topic command : <Kafka's words>").
    for total, words in (
        ("5", "Topic already has 5 partition(s)."),
        ("2", "The topic grow currently has 5 partition(s); 2 would not be an increase."),
    ):
        ours = lab.kafkatop("add-partitions", "--topic", "grow", "--partitions", total)
        theirs = lab.kafka_tool("kafka-topics.sh", "--alter", "--topic", "grow", "--partitions", total)
        assert ours.returncode == 2 and ours.stdout == ""
        assert ours.stderr == f"kafkatop: Cannot add partitions to topic 'grow': {words}\n"
        assert f"Error while executing topic command : {words}" in theirs.stdout
    ours = lab.kafkatop("add-partitions", "--topic", "nope", "--partitions", "4")
    theirs = lab.kafka_tool("kafka-topics.sh", "--alter", "--topic", "nope", "--partitions", "4")
    assert ours.returncode == 2 and ours.stderr == "kafkatop: Topic 'nope' does not exist as expected\n"
    assert "Error while executing topic command : Topic 'nope' does not exist as expected" in theirs.stdout

    # Kafka's own refusal, past the checks made before asking: validated first, nothing changed.
    with TopicAdmin(lab.connection) as admin, pytest.raises(TopicError) as refused:
        admin.add_partitions("grow", 4)
    assert refused.value.code == "INVALID_PARTITIONS"
    assert str(refused.value) == (
        "Cannot add partitions to topic 'grow': The topic grow currently has 5 partition(s); 4 would not be an "
        "increase."
    )
    assert len(lab.partitions("grow")) == 5
