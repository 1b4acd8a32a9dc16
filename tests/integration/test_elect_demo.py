"""Leader elections and new partitions where no real Kafka is needed: the command line's refusals (before any
connection), and the demo — its controller answering ElectLeaders by Kafka's rules on the librdkafka mock, its
refusal to add partitions — driven through the live view's keys `e`, `E` and `P` with Textual's pilot."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from kafkatop.backends.demo.cluster import DemoCluster
from kafkatop.backends.demo.consoles import DemoConsoles
from kafkatop.backends.demo.elections import DemoElections
from kafkatop.backends.demo.node_control import DemoControl
from kafkatop.backends.demo.source import DemoSource
from kafkatop.backends.demo.topics import DemoTopicAdmin
from kafkatop.backends.insight.timeline.model import EventKind
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.elections import LeaderElector
from kafkatop.backends.kafka.cluster.topics import TopicAdmin
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.cluster import NO_LEADER, ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.elections import (
    ELECTION_NOT_NEEDED,
    ELIGIBLE_LEADERS_NOT_AVAILABLE,
    PREFERRED_LEADER_NOT_AVAILABLE,
    UNKNOWN_TOPIC_OR_PARTITION,
    ElectionError,
    ElectionType,
)
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.model.topics import TopicError
from kafkatop.backends.recording.file import read_recording
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.replay import Replay
from kafkatop.tui.live.screens.add_partitions import AddPartitionsScreen
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.screens.elect_leaders import ElectLeadersScreen
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.partitions.pane import PartitionTable
from tests.conftest import pilot_until
from tests.fixtures.demo import demo_with_consoles
from tests.integration.test_bad_input import assert_refused, kafkatop

PREFERRED, UNCLEAN = ElectionType.PREFERRED, ElectionType.UNCLEAN


# --- the command line: refused before anything is asked of a cluster ------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--election-type", "preferred"], "One and only one of the following options is required: --topic, "
         "--all-topic-partitions, --path-to-json-file"),
        (["--election-type", "preferred", "--topic", "t", "--all-topic-partitions"], "One and only one"),
        (["--election-type", "preferred", "--all-topic-partitions", "--partition", "1"],
         "Option --partition is only allowed if --topic is used"),
        (["--election-type", "sideways", "--topic", "t"], "argument --election-type: invalid choice: 'sideways'"),
        (["--topic", "t"], "--election-type is required"),
        (["--election-type", "preferred", "--topic", "t", "--partition", "-1"],
         "argument --partition: expected a partition, 0 or more; not -1"),
        (["--election-type", "preferred", "--path-to-json-file", "missing.json"],
         "--path-to-json-file missing.json: cannot read it (No such file or directory)"),
        (["--election-type", "preferred", "--path-to-json-file", "bad.json"], "--path-to-json-file bad.json: not JSON"),
        (["--election-type", "preferred", "--path-to-json-file", "nofield.json"],
         'Replica election data is missing "partitions" field'),
        (["--election-type", "preferred", "--path-to-json-file", "twice.json"],
         "Replica election data contains duplicate partitions: t-0"),
        (["--election-type", "preferred", "--path-to-json-file", "shape.json"],
         '{"topic": "t"} is not {"topic": NAME, "partition": NUMBER}'),
    ],
)  # fmt: skip
def test_elect_leaders_refuses_bad_input_before_connecting(argv: list[str], says: str, tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{partitions")
    (tmp_path / "nofield.json").write_text('{"topics": []}')
    (tmp_path / "twice.json").write_text(json.dumps({"partitions": [{"topic": "t", "partition": 0}] * 2}))
    (tmp_path / "shape.json").write_text(json.dumps({"partitions": [{"topic": "t"}]}))
    # A bootstrap server nobody listens on: a refusal that tried to connect would fail differently, after a wait.
    result = kafkatop("elect-leaders", *argv, "--bootstrap-server", "127.0.0.1:1", "--timeout", "1", cwd=tmp_path)
    assert_refused(result, says)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--topic", "t"], "--partitions is required"),
        (["--topic", "t", "--partitions", "0"], "argument --partitions: expected a count, 1 or more; not 0"),
    ],
)
def test_add_partitions_refuses_bad_input(argv: list[str], says: str, tmp_path: Path) -> None:
    assert_refused(kafkatop("add-partitions", *argv, "--bootstrap-server", "127.0.0.1:1", cwd=tmp_path), says)


# --- the demo's controller ------------------------------------------------------------------------------------------
@pytest.fixture
def demo() -> Iterator[tuple[DemoCluster, DemoControl, DemoConsoles]]:
    with demo_with_consoles() as made:
        yield made


def leaders(control: DemoControl, admin: AdminSource) -> dict[TopicPartition, int]:
    return {TopicPartition(p.topic, p.id): p.leader for p in control.overlay(admin.poll()).partitions}


def test_the_demo_controller_elects_by_kafkas_rules(demo: Any) -> None:
    cluster, control, _ = demo
    admin = AdminSource(cluster.connection, timeout_s=2.0)
    elections = DemoElections(control)
    assert "DEMO" in (elections.note or "")
    before = leaders(control, admin)
    led_by_1 = sorted(tp for tp, leader in before.items() if leader == 1)
    assert led_by_1, "the demo's topics start led by their preferred leaders, some by broker 1"

    control.kill("broker-1")
    moved = leaders(control, admin)
    assert all(moved[tp] not in (1, NO_LEADER) for tp in led_by_1)
    # While 1 is down, its partitions cannot go back: Kafka's PREFERRED_LEADER_NOT_AVAILABLE.
    refused = elections.elect(PREFERRED, led_by_1[:1])
    assert [r.error for r in refused.results] == [PREFERRED_LEADER_NOT_AVAILABLE]

    control.start("broker-1")  # back in the ISR at once; no rebalance in these tests (rebalance_delay_s=None)
    assert leaders(control, admin) == moved, "leaders moved away stay moved"
    results = elections.elect(PREFERRED, None)
    assert results.elected == tuple(led_by_1)  # every partition: only those that moved are answered, as Kafka does
    assert results.not_needed == () and results.failed == ()
    assert leaders(control, admin) == before

    again = elections.elect(PREFERRED, [*led_by_1[:1], TopicPartition("orders", 99)])
    assert {r.partition: r.error for r in again.results} == {
        led_by_1[0]: ELECTION_NOT_NEEDED,
        TopicPartition("orders", 99): UNKNOWN_TOPIC_OR_PARTITION,
    }


def test_an_unclean_election_in_the_demo_takes_the_out_of_sync_replica(demo: Any) -> None:
    cluster, control, _ = demo
    admin = AdminSource(cluster.connection, timeout_s=2.0)
    elections = DemoElections(control)
    tp = TopicPartition("purchases", 0)
    for broker in ("broker-2", "broker-3", "broker-1"):  # the ISR shrinks to broker 1, then it goes too
        control.kill(broker)
    assert [r.error for r in elections.elect(UNCLEAN, [tp]).results] == [ELIGIBLE_LEADERS_NOT_AVAILABLE]

    control.start("broker-2")  # alive, out of sync: the partition stays offline (unclean elections are off)
    offline = control.overlay(admin.poll())
    part = next(p for p in offline.partitions if (p.topic, p.id) == (tp.topic, tp.partition))
    assert part.leader == NO_LEADER and part.isr == (1,)
    assert elections.elect(UNCLEAN, [tp]).elected == (tp,)
    after = control.overlay(admin.poll())
    assert next(p for p in after.partitions if (p.topic, p.id) == ("purchases", 0)).leader == 2
    assert [r.error for r in elections.elect(UNCLEAN, [tp]).results] == [ELECTION_NOT_NEEDED]


def test_the_demo_cannot_add_partitions_and_says_so(demo: Any) -> None:
    _, control, _ = demo
    with pytest.raises(TopicError, match="the librdkafka mock makes a topic's partitions once"):
        DemoTopicAdmin(control).add_partitions("orders", 8, validate_only=True)


# --- the live view's keys -------------------------------------------------------------------------------------------
def make_app(demo: tuple[DemoCluster, DemoControl, DemoConsoles]) -> KafkatopApp:
    cluster, control, consoles = demo
    admin = AdminSource(cluster.connection, timeout_s=1.0, watch_groups=cluster.groups)
    source = DemoSource(control, admin, consoles.consumer_views, cluster.groups)  # as compose.py wires the demo
    sources = Sources(
        source.poll, control, None, lambda: DemoTopicAdmin(control), consoles,
        elections=lambda: DemoElections(control),
    )  # fmt: skip
    return KafkatopApp(sources, Settings(poll_interval_s=0.2))


def moved_away(app: KafkatopApp, broker: int) -> bool:
    snap = app.snapshot
    return snap is not None and any(p.preferred_leader == broker and p.leader != broker for p in snap.partitions)


async def test_e_shows_the_moves_first_then_elects_and_the_timeline_tells_it(demo: Any) -> None:
    _, control, _ = demo
    app = make_app(demo)
    async with app.run_test(size=(120, 36)) as pilot:
        table = app.query_one(PartitionTable)
        await pilot_until(pilot, lambda: table.row_count > 0, "partitions")
        control.kill("broker-1")
        control.start("broker-1")
        await pilot_until(pilot, lambda: moved_away(app, 1), "leaders moved off broker 1")
        await pilot.press("e")
        screen = app.screen
        assert isinstance(screen, ElectLeadersScreen)
        topic = table.selected_topic
        assert screen.plan.moving and {c.partition.topic for c in screen.plan.moving} == {topic}
        assert all(c.new_leader == 1 for c in screen.plan.moving)
        assert app.snapshot is not None and moved_away(app, 1), "nothing was sent yet"
        await pilot.press("a")  # every topic
        everything = {c.partition for c in screen.plan.moving}
        assert everything == {
            TopicPartition(p.topic, p.id) for p in app.snapshot.partitions if p.preferred_leader == 1 and p.leader != 1
        }
        await pilot.press("enter")
        await pilot_until(pilot, lambda: not moved_away(app, 1), "preferred leaders back")
        await pilot_until(pilot, lambda: app.last_action is not None, "the election's end")
        assert app.last_action is not None and app.last_action.error is None
        incidents = app.timeline.snapshot().incidents
        election = incidents[-1]
        kinds = [s.event.kind for s in election.steps]
        assert election.trigger.value == "leader election" and kinds[:2] == [EventKind.OPERATION] * 2
        assert "the demo's controller" in election.steps[0].event.text
        await pilot_until(pilot, lambda: app.timeline.snapshot().incidents[-1].ended_at is not None, "incident ends")
        changes = [s for s in app.timeline.snapshot().incidents[-1].steps if s.event.kind is EventKind.LEADER_CHANGED]
        assert len(changes) == len(everything)


async def test_shift_e_says_what_is_lost_and_asks_twice(demo: Any) -> None:
    _, control, _ = demo
    app = make_app(demo)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot_until(pilot, lambda: app.query_one(PartitionTable).row_count > 0, "partitions")
        for broker in ("broker-2", "broker-3", "broker-1"):
            control.kill(broker)
        control.start("broker-2")
        await pilot_until(pilot, lambda: app.snapshot is not None and len(app.snapshot.offline) == 9, "offline")
        await pilot.press("E")
        screen = app.screen
        assert isinstance(screen, ElectLeadersScreen)
        await pilot_until(pilot, lambda: not screen.reading, "the log ends asked for")
        topic = app.query_one(PartitionTable).selected_topic
        assert {c.partition.topic for c in screen.plan.unclean_moves} == {topic}  # the highlighted row's topic
        await pilot.press("a")  # every topic
        await pilot_until(pilot, lambda: not screen.reading, "the log ends asked for")
        assert len(screen.plan.unclean_moves) == 9 and all(c.new_leader == 2 for c in screen.plan.unclean_moves)
        summary = str(screen.query_one("#elect-summary", Static).render())
        assert "out-of-sync leader" in summary and "lost for good" in summary
        await pilot.press("enter")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")  # not confirmed: back to the plan, nothing sent
        assert app.screen is screen
        assert len(app.snapshot.offline) == 9
        await pilot.press("enter", "y")
        await pilot_until(pilot, lambda: app.snapshot is not None and not app.snapshot.offline, "led again")
        assert all(p.leader == 2 for p in app.snapshot.partitions)


async def test_p_asks_kafka_and_shows_the_demos_refusal_in_the_dialog(demo: Any) -> None:
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot_until(pilot, lambda: app.query_one(PartitionTable).row_count > 0, "partitions")
        await pilot.press("P")
        screen = app.screen
        assert isinstance(screen, AddPartitionsScreen)
        await pilot.press("enter")
        errors = screen.query_one("#dialog-errors", Static)
        await pilot_until(pilot, lambda: "librdkafka mock" in str(errors.render()), "the demo's refusal")
        assert app.screen is screen and screen.validated is None  # still open: nothing was added
        await pilot.press("escape")
        assert not isinstance(app.screen, AddPartitionsScreen)


async def test_the_keys_act_in_partitions_only_and_say_where(demo: Any) -> None:
    app = make_app(demo)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot_until(pilot, lambda: app.snapshot is not None, "first poll")
        await pilot.press("2", "e")
        assert not isinstance(app.screen, ElectLeadersScreen)
        await pilot.press("P")
        assert not isinstance(app.screen, AddPartitionsScreen)
        notices = [n.message for n in app._notifications]
        assert any("e elects leaders" in n and "press 1" in n for n in notices)
        assert any("P adds partitions" in n for n in notices)


# --- a recorded election, replayed ---------------------------------------------------------------------------------
RECORDED = Path(__file__).parents[1] / "fixtures" / "recordings" / "kraft-4.1-preferred-election.jsonl.gz"


def never_polled() -> ClusterSnapshot:
    raise AssertionError("a replay polls nothing")


async def test_a_recorded_election_replays_as_an_incident_and_its_keys_act_on_nothing() -> None:
    """Recorded with `kafkatop --bootstrap-server … --record` on a Kafka 4.1 lab (a controller and 3 brokers): a
    preferred election of every topic, a kill -9 of broker 1, its start (`kafkatop start 1`), and `e` on orders."""
    recording = read_recording(RECORDED)
    replay = Replay(recording, paused=True)
    app = KafkatopApp(Sources(never_polled), Settings(), replay=replay)
    async with app.run_test(size=(120, 36)) as pilot:
        replay.step(len(recording.entries))
        await pilot_until(pilot, lambda: replay.state().ended, "the whole recording")
        incidents = app.timeline.snapshot().incidents
        assert [i.trigger.value for i in incidents] == ["leader election", "kill -9", "start", "leader election"]
        last = incidents[-1]
        assert last.subject == "orders" and last.ended_at is not None
        moved = {str(s.event.partition) for s in last.steps if s.event.kind is EventKind.LEADER_CHANGED}
        assert moved == {"orders-2", "orders-5"}  # broker 1's partitions, back to it
        assert last.steps[0].event.text == "preferred leader election: orders-2 2 → 1, orders-5 3 → 1"
        for key in ("e", "E", "P"):
            await pilot.press(key)
            await pilot.pause()
            assert "a replay only plays back what was recorded" in [n.message for n in app._notifications][-1]
            assert len(app.screen_stack) == 1


# --- the adapters, where the mock cannot do what is asked -----------------------------------------------------------
def test_a_cluster_without_elect_leaders_or_create_partitions_says_so(mock_cluster: MockCluster) -> None:
    """The librdkafka mock offers neither ElectLeaders nor CreatePartitions: one clear line each, nothing changed."""
    mock_cluster.create_topic("t", 2, 3)
    connection = KafkaConnection.parse(mock_cluster.bootstrap_servers)
    with LeaderElector(connection, timeout_s=5.0) as elector, pytest.raises(ElectionError) as refused:
        elector.elect(PREFERRED, [TopicPartition("t", 0)])
    assert str(refused.value).startswith(
        "cannot run a preferred leader election: this cluster does not offer ElectLeaders"
    )
    with TopicAdmin(connection, timeout_s=5.0) as admin, pytest.raises(TopicError) as not_added:
        admin.add_partitions("t", 4)
    assert str(not_added.value).startswith(
        "Cannot add partitions to topic 't': CreatePartitions (KIP-195) not supported"
    )
    assert len(mock_cluster_partitions(connection, "t")) == 2


def mock_cluster_partitions(connection: KafkaConnection, topic: str) -> list[int]:
    source = AdminSource(connection, timeout_s=2.0)
    try:
        found = source.poll(topics_only=True).topic(topic)
    finally:
        source.close()
    return [p.id for p in found.partitions] if found is not None else []


def test_an_election_that_gets_no_answer_ends_within_its_timeout() -> None:
    """confluent-kafka's elect_leaders takes no timeout of its own: the elector's socket.timeout.ms bounds it."""
    with LeaderElector(KafkaConnection.parse("127.0.0.1:1"), timeout_s=1.5) as elector:
        started = time.monotonic()
        with pytest.raises(ElectionError, match="Timeout waiting for election results: no answer from 127.0.0.1:1"):
            elector.elect(PREFERRED, None)
        assert time.monotonic() - started < 5.0


async def test_the_demo_says_it_cannot_reassign_or_delete_groups(demo: Any) -> None:
    """The mock has no AlterPartitionReassignments, DeleteGroups or OffsetDelete: m, x and X say so, and nothing
    opens (compose.py gives the demo neither port)."""
    app = make_app(demo)

    def said() -> str:
        return str([n.message for n in app._notifications][-1])

    async with app.run_test(size=(80, 24)) as pilot:
        await pilot_until(pilot, lambda: app.query_one(PartitionTable).row_count > 0, "partitions")
        await pilot.press("m")
        await pilot.pause()
        assert "has no partition reassignment (AlterPartitionReassignments)" in said()
        await pilot.press("x")  # not in Groups: says where
        await pilot.pause()
        assert "x acts on the group highlighted in Groups" in said()
        await pilot.press("5")
        await pilot.press("x")
        await pilot.pause()
        assert "cannot delete groups or offsets" in said()
        assert app.screen is app.main_screen
