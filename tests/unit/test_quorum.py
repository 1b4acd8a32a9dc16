"""The DescribeQuorum codec and QuorumSource, on bytes recorded from a real Kafka 4.1.0 KRaft node.

The recorded responses (payloads after the 4-byte size) come from the combined node of the integration tests
(node id 1, static voter set, so no directory ids): ApiVersions v3 of its broker and of its controller listener,
DescribeQuorum v0, v1 and v2 through the broker and v2 from the controller, DescribeQuorum v2 for a partition the
quorum does not have, and the v0-layout answer to an ApiVersions version the broker does not know.
"""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Callable, Iterator

import pytest

from kafkatop.backends.kraft.quorum import QuorumSource, to_snapshot
from kafkatop.backends.kraft.wire import (
    DescribeQuorum,
    QuorumPartition,
    ReplicaState,
    decode_describe_quorum,
    describe_quorum_body,
)
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.protocol.api_versions import api_versions_body, decode_api_versions
from kafkatop.backends.protocol.wire import (
    NO_TAGGED_FIELDS,
    ProtocolError,
    Reader,
    encode_compact_string,
    encode_request,
    encode_uvarint,
    error_name,
    format_uuid,
)

BROKER_APIVERSIONS = bytes.fromhex(
    "0000000100004a00000000000d000001000400120000020001000a0000030000000d0000080002000900000900010009"
    "00000a0000000600000b0000000900000c0000000400000d0000000500000e0000000500000f00000006000010000000"
    "050000110000000100001200000004000013000200070000140001000600001500000002000016000000050000170002"
    "0004000018000000050000190000000400001a0000000500001b0001000100001c0000000500001d0001000300001e00"
    "01000300001f000100030000200001000400002100000002000022000100020000230001000400002400000002000025"
    "000000030000260001000300002700010002000028000100020000290001000300002a0000000200002b000000020000"
    "2c0000000100002d0000000100002e0000000000002f0000000000003000000001000031000000010000320000000000"
    "003300000000000037000000020000390000000200003c0000000200003d000000000000400000000000004100000000"
    "00004200000002000044000000010000450000000100004a0000000100004b0000000000004c0001000100004d000100"
    "0100004e0001000100004f00010001000050000000000000510000000000005300000000000054000000000000550000"
    "0000000056000000000000570000000000005a0000000000005b0000000000005c00000000000000000003001702116d"
    "657461646174612e76657273696f6e0007001b000108000000000000000b0269050e67726f75702e76657273696f6e00"
    "01000100147472616e73616374696f6e2e76657273696f6e000200020021656c696769626c652e6c65616465722e7265"
    "706c696361732e76657273696f6e0001000100116d657461646174612e76657273696f6e001b001b00"
)
CONTROLLER_APIVERSIONS = bytes.fromhex(
    "0000000100002a0001000400120000110000000100001200000004000013000200070000140001000600001d00010003"
    "00001e0001000300001f0001000300002000010004000021000000020000240000000200002500000003000026000100"
    "0300002700010002000028000100020000290001000300002b0000000200002c0000000100002d0000000100002e0000"
    "000000003100000001000032000000000000330000000000003400000002000035000000010000360000000100003700"
    "000002000038000200030000390000000200003a0000000000003b0000000100003c0000000200003e0000000400003f"
    "000000010000400000000000004300000000000046000000000000490000000000005000000000000051000000000000"
    "5200000000000000000003001702116d657461646174612e76657273696f6e0007001b00010800000000000000070269"
    "050e67726f75702e76657273696f6e0001000100147472616e73616374696f6e2e76657273696f6e000200020021656c"
    "696769626c652e6c65616465722e7265706c696361732e76657273696f6e0001000100116d657461646174612e766572"
    "73696f6e001b001b00"
)
AV_UNSUPPORTED = bytes.fromhex("00000001002300000001001200000004")
BROKER_DQ0 = bytes.fromhex(
    "0000000200000002135f5f636c75737465725f6d65746164617461020000000000000000000100000001000000000000"
    "000c0200000001000000000000000c0001000000"
)
BROKER_DQ1 = bytes.fromhex(
    "0000000300000002135f5f636c75737465725f6d65746164617461020000000000000000000100000001000000000000"
    "000c0200000001000000000000000c000001a2019c8bae000001a2019c8bae0001000000"
)
BROKER_DQ2 = bytes.fromhex(
    "000000040000000102135f5f636c75737465725f6d657461646174610200000000000001000000010000000100000000"
    "0000000c020000000100000000000000000000000000000000000000000000000c000001a2019c8bb1000001a2019c8b"
    "b1000100000200000001020b434f4e54524f4c4c45520a3132372e302e302e31e357000000"
)
CONTROLLER_DQ2 = bytes.fromhex(
    "000000040000000102135f5f636c75737465725f6d657461646174610200000000000001000000010000000100000000"
    "0000000c020000000100000000000000000000000000000000000000000000000c000001a2019c8bc7000001a2019c8b"
    "c7000100000200000001020b434f4e54524f4c4c45520a3132372e302e302e31e357000000"
)
BROKER_DQ_ERR = bytes.fromhex(
    "000000050000000102135f5f636c75737465725f6d657461646174610200000001000330546869732073657276657220"
    "646f6573206e6f7420686f7374207468697320746f7069632d706172746974696f6e2e00000000000000000000000000"
    "000000010100000100"
)
LEADER_FETCH_MS = 1795323366321  # the leader's own LastFetchTimestamp in BROKER_DQ2


