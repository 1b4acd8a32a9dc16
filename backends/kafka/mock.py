"""librdkafka's built-in mock Kafka cluster, driven through ctypes.

The mock runs N brokers inside this process on real TCP ports of 127.0.0.1; any Kafka client (ours, or another
process while this object lives) talks the Kafka protocol to it. confluent-kafka exposes only
`test.mock.num.brokers`, so the C API (`rd_kafka_mock_*`, exported by the librdkafka that ships in the
confluent-kafka wheel) is called directly. Used by kafkatop's demo mode and by the tests.

Limits of the mock (librdkafka 2.16): ISR always equals the replica list; no leader election on its own (a
broker going down keeps its leaderships until `set_partition_leader` moves them); every partition's replicas are
1…N in broker order (with N brokers and replication factor N); no CreateTopics or DeleteTopics (`create_topic` and
`delete_topic` here are its own calls), no DescribeConfigs, ListGroups or DescribeGroups (answered
_UNSUPPORTED_FEATURE by librdkafka); OffsetFetch needs named partitions; a group's coordinator is chosen by a hash of
its name, down or not, unless `set_group_coordinator` pins it (a transaction's likewise, `set_transaction_coordinator`);
an OffsetCommit from outside a group that ever had a member is refused (UNKNOWN_MEMBER_ID) even once the group is
empty; and transactions commit and abort (with their markers), but a read_committed Fetch returns an aborted
transaction's records all the same (no aborted-transactions list).
"""

from __future__ import annotations

import ctypes
import glob
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from kafkatop.backends.model.errors import MockClusterError

# Kafka protocol ApiKeys, for naming tracked requests.
API_KEYS: dict[int, str] = {
    0: "Produce",
    1: "Fetch",
    2: "ListOffsets",
    3: "Metadata",
    8: "OffsetCommit",
    9: "OffsetFetch",
    10: "FindCoordinator",
    11: "JoinGroup",
    12: "Heartbeat",
    13: "LeaveGroup",
    14: "SyncGroup",
    15: "DescribeGroups",
    16: "ListGroups",
    17: "SaslHandshake",
    18: "ApiVersions",
    19: "CreateTopics",
    20: "DeleteTopics",
    22: "InitProducerId",
    32: "DescribeConfigs",
    60: "DescribeCluster",
    68: "ConsumerGroupHeartbeat",
    75: "DescribeTopicPartitions",
}

_RD_KAFKA_PRODUCER = 0


def find_librdkafka() -> Path:
    """The librdkafka shared library inside the installed confluent-kafka wheel."""
    import confluent_kafka

    pkg = Path(confluent_kafka.__file__).resolve().parent
    candidates = glob.glob(str(pkg.parent / "confluent_kafka.libs" / "librdkafka*.so*"))
    candidates += glob.glob(str(pkg.parent / "confluent_kafka.libs" / "librdkafka*.dylib"))
    if not candidates:
        # A confluent-kafka built against a system librdkafka: the extension module has loaded it already.
        import confluent_kafka.cimpl  # noqa: F401

        try:
            maps = Path("/proc/self/maps").read_text()
        except OSError:
            maps = ""
        candidates = sorted({line.split()[-1] for line in maps.splitlines() if "librdkafka" in line})
    if not candidates:
        raise MockClusterError("librdkafka not found beside confluent-kafka: reinstall confluent-kafka from its wheel")
    return Path(candidates[0])


