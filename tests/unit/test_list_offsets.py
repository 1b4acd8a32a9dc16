"""The ListOffsets codec (protocol/list_offsets.py) on bytes recorded from a real Kafka 4.1.0 KRaft lab.

The responses (payloads after the 4-byte size) answer ListOffsets(ReplicaId -2, LATEST) for `risky-0`, a partition
with replicas 2,3 that had lost its leader (broker 2) after 140 records, 100 of them copied to broker 3 before it
was killed: broker 3 (a follower) answers with its own log end offset, 100, in v1, v5 and v10; broker 1, which holds
no replica of it, answers NOT_LEADER_OR_FOLLOWER.
"""

from __future__ import annotations

import pytest

from kafkatop.backends.protocol.list_offsets import (
    DEBUGGING_REPLICA_ID,
    LATEST_TIMESTAMP,
    PartitionOffset,
    decode_list_offsets,
    list_offsets_body,
)
from kafkatop.backends.protocol.wire import ProtocolError, Reader, error_name

FOLLOWER_V1 = bytes.fromhex("000000010000000100057269736b7900000001000000000000ffffffffffffffff0000000000000064")
FOLLOWER_V5 = bytes.fromhex(
    "00000001000000000000000100057269736b7900000001000000000000ffffffffffffffff000000000000006400000001"
)
FOLLOWER_V10 = bytes.fromhex(
    "00000001000000000002067269736b7902000000000000ffffffffffffffff000000000000006400000001000000"
)
NOT_A_REPLICA_V10 = bytes.fromhex(
    "00000001000000000002067269736b7902000000000006ffffffffffffffffffffffffffffffffffffffff000000"
)


@pytest.mark.parametrize(
    ("payload", "version", "epoch"), [(FOLLOWER_V1, 1, -1), (FOLLOWER_V5, 5, 1), (FOLLOWER_V10, 10, 1)]
)
def test_a_follower_answers_with_its_log_end_offset(payload: bytes, version: int, epoch: int) -> None:
    response = decode_list_offsets(payload, version)
    assert response.correlation_id == 1
    assert response.partitions == (PartitionOffset("risky", 0, 0, -1, 100, epoch),)
    assert response.offset("risky", 0) is not None and response.offset("other", 0) is None


def test_a_broker_without_a_replica_says_so() -> None:
    (p,) = decode_list_offsets(NOT_A_REPLICA_V10, 10).partitions
    assert error_name(p.error_code) == "NOT_LEADER_OR_FOLLOWER" and p.offset == -1


def test_truncated_or_foreign_bytes_are_a_protocol_error() -> None:
    with pytest.raises(ProtocolError):
        decode_list_offsets(FOLLOWER_V10[:-6], 10)
    with pytest.raises(ProtocolError):
        decode_list_offsets(FOLLOWER_V10 + b"\x00", 10)  # a byte too many
    with pytest.raises(ProtocolError, match="v11"):
        decode_list_offsets(FOLLOWER_V10, 11)


@pytest.mark.parametrize("version", [1, 2, 4, 5, 6, 9, 10])
def test_the_request_asks_as_a_debugging_replica_for_the_latest_offset(version: int) -> None:
    """Read back field by field, as the broker parses it (ListOffsetsRequest.json)."""
    r = Reader(list_offsets_body(version, {"risky": [0, 1]}, timeout_ms=5000))
    flexible = version >= 6
    assert r.int32() == DEBUGGING_REPLICA_ID
    if version >= 2:
        assert r.int8() == 0  # READ_UNCOMMITTED
    assert (r.compact_array_length() if flexible else r.array_length()) == 1
    assert (r.compact_string() if flexible else r.string()) == "risky"
    assert (r.compact_array_length() if flexible else r.array_length()) == 2
    for pid in (0, 1):
        assert r.int32() == pid
        if version >= 4:
            assert r.int32() == -1  # no current leader epoch: a follower is not fenced by it
        assert r.int64() == LATEST_TIMESTAMP
        if flexible:
            r.skip_tagged_fields()
    if flexible:
        r.skip_tagged_fields()
    if version >= 10:
        assert r.int32() == 5000
    if flexible:
        r.skip_tagged_fields()
    r.end()


def test_versions_outside_the_codec_are_refused() -> None:
    with pytest.raises(ProtocolError):
        list_offsets_body(0, {"t": [0]})
