"""The durability check: does a topic keep every acknowledged record while the leader of a partition fails?

A producer writes N records to explicit partitions in turn, each record carrying this run's id and its partition's
own sequence number. Meanwhile the leader of one partition is killed (SIGKILL) or stopped (controlled shutdown)
through a NodeControl, and later started again. Then each partition is read back from where this run began to
its high watermark, and every record's fate is counted: acked, failed, read, lost (acked but not in the log),
duplicated, out of order, and present although its delivery failed (Kafka is at least once: a record whose answer
never came may well be written).

With `transactional`, the producer sends the records in transactions (transactional.py), the read-back is
read_committed — every record of a committed transaction once, none of an aborted one — and a second read,
read_uncommitted, counts the aborted records that are in the log all the same, skipped by their abort markers.

What the settings promise is stated before the run (`expectation`), and the verdict says whether the log kept it.
`DurabilityCheck` runs the phases: preflight (here), producing with the fault (produce.py or transactional.py,
fault.py), reading back (readback.py); what they share is context.py, the pure parts (check_topic, expectation,
verify, judge) verdict.py and exactly_once.py, the data backends/model/durability.py. Every wait on Kafka or on a
node has a deadline.
"""

from __future__ import annotations

import secrets
import time
from concurrent.futures import ThreadPoolExecutor, wait

from kafkatop.backends.checks.durability.context import DurabilityContext
from kafkatop.backends.checks.durability.exactly_once import transaction_counts
from kafkatop.backends.checks.durability.fault import ACTION_WAIT_S, LEADER_WAIT_S, FaultLog, recover, wait_isr_full
from kafkatop.backends.checks.durability.produce import drain, new_producer, produce
from kafkatop.backends.checks.durability.readback import high_watermarks, new_consumer, read_back
from kafkatop.backends.checks.durability.transactional import new_transactional_producer, produce_transactions
from kafkatop.backends.checks.durability.verdict import (
    acked_ends,
    check_control,
    check_topic,
    expectation,
    judge,
    verify,
)
from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.model.durability import (
    DurabilityError,
    DurabilityReport,
    ReadRecord,
    TopicFacts,
    TransactionOutcome,
    total,
)