class _Lib:
    """Typed bindings of the few C functions used; loaded once per process."""

    _instance: _Lib | None = None
    _lock = threading.Lock()

    def __init__(self, path: Path) -> None:
        lib = ctypes.CDLL(str(path))
        vp, cp, i32, i16 = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int32, ctypes.c_int16
        sigs: dict[str, tuple[object, list[object]]] = {
            "rd_kafka_conf_new": (vp, []),
            "rd_kafka_conf_set": (ctypes.c_int, [vp, cp, cp, cp, ctypes.c_size_t]),
            "rd_kafka_new": (vp, [ctypes.c_int, vp, cp, ctypes.c_size_t]),
            "rd_kafka_destroy": (None, [vp]),
            "rd_kafka_err2str": (cp, [ctypes.c_int]),
            "rd_kafka_mock_cluster_new": (vp, [vp, ctypes.c_int]),
            "rd_kafka_mock_cluster_destroy": (None, [vp]),
            "rd_kafka_mock_cluster_bootstraps": (cp, [vp]),
            "rd_kafka_mock_topic_create": (ctypes.c_int, [vp, cp, ctypes.c_int, ctypes.c_int]),
            "rd_kafka_mock_topic_delete": (ctypes.c_int, [vp, cp]),
            "rd_kafka_mock_set_controller_id": (ctypes.c_int, [vp, i32]),
            "rd_kafka_mock_partition_set_leader": (ctypes.c_int, [vp, cp, i32, i32]),
            "rd_kafka_mock_broker_set_down": (ctypes.c_int, [vp, i32]),
            "rd_kafka_mock_broker_set_up": (ctypes.c_int, [vp, i32]),
            "rd_kafka_mock_broker_set_rack": (ctypes.c_int, [vp, i32, cp]),
            "rd_kafka_mock_broker_set_rtt": (ctypes.c_int, [vp, i32, ctypes.c_int]),
            "rd_kafka_mock_coordinator_set": (ctypes.c_int, [vp, cp, cp, i32]),
            "rd_kafka_mock_push_request_errors_array": (
                None,
                [vp, ctypes.c_int16, ctypes.c_size_t, ctypes.POINTER(ctypes.c_int)],
            ),
            "rd_kafka_mock_start_request_tracking": (None, [vp]),
            "rd_kafka_mock_stop_request_tracking": (None, [vp]),
            "rd_kafka_mock_clear_requests": (None, [vp]),
            "rd_kafka_mock_get_requests": (ctypes.POINTER(vp), [vp, ctypes.POINTER(ctypes.c_size_t)]),
            "rd_kafka_mock_request_id": (i32, [vp]),
            "rd_kafka_mock_request_api_key": (i16, [vp]),
            "rd_kafka_mock_request_timestamp": (ctypes.c_int64, [vp]),
            "rd_kafka_mock_request_destroy_array": (None, [ctypes.POINTER(vp), ctypes.c_size_t]),
        }
        for name, (restype, argtypes) in sigs.items():
            try:
                fn = getattr(lib, name)
            except AttributeError:
                raise MockClusterError(f"{path.name} has no {name}: confluent-kafka ≥ 2.3 is needed") from None
            fn.restype = restype
            fn.argtypes = argtypes
        self.c = lib

    @classmethod
    def get(cls) -> _Lib:
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls(find_librdkafka())
            return cls._instance


@dataclass(frozen=True, slots=True)
class MockRequest:
    broker_id: int
    api_key: int
    timestamp_us: int

    @property
    def api_name(self) -> str:
        return API_KEYS.get(self.api_key, f"ApiKey{self.api_key}")


