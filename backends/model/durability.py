"""A durability run as data (standard library only): its settings (checked when built), the topic as the preflight
found it, what the settings promise, each record's fate, the fault's timeline, the report, and the progress a UI shows.

The run itself is backends/checks/durability/run.py; what decides the verdict is backends/checks/durability/verdict.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any, Literal, get_args

from kafkatop.backends.model.cluster import NO_LEADER
from kafkatop.backends.model.consoles import Acks, ProducerSettings
from kafkatop.backends.model.errors import KafkatopError

Fault = Literal["kill", "stop"]


Step = Literal["preflight", "producing", "waiting for ISR", "reading back", "done"]


Verdict = Literal["as expected", "violated", "incomplete"]


# A transaction's end, as the producer knows it: "unresolved" when the run stopped before it ended (a fatal error).
TransactionOutcome = Literal["committed", "aborted", "unresolved"]


MAX_RECORDS = 10_000_000
MAX_TRANSACTION_RECORDS = 100_000
DELIVERY_TIMEOUT_S = 60.0
# A transactional run's default (the CLI's): shorter than a failover after kill -9 (broker.session.timeout.ms, 9 s),
# so that the transaction open at the fault fails with an abortable error and is aborted, not merely delayed.
TRANSACTIONAL_DELIVERY_TIMEOUT_S = 5.0


class DurabilityError(KafkatopError):
    """The check could not go on (the cluster stopped answering, a client could not be made); the message says why."""


class DurabilityRefused(DurabilityError):
    """Refused before anything was produced or signalled: bad settings, or a topic or cluster the check cannot test."""


# --- settings -------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class DurabilitySettings:
    """One run's settings, checked when built (DurabilityRefused says what is wrong and what to do).

    `kill_at` and `restart_at` are fractions of `records`: the fault happens once that share of the records has been
    sent, while the last of them are still in flight; sending waits there until the kill or stop returns, so the fault
    lands mid-run however fast the cluster is. `kill_at=None`: no fault. With `transactional`, the fault waits for
    the middle of a transaction (half its records sent and written), so that one is open when the leader fails.
    """

    topic: str
    records: int = 10_000
    acks: Acks = "all"
    enable_idempotence: bool = True
    retries: int | None = None  # None: the client's default, retrying until the delivery timeout
    delivery_timeout_s: float = DELIVERY_TIMEOUT_S  # message.timeout.ms: unacknowledged by then, a record has failed
    fault: Fault = "kill"
    kill_at: float | None = 0.3
    restart_at: float | None = 0.7  # None: the broker is left down
    partition: int = 0  # whose leader fails
    rate: float | None = None  # records per second; None: as fast as the cluster takes them
    isr_timeout_s: float = 60.0  # how long to wait, after the restart, for every replica to be back in sync
    read_timeout_s: float = 60.0
    # A transactional producer (transactional.id), records sent in transactions of `transaction_records`, read back
    # with isolation.level=read_committed: exactly once within the topic.
    transactional: bool = False
    transaction_records: int = 100

    def __post_init__(self) -> None:
        if not self.topic.strip():
            raise DurabilityRefused("give the topic to check (a replicated one: --replication-factor 3)")
        if not 1 <= self.records <= MAX_RECORDS:
            raise DurabilityRefused(f"records must be between 1 and {MAX_RECORDS}, not {self.records}")
        if self.acks not in get_args(Acks):
            raise DurabilityRefused(f"acks must be one of all, 1, 0, not {self.acks!r}")
        if self.enable_idempotence and self.acks != "all":
            raise DurabilityRefused(
                f"idempotence needs acks=all (acks={self.acks} cannot promise one copy per record): set acks to all, "
                "or turn idempotence off"
            )
        if self.retries is not None and self.retries < 0:
            raise DurabilityRefused(f"retries must be 0 or more, not {self.retries}")
        if self.enable_idempotence and self.retries == 0:
            raise DurabilityRefused("idempotence needs retries: give retries of 1 or more, or turn idempotence off")
        if not 0 < self.delivery_timeout_s <= 3600:
            raise DurabilityRefused(f"the delivery timeout must be between 0 and 3600 s, not {self.delivery_timeout_s}")
        if self.fault not in get_args(Fault):
            raise DurabilityRefused(f"the fault must be kill or stop, not {self.fault!r}")
        if self.kill_at is not None and not 0 <= self.kill_at < 1:
            raise DurabilityRefused(
                f"kill-at must be a fraction of the records from 0 up to 1 (0.3: after 30 %), not {self.kill_at:g}"
            )
        if self.restart_at is not None:
            if self.kill_at is None:
                raise DurabilityRefused("restart-at needs a fault: give kill-at too, or no restart-at")
            if not 0 < self.restart_at <= 1:
                raise DurabilityRefused(
                    f"restart-at must be a fraction of the records above 0 and up to 1 (0.7: after 70 %), "
                    f"not {self.restart_at:g}"
                )
            if self.restart_at <= self.kill_at:
                raise DurabilityRefused(
                    f"restart-at ({self.restart_at:g}) must come after kill-at ({self.kill_at:g}): the broker is "
                    "started again after it failed"
                )
        if self.partition < 0:
            raise DurabilityRefused(f"the partition must be 0 or more, not {self.partition}")
        if self.rate is not None and not self.rate > 0:
            raise DurabilityRefused(f"the rate must be a positive number of records per second, not {self.rate:g}")
        if not self.isr_timeout_s > 0 or not self.read_timeout_s > 0:
            raise DurabilityRefused("the ISR and read-back timeouts must be positive numbers of seconds")
        if self.transactional and not self.enable_idempotence:
            raise DurabilityRefused(
                "a transactional producer is idempotent (acks=all): drop --no-idempotence, or --transactional"
            )
        if not 1 <= self.transaction_records <= MAX_TRANSACTION_RECORDS:
            raise DurabilityRefused(
                f"records per transaction must be between 1 and {MAX_TRANSACTION_RECORDS}, "
                f"not {self.transaction_records}"
            )

    @property
    def kill_after(self) -> int | None:
        """Records sent before the fault."""
        return None if self.kill_at is None else int(self.kill_at * self.records)

    @property
    def restart_after(self) -> int | None:
        return None if self.restart_at is None else int(self.restart_at * self.records)

    def producer_config(self) -> dict[str, Any]:
        config = ProducerSettings(acks=self.acks, idempotence=self.enable_idempotence).producer_config()
        config["message.timeout.ms"] = int(self.delivery_timeout_s * 1000)
        if self.retries is not None:
            config["retries"] = self.retries
        return config


# --- what the topic and the settings promise ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TopicFacts:
    """The topic as the preflight found it."""

    topic: str
    partitions: int
    replication_factor: int
    min_insync_replicas: int | None  # None: not readable (no DescribeConfigs, as on the librdkafka mock)
    unclean_leader_election: bool | None  # unclean.leader.election.enable; None: not readable
    leader: int  # of the chosen partition, at the preflight
    isr: tuple[int, ...]
    # The brokers' transaction.state.log.replication.factor and .min.isr (__transaction_state, where the coordinator
    # keeps each transaction's state); None: not read (a run without transactions) or not readable.
    transaction_log_replication_factor: int | None = None
    transaction_log_min_isr: int | None = None


@dataclass(frozen=True, slots=True)
class Expectation:
    """What the settings promise, said before the run."""

    no_loss: bool  # no acknowledged record may be missing from the log
    no_duplicates: bool  # no record may be written twice, nor out of order within its partition
    summary: str  # "expected: 0 lost, 0 duplicated", "losses possible; expected: 0 duplicated", …
    reasons: tuple[str, ...]  # why, one line each


# --- the verifier ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class RecordDelivery:
    """One sent record and what its delivery report said."""

    partition: int
    seq: int
    acked: bool
    offset: int | None = None  # where the broker wrote it; None on failure, with acks=0, or without a report
    error: str | None = None  # Kafka's error; None and not acked: no report came
    transaction: int | None = None  # the transaction it was sent in (1, 2, …); None: a run without transactions


@dataclass(frozen=True, slots=True)
class ReadRecord:
    """One record read back from a partition."""

    partition: int
    offset: int
    seq: int | None  # None: not a record of this run (another producer's, another run's)
    transaction: int | None = None  # the transaction its value names; None: a run without transactions


@dataclass(frozen=True, slots=True)
class PartitionResult:
    """The fate of one partition's records; `partition` None for the totals."""

    partition: int | None
    sent: int
    acked: int
    failed: int  # sent but not acknowledged: an error, or no report at all
    read: int  # records of this run read back, copies included
    lost: int  # acknowledged, not read back
    duplicated: int  # extra copies: read − distinct sequences read
    out_of_order: int  # first copies whose sequence is lower than one read before them
    unacked_present: int  # not acknowledged, yet read back
    other: int = 0  # records in the range that are not this run's
    start_offset: int | None = None
    end_offset: int | None = None
    lost_sample: tuple[int, ...] = ()  # the first lost sequence numbers
    # A transactional run. `acked` counts delivery reports, as without transactions; what must be read back is
    # `committed`, and `lost`, `duplicated` and `out_of_order` count those records only.
    committed: int = 0  # records of committed transactions
    aborted: int = 0  # records sent in aborted transactions (each sent again in a new one)
    uncommitted_read: int = 0  # records of aborted transactions that the read_committed read returned: must be 0
    aborted_in_log: int = 0  # records of aborted transactions in the log (read_uncommitted), skipped by read_committed


