"""What the live view is given: its sources and actuators (ports, see backends/ports.py) and its settings.

The composition root (tui/cli/compose.py) passes the real adapters; tests pass recorded data and named doubles;
a replay passes what a recording holds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Literal

from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.ports import (
    ConfigAdmin,
    Consoles,
    DurabilityRunFactory,
    EnsembleView,
    GroupTools,
    LeaderElectionsFactory,
    MessageBrowser,
    NodeControl,
    Reassignments,
    Recorder,
    SparkCounts,
    TopicAdminFactory,
    ZooKeeperWatch,
)


@dataclass(frozen=True)
class Settings:
    poll_interval_s: float = 1.0
    banner: str | None = None  # e.g. the DEMO notice
    drain_interval_s: float = 0.1  # producer/consumer output: one UI update per drain, not one per message
    ensemble_interval_s: float = 2.0
    # How the view was started (the palette offers what applies to it; a replay is told by the app's Replay).
    mode: Literal["lab", "attach", "demo"] = "attach"


@dataclass(frozen=True)
class Sources:
    """Everything the app reads from or acts on. Every member but `poll_cluster` is optional: a pane whose source is
    missing says so (or its tab is hidden)."""

    poll_cluster: Callable[[], ClusterSnapshot]
    control: NodeControl | None = None  # process panes and kill/stop/start/restart
    poll_ensemble: Callable[[], EnsembleView] | None = None  # ZooKeeper's servers or the KRaft quorum
    topic_admin: TopicAdminFactory | None = None  # create/delete topics
    consoles: Consoles | None = None  # producer, consumers, offset resets
    startup: Callable[[], object] | None = None  # e.g. start the lab cluster: run once, in a worker, after mount
    spark: SparkCounts | None = None  # the Spark panel's counts (a separate Spark process)
    durability: DurabilityRunFactory | None = None  # (settings, on_progress) -> a check
    zookeeper: ZooKeeperWatch | None = None  # ZooKeeper mode: Kafka's znodes, changes pushed by watches
    recorder: Recorder | None = None  # --record FILE: every delivery and action, for --replay
    configs: ConfigAdmin | None = None  # topic and broker configs (the Configs screen, C)
    elections: LeaderElectionsFactory | None = None  # preferred and unclean leader elections
    reassignments: Reassignments | None = None  # partition reassignments (m); None where the cluster has none
    group_tools: GroupTools | None = None  # deleting groups and their offsets (x, X in Groups)
    browser: MessageBrowser | None = None  # the Messages tab: pages and searches of a partition, in no group

    def present(self) -> frozenset[str]:
        """The names of the members given: what the palette and the screen ask for (keymap.py's `needs`)."""
        return frozenset(f.name for f in fields(self) if getattr(self, f.name) is not None)
