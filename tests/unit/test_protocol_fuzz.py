"""kafkatop's own Kafka decoders (backends/protocol/, backends/kraft/wire.py) against hostile bytes: random noise and
mutated real answers (truncated, bits flipped, bytes inserted or deleted, over-long varints and huge lengths written
over them). Whatever a broker, or something posing as one, sends, the only exception is ProtocolError: never an
IndexError, OverflowError, struct.error, MemoryError, nor a worker tied up for minutes.

Seeded and bounded: the whole file runs in a few seconds. The real answers are the recorded ones the decoders' own
tests use (tests/fixtures/, test_quorum.py, test_list_offsets.py)."""

from __future__ import annotations

import json
import random
import socket
import struct
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import cast
from unittest import mock

import pytest

from kafkatop.backends.kraft.wire import decode_describe_quorum
from kafkatop.backends.protocol import share_groups as share
from kafkatop.backends.protocol import streams_groups as streams
from kafkatop.backends.protocol import transactions as txn
from kafkatop.backends.protocol.api_versions import decode_api_versions, decode_api_versions_v0
from kafkatop.backends.protocol.configs import (
    decode_describe_configs,
    decode_incremental_alter_configs,
    decode_metadata_brokers,
)
from kafkatop.backends.protocol.connection import BrokerConnection
from kafkatop.backends.protocol.consumer_groups import decode_consumer_group_describe, decode_list_groups
from kafkatop.backends.protocol.describe_cluster import decode_response as decode_describe_cluster
from kafkatop.backends.protocol.describe_log_dirs import decode_response as decode_log_dirs
from kafkatop.backends.protocol.describe_topic_partitions import decode_elr_page, decode_page
from kafkatop.backends.protocol.groups import (
    decode_consumer_assignment,
    decode_describe_groups,
    decode_offset_fetch,
)
from kafkatop.backends.protocol.list_offsets import decode_list_offsets
from kafkatop.backends.protocol.offset_delete import decode_find_coordinator, decode_offset_delete
from kafkatop.backends.protocol.reassignments import decode_alter, decode_list
from kafkatop.backends.protocol.security import SecurityError, authenticate, scram
from kafkatop.backends.protocol.wire import (
    ProtocolError,
    Reader,
    compact_string_at,
    encode_string,
    response_reader,
    skip_tags_at,
    uvarint_at,
)
from tests.fixtures.configs import payload as configs_payload
from tests.unit.test_list_offsets import FOLLOWER_V1, FOLLOWER_V5, FOLLOWER_V10, NOT_A_REPLICA_V10
from tests.unit.test_protocol_security import CLIENT_NONCE, SERVER_FINAL, SERVER_FIRST
from tests.unit.test_quorum import (
    AV_UNSUPPORTED,
    BROKER_APIVERSIONS,
    BROKER_DQ0,
    BROKER_DQ1,
    BROKER_DQ2,
    BROKER_DQ_ERR,
    CONTROLLER_APIVERSIONS,
    replica_bytes,
    v2_response,
)

FIXTURES = Path(__file__).parents[1] / "fixtures"
GROUPS = json.loads((FIXTURES / "groups" / "group_reads.json").read_text())
OFFSET_DELETE = json.loads((FIXTURES / "groups" / "offset_delete.json").read_text())
REASSIGN = json.loads((FIXTURES / "reassign" / "responses.json").read_text())

MUTATIONS = 300  # per real answer; with the truncations and the noise, a few seconds for the whole file
NOISE = 200  # random byte strings per decoder

# Values that break a careless decoder when written over a length, a count or a varint.
HOSTILE = (
    b"\xff" * 9 + b"\x01",  # a 10-byte uvarint: 2**63 and more
    b"\xff" * 4 + b"\x0f",  # 2**32 - 1 in 5 bytes, the largest uvarint Kafka reads
    b"\xff" * 5 + b"\x00",  # 6 bytes: longer than Kafka reads
    b"\x80" * 20,  # a continuation that never ends
    b"\x7f\xff\xff\xff",  # int32 max
    b"\xff\xff\xff\xff",  # -1: null
    b"\x80\x00\x00\x00",  # int32 min
    b"\x7f\xff",  # int16 max
    b"\xff\xfe",  # int16 -2
    "é".encode(),  # text beyond ASCII, where a decoder may expect it (SCRAM's attributes)
)


