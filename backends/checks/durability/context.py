"""What every phase of a durability check shares: the cluster, its control, the settings, the counts a UI follows
(sent, acknowledged, failed, read) and the plumbing — client configurations, an admin client, a fresh look at the
topic's partitions, and the progress the check reports."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Any

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType

from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.errors import describe_error
from kafkatop.backends.model.cluster import NO_LEADER
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.durability import (
    DurabilityProgress,
    DurabilityRefused,
    DurabilitySettings,
    Step,
    TopicFacts,
)
from kafkatop.backends.ports import NodeControl

PROGRESS_EVERY_S = 0.1


class DurabilityContext:
    def __init__(
        self,
        connection: KafkaConnection,
        settings: DurabilitySettings,
        control: NodeControl | None = None,
        *,
        on_progress: Callable[[DurabilityProgress], None] | None = None,
        timeout_s: float = 10.0,
    ) -> None:
        if settings.kill_at is not None and control is None:
            raise DurabilityRefused(
                "a fault needs a cluster whose nodes kafkatop can kill and start: run on a lab cluster, or without "
                "a fault"
            )
        self.connection = connection
        self.bootstrap_servers = connection.bootstrap_servers
        self.settings = settings
        self.control = control
        self.timeout_s = timeout_s
        self.on_progress = on_progress
        self.cancelled = threading.Event()
        self.admin: AdminClient | None = None
        self.facts: TopicFacts | None = None
        self.sent = self.acked = self.failed = self.read = 0
        self.step: Step = "preflight"
        self.note: str | None = None  # as last reported
        self.fault_note: str | None = None  # the fault step under way, written by the fault thread
        self.progress_at = 0.0
        self.fault_step: Future[None] | None = None
        self.halted: str | None = None  # why the producer could send no more (a fatal error), if it stopped early

    # --- plumbing ------------------------------------------------------------------------------------------------
    def config(self, client_id: str) -> dict[str, Any]:
        return self.connection.config(client_id)

    def client_error(self, what: str, exc: BaseException, config: Mapping[str, Any]) -> DurabilityRefused:
        return DurabilityRefused(f"invalid {what} configuration: {self.connection.redact(describe_error(exc))}")

    def admin_client(self) -> AdminClient:
        if self.admin is None:
            config = self.config("kafkatop-durability")
            try:
                self.admin = handles.admin_client(config)
            except (KafkaException, ValueError, TypeError) as e:
                raise self.client_error("client", e, config) from None
        return self.admin

    def release_admin(self) -> None:
        box: list[Any] = [self.admin] if self.admin is not None else []
        self.admin = None
        handles.release(box)

    def progress(self, step: Step, *, force: bool = False) -> None:
        note = self.fault_note
        if step != self.step or note != self.note:
            self.step, self.note, force = step, note, True
        now = time.monotonic()
        if self.on_progress is None or (not force and now - self.progress_at < PROGRESS_EVERY_S):
            return
        self.progress_at = now
        self.on_progress(
            DurabilityProgress(
                self.step,
                self.settings.records,
                self.sent,
                self.acked,
                self.failed,
                self.read,
                self.note,
            )
        )

    @property
    def done(self) -> int:
        return self.acked + self.failed

    # --- preflight -----------------------------------------------------------------------------------------------
    def topic_configs(self) -> dict[str, str] | None:
        """min.insync.replicas and unclean.leader.election.enable as the cluster has them; None when unreadable."""
        resource = ConfigResource(ResourceType.TOPIC, self.settings.topic)
        try:
            future = self.admin_client().describe_configs([resource], request_timeout=self.timeout_s)[resource]
            entries = future.result(timeout=self.timeout_s + 1.0)
        except Exception:  # noqa: BLE001 - unreadable configs (the mock has no DescribeConfigs) are "unknown"
            return None
        wanted = ("min.insync.replicas", "unclean.leader.election.enable")
        return {k: str(entries[k].value) for k in wanted if k in entries and entries[k].value is not None}

    def transaction_log_configs(self, broker_id: int) -> dict[str, str]:
        """The broker's transaction.state.log.replication.factor and .min.isr; empty when unreadable."""
        resource = ConfigResource(ResourceType.BROKER, str(broker_id))
        try:
            future = self.admin_client().describe_configs([resource], request_timeout=self.timeout_s)[resource]
            entries = future.result(timeout=self.timeout_s + 1.0)
        except Exception:  # noqa: BLE001 - as topic_configs: unreadable is "unknown"
            return {}
        wanted = ("transaction.state.log.replication.factor", "transaction.state.log.min.isr")
        return {k: str(entries[k].value) for k in wanted if k in entries and entries[k].value is not None}

    # --- metadata during the run ------------------------------------------------------------------------------
    def partition_metadata(self) -> dict[int, Any] | None:
        """This topic's partitions from a fresh Metadata request; None when no broker answered in time."""
        try:
            md = self.admin_client().list_topics(topic=self.settings.topic, timeout=min(self.timeout_s, 5.0))
        except KafkaException:
            return None
        topic = md.topics.get(self.settings.topic)
        return None if topic is None or topic.error is not None else dict(topic.partitions)

    def leader(self) -> int | None:
        parts = self.partition_metadata()
        pm = None if parts is None else parts.get(self.settings.partition)
        return None if pm is None else (pm.leader if pm.leader >= 0 else NO_LEADER)