# --- primitive types ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        (0, "00"),
        (1, "01"),
        (127, "7f"),
        (128, "8001"),
        (300, "ac02"),
        (16384, "808001"),
        (2**31 - 1, "ffffffff07"),
        (2**32 - 1, "ffffffff0f"),
    ],
)
def test_uvarint_round_trip(value: int, encoded: str) -> None:
    assert encode_uvarint(value).hex() == encoded
    reader = Reader(bytes.fromhex(encoded) + b"\xee")
    assert reader.uvarint() == value
    assert reader.pos == len(encoded) // 2  # stops at its last byte


def test_uvarint_rejects_negatives_overruns_and_endless_continuations() -> None:
    with pytest.raises(ValueError):
        encode_uvarint(-1)
    with pytest.raises(ProtocolError, match="truncated"):
        Reader(b"\x80\x80").uvarint()
    with pytest.raises(ProtocolError, match="longer than 5 bytes"):
        Reader(b"\xff" * 11).uvarint()


@pytest.mark.parametrize(
    ("value", "encoded"),
    [(None, "00"), ("", "01"), ("abc", "04616263"), ("é", "03c3a9")],
)
def test_compact_strings(value: str | None, encoded: str) -> None:
    assert encode_compact_string(value).hex() == encoded
    assert Reader(bytes.fromhex(encoded)).compact_nullable_string() == value


def test_compact_string_that_must_not_be_null() -> None:
    with pytest.raises(ProtocolError, match="null where a string is required"):
        Reader(b"\x00").compact_string()


def test_compact_arrays_store_length_plus_one() -> None:
    assert Reader(b"\x00").compact_array_length() == 0  # null
    assert Reader(b"\x01").compact_array_length() == 0
    assert Reader(b"\x04" + bytes(3)).compact_array_length() == 3  # each item takes a byte at least
    with pytest.raises(ProtocolError, match="3 items announced"):
        Reader(b"\x04" + bytes(2)).compact_array_length()


def test_tagged_fields_are_skipped_whatever_their_tags() -> None:
    # Two fields: tag 0 with 3 bytes, tag 300 (a two-byte varint) with none; then one more byte.
    reader = Reader(bytes.fromhex("020003616263ac02007f"))
    reader.skip_tagged_fields()
    assert reader.take(1) == b"\x7f"
    reader.end()
    empty = Reader(NO_TAGGED_FIELDS)
    empty.skip_tagged_fields()
    empty.end()


def test_a_tagged_field_longer_than_the_response_is_an_error() -> None:
    with pytest.raises(ProtocolError, match="truncated"):
        Reader(bytes.fromhex("0100056162")).skip_tagged_fields()


def test_fixed_width_integers_are_big_endian_and_signed() -> None:
    reader = Reader(bytes.fromhex("fffffffffffffffefffffffffffffffd0102"))
    assert (reader.int16(), reader.uint16(), reader.int32(), reader.int64()) == (-1, 65535, -2, -3)
    with pytest.raises(ProtocolError):
        reader.int32()  # two bytes left


def test_unread_bytes_after_a_response_are_an_error() -> None:
    with pytest.raises(ProtocolError, match="1 unread bytes"):
        decode_describe_quorum(BROKER_DQ0 + b"\x00", 0)


