"""Streams groups (KIP-1071) on the wire: the request's bytes; answers recorded from a real Kafka 4.1 broker
(tests/fixtures/protocol/*streams*_4_1.bin: StreamsGroupDescribe of a stable group with one member and of an unknown
one, then of the same group empty; the streams-type ListGroups; the group's OffsetFetch) decoded, and laid out as
kafka-streams-groups.sh printed them on the same broker at the same moment (kafka_streams_groups*_4_1.txt), line for
line. Then the one-line reasons of a cluster without streams groups, and the command's bad input (exit 2, before any
connection)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from kafkatop.backends.insight.streams_group_lines import (
    delete_lines,
    internal_topics_lines,
    list_lines,
    members_lines,
    not_inferred_lines,
    offsets_lines,
    state_lines,
)
from kafkatop.backends.kafka.streams_groups.streams_groups import _group, _with_watermarks, check_streams_support
from kafkatop.backends.kafka.streams_groups.streams_poll import streams_group
from kafkatop.backends.model.groups import GroupState
from kafkatop.backends.model.share_groups import Coordinator
from kafkatop.backends.model.streams_groups import (
    ListedStreamsGroup,
    StreamsGroup,
    StreamsGroupsUnavailable,
    inferred_internal,
)
from kafkatop.backends.protocol.consumer_groups import decode_list_groups
from kafkatop.backends.protocol.groups import decode_offset_fetch
from kafkatop.backends.protocol.streams_groups import decode_streams_group_describe, streams_group_describe_body
from kafkatop.backends.protocol.wire import response_reader
from tests.doubles.api_versions import ApiVersionsDouble, kafka_4_1_api_versions
from tests.unit.cli_refusals import refused_offline

RECORDED = Path(__file__).parents[1] / "fixtures" / "protocol"
COORDINATOR = Coordinator(1, "127.0.0.1", 30500)  # the broker the answers were recorded from
MEMBER = "9KJlS2WARVic-kE7DwLb8A"
PROCESS = "7896cd41-90c9-400c-9ce2-d45b74ae0915"
TOPIC = "streams-plaintext-input"
# the partitions' log start and end when recorded (2 records, both in partition 1)
STARTS = {(TOPIC, 0): 0, (TOPIC, 1): 0}
ENDS = {(TOPIC, 0): 0, (TOPIC, 1): 2}


def _bin(name: str) -> bytes:
    return (RECORDED / f"{name}_4_1.bin").read_bytes()


def _recorded(suffix: str = "") -> StreamsGroup:
    """pipe-app as recorded: Stable with one member (suffix ""), or Empty after its app stopped ("_empty")."""
    described = decode_streams_group_describe(_bin(f"streams_group_describe{suffix}"))
    (offsets,) = decode_offset_fetch(response_reader(_bin(f"offset_fetch_streams{suffix}_v8")), 8)
    return _with_watermarks(_group(described[0], offsets, COORDINATOR), STARTS, ENDS)


def _tool_output(name: str) -> dict[str, list[str]]:
    """kafka-streams-groups.sh's stdout per command line, as recorded: `=== options` and then the lines."""
    out: dict[str, list[str]] = {}
    for block in (RECORDED / name).read_text().split("=== ")[1:]:
        options, _, text = block.partition("\n")
        out[options] = text.splitlines()
    return out


def test_the_request_is_kafkas_flexible_layout() -> None:
    # GroupIds (compact: length + 1), IncludeAuthorizedOperations false, no tagged fields
    assert streams_group_describe_body(["g", "h"]) == b"\x03\x02g\x02h" + b"\x00" + b"\x00"


