"""The batched group reads (group_batch.py) against the librdkafka mock over real sockets: the same committed offsets
as the per-group way (a Consumer per group), whatever coordinator each group has; the coordinators found once; and
what the mock limits: it offers OffsetFetch v6 at most (one group per request; v8 batches them) and no
DescribeGroups, so here the batched way sends one OffsetFetch per group, still without a librdkafka handle per group.
The same comparison on a real Kafka, where v8 answers every group of a coordinator at once, is in
test_group_reads_kafka.py."""

from __future__ import annotations

import pytest
from confluent_kafka import Consumer
from confluent_kafka import TopicPartition as KafkaTopicPartition

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.groups import ConsumerGroup

GROUPS = [f"g{i}" for i in range(9)]


def offsets(groups: tuple[ConsumerGroup, ...]) -> dict[str, list[tuple[str, int, int | None]]]:
    return {g.group_id: [(o.topic, o.partition, o.committed) for o in g.offsets] for g in groups}


def test_batched_reads_the_offsets_of_the_per_group_way(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("orders", 4, 3)
    mock_cluster.create_topic("payments", 2, 3)
    for i, g in enumerate(GROUPS):
        mock_cluster.set_group_coordinator(g, i % 3 + 1)  # three groups on each broker
        consumer = Consumer({"bootstrap.servers": mock_cluster.bootstrap_servers, "group.id": g})
        commits = [KafkaTopicPartition("orders", p, 10 * i + p) for p in range(4) if (p + i) % 3]
        if i % 2:
            commits.append(KafkaTopicPartition("payments", 1, 1000 + i))
        consumer.commit(offsets=commits, asynchronous=False)
        consumer.close()
    connection = KafkaConnection.parse(mock_cluster.bootstrap_servers)
    read = {}
    for mode in ("per-group", "batched"):
        source = AdminSource(connection, watch_groups=GROUPS, group_reads=mode)  # type: ignore[arg-type]
        try:
            snap = source.poll()
            assert source.group_reads == mode
            assert not [p for p in snap.problems if "OffsetFetch" in p.what or p.what.startswith("group ")]
            read[mode] = offsets(snap.groups)
            if mode == "batched":
                mock_cluster.start_request_tracking()
                again = source.poll()
                counts = mock_cluster.request_counts()
                mock_cluster.stop_request_tracking()
                assert offsets(again.groups) == read[mode]
                # Coordinators were found by the first poll: none asked again; one OffsetFetch per group (v6).
                assert counts.get("FindCoordinator", 0) == 0
                assert counts["OffsetFetch"] == len(GROUPS)
                assert source.group_requests == {"OffsetFetch": len(GROUPS)}
                assert {g.group_id: g.coordinator for g in again.groups} == {g: i % 3 + 1 for i, g in enumerate(GROUPS)}
        finally:
            source.close()
    assert read["batched"] == read["per-group"]
    # And both are what was committed.
    assert read["batched"]["g1"] == [("orders", 0, 10), ("orders", 1, 11), ("orders", 3, 13), ("payments", 1, 1001)]
    assert read["batched"]["g0"] == [("orders", 1, 1), ("orders", 2, 2)]
    assert sum(len(v) for v in read["batched"].values()) == 24 + 4


def test_a_group_that_moved_is_found_again_within_the_poll(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("orders", 2, 3)
    consumer = Consumer({"bootstrap.servers": mock_cluster.bootstrap_servers, "group.id": "mover"})
    consumer.commit(offsets=[KafkaTopicPartition("orders", 0, 5)], asynchronous=False)
    consumer.close()
    mock_cluster.set_group_coordinator("mover", 1)
    source = AdminSource(KafkaConnection.parse(mock_cluster.bootstrap_servers), watch_groups=["mover"])
    try:
        assert source.poll().groups[0].coordinator == 1
        # The group moves to broker 3, and broker 1 says so (the mock answers from any broker: NOT_COORDINATOR is
        # injected, as a Kafka broker answers once its __consumer_offsets partition moved).
        mock_cluster.set_group_coordinator("mover", 3)
        mock_cluster.push_request_errors(9, [16])
        snap = source.poll()
        (group,) = snap.groups
        assert (group.coordinator, [(o.partition, o.committed) for o in group.offsets]) == (3, [(0, 5)])
        assert not [p for p in snap.problems if "mover" in p.what]
        assert source.group_requests["FindCoordinator"] == 1
    finally:
        source.close()


def test_groups_list_on_a_cluster_without_list_groups_says_so_once(
    mock_cluster: MockCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    """The librdkafka mock answers no ListGroups: one line says what is not shown, why, and what still works."""
    from kafkatop.tui.cli.main import main

    code = main(["groups", "--list", "--bootstrap-server", mock_cluster.bootstrap_servers, "--timeout", "5"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    (line,) = err.strip().splitlines()
    assert "cannot list the groups with their types" in line and "does not offer ListGroups" in line
    assert "`kafkatop groups --group G` still describes a group you name" in line
