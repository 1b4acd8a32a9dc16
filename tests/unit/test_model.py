from __future__ import annotations

from kafkatop.backends.model.cluster import NO_LEADER, Broker, ClusterSnapshot, Partition, Topic
from kafkatop.backends.model.groups import ConsumerGroup, GroupPartitionOffset, GroupState


def part(pid: int, leader: int, replicas: tuple[int, ...], isr: tuple[int, ...], lo=None, hi=None) -> Partition:
    return Partition("t", pid, leader, replicas, isr, low_watermark=lo, high_watermark=hi)


def snapshot(*partitions: Partition, min_isr: int | None = None) -> ClusterSnapshot:
    return ClusterSnapshot(
        source="test",
        taken_at=0.0,
        cluster_id="c",
        mode="zk",
        controller_id=1,
        brokers=(Broker(1, "h", 1), Broker(2, "h", 2), Broker(3, "h", 3, alive=False)),
        topics=(Topic("t", partitions, min_insync_replicas=min_isr),),
    )


def test_under_replicated_offline_and_under_min_isr() -> None:
    healthy = part(0, 1, (1, 2, 3), (1, 2, 3))
    shrunk = part(1, 2, (2, 3, 1), (2, 1))
    lonely = part(2, 1, (1, 2, 3), (1,))
    offline = part(3, NO_LEADER, (3, 2), (3,))
    snap = snapshot(healthy, shrunk, lonely, offline, min_isr=2)
    assert [p.id for p in snap.under_replicated] == [1, 2, 3]
    assert [p.id for p in snap.offline] == [3]
    # Offline partitions are not "under min ISR": nobody can write to them at all.
    assert [p.id for p in snap.under_min_isr] == [2]
    assert snap.topics[0].replication_factor == 3


def test_min_isr_unknown_marks_nothing() -> None:
    assert snapshot(part(0, 1, (1, 2, 3), (1,)), min_isr=None).under_min_isr == ()


def test_leader_skew_is_kafkas_imbalance_ratio() -> None:
    # Broker 1 is preferred for p0 and p1 but leads only p0; broker 2 preferred for p2 and leads it.
    snap = snapshot(part(0, 1, (1, 2), (1, 2)), part(1, 2, (1, 2), (1, 2)), part(2, 2, (2, 1), (2, 1)))
    assert snap.leader_skew == {1: 0.5, 2: 0.0}
    assert [p.id for p in snap.non_preferred_leaders] == [1]
    assert snap.leaders_by_broker == {1: 1, 2: 2}
    assert snap.replicas_by_broker == {1: 3, 2: 3}


def test_messages_from_watermarks() -> None:
    t = Topic("t", (part(0, 1, (1,), (1,), lo=5, hi=12), part(1, 1, (1,), (1,), lo=0, hi=3)))
    assert [p.messages for p in t.partitions] == [7, 3]
    assert t.messages == 10
    assert Topic("u", (part(0, 1, (1,), (1,)),)).messages is None


def test_brokers_alive_and_down() -> None:
    snap = snapshot(part(0, 1, (1,), (1,)))
    assert [b.id for b in snap.brokers_alive] == [1, 2]
    assert [b.id for b in snap.brokers_down] == [3]


def test_group_lag() -> None:
    g = ConsumerGroup(
        "g",
        GroupState.STABLE,
        offsets=(
            GroupPartitionOffset("t", 0, committed=5, high_watermark=10),
            GroupPartitionOffset("t", 1, committed=10, high_watermark=10),
            GroupPartitionOffset("t", 2, committed=None, high_watermark=10),
        ),
    )
    assert [o.lag for o in g.offsets] == [5, 0, None]
    assert g.total_lag == 5
    assert ConsumerGroup("empty").total_lag == 0
    assert GroupState.EMPTY.inactive and not GroupState.STABLE.inactive


def test_a_full_or_failed_log_dir_is_told_from_the_node_log() -> None:
    from kafkatop.backends.model.nodes import storage_problem

    assert storage_problem(("[2026-11-22 08:00:00,000] INFO [KafkaServer id=1] started",)) is None
    full = (
        "[2026-11-22 08:00:01,000] ERROR Error while appending records to purchases-0 in dir /data "
        "(org.apache.kafka.storage.internals.log.LogDirFailureChannel)",
        "java.io.IOException: No space left on device",
    )
    assert "log dir is full" in (storage_problem(full) or "")
    shut = (*full, "[2026-11-22 08:00:02,000] ERROR Shutdown broker because all log dirs in /data have failed")
    assert "shut itself down" in (storage_problem(shut) or "")


def test_totals_count_what_the_topics_say_and_are_kept_out_of_equality_and_the_codec() -> None:
    from dataclasses import replace

    from kafkatop.backends.model.codec import decode, encode

    healthy = part(0, 1, (1, 2, 3), (1, 2, 3))
    lonely = part(1, 1, (1, 2, 3), (1,))
    offline = part(2, NO_LEADER, (3, 2), (3,))
    snap = snapshot(healthy, lonely, offline, min_isr=2)
    totals = snap.totals
    assert (totals.partitions, totals.under_replicated, totals.offline, totals.under_min_isr) == (3, 2, 1, 1)
    assert snap.totals is totals  # worked out once, in the poll's worker, then read by every pane
    assert snap == replace(snap)  # not a value of the snapshot
    data = encode(snap, ClusterSnapshot)
    assert "_totals" not in str(data)
    assert decode(ClusterSnapshot, data) == snap


def test_a_groups_lag_and_the_lag_by_topic_are_worked_out_once() -> None:
    g = ConsumerGroup("g", GroupState.EMPTY, offsets=(
        GroupPartitionOffset("t", 0, 5, 8), GroupPartitionOffset("t", 1, None, 8), GroupPartitionOffset("u", 0, 1, 1),
    ))  # fmt: skip
    assert g.total_lag == 3 and g.total_lag == 3
    assert ConsumerGroup("idle").total_lag == 0  # nothing committed, nothing behind
    assert ConsumerGroup("unknown", offsets=(GroupPartitionOffset("t", 0, None, 8),)).total_lag is None
    snap = replace_groups(snapshot(part(0, 1, (1,), (1,))), g)
    assert dict(snap.lag_by_topic) == {"t": 3, "u": 0}
    assert snap.lag_by_topic is snap.lag_by_topic


def replace_groups(snap: ClusterSnapshot, *groups: ConsumerGroup) -> ClusterSnapshot:
    from dataclasses import replace

    return replace(snap, groups=groups)