def total(rows: Iterable[PartitionResult]) -> PartitionResult:
    rows = list(rows)

    def s(name: str) -> int:
        return sum(int(getattr(r, name)) for r in rows)

    return PartitionResult(
        partition=None,
        sent=s("sent"),
        acked=s("acked"),
        failed=s("failed"),
        read=s("read"),
        lost=s("lost"),
        duplicated=s("duplicated"),
        out_of_order=s("out_of_order"),
        unacked_present=s("unacked_present"),
        other=s("other"),
        committed=s("committed"),
        aborted=s("aborted"),
        uncommitted_read=s("uncommitted_read"),
        aborted_in_log=s("aborted_in_log"),
    )


# --- the report -----------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class FaultEvent:
    at: float  # time.time()
    records_sent: int  # by then
    records_done: int  # delivery reports (acked or failed) by then
    what: str


@dataclass(frozen=True, slots=True)
class FaultTimeline:
    fault: Fault | None  # None: no fault planned
    partition: int
    node: str | None = None  # the control's name of the broker that failed
    leader_before: int | None = None
    leader_after: int | None = None  # the first leader seen after the fault (NO_LEADER: offline)
    fault_at: float | None = None  # when the kill/stop was issued
    fault_done_at: float | None = None  # when it returned: the broker is down
    leader_changed_at: float | None = None
    restart_at: float | None = None  # when the start was issued
    restarted_at: float | None = None  # when it returned
    isr_full_at: float | None = None
    fault_error: str | None = None
    restart_error: str | None = None
    events: tuple[FaultEvent, ...] = ()

    @property
    def happened(self) -> bool:
        return self.fault_done_at is not None

    @property
    def leader_changed(self) -> bool:
        return self.leader_after is not None and self.leader_after not in (NO_LEADER, self.leader_before)


