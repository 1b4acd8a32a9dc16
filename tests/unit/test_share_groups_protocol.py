"""Share groups (KIP-932) on the wire: the requests' bytes; answers recorded from a real Kafka 4.1 broker
(tests/fixtures/protocol/*_4_1.bin: a group with a member, an empty one and an unknown one; their start offsets; the
share-type ListGroups; DeleteShareGroupOffsets and DeleteGroups refused and done; ShareGroupDescribe while
share.version=0) decoded; every truncation of them a ProtocolError. The recorded describe answers, laid out, are
kafka-share-groups.sh's lines taken on the same broker at the same moment (kafka_share_groups_4_1.txt), line for
line. Then the layouts' widths, lag, the one-line reasons of a cluster without share groups, and the command's bad
input (exit 2, before any connection)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from kafkatop.backends.insight.share_group_lines import (
    delete_lines,
    delete_offsets_lines,
    empty_note,
    list_lines,
    members_lines,
    offsets_lines,
    state_lines,
)
from kafkatop.backends.kafka.share_groups.share_group_support import check_support, group_error, share_group_from
from kafkatop.backends.model.share_groups import (
    Coordinator,
    ListedShareGroup,
    ShareGroup,
    ShareGroupsUnavailable,
    ShareMember,
    ShareOffsetsDeleted,
    SharePartition,
)
from kafkatop.backends.protocol.consumer_groups import decode_list_groups, list_groups_body
from kafkatop.backends.protocol.share_groups import (
    decode_delete_groups,
    decode_delete_share_group_offsets,
    decode_describe_share_group_offsets,
    decode_share_group_describe,
    delete_groups_body,
    delete_share_group_offsets_body,
    describe_share_group_offsets_body,
    share_group_describe_body,
)
from kafkatop.backends.protocol.wire import ProtocolError, response_reader
from tests.doubles.api_versions import ApiVersionsDouble, kafka_4_1_api_versions
from tests.unit.cli_refusals import refused_offline

RECORDED = Path(__file__).parents[1] / "fixtures" / "protocol"
COORDINATOR = Coordinator(1, "127.0.0.1", 24100)  # the broker the answers were recorded from
MEMBER = "VDbbPEw3RvG_NWS2Tb2Mag"


def _bin(name: str) -> bytes:
    return (RECORDED / f"{name}_4_1.bin").read_bytes()


def _recorded_groups() -> dict[str, ShareGroup]:
    """sg-busy (one member, busy-client, all 3 partitions of orders), sg-idle (empty; 10 records acknowledged)."""
    offsets = {o.group_id: o for o in decode_describe_share_group_offsets(_bin("describe_share_group_offsets"))}
    return {
        d.group_id: share_group_from(d, offsets.get(d.group_id), COORDINATOR)
        for d in decode_share_group_describe(_bin("share_group_describe"))
    }


def _tool_output() -> dict[str, list[str]]:
    """kafka-share-groups.sh's stdout per view, as recorded: `### name` and then the lines."""
    out: dict[str, list[str]] = {}
    for block in (RECORDED / "kafka_share_groups_4_1.txt").read_text().split("### ")[1:]:
        name, _, text = block.partition("\n")
        out[name] = text.splitlines()
    return out


# --- the requests ---------------------------------------------------------------------------------------------------
def test_the_requests_are_kafkas_flexible_layouts() -> None:
    # compact arrays and strings are length + 1; each struct ends with its (empty) tagged fields
    assert share_group_describe_body(["g"]) == b"\x02\x02g" + b"\x00" + b"\x00"  # IncludeAuthorizedOperations false
    assert describe_share_group_offsets_body(["g", "h"]) == b"\x03" + b"\x02g\x00\x00" + b"\x02h\x00\x00" + b"\x00"
    assert list_groups_body(5, ["share"]) == b"\x01" + b"\x02\x06share" + b"\x00"  # StatesFilter [], TypesFilter
    assert list_groups_body(5, states=("Empty",)) == b"\x02\x06Empty" + b"\x01" + b"\x00"
    assert delete_share_group_offsets_body("g", ["t", "u"]) == b"\x02g" + b"\x03\x02t\x00\x02u\x00" + b"\x00"
    assert delete_groups_body(["g"]) == b"\x02\x02g\x00"


