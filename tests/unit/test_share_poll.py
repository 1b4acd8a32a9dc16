"""The share-group part of a poll (backends/kafka/share_groups/share_poll.py) without a cluster: a ShareGroup becomes
the Groups tab's ConsumerGroup of type share (start offsets where commits go, lag to this poll's high watermark), and a
poll whose share-group read failed keeps the groups last read, saying when and why, instead of dropping them."""

from __future__ import annotations

from concurrent.futures import Future

from kafkatop.backends.kafka.errors import Deadline
from kafkatop.backends.kafka.share_groups.share_poll import share_group, share_poll
from kafkatop.backends.model.cluster import Problem
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.groups import GroupState
from kafkatop.backends.model.share_groups import Coordinator, ShareGroup, ShareMember, SharePartition

SG = ShareGroup(
    "sg", "Stable", Coordinator(1, "127.0.0.1", 9092), group_epoch=3, assignment_epoch=3, assignor="simple",
    members=(ShareMember("m1", "console-share-consumer", "/127.0.0.1", None, 3, ("orders",),
                         (("orders", 0), ("orders", 1))),),
    partitions=(SharePartition("orders", 0, 10, 0), SharePartition("orders", 1, None, None)),
)  # fmt: skip


def done(value: object = None, error: BaseException | None = None) -> Future[dict[str, ShareGroup]]:
    f: Future[dict[str, ShareGroup]] = Future()
    if error is not None:
        f.set_exception(error)
    else:
        f.set_result(value)  # type: ignore[arg-type]
    return f


def test_a_share_group_is_shown_as_a_group_of_type_share() -> None:
    g = share_group(SG, {("orders", 0): 25, ("orders", 1): 4})
    assert (g.group_type, g.protocol_type, g.state, g.coordinator, g.group_epoch) == (
        "share", "share", GroupState.STABLE, 1, 3
    )  # fmt: skip
    assert [(o.partition, o.committed, o.high_watermark, o.lag) for o in g.offsets] == [
        (0, 10, 25, 15),
        (1, None, 4, None),  # no start offset yet: "-", as the tool prints it
    ]
    (member,) = g.members
    assert member.host == "127.0.0.1" and [str(tp) for tp in member.assignment] == ["orders-0", "orders-1"]


def test_a_failed_read_keeps_the_groups_last_read_and_says_why() -> None:
    poll = share_poll(KafkaConnection.parse("127.0.0.1:9"))
    try:
        problems: list[Problem] = []
        first = poll.collect(done({"sg": SG}), Deadline(1.0), {("orders", 0): 25}, problems)
        assert [g.group_id for g in first] == ["sg"] and problems == []
        kept = poll.collect(done(error=KafkatopError("timed out")), Deadline(1.0), {}, problems)
        assert [g.group_id for g in kept] == ["sg"] and kept[0].members == first[0].members
        assert kept[0].note is not None and kept[0].note.endswith("this poll: timed out")
        assert problems == [Problem("admin", "share groups", "timed out")]
    finally:
        poll.close()


def test_a_group_not_described_is_still_listed_with_why() -> None:
    poll = share_poll(KafkaConnection.parse("127.0.0.1:9"))
    try:
        problems: list[Problem] = []
        failed = ShareGroup("gone", "", None, error="COORDINATOR_NOT_AVAILABLE")
        (g,) = poll.collect(done({"gone": failed}), Deadline(1.0), {}, problems)
        assert (g.group_id, g.group_type, g.members) == ("gone", "share", ())
        assert g.note == "a share group, not described this poll: COORDINATOR_NOT_AVAILABLE"
    finally:
        poll.close()