@dataclass(frozen=True, slots=True)
class TransactionCounts:
    """A transactional run's transactions, as they ended."""

    committed: int
    aborted: int  # by the producer after an abortable error (its records timed out while their leader was down)
    unresolved: int = 0  # neither, when the run stopped (a fatal producer error, a cancel mid-commit)
    log_read_complete: bool = True  # the read_uncommitted read (what counts aborted_in_log) reached every end


@dataclass(frozen=True, slots=True)
class DurabilityReport:
    settings: DurabilitySettings
    run_id: str
    bootstrap_servers: str
    facts: TopicFacts
    expectation: Expectation
    partitions: tuple[PartitionResult, ...]
    timeline: FaultTimeline
    started_at: float
    finished_at: float
    read_complete: bool
    cancelled: bool
    verdict: Verdict
    verdict_text: str
    problems: tuple[str, ...] = ()
    transactions: TransactionCounts | None = None  # None: a run without transactions

    @property
    def totals(self) -> PartitionResult:
        return total(self.partitions)

    @property
    def as_expected(self) -> bool:
        return self.verdict == "as expected"

    def to_dict(self) -> dict[str, Any]:
        doc = asdict(self)
        doc["totals"] = asdict(self.totals)
        doc["timeline"]["happened"] = self.timeline.happened
        doc["timeline"]["leader_changed"] = self.timeline.leader_changed
        if self.transactions is not None:
            totals = self.totals
            doc["transactions"].update(
                aborted_records=totals.aborted,
                aborted_in_log=totals.aborted_in_log,
                uncommitted_read=totals.uncommitted_read,
            )
        return doc


@dataclass(frozen=True, slots=True)
class DurabilityProgress:
    """Where a run is, for a UI: sent from the thread that runs the check, at most every PROGRESS_EVERY_S."""

    step: Step
    records: int
    sent: int = 0
    acked: int = 0
    failed: int = 0
    read: int = 0
    note: str | None = None  # the fault step under way, e.g. "kill broker-1 (leader of t-0)"
