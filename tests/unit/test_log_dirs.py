"""DescribeLogDirs on the wire (protocol/describe_log_dirs.py) and in kafka-log-dirs.sh --describe's lines
(model/log_dirs.py), and `kafkatop log-dirs`'s table.

The recorded answers (tests/fixtures/protocol/describe_log_dirs_v{1,4}_4_1.bin, each a response after its size) came
from a real Kafka 4.1 KRaft node (id 1, one log dir) holding topics orders (3 partitions, 40 records) and pay (1
record), as tests/integration/test_kafka_tools_kafka.py records them; kafka_log_dirs_4_1.txt is what
kafka-log-dirs.sh 4.1 --describe printed for that node at that moment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafkatop.backends.model.java_order import hash_order, string_hash
from kafkatop.backends.model.log_dirs import BrokerLogDirs, LogDir, LogDirsSnapshot, ReplicaLog, tool_json, tool_lines
from kafkatop.backends.protocol.describe_log_dirs import DESCRIBE_LOG_DIRS, decode_response, request_body
from kafkatop.backends.protocol.wire import (
    NO_TAGGED_FIELDS,
    ProtocolError,
    encode_compact_array,
    encode_compact_string,
    int16,
    int32,
    int64,
)
from kafkatop.tui.cli.log_dirs import table

RECORDED = Path(__file__).parents[1] / "fixtures" / "protocol"
V1 = (RECORDED / "describe_log_dirs_v1_4_1.bin").read_bytes()
V4 = (RECORDED / "describe_log_dirs_v4_4_1.bin").read_bytes()
TOOL = (RECORDED / "kafka_log_dirs_4_1.txt").read_text().splitlines()
DIR = "/tmp/pytest-of-root/pytest-267/tools0/data"
SIZES = {"orders-0": 2912, "orders-1": 2644, "orders-2": 2774, "pay-0": 72}


def test_request_asks_for_every_topic() -> None:
    assert request_body(1) == int32(-1)  # null array
    assert request_body(4) == b"\x00" + NO_TAGGED_FIELDS  # null compact array, then no tags
    assert DESCRIBE_LOG_DIRS.flexible(2) and not DESCRIBE_LOG_DIRS.flexible(1)


@pytest.mark.parametrize(("payload", "version"), [(V1, 1), (V4, 4)])
def test_recorded_answers_decode(payload: bytes, version: int) -> None:
    answer = decode_response(payload, version)
    assert answer.error_code == 0
    (log_dir,) = answer.log_dirs
    assert (log_dir.path, log_dir.error_code) == (DIR, 0)
    assert {r.name: r.size for r in log_dir.replicas} == SIZES
    assert all(r.offset_lag == 0 and not r.is_future for r in log_dir.replicas)
    if version == 4:
        assert log_dir.total_bytes is not None and log_dir.usable_bytes is not None
        assert 0 < log_dir.usable_bytes <= log_dir.total_bytes
    else:
        assert (log_dir.total_bytes, log_dir.usable_bytes) == (None, None)


def test_tool_lines_are_kafka_log_dirs_lines() -> None:
    answer = decode_response(V4, 4)
    snapshot = LogDirsSnapshot((BrokerLogDirs(1, answer.log_dirs, 4),))
    assert tool_lines(snapshot) == TOOL
    only = tool_json(snapshot, {"pay"})
    assert json.loads(only)["brokers"][0]["logDirs"][0]["partitions"] == [
        {"partition": "pay-0", "size": 72, "offsetLag": 0, "isFuture": False}
    ]


def flexible_answer(dirs: list[tuple[int, str, list[tuple[str, int, int, int, bool]], int, int]]) -> bytes:
    """A DescribeLogDirs v4 answer: each directory's error, path, replicas (topic, partition, size, lag, future),
    total and usable bytes."""

    def log_dir(
        error: int, path: str, replicas: list[tuple[str, int, int, int, bool]], total: int, usable: int
    ) -> bytes:
        topics = [
            encode_compact_string(t)
            + encode_compact_array(
                [
                    int32(p) + int64(s) + int64(lag) + bytes([f]) + NO_TAGGED_FIELDS
                    for topic, p, s, lag, f in replicas
                    if topic == t
                ]
            )  # fmt: skip
            + NO_TAGGED_FIELDS
            for t in dict.fromkeys(r[0] for r in replicas)
        ]
        return (
            int16(error)
            + encode_compact_string(path)
            + encode_compact_array(topics)
            + int64(total)
            + int64(usable)
            + NO_TAGGED_FIELDS
        )

    body = int32(0) + int16(0) + encode_compact_array([log_dir(*d) for d in dirs]) + NO_TAGGED_FIELDS
    return int32(7) + NO_TAGGED_FIELDS + body


def test_an_offline_directory_and_a_future_replica() -> None:
    payload = flexible_answer([
        (0, "/data/a", [("t", 0, 100, 0, False), ("t", 1, 50, 12, True)], 1000, 400),
        (56, "/data/b", [], -1, -1),
    ])  # fmt: skip
    answer = decode_response(payload, 4)
    a, b = answer.log_dirs
    assert a == LogDir("/data/a", 0, (ReplicaLog("t", 0, 100, 0, False), ReplicaLog("t", 1, 50, 12, True)), 1000, 400)
    assert b == LogDir("/data/b", 56, (), None, None)
    snapshot = LogDirsSnapshot((BrokerLogDirs(3, answer.log_dirs, 4),))
    dirs = json.loads(tool_json(snapshot))["brokers"][0]["logDirs"]
    by_path = {d["logDir"]: d for d in dirs}
    assert by_path["/data/b"]["error"] == "org.apache.kafka.common.errors.KafkaStorageException"
    assert by_path["/data/a"]["error"] is None
    assert [d["logDir"] for d in dirs] == hash_order(["/data/a", "/data/b"], string_hash, initial=2)
    lines = table(snapshot, 5)
    assert lines[1].split() == ["3", "/data/a", "150", "B", "1000", "B", "400", "B", "2", "-"]
    assert lines[2].split() == [
        "3",
        "/data/b",
        "0",
        "B",
        "-",
        "-",
        "0",
        "KAFKA_STORAGE_ERROR",
        "(KafkaStorageException)",
    ]
    assert [x.split()[1] for x in lines[6:]] == ["t-0", "t-1"] and lines[7].split()[4:6] == ["12", "yes"]


def test_a_replica_with_a_tagged_field_is_read_one_by_one() -> None:
    """Replicas are unpacked a topic at once while none has a tagged field; a tag Kafka may add later (an unknown one)
    on any replica sends the topic down the one-by-one path, which skips it."""
    plain = flexible_answer([(0, "/d", [("t", p, 10 * p, 0, False) for p in range(4)], 1, 1)])
    tag = bytes([1, 7, 2, 0xAB, 0xCD])  # one tagged field: tag 7, two bytes
    cut = plain.index(int32(2) + int64(20))  # partition 2's entry: its tags follow 21 bytes on
    tagged = plain[: cut + 21] + tag + plain[cut + 22 :]
    for payload in (plain, tagged):
        (d,) = decode_response(payload, 4).log_dirs
        assert [(r.partition, r.size) for r in d.replicas] == [(0, 0), (1, 10), (2, 20), (3, 30)]


def test_brokers_in_the_order_of_a_java_hash_set() -> None:
    # A HashSet<Integer> of 16 buckets: 17 and 1 share bucket 1, in the order they were added (the brokers asked).
    snapshot = LogDirsSnapshot(tuple(BrokerLogDirs(b, ()) for b in (17, 2, 1)))
    assert tool_lines(snapshot)[1] == "Received log directory information from brokers 17,1,2"
    # allDescriptions()' HashMap(2 brokers) has 2 buckets: 4 comes before 1.
    two = LogDirsSnapshot(tuple(BrokerLogDirs(b, ()) for b in (1, 4)))
    assert tool_lines(two)[1] == "Received log directory information from brokers 1,4"
    assert [b["broker"] for b in json.loads(tool_json(two))["brokers"]] == [4, 1]
    # 5 and 1 share that map's bucket: they come in the HashSet's order (1, 5), not the order asked (5, 1).
    asked = LogDirsSnapshot(tuple(BrokerLogDirs(b, ()) for b in (5, 1)))
    assert tool_lines(asked)[1] == "Received log directory information from brokers 1,5"
    assert [b["broker"] for b in json.loads(tool_json(asked))["brokers"]] == [1, 5]


def test_a_name_with_control_characters_is_escaped_in_the_table_and_json_in_the_tool_lines() -> None:
    snapshot = LogDirsSnapshot((BrokerLogDirs(1, (LogDir("/d\x1b[31m", 0, (ReplicaLog("a\nb", 0, 1, 0, False),)),)),))
    assert "\x1b" not in "\n".join(table(snapshot, 1)) and "\n" not in "".join(table(snapshot, 1))
    assert "\\u001b" in tool_json(snapshot) and "a\\nb-0" in tool_json(snapshot)


@pytest.mark.parametrize("cut", [1, 10, len(V4) // 2, len(V4) - 1])
def test_a_truncated_answer_is_a_protocol_error(cut: int) -> None:
    with pytest.raises(ProtocolError):
        decode_response(V4[:cut], 4)