# --- answers recorded from Kafka 4.1 ----------------------------------------------------------------------------------
def test_share_group_describe_recorded_from_kafka_4_1() -> None:
    busy, idle, unknown = decode_share_group_describe(_bin("share_group_describe"))
    assert (busy.group_id, busy.state, busy.group_epoch, busy.assignment_epoch, busy.assignor) == (
        "sg-busy", "Stable", 2, 2, "simple",
    )  # fmt: skip
    (member,) = busy.members
    assert (member.member_id, member.client_id, member.client_host, member.rack_id) == (
        MEMBER, "busy-client", "/127.0.0.1", None,
    )  # fmt: skip
    assert member.subscribed_topics == ("orders",)
    assert member.assignment == (("orders", 0), ("orders", 1), ("orders", 2))
    assert (idle.state, idle.members, idle.error_code) == ("Empty", (), 0)
    assert (unknown.error_code, unknown.error_message) == (69, "Group nosuch not found.")


def test_share_group_offsets_recorded_from_kafka_4_1() -> None:
    busy, idle, unknown = decode_describe_share_group_offsets(_bin("describe_share_group_offsets"))
    assert [(o.topic, o.partition, o.start_offset, o.leader_epoch) for o in idle.offsets] == [
        ("orders", 0, 10, 0), ("orders", 1, -1, 0), ("orders", 2, -1, 0),
    ]  # fmt: skip
    assert idle.offsets[0].topic_id == "E4bcjC96TnC6gnSRpiRICA"
    assert (busy.error_code, busy.offsets[0].start_offset) == (0, 0)
    assert (unknown.group_id, unknown.error_code, unknown.offsets) == ("nosuch", 0, ())


def test_list_and_delete_answers_recorded_from_kafka_4_1() -> None:
    code, listed = decode_list_groups(response_reader(_bin("list_groups_share")), 5)
    assert code == 0
    assert {(g.group_id, g.state, g.group_type, g.protocol_type) for g in listed} == {
        ("sg-idle", "Empty", "share", "share"), ("sg-busy", "Stable", "share", "share"),
    }  # fmt: skip
    refused = decode_delete_share_group_offsets(_bin("delete_share_group_offsets_non_empty"))
    assert (refused.error_code, refused.error_message, refused.topics) == (68, "The group is not empty.", ())
    unknown = decode_delete_share_group_offsets(_bin("delete_share_group_offsets_unknown_topic"))
    assert unknown.error_code == 0
    assert [(t.topic, t.error_code) for t in unknown.topics] == [("nope", 3)]
    done = decode_delete_share_group_offsets(_bin("delete_share_group_offsets_done"))
    assert (done.error_code, [(t.topic, t.error_code) for t in done.topics]) == (0, [("orders", 0)])
    assert decode_delete_groups(_bin("delete_groups_share_refused")) == [("sg-busy", 68), ("nosuch", 69)]
    assert decode_delete_groups(_bin("delete_groups_share_done")) == [("sg-gone", 0)]


def test_a_cluster_with_share_version_0_answers_unsupported_version() -> None:
    (group,) = decode_share_group_describe(_bin("share_group_describe_share_version_0"))
    assert (group.group_id, group.error_code) == ("g1", 35)


@pytest.mark.parametrize(
    ("name", "decode"),
    [
        ("share_group_describe", decode_share_group_describe),
        ("describe_share_group_offsets", decode_describe_share_group_offsets),
        ("list_groups_share", lambda p: decode_list_groups(response_reader(p), 5)),
        ("delete_share_group_offsets_unknown_topic", decode_delete_share_group_offsets),
        ("delete_groups_share_refused", decode_delete_groups),
    ],
)
def test_every_truncation_and_a_trailing_byte_are_protocol_errors(name: str, decode: object) -> None:
    data = _bin(name)
    assert callable(decode)
    for end in range(len(data)):
        with pytest.raises(ProtocolError):
            decode(data[:end])
    with pytest.raises(ProtocolError):
        decode(data + b"\x00")


