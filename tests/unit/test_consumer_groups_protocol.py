"""ConsumerGroupDescribe (API 69) and ListGroups (API 16 v5) decoded from answers recorded from a real Kafka 4.1 node
(tests/fixtures/protocol/: a KIP-848 group `billing` with one member, a classic group `legacy` and an unknown one;
both listed with their types), bounded decoding, kafka-groups.sh --list's layout and filters, and a KIP-848 group's
epochs in words."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkatop.backends.insight.group_lines import epochs_text, groups_list_lines, listed_as
from kafkatop.backends.kafka.groups.groups import build_consumer_group
from kafkatop.backends.model.groups import ConsumerGroup, GroupMember, GroupState
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.protocol.consumer_groups import (
    ListedGroup,
    consumer_group_describe_body,
    decode_consumer_group_describe,
    decode_list_groups,
    list_groups_body,
)
from kafkatop.backends.protocol.wire import ProtocolError, response_reader

RECORDED = Path(__file__).parents[1] / "fixtures" / "protocol"
DESCRIBED = RECORDED / "consumer_group_describe_v1_4_1.bin"
LISTED = RECORDED / "list_groups_v5_4_1.bin"


def test_the_requests_are_kafkas_layouts() -> None:
    # ConsumerGroupDescribe: compact array of compact strings, IncludeAuthorizedOperations, no tags.
    assert consumer_group_describe_body(["g"]) == b"\x02\x02g" + b"\x00" + b"\x00"
    # ListGroups v5: an empty StatesFilter and TypesFilter (compact arrays: length + 1), no tags; v3 has neither.
    assert list_groups_body(5) == b"\x01\x01\x00"
    assert list_groups_body(5, ["share"]) == b"\x01\x02\x06share\x00"
    assert list_groups_body(3) == b"\x00"


def test_a_kip848_group_recorded_from_kafka_4_1() -> None:
    groups = {g.group_id: g for g in decode_consumer_group_describe(response_reader(DESCRIBED.read_bytes()), 1)}
    billing = groups["billing"]
    assert (billing.error_code, billing.state, billing.group_epoch, billing.assignment_epoch, billing.assignor) == (
        0, "Stable", 1, 1, "uniform"
    )  # fmt: skip
    (member,) = billing.members
    assert (member.client_id, member.client_host, member.member_epoch, member.member_type) == (
        "billing-1", "/127.0.0.1", 1, "consumer"
    )  # fmt: skip
    assert member.assignment == member.target_assignment == (("orders", 0), ("orders", 1), ("orders", 2))
    assert member.subscribed_topics == ("orders",)
    # A classic group and an unknown one: GROUP_ID_NOT_FOUND (69) with the broker's own message.
    assert (groups["legacy"].error_code, groups["legacy"].error_message) == (
        69,
        "Group legacy is not a consumer group.",
    )
    assert (groups["nobody"].error_code, groups["nobody"].members) == (69, ())


def test_it_becomes_a_consumer_group_with_epochs_and_targets() -> None:
    described = next(
        g for g in decode_consumer_group_describe(response_reader(DESCRIBED.read_bytes()), 1) if g.group_id == "billing"
    )
    group = build_consumer_group("billing", described, 1, None, {("orders", 0): 10})
    assert (group.group_type, group.state, group.group_epoch, group.assignment_epoch) == (
        "consumer", GroupState.STABLE, 1, 1
    )  # fmt: skip
    (member,) = group.members
    assert member.host == "127.0.0.1" and not member.reconciling
    assert [(o.partition, o.high_watermark, o.member_id) for o in group.offsets][0] == (0, 10, member.member_id)
    assert epochs_text(group) == "KIP-848 group: group epoch 1, assignment epoch 1"


def test_groups_are_listed_with_their_types() -> None:
    code, groups = decode_list_groups(response_reader(LISTED.read_bytes()), 5)
    assert code == 0 and sorted(groups, key=lambda g: g.group_id) == [
        ListedGroup("billing", "consumer", "Stable", "consumer"),
        ListedGroup("legacy", "consumer", "Stable", "classic"),
    ]


@pytest.mark.parametrize("path", [DESCRIBED, LISTED], ids=["describe", "list"])
def test_truncated_answers_raise_protocol_errors(path: Path) -> None:
    data = path.read_bytes()
    for cut in (len(data) - 1, len(data) // 2, 8):
        with pytest.raises(ProtocolError):
            reader = response_reader(data[:cut])
            if path == DESCRIBED:
                decode_consumer_group_describe(reader, 1)
            else:
                decode_list_groups(reader, 5)


def test_kafka_groups_list_layout() -> None:
    # Java's "%-20s" per cell; the header's cells joined by a space, each row's cells each followed by one.
    assert groups_list_lines([("billing", "consumer", "consumer"), ("a-much-longer-group-name", None, "")]) == [
        "GROUP                    TYPE                     PROTOCOL                ",
        "billing                  Consumer                 consumer                 ",
        "a-much-longer-group-name                                                   ",
    ]


@pytest.mark.parametrize(
    ("kind", "protocol", "filters", "listed"),
    [
        ("classic", "consumer", {"consumer": True}, True),
        ("classic", "", {"consumer": True}, True),  # a group that only commits
        ("classic", "connect", {"consumer": True}, False),
        ("consumer", "consumer", {"consumer": True}, True),
        ("share", "share", {"consumer": True}, False),
        ("share", "share", {"share": True}, True),
        ("classic", "consumer", {"group_type": "classic", "protocol_filter": "connect"}, False),
        ("classic", "connect", {"protocol_filter": "connect"}, True),
        ("streams", "streams", {"streams": True}, True),
    ],
)
def test_kafka_groups_filters(kind: str, protocol: str, filters: dict[str, object], listed: bool) -> None:
    given = {"group_type": None, "protocol_filter": None, "consumer": False, "share": False, "streams": False}
    assert listed_as(kind, protocol, **(given | filters)) is listed  # type: ignore[arg-type]


def test_a_reconciling_member_is_said_partition_by_partition() -> None:
    member = GroupMember(
        "m1", "billing-1", "127.0.0.1", assignment=(TopicPartition("orders", 0), TopicPartition("orders", 1)),
        member_epoch=4, target_assignment=(TopicPartition("orders", 1), TopicPartition("orders", 2)),
    )  # fmt: skip
    group = ConsumerGroup("billing", GroupState.RECONCILING, group_type="consumer", members=(member,), group_epoch=5,
                          assignment_epoch=4)  # fmt: skip
    assert member.reconciling
    assert epochs_text(group) == (
        "KIP-848 group: group epoch 5, assignment epoch 4 (the coordinator is computing the new target assignment); "
        "billing-1 (member epoch 4): revoking orders-0 and awaiting orders-2"
    )
    assert epochs_text(ConsumerGroup("legacy")) is None
