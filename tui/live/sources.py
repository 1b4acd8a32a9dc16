"""What the live view is given: its sources and actuators (ports, see backends/ports.py) and its settings.

The composition root (tui/cli/compose.py) passes the real adapters; tests pass recorded data and named doubles;
a replay passes what a recording holds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Literal, Protocol

from kafkatop.backends.check_ports import DurabilityRunFactory, ScenarioRunner
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.lag import LagRules
from kafkatop.backends.model.scenario import Scenario
from kafkatop.backends.ports import (
    AclAdmin,
    ConfigAdmin,
    ConnectCluster,
    Consoles,
    EnsembleView,
    GroupTools,
    LeaderElectionsFactory,
    LogDirsSource,
    MessageBrowser,
    NodeControl,
    Reassignments,
    RecordCodec,
    Recorder,
    SchemaRegistry,
    SparkCounts,
    TopicAdminFactory,
    TransactionReader,
    WriteLog,
    ZooKeeperWatch,
)
from kafkatop.tui.live.granting import Granting


@dataclass(frozen=True)
class Settings:
    poll_interval_s: float = 1.0
    banner: str | None = None  # e.g. the DEMO notice
    drain_interval_s: float = 0.1  # producer/consumer output: one UI update per drain, not one per message
    ensemble_interval_s: float = 2.0
    connect_interval_s: float = 2.0  # Kafka Connect's REST API
    acls_interval_s: float = 3.0  # the ACLs: DescribeAcls, and the brokers' authorizer configs
    log_dirs_interval_s: float = 30.0  # the brokers' disks: DescribeLogDirs to every broker
    # How the view was launched (the palette offers what applies to it; a replay is told by the app's Replay).
    launch: Literal["lab", "attach", "demo"] = "attach"
    context: str | None = None  # the context's name (kafkatop.toml's [contexts.NAME]), shown in the status bar
    colour: str | None = None  # the context's colour there
    read_only: bool = False  # every action that writes to the cluster is refused (keymap.py's `writes`)
    # What a user types before deleting or resetting on a cluster that is not kafkatop's own (attached): its
    # context's name, else its bootstrap address; None: a lab or the demo, where "yes" does.
    typed_name: str | None = None
    confirm: bool = True  # False (--no-confirm): a y/n question is answered y at once; a name to type is still asked
    # Said once the view is on screen, as notices (text, never markup): what the command line said on stderr before
    # the screen hid it, and what it found opening the cluster (tui/cli/startup_warnings.py). A context switched to
    # brings its own.
    warnings: tuple[str, ...] = ()
    # A lab's --name and --state-dir where not the default ("--name demo2 --state-dir /tmp/labs"): what the lab
    # commands the view suggests need to reach this lab.
    lab_flags: str = ""
    lag_rules: LagRules = LagRules()  # how the groups' lag statuses are decided: the context's [lag], else defaults
    bell: bool = False  # --bell: the terminal's bell when a group turns STOP or ERR
    masking: str | None = None  # a context's mask, said (masked: …, records hidden): records are shown as it lets them
    scenario: Scenario | None = None  # `kafkatop scenario NAME`: opened in its pane at the start

    @property
    def read_only_reason(self) -> str | None:
        """Why a write is refused here, as the start of a line; None where writes are allowed."""
        if not self.read_only:
            return None
        return f"context {self.context!r} is read-only" if self.context else "read-only (--read-only)"


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
    transactions: TransactionReader | None = None  # the Transactions screen (i): those not ended yet
    connect: ConnectCluster | None = None  # the Connect tab: Kafka Connect's workers, connectors and tasks
    acls: AclAdmin | None = None  # the ACLs tab: the bindings, the authorizer; adding and removing bindings
    granting: Granting | None = None  # who kafkatop is, and who adds what the authorizer refused (M)
    codec: RecordCodec | None = None  # each topic's key and value formats: the browser and the producer read by it
    schemas: SchemaRegistry | None = None  # the Schemas tab: a Schema Registry's subjects; None: none configured
    log_dirs: LogDirsSource | None = None  # the brokers' disks (DescribeLogDirs); None: the demo's mock has none
    scenarios: ScenarioRunner | None = None  # the scenario pane's runs: a lab's or the demo's (they kill nodes)
    writes: WriteLog | None = None  # the session's writes, as the audit trail keeps them: some on the Timeline

    def present(self) -> frozenset[str]:
        """The names of the members given: what the palette and the screen ask for (keymap.py's `needs`)."""
        return frozenset(f.name for f in fields(self) if getattr(self, f.name) is not None)


@dataclass(frozen=True, slots=True)
class ContextChoice:
    """A context the live view can switch to, as the switcher lists it."""

    name: str
    where: str  # "lab 'a'", or the bootstrap servers
    read_only: bool = False
    colour: str | None = None


class Switcher(Protocol):
    """The composition root, seen from the app: the contexts, and the sources of each, built on demand."""

    def choices(self) -> tuple[ContextChoice, ...]: ...

    def open(self, name: str) -> tuple[Sources, Settings]:
        """Builds context `name`'s sources (blocking: a worker calls it); what it opened stays open until close()."""
        ...

    def close(self, name: str) -> None:
        """Closes what open(`name`) opened (blocking); a lab kafkatop started is stopped only when kafkatop quits."""
        ...
