"""The poll's slow-changing reads through the AdminClient: each topic's min.insync.replicas and the cluster's mode (from
the controller's broker configs), read at the first poll, for a topic new since then, and all again every
`refresh_s` (DescribeConfigs)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from concurrent.futures import Future
from typing import Any

from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType

from kafkatop.backends.kafka.errors import Deadline, describe_error, is_unsupported
from kafkatop.backends.kafka.groups.group_poll import SOURCE
from kafkatop.backends.model.cluster import ClusterMode, Problem


class ConfigPoll:
    def __init__(self, refresh_s: float) -> None:
        self.refresh_s = refresh_s
        self.mode: ClusterMode | None = None
        self.min_isr: dict[str, int | None] = {}
        self._read_at = float("-inf")

    def start(
        self, admin: AdminClient, topics: list[str], controller_id: int, request_timeout: float
    ) -> dict[ConfigResource, Future[Any]]:
        now = time.monotonic()
        unknown = [t for t in topics if t not in self.min_isr]
        due = now - self._read_at >= self.refresh_s
        wanted = topics if due else unknown
        resources = [ConfigResource(ResourceType.TOPIC, t) for t in wanted]
        futures: dict[ConfigResource, Future[Any]] = {}
        if resources:
            futures.update(admin.describe_configs(resources, request_timeout=request_timeout))
        if self.mode is None or due:
            broker = controller_id if controller_id >= 0 else None
            if broker is not None:
                res = ConfigResource(ResourceType.BROKER, str(broker))
                futures.update(admin.describe_configs([res], request_timeout=request_timeout))
        if due:
            self._read_at = now
        return futures

    def collect(
        self, futures: Mapping[ConfigResource, Future[Any]], deadline: Deadline, problems: list[Problem]
    ) -> None:
        unsupported = False
        for res, fut in futures.items():
            try:
                entries = deadline.result(fut)
            except Exception as e:  # noqa: BLE001
                if is_unsupported(e):
                    unsupported = True
                    if res.restype == ResourceType.TOPIC:
                        self.min_isr[res.name] = None  # do not ask again until the next refresh
                    else:
                        self.mode = self.mode or "unknown"
                    continue
                problems.append(Problem(SOURCE, f"DescribeConfigs {res.name}", describe_error(e)))
                continue
            if res.restype == ResourceType.TOPIC:
                entry = entries.get("min.insync.replicas")
                self.min_isr[res.name] = int(entry.value) if entry is not None and entry.value else None
            else:
                self.mode = _mode_from_broker_config(entries)
        if unsupported:
            problems.append(
                Problem(SOURCE, "DescribeConfigs", "not supported by this cluster: min.insync.replicas unknown")
            )


def _mode_from_broker_config(entries: Mapping[str, Any]) -> ClusterMode:
    roles = entries.get("process.roles")
    if roles is not None and roles.value:
        return "kraft"
    zk = entries.get("zookeeper.connect")
    if zk is not None and zk.value:
        return "zk"
    return "unknown"