class MockCluster:
    """A librdkafka mock cluster of `brokers` brokers (ids 1…N) on 127.0.0.1.

    It lives as long as this object (use it as a context manager or call `close`); clients in other processes can
    connect to `bootstrap_servers` meanwhile.
    """

    def __init__(self, brokers: int = 3, *, controller_id: int | None = 1) -> None:
        if brokers < 1:
            raise MockClusterError(f"a mock cluster needs at least 1 broker, not {brokers}")
        self.broker_ids = tuple(range(1, brokers + 1))
        self._lib = _Lib.get()
        c = self._lib.c
        conf = c.rd_kafka_conf_new()
        errstr = ctypes.create_string_buffer(512)
        # Silence the owning handle: it has no bootstrap servers of its own and would warn about it on stderr.
        c.rd_kafka_conf_set(conf, b"log_level", b"0", errstr, len(errstr))
        self._rk: int | None = c.rd_kafka_new(_RD_KAFKA_PRODUCER, conf, errstr, len(errstr))
        if not self._rk:
            raise MockClusterError(f"cannot create the librdkafka handle: {errstr.value.decode(errors='replace')}")
        self._mc: int | None = c.rd_kafka_mock_cluster_new(self._rk, brokers)
        if not self._mc:
            c.rd_kafka_destroy(self._rk)
            raise MockClusterError("librdkafka could not create the mock cluster (no free port on 127.0.0.1?)")
        self.bootstrap_servers: str = c.rd_kafka_mock_cluster_bootstraps(self._mc).decode()
        self._down: set[int] = set()
        if controller_id is not None:
            self.set_controller(controller_id)

    # --- lifecycle -------------------------------------------------------------------------------------------
    def close(self) -> None:
        if self._mc:
            self._lib.c.rd_kafka_mock_cluster_destroy(self._mc)
            self._mc = None
        if self._rk:
            self._lib.c.rd_kafka_destroy(self._rk)
            self._rk = None

    def __enter__(self) -> MockCluster:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    # --- cluster operations -------------------------------------------------------------------------------------
    def _check(self, err: int, what: str) -> None:
        if err:
            reason = self._lib.c.rd_kafka_err2str(err).decode(errors="replace")
            raise MockClusterError(f"mock cluster refused to {what}: {reason}")

    def _live(self) -> int:
        if not self._mc:
            raise MockClusterError("the mock cluster is closed")
        return self._mc

    def _known_broker(self, broker_id: int) -> None:
        if broker_id not in self.broker_ids:
            raise MockClusterError(f"no broker {broker_id} in this mock cluster (brokers: {list(self.broker_ids)})")

    def create_topic(self, name: str, partitions: int, replication_factor: int) -> None:
        if partitions < 1:
            raise MockClusterError(f"topic {name!r}: partitions must be at least 1, not {partitions}")
        if not 1 <= replication_factor <= len(self.broker_ids):
            raise MockClusterError(
                f"topic {name!r}: replication factor {replication_factor} is larger than the "
                f"{len(self.broker_ids)} brokers available"
                if replication_factor > len(self.broker_ids)
                else f"topic {name!r}: replication factor must be at least 1"
            )
        self._check(
            self._lib.c.rd_kafka_mock_topic_create(self._live(), name.encode(), partitions, replication_factor),
            f"create topic {name!r}",
        )

    def delete_topic(self, name: str) -> None:
        """Remove the topic and its partitions' logs (the mock has no DeleteTopics request: this is its own call)."""
        self._check(self._lib.c.rd_kafka_mock_topic_delete(self._live(), name.encode()), f"delete topic {name!r}")

    def set_controller(self, broker_id: int) -> None:
        self._known_broker(broker_id)
        self._check(self._lib.c.rd_kafka_mock_set_controller_id(self._live(), broker_id), "set the controller")

    def set_partition_leader(self, topic: str, partition: int, broker_id: int) -> None:
        """Move a partition's leadership; -1 leaves it without a leader (offline)."""
        if broker_id != -1:
            self._known_broker(broker_id)
        self._check(
            self._lib.c.rd_kafka_mock_partition_set_leader(self._live(), topic.encode(), partition, broker_id),
            f"set the leader of {topic}-{partition}",
        )

    def set_broker_down(self, broker_id: int) -> None:
        """Close the broker's connections and refuse new ones; leadership does not move by itself."""
        self._known_broker(broker_id)
        self._check(self._lib.c.rd_kafka_mock_broker_set_down(self._live(), broker_id), f"stop broker {broker_id}")
        self._down.add(broker_id)

    def set_broker_up(self, broker_id: int) -> None:
        self._known_broker(broker_id)
        self._check(self._lib.c.rd_kafka_mock_broker_set_up(self._live(), broker_id), f"start broker {broker_id}")
        self._down.discard(broker_id)

    def is_down(self, broker_id: int) -> bool:
        return broker_id in self._down

    def set_broker_rack(self, broker_id: int, rack: str) -> None:
        self._known_broker(broker_id)
        self._check(
            self._lib.c.rd_kafka_mock_broker_set_rack(self._live(), broker_id, rack.encode()), "set a broker's rack"
        )

    def set_broker_rtt(self, broker_id: int, rtt_ms: int) -> None:
        """Delay every response of a broker (-1: all brokers); a slow broker, not a dead one."""
        self._check(self._lib.c.rd_kafka_mock_broker_set_rtt(self._live(), broker_id, rtt_ms), "set a broker's latency")

    def set_group_coordinator(self, group_id: str, broker_id: int) -> None:
        self._check(
            self._lib.c.rd_kafka_mock_coordinator_set(self._live(), b"group", group_id.encode(), broker_id),
            f"set the coordinator of group {group_id!r}",
        )

    def set_transaction_coordinator(self, transactional_id: str, broker_id: int) -> None:
        key = transactional_id.encode()
        self._check(
            self._lib.c.rd_kafka_mock_coordinator_set(self._live(), b"transaction", key, broker_id),
            f"set the coordinator of transactional id {transactional_id!r}",
        )

    def push_request_errors(self, api_key: int, error_codes: list[int]) -> None:
        """The next requests of `api_key` (to any broker) are answered with these Kafka error codes, one each."""
        codes = (ctypes.c_int * len(error_codes))(*error_codes)
        self._lib.c.rd_kafka_mock_push_request_errors_array(self._live(), api_key, len(error_codes), codes)

    # --- request tracking: what clients really sent, counted server-side --------------------------------------
    def start_request_tracking(self) -> None:
        self._lib.c.rd_kafka_mock_start_request_tracking(self._live())

    def stop_request_tracking(self) -> None:
        self._lib.c.rd_kafka_mock_stop_request_tracking(self._live())

    def clear_requests(self) -> None:
        self._lib.c.rd_kafka_mock_clear_requests(self._live())

    def requests(self) -> list[MockRequest]:
        c = self._lib.c
        count = ctypes.c_size_t(0)
        arr = c.rd_kafka_mock_get_requests(self._live(), ctypes.byref(count))
        out: list[MockRequest] = []
        if not arr:
            return out
        try:
            for i in range(count.value):
                req = arr[i]
                out.append(
                    MockRequest(
                        c.rd_kafka_mock_request_id(req),
                        c.rd_kafka_mock_request_api_key(req),
                        c.rd_kafka_mock_request_timestamp(req),
                    )
                )
        finally:
            c.rd_kafka_mock_request_destroy_array(arr, count.value)
        return out

    def request_counts(self) -> Counter[str]:
        return Counter(r.api_name for r in self.requests())


def mock_cluster_available() -> bool:
    """True when the mock C API can be loaded on this machine (it can wherever the confluent-kafka wheel is)."""
    try:
        _Lib.get()
    except (MockClusterError, OSError):
        return False
    return True
