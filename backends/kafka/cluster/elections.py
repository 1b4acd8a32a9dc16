"""Leader elections through confluent-kafka's AdminClient.elect_leaders (Kafka's ElectLeaders, KIP-460), and the log
end offset of an out-of-sync replica, read from its broker over Kafka's wire protocol (ListOffsets, ReplicaId -2:
see protocol/list_offsets.py), for what an unclean election would lose.

confluent-kafka 2.16's elect_leaders takes no timeout (given one, its C binding raises SystemError or TypeError):
the request is bounded by the client's socket.timeout.ms, set here to the elector's timeout, and the wait for its
future by the same deadline.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from confluent_kafka import ElectionType as KafkaElectionType
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient

from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.errors import failure, unreachable_reason
from kafkatop.backends.kafka.handles import AdminOwner
from kafkatop.backends.kafka.refusal import refusal
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.elections import ElectionError, ElectionResult, ElectionResults, ElectionType
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.protocol.connection import BrokerConnection, Unsupported, os_reason
from kafkatop.backends.protocol.list_offsets import (
    LIST_OFFSETS,
    decode_list_offsets,
    list_offsets_body,
)
from kafkatop.backends.protocol.security import unsupported
from kafkatop.backends.protocol.wire import ProtocolError, error_name

# librdkafka's short names for Kafka's errors, where they differ (rdkafka.h RD_KAFKA_RESP_ERR_*).
_KAFKA_NAMES = {"UNKNOWN_TOPIC_OR_PART": "UNKNOWN_TOPIC_OR_PARTITION", "TOPIC_EXCEPTION": "INVALID_TOPIC_EXCEPTION"}


def kafka_error_name(name: str) -> str:
    return _KAFKA_NAMES.get(name, name)


def _admin_client(connection: KafkaConnection, timeout_s: float) -> AdminClient:
    config = connection.config()
    config["socket.timeout.ms"] = max(10, int(timeout_s * 1000))  # elect_leaders' only bound (see above)
    try:
        return handles.admin_client(config)
    except (KafkaException, ValueError, TypeError) as e:
        raise ElectionError(f"invalid client configuration: {connection.redact(str(e))}") from None


class LeaderElector(AdminOwner):
    """Elects leaders through one AdminClient of its own; every request bounded by `timeout_s`."""

    def __init__(self, connection: KafkaConnection, timeout_s: float = 30.0) -> None:
        super().__init__(
            connection, timeout_s, lambda: ElectionError("the leader elector is closed"),
            lambda: _admin_client(connection, timeout_s),
        )  # fmt: skip

    @property
    def note(self) -> str | None:
        """Who elects: Kafka's own controller (None), or another's (the demo's)."""
        return None

    # --- ElectLeaders -----------------------------------------------------------------------------------------------
    def elect(self, election_type: ElectionType, partitions: Sequence[TopicPartition] | None) -> ElectionResults:
        """One ElectLeaders request: `partitions`, or every partition of the cluster (None; Kafka then leaves out
        those that need no election). Per-partition refusals are results; a refusal of the whole request (not
        authorized, no answer in time, not offered) raises ElectionError."""
        client = self._client()
        kind = KafkaElectionType.PREFERRED if election_type is ElectionType.PREFERRED else KafkaElectionType.UNCLEAN
        asked = None if partitions is None else [KafkaTopicPartition(tp.topic, tp.partition) for tp in partitions]
        if asked == []:
            return ElectionResults(election_type, ())
        deadline = time.monotonic() + self.timeout_s + 1.0
        try:
            answered: Mapping[Any, KafkaError | None] = client.elect_leaders(kind, asked).result(
                timeout=max(0.0, deadline - time.monotonic())
            )
        except Exception as e:  # noqa: BLE001 - every failure of the whole request becomes an ElectionError
            raise self._failed(election_type, e) from None
        results = []
        for ktp, error in answered.items():
            tp = TopicPartition(ktp.topic, ktp.partition)
            if error is None:
                results.append(ElectionResult(tp))
            else:
                message = self.connection.redact(error.str())
                results.append(ElectionResult(tp, kafka_error_name(error.name()), message))
        return ElectionResults(election_type, tuple(sorted(results, key=lambda r: r.partition)))

    def _failed(self, election_type: ElectionType, exc: BaseException) -> KafkatopError:
        code, text = failure(exc)
        text = self.connection.redact(text)
        what = f"{election_type.word} leader election"
        if code == "CLUSTER_AUTHORIZATION_FAILED":
            # kafka-leader-election.sh's words, and what it takes: Alter on the cluster, and the line that grants it
            said = "Not authorized to perform leader election"
            return refusal(exc, "elect", self.connection, said) or ElectionError(
                f"{said} ({text}): the principal needs ALTER on the cluster"
            )
        if code == "_UNSUPPORTED_FEATURE":
            return ElectionError(f"cannot run a {what}: this cluster does not offer ElectLeaders ({text})")
        if code in ("_TIMED_OUT", "_TRANSPORT"):
            reason = unreachable_reason(self.connection, self._created, self._admin)
            if reason is not None:
                return ElectionError(f"cannot run a {what}: cannot talk to {self.connection}: {reason}")
            return ElectionError(
                f"Timeout waiting for election results: no answer from {self.connection} within {self.timeout_s:g} s "
                f"({text}). The controller may still run it: look at the partitions (kafkatop describe) before "
                "trying again."
            )
        return ElectionError(f"cannot run a {what}: {kafka_error_name(code or '')}: {text}" if code else text)

    # --- what a replica has -----------------------------------------------------------------------------------------
    def log_ends(
        self, snapshot: ClusterSnapshot, replicas: Mapping[TopicPartition, int]
    ) -> tuple[dict[TopicPartition, int], list[str]]:
        """The log end offset of each partition's given replica (partition -> broker id), asked of that broker
        (ListOffsets, ReplicaId -2), within the timeout; and why any could not be read."""
        found: dict[TopicPartition, int] = {}
        problems: list[str] = []
        if not replicas:
            return found, problems
        why = unsupported(self.connection.client_settings)
        if why is not None:
            return found, [f"kafkatop cannot read a replica's log end itself with {why}"]
        by_broker: dict[int, list[TopicPartition]] = defaultdict(list)
        for tp, broker_id in replicas.items():
            by_broker[broker_id].append(tp)
        deadline = time.monotonic() + min(self.timeout_s, 10.0)
        for broker_id, tps in sorted(by_broker.items()):
            found_broker = snapshot.broker(broker_id)
            if found_broker is None or found_broker.host is None or found_broker.port is None:
                problems.append(f"broker {broker_id}: its address is not in the metadata")
                continue
            try:
                read, errors = self._read_log_ends(found_broker.host, found_broker.port, tps, deadline)
            except (OSError, ProtocolError) as e:
                reason = os_reason(e, self.timeout_s) if isinstance(e, OSError) else str(e)
                problems.append(f"broker {broker_id}: {reason}")
                continue
            found.update(read)
            problems += [f"broker {broker_id}: {error}" for error in errors]
        return found, problems

    def _read_log_ends(
        self, host: str, port: int, partitions: Sequence[TopicPartition], deadline: float
    ) -> tuple[dict[TopicPartition, int], list[str]]:
        asked: dict[str, list[int]] = defaultdict(list)
        for tp in partitions:
            asked[tp.topic].append(tp.partition)
        with BrokerConnection(host, port, deadline, self.connection.client_settings) as conn:
            try:
                version = conn.version_for(LIST_OFFSETS)
            except Unsupported as e:
                raise ProtocolError(str(e)) from None
            body = list_offsets_body(version, asked)
            payload = conn.send(LIST_OFFSETS, version, body)
        found, errors = {}, []
        for p in decode_list_offsets(payload, version).partitions:
            tp = TopicPartition(p.topic, p.partition)
            if p.error_code:
                errors.append(f"{tp}: {error_name(p.error_code)}")
            elif p.offset >= 0:
                found[tp] = p.offset
        return found, errors
