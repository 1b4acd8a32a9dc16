"""Partition reassignments, as kafka-reassign-partitions.sh makes them: AlterPartitionReassignments to start or
cancel, ListPartitionReassignments to follow, and the replication throttle as broker and topic configs.

confluent-kafka has neither request, so they are spoken over kafkatop's own protocol code (protocol/
reassignments.py), with the connection's TLS and SASL. They go to the controller the metadata names (a ZooKeeper-
mode cluster takes them only there; a KRaft broker forwards them to the active controller), else to a bootstrap
broker. Every call is bounded by `timeout_s`. Kafka's refusal, per partition, comes back with its error name and
message."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

from kafkatop.backends.kafka.cluster.configs import ConfigAdmin
from kafkatop.backends.kafka.refusal import refusal
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.configs import ConfigResource
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.reassignment import (
    Ongoing,
    ReassignmentError,
    ReassignmentPlan,
    TopicPartitionKey,
)
from kafkatop.backends.protocol.connection import BrokerConnection, Unsupported, os_reason, require_supported
from kafkatop.backends.protocol.reassignments import (
    ALTER_PARTITION_REASSIGNMENTS,
    LIST_PARTITION_REASSIGNMENTS,
    AlterResponse,
    ListResponse,
    alter_body,
    decode_alter,
    decode_list,
    list_body,
)
from kafkatop.backends.protocol.security import SecurityError
from kafkatop.backends.protocol.wire import Api, ProtocolError, error_name, response_reader

TOOL = "kafka-reassign-partitions.sh"
# The configs kafka-reassign-partitions.sh --throttle sets, and --verify removes once done.
BROKER_THROTTLES = ("leader.replication.throttled.rate", "follower.replication.throttled.rate")
TOPIC_THROTTLES = ("leader.replication.throttled.replicas", "follower.replication.throttled.replicas")


def _kafka_said(code: int, message: str | None) -> str:
    return error_name(code) + (f": {message}" if message else "")


class ReassignAdmin:
    """Starts, follows and cancels reassignments of one cluster. `cluster()` reads its metadata (to find the
    controller and the brokers a throttle concerns)."""

    def __init__(
        self, connection: KafkaConnection, cluster: Callable[[], ClusterSnapshot], timeout_s: float = 15.0
    ) -> None:
        self.connection = connection
        self.cluster = cluster
        self.timeout_s = timeout_s

    def close(self) -> None:
        """Nothing stays open between calls."""

    # --- the requests -----------------------------------------------------------------------------------------
    def _addresses(self) -> list[tuple[str, int]]:
        addresses = list(self.connection.addresses)
        try:
            snapshot = self.cluster()
        except Exception:  # noqa: BLE001 - without metadata, the bootstrap brokers are asked
            return addresses
        controller = next(
            (b for b in snapshot.brokers if b.id == snapshot.controller_id and b.alive and b.host and b.port), None
        )
        if controller is not None and controller.host is not None and controller.port is not None:
            addresses.insert(0, (controller.host, controller.port))
        return addresses

    def _send(self, api: Api, body: Callable[[int], bytes]) -> bytes:
        require_supported(self.connection, api.name, TOOL)
        deadline = time.monotonic() + self.timeout_s
        reasons = []
        for host, port in self._addresses():
            address = f"{host}:{port}"
            try:
                with BrokerConnection(host, port, deadline, self.connection.client_settings) as conn:
                    version = conn.version_for(api)
                    timeout_ms = max(1000, int((deadline - time.monotonic()) * 1000) - 500)
                    return conn.send(api, version, body(timeout_ms))
            except Unsupported as e:
                raise ReassignmentError(f"{e}: {TOOL} cannot do it either on this cluster") from None
            except (SecurityError, ProtocolError) as e:
                reasons.append(str(e) if address in str(e) else f"{address}: {e}")
            except TimeoutError:
                reasons.append(f"{address}: no answer within {self.timeout_s:g} s")
            except OSError as e:
                reasons.append(f"{address}: {os_reason(e, self.timeout_s)}")
        raise ReassignmentError(f"cannot send {api.name}: " + "; ".join(reasons))

    def _alter(self, targets: Mapping[TopicPartitionKey, Sequence[int] | None]) -> AlterResponse:
        payload = self._send(ALTER_PARTITION_REASSIGNMENTS, lambda ms: alter_body(targets, ms))
        response = decode_alter(response_reader(payload))
        if response.error_code:
            said = "Kafka refused the reassignment"
            raise refusal(error_name(response.error_code), "reassign", self.connection, said) or ReassignmentError(
                f"{said}: {_kafka_said(response.error_code, response.error_message)}"
            )
        return response

    def execute(
        self, plan: ReassignmentPlan, throttle_bytes: int | None = None, *, every: bool = False
    ) -> tuple[str, ...]:
        """Start the plan's changes (`every`: its unchanged partitions too, as a plan file asks) and the throttle
        first, when given; the partitions started, by name. A partition Kafka refuses is named with Kafka's reason
        (ReassignmentError) after the others started."""
        if throttle_bytes is not None:
            self.set_throttle(plan, throttle_bytes)
        response = self._alter(plan.targets(every=every))
        refused = [r for r in response.partitions if r.error_code]
        if refused:
            said = "; ".join(f"{r.topic}-{r.partition}: {_kafka_said(r.error_code, r.error_message)}" for r in refused)
            started = len(response.partitions) - len(refused)
            raise ReassignmentError(
                f"Kafka refused {len(refused)} partition(s) ({said})"
                + (f"; the other {started} started" if started else "; nothing started")
            )
        return tuple(f"{r.topic}-{r.partition}" for r in response.partitions)

    def cancel(self, keys: Sequence[TopicPartitionKey]) -> tuple[str, ...]:
        """Cancel these partitions' reassignments (Kafka reverts each to its replicas before it began); the ones
        cancelled, by name. NO_REASSIGNMENT_IN_PROGRESS for one that had finished or never began is no error."""
        response = self._alter(dict.fromkeys(keys))
        failed = [
            r for r in response.partitions if r.error_code and error_name(r.error_code) != "NO_REASSIGNMENT_IN_PROGRESS"
        ]
        if failed:
            said = "; ".join(f"{r.topic}-{r.partition}: {_kafka_said(r.error_code, r.error_message)}" for r in failed)
            raise ReassignmentError(f"Kafka did not cancel {said}")
        return tuple(f"{r.topic}-{r.partition}" for r in response.partitions if not r.error_code)

    def ongoing(self, topics: Mapping[str, Sequence[int]] | None = None) -> dict[TopicPartitionKey, Ongoing]:
        """The reassignments in progress (of these partitions, or all)."""
        payload = self._send(LIST_PARTITION_REASSIGNMENTS, lambda ms: list_body(topics, ms))
        response: ListResponse = decode_list(response_reader(payload))
        if response.error_code:
            said = "Kafka did not list reassignments"
            raise refusal(
                error_name(response.error_code), "list reassignments", self.connection, said
            ) or ReassignmentError(f"{said}: {_kafka_said(response.error_code, response.error_message)}")
        return {(r.topic, r.partition): Ongoing(r.replicas, r.adding, r.removing) for r in response.reassignments}

    # --- the throttle -----------------------------------------------------------------------------------------
    def _configs(self) -> ConfigAdmin:
        return ConfigAdmin(self.connection, timeout_s=self.timeout_s)

    def set_throttle(self, plan: ReassignmentPlan, bytes_per_s: int) -> None:
        """As --throttle: a rate on every broker the plan touches, and, per topic, the replicas it applies to (the
        current ones lead, the new ones follow)."""
        configs = self._configs()
        brokers = sorted({b for m in plan.changes for b in (*m.current, *m.target)})
        for broker in brokers:
            configs.alter(ConfigResource.broker(broker), dict.fromkeys(BROKER_THROTTLES, str(bytes_per_s)), ())
        for topic in sorted({m.topic for m in plan.changes}):
            moves = [m for m in plan.changes if m.topic == topic]
            leaders = ",".join(f"{m.partition}:{b}" for m in moves for b in m.current)
            followers = ",".join(f"{m.partition}:{b}" for m in moves for b in m.adding)
            configs.alter(
                ConfigResource.topic(topic),
                {TOPIC_THROTTLES[0]: leaders, TOPIC_THROTTLES[1]: followers or leaders},
                (),
            )

    def clear_throttle(self, topics: Sequence[str], brokers: Sequence[int]) -> list[str]:
        """As --verify once every partition is done: the throttle configs removed from `brokers` (the cluster's, as
        Kafka's tool does) and `topics`, wherever they are set; its lines, as it prints them."""
        configs = self._configs()
        for broker in brokers:
            resource = ConfigResource.broker(broker)
            if set_here := _set_here(configs, resource, BROKER_THROTTLES):
                configs.alter(resource, {}, set_here)
        said = [f"Clearing broker-level throttles on broker{'s' if len(brokers) != 1 else ''} "
                f"{','.join(map(str, sorted(brokers)))}"]  # fmt: skip
        for topic in sorted(set(topics)):
            resource = ConfigResource.topic(topic)
            if set_here := _set_here(configs, resource, TOPIC_THROTTLES):
                configs.alter(resource, {}, set_here)
            said.append(f"Clearing topic-level throttles on topic {topic}")
        return said


def _set_here(configs: ConfigAdmin, resource: ConfigResource, names: Sequence[str]) -> list[str]:
    described = configs.describe(resource)
    return [n for n in names if (e := described.entry(n)) is not None and e.overridden_on(resource)]