class DurabilityCheck(DurabilityContext):
    """One durability run against a cluster. `run()` blocks (seconds to minutes): call it from a worker thread.

    `control` performs the fault; it may be None only without one (`kill_at=None`). `on_progress` is called from the
    thread that runs the check; a UI posts it on (Textual's post_message is thread-safe). `cancel()`, from any thread,
    stops producing, starts a broker that was made to fail, and ends the run with an incomplete report.
    """

    def cancel(self) -> None:
        self.cancelled.set()

    def preflight(self) -> TopicFacts:
        """The topic's facts, or DurabilityRefused (nothing produced or signalled yet); SourceUnavailable when the
        cluster does not answer."""
        self.progress("preflight", force=True)
        source = AdminSource(self.connection, timeout_s=self.timeout_s)
        try:
            snapshot = source.poll()
        finally:
            source.close()
        try:
            configs = self.topic_configs()
            if self.settings.transactional and snapshot.brokers:
                configs = {**(configs or {}), **self.transaction_log_configs(snapshot.brokers[0].id)}
            facts = check_topic(snapshot, self.settings, configs)
            if self.settings.kill_at is not None and self.control is not None:
                check_control(self.control.poll(), facts.leader, self.settings)
        except BaseException:
            self.release_admin()  # refused: run() will not follow to release it
            raise
        self.facts = facts
        return facts

    # --- the whole run ---------------------------------------------------------------------------------------------
    def run(self) -> DurabilityReport:
        """Preflight (raises DurabilityRefused before anything is sent), produce with the fault, wait for the ISR,
        read back, judge. A failure after the fault still starts the broker again before it is raised."""
        try:
            return self._run()
        finally:
            self.release_admin()

    def _run(self) -> DurabilityReport:
        s = self.settings
        started = time.time()
        facts = self.facts or self.preflight()
        expected = expectation(s, facts)
        run_id = secrets.token_hex(4)
        timeline = FaultLog(s.fault if s.kill_at is not None else None, s.partition, lambda: (self.sent, self.done))
        problems: list[str] = []
        consumer = new_consumer(self, run_id)
        try:
            starts = high_watermarks(self, consumer, facts.partitions, "start")
            # A cluster that cannot do transactions is refused here, before anything is sent.
            producer = new_transactional_producer(self, run_id) if s.transactional else new_producer(self)
            outcomes: dict[int, TransactionOutcome] | None = None
            faults = ThreadPoolExecutor(1, thread_name_prefix="kafkatop-durability-fault")
            try:
                self.progress("producing", force=True)
                if s.transactional:
                    deliveries, outcomes, steps = produce_transactions(
                        self, producer, run_id, facts.partitions, timeline, faults
                    )
                else:
                    deliveries, steps = produce(self, producer, run_id, facts.partitions, timeline, faults)
                wait(steps, timeout=ACTION_WAIT_S + LEADER_WAIT_S)
                for step in steps:
                    if step.done():
                        step.result()  # a bug on the fault thread surfaces here, not silently
                    else:
                        problems.append("a fault step did not finish in time: the broker may still be down")
            except BaseException:
                recover(self, timeline, faults)
                raise
            finally:
                faults.shutdown(wait=False)
                drain(producer)
                producer.close()
                handles.release([producer])
                del producer  # the release waits for the last other reference: this one
            if timeline.get("restarted_at") is not None:
                if (isr_problem := wait_isr_full(self, timeline)) is not None:
                    problems.append(isr_problem)
            self.progress("reading back", force=True)
            # A client that lived through the fault can keep a stale view of the partition (seen on Kafka 4.1:
            # "Unknown partition" for 10 s after the leader came back): the read-back gets a fresh one.
            consumer.close()
            handles.release([consumer])
            consumer = new_consumer(self, run_id, committed=s.transactional)
            try:
                ends = high_watermarks(self, consumer, facts.partitions, "end", self.settings.read_timeout_s)
            except DurabilityError as e:
                # What was produced is not lost with the watermarks: read up to the last acknowledged offsets.
                ends = acked_ends(deliveries, starts)
                problems.append(f"{e}; read up to each partition's last acknowledged offset instead")
            read, read_problems, read_complete = read_back(self, consumer, run_id, starts, ends)
            log: list[ReadRecord] = []
            log_complete = True
            if outcomes is not None:  # the aborted records are in the log all the same: read_uncommitted sees them
                consumer.close()
                handles.release([consumer])
                consumer = new_consumer(self, run_id)
                log, log_problems, log_complete = read_back(self, consumer, run_id, starts, ends, counted=False)
                read_problems += [f"read_uncommitted: {p}" for p in log_problems]
        finally:
            consumer.close()
            handles.release([consumer])
            del consumer
        problems += read_problems
        frozen = timeline.frozen()
        if frozen.restart_error:
            problems.append(f"{frozen.node} could not be started again: {frozen.restart_error}")
        elif frozen.happened and s.restart_at is None:
            problems.append(f"{frozen.node} is left down (no restart was planned): start it again when done")
        rows = verify(deliveries, read, range(facts.partitions), starts, ends, outcomes=outcomes, log=log)
        transactions = None if outcomes is None else transaction_counts(outcomes, log_complete)
        cancelled = self.cancelled.is_set()
        if self.halted is not None:
            problems.insert(0, self.halted)
        verdict, text = judge(
            expected,
            total(rows),
            read_complete=read_complete,
            fault_error=frozen.fault_error,
            cancelled=cancelled,
            halted=self.halted,
            transactions=transactions,
        )
        self.progress("done", force=True)
        return DurabilityReport(
            settings=s,
            run_id=run_id,
            bootstrap_servers=self.bootstrap_servers,
            facts=facts,
            expectation=expected,
            partitions=rows,
            timeline=frozen,
            started_at=started,
            finished_at=time.time(),
            read_complete=read_complete,
            cancelled=cancelled,
            verdict=verdict,
            verdict_text=text,
            problems=tuple(problems),
            transactions=transactions,
        )