def _hex(table: dict[str, str], name: str) -> bytes:
    return bytes.fromhex(table[name])


def _api_versions_v0(correlation_id: int = 1) -> bytes:
    """An ApiVersions v0 answer: correlation id, no error, [Produce 0–9, ApiVersions 0–3]."""
    return struct.pack(">ihi", correlation_id, 0, 2) + struct.pack(">hhh", 0, 0, 9) + struct.pack(">hhh", 18, 0, 3)


def _assignment() -> bytes:
    """ConsumerProtocolAssignment v3: [("t", [1, 0])], UserData null (as test_group_wire builds it)."""
    return bytes.fromhex("0003" + "00000001" + "000174" + "00000002" + "00000001" + "00000000" + "ffffffff")


def _quorum_v2() -> bytes:
    """A synthetic DescribeQuorum v2 with voters, an observer and unknown tagged fields (test_quorum's builder)."""
    voters = (
        replica_bytes(2, bytes(15) + b"\x02", 500, 5, 5, b"\x00"),
        replica_bytes(1, bytes(15) + b"\x01", 480, 100, 20, bytes.fromhex("010001ff")),
    )
    return v2_response(voters=voters, observers=(replica_bytes(4, bytes(16), 499, 30, 1, b"\x00"),))


def _configs(name: str) -> bytes:
    return configs_payload(name)[2]


def _sasl_handshake(mechanisms: tuple[str, ...] = ("PLAIN", "SCRAM-SHA-256")) -> bytes:
    """SaslHandshake v1 (header v0): correlation id, no error, the mechanisms offered."""
    return struct.pack(">ihi", 1, 0, len(mechanisms)) + b"".join(encode_string(m) for m in mechanisms)


def _sasl_authenticate(token: bytes) -> bytes:
    """SaslAuthenticate v1 (header v0): correlation id, no error, no message, the token, the session lifetime."""
    return struct.pack(">ihh", 2, 0, -1) + struct.pack(">i", len(token)) + token + struct.pack(">q", 0)


def _plain(answers: list[bytes]) -> None:
    replies = iter(answers)
    settings = {"sasl.mechanisms": "PLAIN", "sasl.username": "u", "sasl.password": "p"}
    authenticate(lambda key, version, body: next(replies), settings, "fuzz:9092")


def _scram_sasl(answers: list[bytes]) -> None:
    """authenticate() for SCRAM-SHA-256, its client nonce RFC 7677's so that the recorded exchange completes."""
    replies = iter(answers)
    settings = {"sasl.mechanisms": "SCRAM-SHA-256", "sasl.username": "user", "sasl.password": "pencil"}
    with mock.patch("secrets.token_urlsafe", return_value=CLIENT_NONCE):
        authenticate(lambda key, version, body: next(replies), settings, "fuzz:9092")


def _scram(server_first: bytes, server_final: bytes) -> None:
    replies = iter((server_first, server_final))
    scram(lambda token: next(replies), "sha256", "user", "pencil", "fuzz:9092", nonce=CLIENT_NONCE)