def test_streams_group_describe_recorded_from_kafka_4_1() -> None:
    stable, unknown = decode_streams_group_describe(_bin("streams_group_describe"))
    assert (stable.group_id, stable.state, stable.group_epoch, stable.assignment_epoch, stable.topology_epoch) == (
        "pipe-app", "Stable", 1, 1, 0,
    )  # fmt: skip
    assert stable.subtopologies is not None
    (sub,) = stable.subtopologies
    assert (sub.subtopology_id, sub.source_topics, sub.changelog_topics, sub.repartition_source_topics) == (
        "0", (TOPIC,), (), (),
    )  # fmt: skip
    (member,) = stable.members
    assert (member.member_id, member.process_id, member.client_host, member.is_classic) == (
        MEMBER, PROCESS, "/127.0.0.1", False,
    )  # fmt: skip
    assert member.client_id == f"pipe-app-{PROCESS}-StreamThread-1-consumer"
    assert member.assignment.active.tasks == (("0", (0, 1)),) == member.target_assignment.active.tasks
    assert (member.assignment.standby.tasks, member.assignment.warmup.tasks) == ((), ())
    assert (unknown.group_id, unknown.error_code, unknown.error_message) == ("nope", 69, "Group nope not found.")
    assert unknown.subtopologies is None and unknown.topology_epoch is None
    (empty,) = decode_streams_group_describe(_bin("streams_group_describe_empty"))
    assert (empty.state, empty.group_epoch, empty.members) == ("Empty", 2, ())


def test_list_and_offsets_recorded_from_kafka_4_1() -> None:
    code, listed = decode_list_groups(response_reader(_bin("list_groups_streams")), 5)
    assert (code, [(g.group_id, g.state, g.group_type) for g in listed]) == (0, [("pipe-app", "Stable", "streams")])
    group = _recorded()
    assert [(o.partition, o.committed, o.leader_epoch, o.lag) for o in group.offsets] == [
        (0, None, None, 0), (1, 2, 0, 0),  # nothing committed on 0: the lag counts from the log start
    ]  # fmt: skip


def test_the_recorded_answers_print_as_kafka_streams_groups_sh_did() -> None:
    tool = _tool_output("kafka_streams_groups_4_1.txt")
    group = _recorded()
    listed = [ListedStreamsGroup("pipe-app", "Stable")]
    assert list_lines(listed, with_state=False) == tool["--list"]
    assert list_lines(listed, with_state=True) == tool["--list --state"]
    assert offsets_lines(group, verbose=False) == tool["--describe --group pipe-app"]
    assert offsets_lines(group, verbose=True) == tool["--describe --group pipe-app --verbose"]
    assert members_lines(group, verbose=False) == tool["--describe --group pipe-app --members"]
    assert members_lines(group, verbose=True) == tool["--describe --group pipe-app --members --verbose"]
    assert state_lines(group, verbose=False) == tool["--describe --group pipe-app --state"]
    assert state_lines(group, verbose=True) == tool["--describe --group pipe-app --state --verbose"]


def test_an_empty_group_prints_as_the_tool_did() -> None:
    tool = _tool_output("kafka_streams_groups_empty_4_1.txt")
    group = _recorded("_empty")
    assert offsets_lines(group, verbose=False) == tool["--describe --group pipe-app"] == []  # no members: no rows
    assert members_lines(group, verbose=False) == tool["--describe --group pipe-app --members"] == []
    assert state_lines(group, verbose=False) == tool["--describe --group pipe-app --state"]
    assert state_lines(group, verbose=True) == tool["--describe --group pipe-app --state --verbose"]


def test_delete_lines_are_the_tools() -> None:
    assert delete_lines({"a": None, "b": None}) == ["Deletion of requested streams groups ('a', 'b') was successful."]
    assert delete_lines({"ghost": "Group 'ghost' does not exist or is not a streams group.", "a": None}) == [
        "",
        "Error: Deletion of some streams groups failed:",
        "* Group 'ghost' could not be deleted due to: Group 'ghost' does not exist or is not a streams group.",
        "",
        "These streams groups were deleted successfully: 'a'.",
    ]


