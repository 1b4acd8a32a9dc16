"""Reassignment without a cluster: the codecs on responses recorded from a real Kafka 4.1 (a broker id that does not
exist, a cancel of what is not moving beside an unknown topic, one partition moving under a throttle, none moving),
the proposal (balance, fewest moves, racks, refusals), Kafka's JSON plan format, and the stages of a partition."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from kafkatop.backends.insight.reassign_plan import check_targets, propose
from kafkatop.backends.model.cluster import Broker, ClusterSnapshot, Partition, Topic
from kafkatop.backends.model.reassignment import (
    Ongoing,
    ReassignmentRefused,
    Stage,
    current_json,
    parse_plan_json,
    progress,
    proposed_json,
)
from kafkatop.backends.protocol.reassignments import (
    OngoingReassignment,
    PartitionResult,
    alter_body,
    decode_alter,
    decode_list,
    list_body,
)
from kafkatop.backends.protocol.wire import ProtocolError, response_reader

RECORDED = json.loads((Path(__file__).parents[1] / "fixtures" / "reassign" / "responses.json").read_text())


def recorded(name: str) -> bytes:
    return bytes.fromhex(RECORDED[name])


# --- the codecs -----------------------------------------------------------------------------------------------------
def test_kafka_s_refusals_per_partition() -> None:
    dead = decode_alter(response_reader(recorded("alter_dead_broker")))
    assert dead.error_code == 0 and dead.partitions == (
        PartitionResult("t6", 0, 39, "The manual partition assignment includes broker 9, but no such broker is "
                        "registered."),
    )  # fmt: skip
    cancel = decode_alter(response_reader(recorded("alter_cancel_unknown")))
    assert cancel.partitions == (
        PartitionResult("nope", 0, 3, "Unable to find a topic named nope."),
        PartitionResult("t6", 0, 85, None),  # NO_REASSIGNMENT_IN_PROGRESS
    )


def test_the_reassignments_in_progress() -> None:
    assert decode_list(response_reader(recorded("list_none"))).reassignments == ()
    moving = decode_list(response_reader(recorded("list_t6_moving")))
    assert moving.reassignments == (OngoingReassignment("t6", 0, (4, 1, 3, 2), (4,), (2,)),)


@pytest.mark.parametrize("name", ["alter_dead_broker", "list_t6_moving"])
def test_truncated_responses_are_protocol_errors(name: str) -> None:
    payload = recorded(name)
    decode = decode_alter if name.startswith("alter") else decode_list
    for cut in range(4, len(payload) - 1, 3):
        with pytest.raises(ProtocolError):
            decode(response_reader(payload[:cut]))


def test_request_bodies() -> None:
    # timeout, one topic "t" with partition 0 -> [1, 2] and partition 1 cancelled (null replicas), no tagged fields
    assert alter_body({("t", 1): None, ("t", 0): [1, 2]}, 5000).hex() == (
        "000013880202740300000000030000000100000002000000000100000000"
    )
    assert list_body(None, 5000).hex() == "000013880000"
    assert list_body({"t": [0]}, 5000).hex() == "0000138802027402000000000000"


# --- the proposal ---------------------------------------------------------------------------------------------------
def cluster(replicas: list[tuple[int, ...]], brokers: int = 4, racks: dict[int, str] | None = None,
            dead: tuple[int, ...] = ()) -> ClusterSnapshot:  # fmt: skip
    parts = tuple(Partition("t6", i, r[0], r, r) for i, r in enumerate(replicas))
    bs = tuple(
        Broker(b, "127.0.0.1", 9000 + b, (racks or {}).get(b), alive=b not in dead) for b in range(1, brokers + 1)
    )
    return ClusterSnapshot("admin", 0.0, "c", "kraft", 1, bs, (Topic("t6", parts),))


SIX_BY_TWO = [(2, 3), (3, 1), (1, 2), (2, 1), (1, 3), (3, 2)]  # as Kafka placed a 6x2 topic on brokers 1-3


def loads(plan_targets: list[tuple[int, ...]]) -> tuple[Counter[int], Counter[int]]:
    return Counter(b for t in plan_targets for b in t), Counter(t[0] for t in plan_targets)


def test_a_new_broker_takes_its_share_and_nothing_else_moves() -> None:
    plan = propose(cluster(SIX_BY_TWO), "t6", [1, 2, 3, 4])
    targets = [m.target for m in plan.moves]
    replicas, leaders = loads(targets)
    assert replicas == {1: 3, 2: 3, 3: 3, 4: 3} and max(leaders.values()) <= 2
    assert plan.replicas_moved == 3 and all(len(m.adding) <= 1 for m in plan.moves)


def test_replication_factor_up_adds_only_and_down_removes_only() -> None:
    up = propose(cluster(SIX_BY_TWO), "t6", replication_factor=3)
    assert all(len(m.target) == 3 and not m.removing for m in up.moves)
    assert max(loads([m.target for m in up.moves])[0].values()) <= 5
    down = propose(cluster([(1, 2, 3)] * 3, brokers=3), "t6", replication_factor=2)
    assert all(len(m.target) == 2 and not m.adding for m in down.moves)
    assert sorted(loads([m.target for m in down.moves])[0].values()) == [2, 2, 2]
    # One partition already at the lower factor, on a broker over its share: it stays, nothing is copied.
    mixed = propose(
        cluster([(1, 3), (3, 2, 1), (1, 4, 3), (2, 4, 1), (4, 3, 2), (2, 1, 4)]), "t6", replication_factor=2
    )
    assert mixed.replicas_moved == 0 and mixed.moves[0].target == (1, 3)


def test_moving_off_a_broker_leaves_nothing_on_it() -> None:
    plan = propose(cluster(SIX_BY_TWO, brokers=3), "t6", [1, 2])
    assert all(set(m.target) == {1, 2} for m in plan.moves)
    assert sorted(loads([m.target for m in plan.moves])[1].values()) == [3, 3]  # leaders spread


def test_racks_are_spread_within_each_partition() -> None:
    racks = {1: "a", 2: "a", 3: "b", 4: "b"}
    plan = propose(cluster([(1,), (2,), (3,), (4,)], racks=racks), "t6", replication_factor=2)
    assert all({racks[b] for b in m.target} == {"a", "b"} for m in plan.moves)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ({"brokers": [1, 2, 9]}, "target broker 9 is not in the cluster (its brokers: 1,2,3,4)"),
        ({"brokers": [1, 2, 4]}, "target broker 4 is down"),
        ({"replication_factor": 4}, "replication factor 4 on 3 broker(s) (1,2,3)"),
        ({"topic": "nope"}, "no topic 'nope' in the cluster"),
    ],
)
def test_a_plan_that_cannot_run_is_refused(args: dict[str, object], says: str) -> None:
    snapshot = cluster(SIX_BY_TWO, dead=(4,))
    with pytest.raises(ReassignmentRefused, match=None) as refused:
        propose(snapshot, str(args.pop("topic", "t6")), **args)  # type: ignore[arg-type]
    assert says in str(refused.value)


def test_explicit_targets_are_checked_the_same_way() -> None:
    snapshot = cluster(SIX_BY_TWO)
    with pytest.raises(ReassignmentRefused, match="t6-0: broker listed twice in 1,1"):
        check_targets(snapshot, {("t6", 0): (1, 1)})
    with pytest.raises(ReassignmentRefused, match="t6 has no partition 6"):
        check_targets(snapshot, {("t6", 6): (1, 2)})
    plan = check_targets(snapshot, {("t6", 0): (4, 3)})
    assert [(m.name, m.adding, m.removing) for m in plan.changes] == [("t6-0", (4,), (2,))]


# --- Kafka's JSON, and the stages -----------------------------------------------------------------------------------
def test_kafka_s_json_both_ways() -> None:
    plan = check_targets(cluster(SIX_BY_TWO), {("t6", 0): (2, 4)})
    assert current_json(plan) == '{"version":1,"partitions":[{"topic":"t6","partition":0,"replicas":[2,3],' \
        '"log_dirs":["any","any"]}]}'  # fmt: skip
    assert parse_plan_json(proposed_json(plan), "f") == {("t6", 0): (2, 4)}
    for text, says in [
        ("{", "not JSON (line 1, column 2"),
        ('{"partitions": []}', "no partitions"),
        ('{"partitions": [{"topic": "t", "partition": 0, "replicas": [1], "log_dirs": ["/d"]}]}', "log_dirs"),
        ('{"partitions": [{"topic": "t", "partition": 0, "replicas": "1"}]}', 'no "replicas" list'),
    ]:
        with pytest.raises(ReassignmentRefused, match=None) as refused:
            parse_plan_json(text, "plan.json")
        assert says in str(refused.value) and "kafka-reassign-partitions.sh's JSON" in str(refused.value)


def test_the_stages_of_a_partition() -> None:
    before = cluster(SIX_BY_TWO)
    plan = check_targets(before, {("t6", 0): (2, 4)})
    grown = cluster([(2, 3, 4), *SIX_BY_TWO[1:]])  # replicas 2,3,4; ISR the same in this helper
    catching_up = ClusterSnapshot(
        "admin", 1.0, "c", "kraft", 1, grown.brokers,
        (Topic("t6", (Partition("t6", 0, 2, (2, 4, 3), (2, 3)), *grown.topics[0].partitions[1:])),),
    )  # fmt: skip
    moving = {("t6", 0): Ongoing((2, 4, 3), (4,), (3,))}
    assert progress(plan, catching_up, moving).partitions[0].text == "catching up: 4 not in the ISR yet"
    assert progress(plan, grown, moving).partitions[0].stage is Stage.REMOVING
    done = cluster([(2, 4), *SIX_BY_TWO[1:]])
    assert progress(plan, done, {}).done
    assert progress(plan, before, {}).partitions[0].text == "not reassigned: replicas are 2,3"