def test_a_count_larger_than_the_bytes_is_refused_before_any_loop() -> None:
    # the response header (correlation id, no tags), throttle time, then 2^28 groups announced in 2 bytes
    lie = b"\x00\x00\x00\x01\x00" + b"\x00\x00\x00\x00" + b"\x80\x80\x80\x80\x01"
    with pytest.raises(ProtocolError, match="items announced"):
        decode_share_group_describe(lie)


# --- kafka-share-groups.sh's lines ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("view", "group", "layout", "verbose"),
    [
        ("sgidle", "sg-idle", offsets_lines, False),
        ("sgidleverbose", "sg-idle", offsets_lines, True),
        ("sgbusy", "sg-busy", offsets_lines, False),
        ("sgbusymembers", "sg-busy", members_lines, False),
        ("sgbusymembersverbose", "sg-busy", members_lines, True),
        ("sgidlestate", "sg-idle", state_lines, False),
        ("sgidlestateverbose", "sg-idle", state_lines, True),
        ("sgbusystate", "sg-busy", state_lines, False),
        ("sgbusystateverbose", "sg-busy", state_lines, True),
    ],
)
def test_recorded_answers_print_as_kafka_share_groups_sh_printed_them(
    view: str, group: str, layout: object, verbose: bool
) -> None:
    assert callable(layout)
    assert layout(_recorded_groups()[group], verbose) == _tool_output()[view]


def test_an_empty_group_has_no_member_lines_and_a_note_for_stderr() -> None:
    idle = _recorded_groups()["sg-idle"]
    assert members_lines(idle) == []
    assert empty_note(idle) == "Share group 'sg-idle' has no active members."
    assert empty_note(_recorded_groups()["sg-busy"]) is None


def test_unknown_groups_are_marked_not_found() -> None:
    unknown = _recorded_groups()["nosuch"]
    assert unknown.not_found and unknown.error == "GROUP_ID_NOT_FOUND: Group nosuch not found."


def test_columns_widen_to_their_longest_value() -> None:
    long_topic = "t" * 20
    group = ShareGroup(
        "a-share-group-longer-than-15", "Stable", Coordinator(7, "broker-seven.example", 19092),
        members=(ShareMember("m" * 22, "c" * 16, "/10.0.0.1", None, 4, (long_topic,), ((long_topic, 1), ("b", 0))),),
        partitions=(SharePartition(long_topic, 1, 5, 2, end_offset=9), SharePartition("b", 0, None, None, 3)),
    )  # fmt: skip
    offsets = offsets_lines(group)
    assert offsets[1] == f"{'GROUP':<28} {'TOPIC':<20} PARTITION  START-OFFSET"
    assert offsets[2] == f"{group.group_id} {long_topic} 1          5"
    assert offsets[3].split() == [group.group_id, "b", "0", "-"]
    members = members_lines(group)
    assert members[1].split()[1:3] == ["CONSUMER-ID", "HOST"]
    assert members[2].endswith(f"2            b:0;{long_topic}:1")  # topics in order, partitions counted
    state = state_lines(group)
    assert state[2] == f"{group.group_id} broker-seven.example:19092  (7) Stable          1"
    assert (group.partitions[0].lag, group.partitions[1].lag, group.lag) == (4, None, 4)