def test_uuids_print_as_kafka_prints_them() -> None:
    assert format_uuid(bytes(16)) is None  # Uuid.ZERO_UUID: no directory id (a static voter set)
    assert format_uuid(bytes(15) + b"\x01") == "AAAAAAAAAAAAAAAAAAAAAQ"
    assert format_uuid(bytes(range(16))) == "AAECAwQFBgcICQoLDA0ODw"


# --- requests -------------------------------------------------------------------------------------------------------
def test_api_versions_request_bytes() -> None:
    # size, key 18, v3, correlation 1, client id "kafkatop" (int16 length even in header v2), no tags,
    # then ClientSoftwareName "kafkatop", ClientSoftwareVersion "0.1.0" as compact strings, no tags.
    assert encode_request(18, 3, 1, api_versions_body()).hex() == (
        "00000023" "0012" "0003" "00000001" "0008" "6b61666b61746f70" "00"
        "09" "6b61666b61746f70" "06" "302e312e30" "00"
    )  # fmt: skip


def test_describe_quorum_request_bytes() -> None:
    # Topics [{"__cluster_metadata", Partitions [{0}]}], each struct with its empty tagged-field section.
    assert describe_quorum_body().hex() == (
        "02" "13" + b"__cluster_metadata".hex() + "02" "00000000" "00" "00" "00"
    )  # fmt: skip


# --- recorded responses ---------------------------------------------------------------------------------------------
def test_api_versions_of_the_broker_and_of_the_controller() -> None:
    broker = decode_api_versions(BROKER_APIVERSIONS)
    assert (broker.correlation_id, broker.error_code) == (1, 0)
    assert broker.versions[55] == (0, 2)  # DescribeQuorum, which the broker forwards to the controller
    assert broker.versions[18] == (0, 4)
    assert 0 in broker.versions  # Produce
    controller = decode_api_versions(CONTROLLER_APIVERSIONS)
    assert controller.versions[55] == (0, 2)
    assert 0 not in controller.versions  # controllers take no Produce: how QuorumSource tells them apart
    assert len(broker.versions) == 73 and len(controller.versions) == 41


def test_api_versions_error_comes_in_the_v0_layout() -> None:
    answer = decode_api_versions(AV_UNSUPPORTED)
    assert (answer.error_code, answer.versions) == (35, {18: (0, 4)})


def test_describe_quorum_v0_has_no_fetch_times() -> None:
    response = decode_describe_quorum(BROKER_DQ0, 0)
    (partition,) = response.partitions
    assert (partition.topic, partition.partition, partition.leader_id, partition.leader_epoch) == (
        "__cluster_metadata",
        0,
        1,
        1,
    )
    assert partition.high_watermark == 12
    assert partition.voters == (ReplicaState(1, None, 12, -1, -1),)
    snap = to_snapshot(response, 1795323367.0)
    assert snap.voters[0].last_fetch_ms_ago is None and snap.voters[0].lag == 0


def test_describe_quorum_v1_adds_fetch_times() -> None:
    (partition,) = decode_describe_quorum(BROKER_DQ1, 1).partitions
    assert partition.voters == (ReplicaState(1, None, 12, 1795323366318, 1795323366318),)
    assert partition.observers == ()


def test_describe_quorum_v2_through_the_broker() -> None:
    response = decode_describe_quorum(BROKER_DQ2, 2)
    assert (response.version, response.correlation_id, response.error_code) == (2, 4, 0)
    assert response.error_message is None  # sent as "", not null
    assert response.endpoints == {1: ("CONTROLLER://127.0.0.1:58199",)}
    snap = to_snapshot(response, (LEADER_FETCH_MS + 250) / 1000, source="127.0.0.1:9092", via="broker")
    assert (snap.leader_id, snap.leader_epoch, snap.high_watermark) == (1, 1, 12)
    (voter,) = snap.voters
    assert voter.replica_id == 1 and voter.log_end_offset == 12 and voter.lag == 0
    assert voter.last_fetch_ms_ago == 250 and voter.last_caught_up_ms_ago == 250
    assert voter.directory_id is None
    assert voter.endpoints == ("CONTROLLER://127.0.0.1:58199",)
    assert snap.observers == ()
    assert snap.leader is voter and snap.max_follower_lag == 0
    assert (snap.source, snap.via, snap.api_version) == ("127.0.0.1:9092", "broker", 2)