# --- a cluster without streams groups -------------------------------------------------------------------------------
def test_why_a_cluster_does_not_speak_streams_groups_is_one_line() -> None:
    kafka_4_1 = kafka_4_1_api_versions()  # unstable APIs off
    with pytest.raises(StreamsGroupsUnavailable, match="unstable.api.versions.enable=false"):
        check_streams_support(ApiVersionsDouble(kafka_4_1))  # type: ignore[arg-type]
    offered = replace(kafka_4_1, versions={**kafka_4_1.versions, 89: (0, 0)})
    with pytest.raises(StreamsGroupsUnavailable, match=r"streams.version=0\): Kafka 4.1 offers them as early access"):
        check_streams_support(ApiVersionsDouble(offered))  # type: ignore[arg-type]
    on = replace(offered, finalized_features={**offered.finalized_features, "streams.version": (1, 1)})
    check_streams_support(ApiVersionsDouble(on))  # type: ignore[arg-type]
    mock = {k: v for k, v in kafka_4_1.versions.items() if k not in (4, 55, 89)}
    with pytest.raises(StreamsGroupsUnavailable, match="the librdkafka mock"):
        check_streams_support(ApiVersionsDouble(replace(kafka_4_1, versions=mock)))  # type: ignore[arg-type]


# --- bad input: exit 2, nothing sent --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--members", "--state", "--group", "g"], "--members and --state together"),
        (["--list", "--describe"], "--list and --describe together"),
        (["--describe"], "--describe needs one --group G"),
        (["--describe", "--group", "g", "--group", "h"], "--describe needs one --group G"),
        (["--describe", "--group", "g", "--state", "Stable"], "--describe --state takes no states"),
        (["--list", "--state", "Busy"], "invalid state list 'Busy': valid states are Empty, NotReady"),
        (["--list", "--group", "g"], "--list lists every streams group"),
        (["--delete"], "--delete needs --group G (repeatable) or --all-groups"),
        (["--delete", "--group", "g", "--members"], "--members is an option of --describe"),
        (["--delete", "--group", "g"], "--delete asks first, on a terminal; add --yes"),  # no terminal here
    ],
)
def test_bad_input_exits_2_before_any_connection(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert said in refused_offline("streams-groups", argv, capsys)


# --- the live view's poll -------------------------------------------------------------------------------------------
def test_the_recorded_group_is_shown_as_a_group_of_type_streams() -> None:
    g = streams_group(_recorded(), ENDS)
    assert (g.group_type, g.protocol_type, g.state, g.coordinator, g.group_epoch, g.assignment_epoch) == (
        "streams", "streams", GroupState.STABLE, 1, 1, 1,
    )  # fmt: skip
    (member,) = g.members
    assert (member.member_id, member.host, member.reconciling) == (MEMBER, "127.0.0.1", False)
    assert [(tp.topic, tp.partition) for tp in member.assignment] == [(TOPIC, 0), (TOPIC, 1)]  # task 0_0, 0_1
    assert [(o.partition, o.committed, o.high_watermark, o.lag, o.member_id) for o in g.offsets] == [
        (0, None, 0, None, MEMBER), (1, 2, 2, 0, MEMBER),
    ]  # fmt: skip
    empty = streams_group(_recorded("_empty"), ENDS)
    assert (empty.state, empty.members, empty.offsets) == (GroupState.EMPTY, (), ())


def test_internal_topics_deleted_with_a_group_are_those_named_as_its_own() -> None:
    assert inferred_internal("app-KSTREAM-REPARTITION-0000000002-repartition", "app")
    assert inferred_internal("app-store-changelog", "app")
    assert inferred_internal("app-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000007-topic", "app")
    assert not inferred_internal("other-store-changelog", "app")  # another application's
    assert not inferred_internal("app-orders", "app")  # not an internal topic's format
    assert not_inferred_lines("app", ["shared-changelog"]) == [
        "",
        "Error: The internal topic 'shared-changelog' is not inferred as internal and thus will not be deleted with "
        "the group 'app'.",
    ]
    assert internal_topics_lines(["a", "b"], {}) == [
        "Deletion of associated internal topics of the streams groups ('a', 'b') was successful."
    ]
    assert internal_topics_lines(["a"], {"a": "TOPIC_AUTHORIZATION_FAILED"}) == [
        "Deletion of some associated internal topics failed:",
        "* Internal topics of the streams group 'a' could not be deleted due to: TOPIC_AUTHORIZATION_FAILED",
    ]
    assert internal_topics_lines([], {}) == []
