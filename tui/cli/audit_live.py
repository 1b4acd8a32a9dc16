"""The live view's writes in the audit trail, for the composition root (compose.py): each writing port of a cluster's
Sources wrapped (backends/audit/ports.py declares which methods write), the node control before anything else takes
it (the scenario runs and durability checks kill through it too), the ACLs `M` adds under the grantor's principal.
The cluster's id is the last poll's. A trail that cannot be written, or a context's audit-topic that could not be, is
said once the view has closed (the terminal is the view's meanwhile)."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from typing import Any, cast

from kafkatop.backends.audit.ports import WRITES, AuditedPort, Record, audited_factory, recorder
from kafkatop.backends.audit.trail import AuditTrail
from kafkatop.backends.insight.grants import principal_of
from kafkatop.backends.kafka.records.audit_topic import AuditTopic
from kafkatop.backends.model.audit import AuditEntry
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.ports import NodeControl
from kafkatop.tui.cli.audit import trail_path
from kafkatop.tui.live.sources import Sources

_FACTORIES = ("topic_admin", "elections")  # opened per use: their products are audited


class LiveAudit:
    """One cluster's session in the trail: who kafkatop is there, and which context; its entries also to the context's
    audit-topic where it has one (never in read-only: nothing is written there)."""

    @classmethod
    def of(cls, args: argparse.Namespace, connection: KafkaConnection, say: Callable[[str], None]) -> LiveAudit:
        topic = None if getattr(args, "read_only", False) else getattr(args, "context_audit_topic", None)
        return cls(
            connection, getattr(args, "context_name", None), say, AuditTopic(connection, topic) if topic else None
        )

    def __init__(self, connection: KafkaConnection, context: str | None, say: Callable[[str], None],
                 topic: AuditTopic | None = None) -> None:  # fmt: skip
        self.trail, self.topic = AuditTrail(trail_path()), topic
        self.principal, self.context = principal_of(connection.client_settings), context
        self.cluster_id: str | None = None
        self._problems: list[str] = []
        self._say = say
        self._watcher: Callable[[AuditEntry], None] = lambda _: None

    def record(self, principal: str | None = None) -> Record:
        return recorder(self._append, principal or self.principal, self.context, lambda: self.cluster_id,
                        self._problems.append)  # fmt: skip

    def watch(self, on_write: Callable[[AuditEntry], None]) -> None:
        self._watcher = on_write

    def _append(self, entry: AuditEntry) -> None:
        try:
            self.trail.append(entry)
        finally:
            self._watcher(entry)  # the view's Timeline is told even when the file could not be written
            if self.topic is not None:
                self.topic.publish(entry)  # the view's Timeline is told even when the file could not be written

    def control(self, control: NodeControl) -> NodeControl:
        return cast(NodeControl, AuditedPort(control, WRITES["control"], self.record()))

    def poll(self, poll: Callable[[], ClusterSnapshot]) -> Callable[[], ClusterSnapshot]:
        def polled() -> ClusterSnapshot:
            snapshot = poll()
            self.cluster_id = snapshot.cluster_id or self.cluster_id
            return snapshot

        return polled

    def sources(self, sources: Sources) -> Sources:
        """`sources` with each writing port audited (the control already is: `control`)."""
        changes: dict[str, Any] = {"poll_cluster": self.poll(sources.poll_cluster), "writes": self}
        for name, writes in WRITES.items():
            port = getattr(sources, name)
            if port is None or name == "control":
                continue
            made = audited_factory(port, writes, self.record()) if name in _FACTORIES else None
            changes[name] = made or AuditedPort(port, writes, self.record())
        if sources.granting is not None and sources.granting.acls is not None:
            grantor = sources.granting.grantor.split(",")[0]  # "User:admin, the lab's super user"
            acls = audited_factory(sources.granting.acls, WRITES["acls"], self.record(grantor))
            changes["granting"] = dataclasses.replace(sources.granting, acls=acls)
        return dataclasses.replace(sources, **changes)

    def close(self) -> None:
        for problem in self._problems[:1]:
            self._say(f"{problem}: the live view's writes since are not in the trail")
        unsent = self.topic.close() if self.topic is not None else None
        if unsent is not None:
            self._say(f"{unsent}: the live view's writes are in the local trail ({self.trail.path}) only")