def test_describe_quorum_v2_from_the_controller_is_the_same_quorum() -> None:
    broker = decode_describe_quorum(BROKER_DQ2, 2).partitions[0]
    controller = decode_describe_quorum(CONTROLLER_DQ2, 2).partitions[0]
    assert (controller.leader_id, controller.leader_epoch, controller.high_watermark) == (1, 1, 12)
    assert [v.replica_id for v in controller.voters] == [v.replica_id for v in broker.voters]


def test_a_partition_error_with_its_message() -> None:
    response = decode_describe_quorum(BROKER_DQ_ERR, 2)
    (partition,) = response.partitions
    assert (partition.partition, partition.error_code) == (1, 3)
    assert partition.error_message == "This server does not host this topic-partition."
    with pytest.raises(SourceUnavailable, match="has no __cluster_metadata-0"):
        to_snapshot(response, 0.0, source="b:9092")


def test_an_unknown_version_is_refused() -> None:
    with pytest.raises(ProtocolError, match="v3"):
        decode_describe_quorum(BROKER_DQ2, 3)


@pytest.mark.parametrize("cut", [1, 10, len(BROKER_DQ2) // 2, len(BROKER_DQ2) - 1])
def test_truncated_responses_are_protocol_errors(cut: int) -> None:
    with pytest.raises(ProtocolError):
        decode_describe_quorum(BROKER_DQ2[:cut], 2)


# --- synthetic responses: what one node cannot produce -------------------------------------------------------------
def replica_bytes(replica_id: int, directory: bytes, leo: int, fetch: int, caught_up: int, tags: bytes) -> bytes:
    return struct.pack(">i", replica_id) + directory + struct.pack(">qqq", leo, fetch, caught_up) + tags


def v2_response(
    *,
    error: int = 0,
    partition_error: int = 0,
    message: str | None = None,
    leader: int = 2,
    voters: tuple[bytes, ...] = (),
    observers: tuple[bytes, ...] = (),
) -> bytes:
    """A DescribeQuorum v2 payload, with tagged fields where Kafka may add them in later versions."""
    unknown_tag = bytes.fromhex("010702beef")  # one tagged field (tag 7, 2 bytes) this codec ignores
    partition = (
        struct.pack(">ih", 0, partition_error)
        + encode_compact_string(message)
        + struct.pack(">iiq", leader, 7, 500)
        + encode_uvarint(len(voters) + 1)
        + b"".join(voters)
        + encode_uvarint(len(observers) + 1)
        + b"".join(observers)
        + unknown_tag
    )
    topic = encode_compact_string("__cluster_metadata") + encode_uvarint(2) + partition + NO_TAGGED_FIELDS
    node = struct.pack(">i", 2) + encode_uvarint(2) + encode_compact_string("CONTROLLER")
    node += encode_compact_string("c2.example") + struct.pack(">H", 9093) + NO_TAGGED_FIELDS + NO_TAGGED_FIELDS
    return (
        struct.pack(">i", 9)
        + unknown_tag  # response header v1
        + struct.pack(">h", error)
        + encode_compact_string(message if error else None)
        + encode_uvarint(2)
        + topic
        + encode_uvarint(2)
        + node
        + unknown_tag
    )


def test_three_voters_and_an_observer_with_directory_ids_and_unknown_tags() -> None:
    now_ms = 1_700_000_010_000
    tag = bytes.fromhex("010001ff")
    voters = (
        replica_bytes(2, bytes(15) + b"\x02", 500, now_ms - 5, now_ms - 5, NO_TAGGED_FIELDS),  # the leader
        replica_bytes(1, bytes(15) + b"\x01", 480, now_ms - 100, now_ms - 2000, tag),
        replica_bytes(3, bytes(15) + b"\x03", -1, -1, -1, NO_TAGGED_FIELDS),  # never fetched
    )
    observers = (replica_bytes(4, bytes(16), 499, now_ms + 30, now_ms - 1, NO_TAGGED_FIELDS),)
    response = decode_describe_quorum(v2_response(voters=voters, observers=observers), 2)
    snap = to_snapshot(response, now_ms / 1000)
    assert (snap.leader_id, snap.leader_epoch, snap.high_watermark) == (2, 7, 500)
    assert [(v.replica_id, v.lag, v.last_fetch_ms_ago, v.last_caught_up_ms_ago) for v in snap.voters] == [
        (2, 0, 5, 5),
        (1, 20, 100, 2000),
        (3, None, None, None),
    ]
    assert [v.directory_id for v in snap.voters] == [
        "AAAAAAAAAAAAAAAAAAAAAg",
        "AAAAAAAAAAAAAAAAAAAAAQ",
        "AAAAAAAAAAAAAAAAAAAAAw",
    ]
    assert snap.voters[0].endpoints == ("CONTROLLER://c2.example:9093",) and snap.voters[1].endpoints == ()
    (observer,) = snap.observers
    assert (observer.replica_id, observer.lag, observer.directory_id) == (4, 1, None)
    assert observer.last_fetch_ms_ago == 0  # the leader's clock ran 30 ms ahead of ours
    assert snap.max_follower_lag == 20


def test_no_leader_means_no_lag() -> None:
    voter = replica_bytes(1, bytes(16), 10, -1, -1, NO_TAGGED_FIELDS)
    snap = to_snapshot(decode_describe_quorum(v2_response(leader=-1, voters=(voter,)), 2), 0.0)
    assert snap.leader is None and snap.voters[0].lag is None and snap.max_follower_lag is None


def test_errors_name_the_kafka_error_code() -> None:
    not_leader = decode_describe_quorum(v2_response(partition_error=6), 2)
    with pytest.raises(SourceUnavailable) as raised:
        to_snapshot(not_leader, 0.0, source="c1:9093")
    assert raised.value.reason == (
        "c1:9093 answered DescribeQuorum with NOT_LEADER_OR_FOLLOWER (this controller is not the quorum leader)"
    )
    denied = decode_describe_quorum(v2_response(error=31, message="Cluster authorization failed."), 2)
    with pytest.raises(SourceUnavailable, match="CLUSTER_AUTHORIZATION_FAILED: Cluster authorization failed."):
        to_snapshot(denied, 0.0, source="b:9092")
    assert error_name(35) == "UNSUPPORTED_VERSION" and error_name(999) == "error code 999"


def test_hand_built_partitions_convert_too() -> None:
    response = DescribeQuorum(
        version=1,
        correlation_id=1,
        error_code=0,
        error_message=None,
        partitions=(
            QuorumPartition("__cluster_metadata", 0, 0, None, 3, 2, 40, (ReplicaState(3, None, 41, 1, 1),), ()),
        ),
        endpoints={},
    )
    assert to_snapshot(response, 0.0).voters[0].lag == 0


# --- the bootstrap list ---------------------------------------------------------------------------------------------
def test_bootstrap_lists() -> None:
    assert KafkaConnection.parse("b1:9092, PLAINTEXT://b2:9094,[::1]:9093,b3").addresses == (
        ("b1", 9092),
        ("b2", 9094),
        ("::1", 9093),
        ("b3", 9092),
    )
    for bad in ("", " , ", "b1:x", "b1:0"):
        with pytest.raises(SourceUnavailable, match="bootstrap"):
            KafkaConnection.parse(bad)


# --- QuorumSource against stand-in servers that replay the recorded bytes ----------------------------------------
Handler = Callable[[socket.socket], None]


@pytest.fixture
def serve() -> Iterator[Callable[[Handler], str]]:
    """Start loopback servers that run `handler` on each accepted connection; all closed at the end."""
    listeners: list[socket.socket] = []
    threads: list[threading.Thread] = []

    def _serve(handler: Handler) -> str:
        listener = socket.create_server(("127.0.0.1", 0))
        listener.settimeout(5)
        listeners.append(listener)

        def run() -> None:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                try:
                    handler(conn)
                except OSError:
                    pass

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        threads.append(thread)
        return f"127.0.0.1:{listener.getsockname()[1]}"

    yield _serve
    for listener in listeners:
        listener.close()
    for thread in threads:
        thread.join(5)


def read_request(conn: socket.socket) -> tuple[int, int, int]:
    """(api key, version, correlation id) of the next request on `conn`."""
    size = struct.unpack(">i", conn.recv(4, socket.MSG_WAITALL))[0]
    payload = conn.recv(size, socket.MSG_WAITALL)
    key, version, correlation_id = struct.unpack(">hhi", payload[:8])
    return key, version, correlation_id


def replay(*answers: bytes) -> Handler:
    """Answer each request with the next recorded payload, its correlation id rewritten to match."""

    def handler(conn: socket.socket) -> None:
        for answer in answers:
            _, _, correlation_id = read_request(conn)
            payload = struct.pack(">i", correlation_id) + answer[4:]
            conn.sendall(struct.pack(">i", len(payload)) + payload)

    return handler


def test_poll_through_a_broker(serve: Callable[[Handler], str]) -> None:
    address = serve(replay(BROKER_APIVERSIONS, BROKER_DQ2))
    snap = QuorumSource(KafkaConnection.parse(address), timeout_s=2.0).poll()
    assert (snap.leader_id, snap.leader_epoch, snap.high_watermark) == (1, 1, 12)
    assert (snap.source, snap.via, snap.api_version) == (address, "broker", 2)


def test_poll_negotiates_down_to_what_the_node_offers(serve: Callable[[Handler], str]) -> None:
    asked: list[tuple[int, int]] = []

    def handler(conn: socket.socket) -> None:
        # A node that offers DescribeQuorum v0–v1 only (as Kafka 3.3–3.8 did).
        versions = bytearray(CONTROLLER_APIVERSIONS)
        i = versions.find(bytes.fromhex("003700000002"))
        versions[i : i + 6] = bytes.fromhex("003700000001")
        for answer in (bytes(versions), BROKER_DQ1):
            key, version, correlation_id = read_request(conn)
            asked.append((key, version))
            payload = struct.pack(">i", correlation_id) + answer[4:]
            conn.sendall(struct.pack(">i", len(payload)) + payload)

    snap = QuorumSource(KafkaConnection.parse(serve(handler))).poll()
    assert asked == [(18, 3), (55, 1)]
    assert snap.api_version == 1 and snap.via == "controller"
    assert snap.voters[0].endpoints == ()  # v1 carries no nodes


def test_poll_tries_the_next_address(serve: Callable[[Handler], str]) -> None:
    not_leader = serve(replay(CONTROLLER_APIVERSIONS, v2_response(partition_error=6)))
    leader = serve(replay(CONTROLLER_APIVERSIONS, CONTROLLER_DQ2))
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        closed = f"127.0.0.1:{s.getsockname()[1]}"
    snap = QuorumSource(KafkaConnection.parse(f"{closed},{not_leader},{leader}")).poll()
    assert snap.source == leader and snap.via == "controller"


def test_poll_says_why_every_address_failed(serve: Callable[[Handler], str]) -> None:
    zk_mode = serve(replay(AV_UNSUPPORTED, AV_UNSUPPORTED))  # refuses v3, then the v0 asked as librdkafka does
    http = serve(lambda conn: (read_request(conn), conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")))
    hangs_up = serve(lambda conn: None)
    not_leader = serve(replay(CONTROLLER_APIVERSIONS, v2_response(partition_error=6)))
    with pytest.raises(SourceUnavailable) as raised:
        QuorumSource(KafkaConnection.parse(f"{zk_mode},{http},{hangs_up},{not_leader}"), timeout_s=2.0).poll()
    assert raised.value.source == "quorum"
    assert raised.value.reason.split("; ") == [
        f"{zk_mode} answered ApiVersions with UNSUPPORTED_VERSION",
        f"{http}: a 1213486160-byte frame: not a Kafka PLAINTEXT listener (TLS, HTTP, ZooKeeper…?)",
        f"{hangs_up}: connection closed by the node (a TLS or SASL listener? see security.protocol)",
        f"{not_leader} answered DescribeQuorum with NOT_LEADER_OR_FOLLOWER (this controller is not the quorum leader)",
    ]


def test_a_node_without_describe_quorum(serve: Callable[[Handler], str]) -> None:
    versions = bytearray(BROKER_APIVERSIONS)
    i = versions.find(bytes.fromhex("003700000002"))
    versions[i : i + 2] = bytes.fromhex("7fff")  # rename key 55 to one nobody asks for
    address = serve(replay(bytes(versions)))
    with pytest.raises(SourceUnavailable, match="does not offer DescribeQuorum: a ZooKeeper-mode broker"):
        QuorumSource(KafkaConnection.parse(address)).poll()


def test_a_silent_node_costs_one_timeout(serve: Callable[[Handler], str]) -> None:
    release = threading.Event()
    address = serve(lambda conn: (read_request(conn), release.wait(5)))
    try:
        with pytest.raises(SourceUnavailable, match="no answer within 0.3 s"):
            QuorumSource(KafkaConnection.parse(address), timeout_s=0.3).poll()
    finally:
        release.set()