def test_list_delete_and_delete_offsets_lines() -> None:
    listed = [ListedShareGroup("zeta", "Empty"), ListedShareGroup("alpha", "Stable")]
    assert list_lines(listed, with_state=False) == ["alpha", "zeta"]
    assert list_lines(listed, with_state=True) == ["GROUP           STATE", "alpha           Stable",
                                                   "zeta            Empty"]  # fmt: skip
    assert delete_lines({"a": None, "b": None}) == ["Deletion of requested share groups ('a', 'b') was successful."]
    assert delete_lines({"a": None, "b": "NON_EMPTY_GROUP: Share group 'b' is not EMPTY."}) == [
        "", "Error: Deletion of some share groups failed:",
        "* Group 'b' could not be deleted due to: NON_EMPTY_GROUP: Share group 'b' is not EMPTY.",
        "", "These share groups were deleted successfully: 'a'",
    ]  # fmt: skip
    refused = group_error(68, None)
    assert refused == "NON_EMPTY_GROUP: The group is not empty."
    assert delete_offsets_lines(ShareOffsetsDeleted("g", refused, 68, {"orders": refused})) == [
        "", f"Error: {refused}", "", "TOPIC           STATUS", f"orders          Error: {refused}",
    ]  # fmt: skip
    unknown_topic = group_error(3, None)
    assert delete_offsets_lines(ShareOffsetsDeleted("g", None, 0, {"nope": unknown_topic, "orders": None})) == [
        "", "TOPIC           STATUS", f"nope            Error: {unknown_topic}", "orders          Successful",
    ]  # fmt: skip
    assert delete_offsets_lines(ShareOffsetsDeleted("g", "REQUEST_TIMED_OUT", 7, {"t": "REQUEST_TIMED_OUT"}))[1] == (
        "Error: Encounter some unknown error: REQUEST_TIMED_OUT"
    )


# --- a cluster without share groups -------------------------------------------------------------------------------
def test_why_a_cluster_does_not_speak_share_groups_is_one_line() -> None:
    kafka_4_1 = kafka_4_1_api_versions()  # share.version=0
    with pytest.raises(ShareGroupsUnavailable, match=r"share.version=0\): turn them on with `kafka-features.sh"):
        check_support(ApiVersionsDouble(kafka_4_1))  # type: ignore[arg-type]
    finalized = {**kafka_4_1.finalized_features, "share.version": (1, 1)}
    check_support(ApiVersionsDouble(replace(kafka_4_1, finalized_features=finalized)))  # type: ignore[arg-type]
    older = {k: v for k, v in kafka_4_1.versions.items() if k < 68}
    with pytest.raises(ShareGroupsUnavailable, match="a Kafka before 4.1"):
        check_support(ApiVersionsDouble(replace(kafka_4_1, versions=older)))  # type: ignore[arg-type]
    mock = {k: v for k, v in older.items() if k not in (4, 55)}  # neither ZooKeeper's nor KRaft's requests
    with pytest.raises(ShareGroupsUnavailable, match="the librdkafka mock"):
        check_support(ApiVersionsDouble(replace(kafka_4_1, versions=mock)))  # type: ignore[arg-type]
    preview = {**kafka_4_1.versions, 77: (0, 0)}
    with pytest.raises(ShareGroupsUnavailable, match="Kafka 4.0's early-access"):
        check_support(ApiVersionsDouble(replace(kafka_4_1, versions=preview)))  # type: ignore[arg-type]


# --- bad input: exit 2, nothing sent --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--members", "--state", "--group", "g"], "--members and --state together"),
        (["--list", "--describe"], "--list and --describe together"),
        (["--describe"], "--describe needs --group"),
        (["--delete"], "--delete needs --group"),
        (["--delete-offsets", "--group", "g"], "--delete-offsets needs one --group G and --topic T"),
        (["--delete-offsets", "--group", "g", "--group", "h", "--topic", "t"], "needs one --group"),
        (["--topic", "t", "--group", "g"], "--topic names what --delete-offsets deletes"),
        (["--list", "--group", "g"], "--list lists every share group"),
        (["--delete", "--group", "g", "--members"], "--members is a view of --describe"),
        (["--group", "g", "--all-groups"], "--group and --all-groups together"),
        (["--delete", "--group", "g"], "--delete asks first, on a terminal; add --yes"),  # no terminal here
        (["--delete-offsets", "--group", "g", "--topic", "t"], "add --yes"),
    ],
)
def test_bad_input_exits_2_before_any_connection(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert said in refused_offline("share-groups", argv, capsys)