class _Peer:
    """A socket that answers with the given bytes, then reads as closed."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def settimeout(self, _: float) -> None:
        pass

    def sendall(self, _: bytes) -> None:
        pass

    def recv(self, n: int) -> bytes:
        chunk, self.data = self.data[:n], self.data[n:]
        return chunk

    def close(self) -> None:
        pass


def _connection(stream: bytes) -> None:
    """ApiVersions through BrokerConnection: the frame (size, correlation id) and the answer, with a v0 fallback."""
    conn = object.__new__(BrokerConnection)
    conn.deadline = time.monotonic() + 5
    conn.address = "fuzz:9092"
    conn.sock = cast(socket.socket, _Peer(stream))
    conn.correlation_id = 0
    conn._versions = None
    try:
        conn.api_versions()
    except ConnectionResetError:
        pass  # the stream ended mid-frame: the peer closed, an OSError its callers handle as one


def _framed(*payloads: bytes) -> bytes:
    return b"".join(struct.pack(">i", len(p)) + p for p in payloads)


@dataclass(frozen=True, slots=True)
class Decoder:
    name: str
    decode: Callable[[bytes], object]
    answers: tuple[bytes, ...]  # valid answers, mutated
    rounds: int = MUTATIONS  # mutations per answer, and NOISE * rounds // MUTATIONS random strings


RECORDED_41 = Path(__file__).parents[1] / "fixtures" / "protocol"  # answers recorded from a real Kafka 4.1 broker
FEATURES_41 = (RECORDED_41 / "api_versions_v4_kafka_4_1.bin").read_bytes()

DECODERS = (
    Decoder("api_versions", decode_api_versions, (BROKER_APIVERSIONS, CONTROLLER_APIVERSIONS, AV_UNSUPPORTED)),
    Decoder("api_versions_v0", decode_api_versions_v0, (_api_versions_v0(),)),
    Decoder(
        "api_versions_v4_features", decode_api_versions, ((RECORDED_41 / "api_versions_v4_kafka_4_1.bin").read_bytes(),)
    ),
    Decoder(
        "describe_topic_partitions_v0",
        decode_page,
        tuple((RECORDED_41 / f"describe_topic_partitions_{n}.bin").read_bytes() for n in ("page1", "unknown")),
    ),
    Decoder(
        "describe_topic_partitions_v0_elr_only",
        decode_elr_page,
        tuple(
            (RECORDED_41 / f"describe_topic_partitions_{n}.bin").read_bytes()
            for n in ("page1", "unknown", "elr_4_1", "offline_elr_4_1")
        ),
    ),
    Decoder("describe_quorum_v0", lambda p: decode_describe_quorum(p, 0), (BROKER_DQ0,)),
    Decoder("describe_quorum_v1", lambda p: decode_describe_quorum(p, 1), (BROKER_DQ1,)),
    Decoder("describe_quorum_v2", lambda p: decode_describe_quorum(p, 2), (BROKER_DQ2, BROKER_DQ_ERR, _quorum_v2())),
    Decoder("list_offsets_v1", lambda p: decode_list_offsets(p, 1), (FOLLOWER_V1,)),
    Decoder("list_offsets_v5", lambda p: decode_list_offsets(p, 5), (FOLLOWER_V5,)),
    Decoder("list_offsets_v10", lambda p: decode_list_offsets(p, 10), (FOLLOWER_V10, NOT_A_REPLICA_V10)),
    Decoder(
        "offset_fetch_v8",
        lambda p: decode_offset_fetch(response_reader(p), 8),
        (_hex(GROUPS, "offset_fetch_v8_rec-live"), _hex(GROUPS, "offset_fetch_v8_rec-idle")),
    ),
    Decoder(
        "offset_fetch_v6",
        lambda p: decode_offset_fetch(response_reader(p), 6, "rec-idle"),
        (_hex(GROUPS, "offset_fetch_v6_rec-idle"), _hex(GROUPS, "offset_fetch_v6_rec-live")),
    ),
    Decoder(
        "describe_groups",
        lambda p: decode_describe_groups(response_reader(p)),
        (_hex(GROUPS, "describe_rec-live"), _hex(GROUPS, "describe_rec-idle")),
    ),
    Decoder("consumer_assignment", decode_consumer_assignment, (_assignment(),)),
    Decoder(
        "find_coordinator_v6",
        lambda p: decode_find_coordinator(response_reader(p), 6, ["rec-live", "rec-idle"]),
        (_hex(GROUPS, "find_both"),),
    ),
    Decoder(
        "find_coordinator_v4",
        lambda p: decode_find_coordinator(response_reader(p), 4, ["od2"]),
        (_hex(OFFSET_DELETE, "find_od2"),),
    ),
    Decoder(
        "find_coordinator_v3",
        lambda p: decode_find_coordinator(response_reader(p), 3, ["od2"]),
        (_hex(OFFSET_DELETE, "find_od2_v3"),),
    ),
    Decoder(
        "offset_delete",
        lambda p: decode_offset_delete(response_reader(p, flexible=False)),
        (_hex(OFFSET_DELETE, "delete_od2"), _hex(OFFSET_DELETE, "delete_nope")),
    ),
    Decoder(
        "alter_reassignments",
        lambda p: decode_alter(response_reader(p)),
        (_hex(REASSIGN, "alter_dead_broker"), _hex(REASSIGN, "alter_cancel_unknown")),
    ),
    Decoder(
        "list_reassignments",
        lambda p: decode_list(response_reader(p)),
        (_hex(REASSIGN, "list_t6_moving"), _hex(REASSIGN, "list_none")),
    ),
    Decoder(
        "describe_configs_v1",
        lambda p: decode_describe_configs(response_reader(p, flexible=False), 1),
        (_configs("describe_topic_v1"),),
    ),
    Decoder(
        "describe_configs_v3",
        lambda p: decode_describe_configs(response_reader(p, flexible=False), 3),
        (_configs("describe_topic_v3"),),
    ),
    Decoder(
        "describe_configs_v4",
        lambda p: decode_describe_configs(response_reader(p), 4),
        (_configs("describe_topic_v4"), _configs("describe_defaults_v4"), _configs("describe_unknown_topic_v4")),
    ),
    Decoder(
        "incremental_alter_configs_v0",
        lambda p: decode_incremental_alter_configs(response_reader(p, flexible=False), 0),
        (_configs("alter_refused_v0"), _configs("alter_validated_v0")),
    ),
    Decoder(
        "incremental_alter_configs_v1",
        lambda p: decode_incremental_alter_configs(response_reader(p), 1),
        (_configs("alter_refused_v1"), _configs("alter_validated_v1")),
    ),
    Decoder(
        "metadata_brokers",
        lambda p: decode_metadata_brokers(response_reader(p), 12),
        (_configs("metadata_v12"), _configs("metadata_v9")),
    ),
    Decoder(
        "sasl_handshake",
        lambda p: _plain([p, _sasl_authenticate(b"")]),
        (_sasl_handshake(), _sasl_handshake(("PLAIN",))),
    ),
    Decoder("sasl_authenticate", lambda p: _plain([_sasl_handshake(), p]), (_sasl_authenticate(b""),)),
    # Kafka 4's requests (issue 26), each on answers recorded from a real Kafka 4.1 node.
    Decoder(
        "consumer_group_describe_v1",
        lambda p: decode_consumer_group_describe(response_reader(p), 1),
        ((RECORDED_41 / "consumer_group_describe_v1_4_1.bin").read_bytes(),),
    ),
    Decoder(
        "list_groups_v5",
        lambda p: decode_list_groups(response_reader(p), 5),
        ((RECORDED_41 / "list_groups_v5_4_1.bin").read_bytes(),),
    ),
    Decoder(
        "share_list_groups",
        lambda p: decode_list_groups(response_reader(p), 5),
        ((RECORDED_41 / "list_groups_share_4_1.bin").read_bytes(),),
    ),
    Decoder(
        "streams_group_describe",
        streams.decode_streams_group_describe,
        tuple((RECORDED_41 / f"streams_group_describe{n}_4_1.bin").read_bytes() for n in ("", "_empty")),
    ),
    Decoder(
        "share_group_describe",
        share.decode_share_group_describe,
        ((RECORDED_41 / "share_group_describe_4_1.bin").read_bytes(),),
    ),
    Decoder(
        "describe_share_group_offsets",
        share.decode_describe_share_group_offsets,
        ((RECORDED_41 / "describe_share_group_offsets_4_1.bin").read_bytes(),),
    ),
    Decoder(
        "delete_share_group_offsets",
        share.decode_delete_share_group_offsets,
        ((RECORDED_41 / "delete_share_group_offsets_done_4_1.bin").read_bytes(),),
    ),
    Decoder(
        "delete_groups_share",
        share.decode_delete_groups,
        ((RECORDED_41 / "delete_groups_share_done_4_1.bin").read_bytes(),),
    ),
    Decoder(
        "describe_log_dirs_v4",
        lambda p: decode_log_dirs(p, 4),
        ((RECORDED_41 / "describe_log_dirs_v4_4_1.bin").read_bytes(),),
    ),
    Decoder(
        "describe_cluster_v2",
        lambda p: decode_describe_cluster(p, 2),
        ((RECORDED_41 / "describe_cluster_v2_4_1.bin").read_bytes(),),
    ),
    Decoder(
        "describe_log_dirs_v1",
        lambda p: decode_log_dirs(p, 1),
        ((RECORDED_41 / "describe_log_dirs_v1_4_1.bin").read_bytes(),),
    ),
    Decoder(
        "list_transactions_v2",
        txn.decode_list_transactions,
        ((RECORDED_41 / "list_transactions_v2_kafka_4_1.bin").read_bytes(),),
    ),
    Decoder(
        "describe_transactions_v0",
        txn.decode_describe_transactions,
        ((RECORDED_41 / "describe_transactions_v0_kafka_4_1.bin").read_bytes(),),
    ),
    Decoder(
        "describe_producers_v0",
        txn.decode_describe_producers,
        ((RECORDED_41 / "describe_producers_v0_kafka_4_1.bin").read_bytes(),),
    ),
    Decoder(
        "write_txn_markers_v1",
        txn.decode_write_txn_markers,
        ((RECORDED_41 / "write_txn_markers_v1_kafka_4_1.bin").read_bytes(),),
    ),
    Decoder(
        "sasl_scram_first",
        lambda p: _scram_sasl([_sasl_handshake(), p, _sasl_authenticate(SERVER_FINAL)]),
        (_sasl_authenticate(SERVER_FIRST),),
    ),
    Decoder("scram_server_first", lambda p: _scram(p, SERVER_FINAL), (SERVER_FIRST,)),
    # Each of these runs PBKDF2's 4096 rounds: fewer of them, for the same time as the others.
    Decoder("scram_server_final", lambda p: _scram(SERVER_FIRST, p), (SERVER_FINAL,), rounds=MUTATIONS // 3),
    Decoder(
        "connection_api_versions",
        _connection,
        (_framed(BROKER_APIVERSIONS), _framed(AV_UNSUPPORTED, _api_versions_v0(2))),  # v3 refused: v0 asked
    ),
)


def mutations(rng: random.Random, answer: bytes, count: int) -> Iterator[bytes]:
    """Every truncation (by a step, for the long answers), then `count` random mutations of `answer`."""
    for cut in range(0, len(answer), max(1, len(answer) // 150)):
        yield answer[:cut]
    for _ in range(count):
        data = bytearray(answer)
        at = rng.randrange(len(data) + 1)
        kind = rng.randrange(6)
        if kind == 0:  # bits flipped
            for _ in range(rng.randint(1, 4)):
                i = rng.randrange(len(data))
                data[i] ^= 1 << rng.randrange(8)
        elif kind == 1:  # bytes inserted
            data[at:at] = rng.randbytes(rng.randint(1, 8))
        elif kind == 2:  # bytes deleted
            del data[at : at + rng.randint(1, 8)]
        elif kind == 3:  # a hostile length, count or varint written over what was there
            value = rng.choice(HOSTILE)
            data[at : at + len(value)] = value
        elif kind == 4:  # a hostile value inserted
            data[at:at] = rng.choice(HOSTILE)
        else:  # a byte replaced, and the answer cut after it
            if data:
                data[min(at, len(data) - 1)] = rng.randrange(256)
            data = data[: rng.randint(at, len(data))]
        yield bytes(data)


def noise(rng: random.Random, count: int, longest: int = 512) -> Iterator[bytes]:
    for _ in range(count):
        yield rng.randbytes(rng.choice((rng.randrange(8), rng.randrange(64), rng.randrange(longest))))


def only_protocol_errors(name: str, decode: Callable[[bytes], object], data: bytes) -> None:
    try:
        decode(data)
    except ProtocolError:
        pass
    except Exception as e:
        raise AssertionError(f"{name} raised {type(e).__name__}: {e} on bytes {data[:200].hex()}") from e


@pytest.mark.parametrize("decoder", DECODERS, ids=[d.name for d in DECODERS])
def test_mutated_answers_raise_only_protocol_errors(decoder: Decoder) -> None:
    rng = random.Random(f"kafkatop-{decoder.name}")
    for answer in decoder.answers:
        decoder.decode(answer)  # the unmutated answer decodes: the mutations start from something valid
        for data in mutations(rng, answer, decoder.rounds):
            only_protocol_errors(decoder.name, decoder.decode, data)


@pytest.mark.parametrize("decoder", DECODERS, ids=[d.name for d in DECODERS])
def test_random_bytes_raise_only_protocol_errors(decoder: Decoder) -> None:
    rng = random.Random(f"kafkatop-noise-{decoder.name}")
    for data in noise(rng, NOISE * decoder.rounds // MUTATIONS):
        only_protocol_errors(decoder.name, decoder.decode, data)


def _primitives(data: bytes) -> None:
    """Every Reader method and the position-based helpers, from every offset of `data`."""
    for start in range(len(data) + 1):
        for read in (
            Reader.uvarint,
            Reader.compact_string,
            Reader.compact_nullable_string,
            Reader.string,
            Reader.nullable_string,
            Reader.compact_array_length,
            Reader.array_length,
            Reader.skip_tagged_fields,
            Reader.int64,
            Reader.uuid,
        ):
            r = Reader(data)
            r.pos = start
            try:
                read(r)
            except ProtocolError:
                pass
        for at in (uvarint_at, compact_string_at, skip_tags_at):
            try:
                at(data, start)
            except ProtocolError:
                pass


def test_primitive_readers_raise_only_protocol_errors() -> None:
    rng = random.Random("kafkatop-primitives")
    for data in [*noise(rng, 100, longest=96), *HOSTILE, *(h + rng.randbytes(4) for h in HOSTILE)]:
        only_protocol_errors("primitives", _primitives, data)


# --- regressions ----------------------------------------------------------------------------------------------------
TEN_BYTE_UVARINT = b"\xff" * 9 + b"\x01"


def test_a_10_byte_uvarint_is_a_protocol_error_not_an_overflow() -> None:
    with pytest.raises(ProtocolError, match="longer than 5 bytes"):
        Reader(TEN_BYTE_UVARINT).uvarint()
    with pytest.raises(ProtocolError, match="longer than 5 bytes"):
        uvarint_at(TEN_BYTE_UVARINT, 0)
    # As the size of a commit's metadata in OffsetFetch, where the fast decoder once let an OverflowError escape.
    # Header, throttle, [group "t": [topic "t": [one partition]]], then the partition with that varint.
    fetch = bytes.fromhex("00000001" + "00" + "00000000" + "02" + "0274" + "02" + "0274" + "02")
    partition = struct.pack(">iqi", 0, 5, -1) + TEN_BYTE_UVARINT + struct.pack(">h", 0) + b"\x00"
    with pytest.raises(ProtocolError):
        decode_offset_fetch(response_reader(fetch + partition + bytes.fromhex("00" + "0000" + "00" + "00")), 8)


def test_uvarints_are_read_to_32_bits_as_kafka_reads_them() -> None:
    assert Reader(b"\xff\xff\xff\xff\x0f").uvarint() == 2**32 - 1
    assert uvarint_at(b"\xff\xff\xff\xff\x0f", 0) == (2**32 - 1, 5)
    with pytest.raises(ProtocolError, match="longer than 5 bytes"):
        Reader(b"\xff\xff\xff\xff\xff\x00").uvarint()
    with pytest.raises(ProtocolError, match="32 bits"):
        Reader(b"\xff\xff\xff\xff\x1f").uvarint()


def test_a_count_larger_than_the_answer_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="2147483647"):
        Reader(struct.pack(">i", 2**31 - 1) + bytes(8)).array_length()
    with pytest.raises(ProtocolError, match="4294967294"):
        Reader(b"\xff\xff\xff\xff\x0f" + bytes(8)).compact_array_length()
    assert Reader(b"\x04" + bytes(3)).compact_array_length() == 3  # three one-byte items fit


def _server_first(iterations: str) -> bytes:
    return SERVER_FIRST.replace(b"i=4096", b"i=" + iterations.encode())


@pytest.mark.parametrize("iterations", ["2147483648", "2147483647", "16385", "4095", "1", "0", "-1"])
def test_scram_refuses_an_iteration_count_outside_kafka_s_bounds(iterations: str) -> None:
    """Kafka's SCRAM mechanisms take 4096–16384 iterations (ScramMechanism); 2**31 would tie a worker for half an
    hour, and Kafka's own client refuses fewer than 4096."""
    started = time.monotonic()
    with pytest.raises(SecurityError, match=f"iteration count {iterations} "):
        _scram(_server_first(iterations), SERVER_FINAL)
    assert time.monotonic() - started < 1


def test_a_scram_signature_beyond_ascii_is_refused_as_one_that_does_not_match() -> None:
    with pytest.raises(SecurityError, match="signature does not match"):
        _scram(SERVER_FIRST, "v=é".encode())


@pytest.mark.parametrize("iterations", ["4096", "16384"])
def test_scram_accepts_kafka_s_iteration_counts(iterations: str) -> None:
    if iterations == "4096":
        _scram(_server_first(iterations), SERVER_FINAL)  # RFC 7677's own exchange
        return
    with pytest.raises(SecurityError, match="signature does not match"):  # computed, so the count was taken
        _scram(_server_first(iterations), SERVER_FINAL)
