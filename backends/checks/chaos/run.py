"""A bounded chaos run: K random kill/stop/restart/start steps on a cluster's brokers while records are produced and
consumed, with kafkatop's own view polled throughout.

Three things are found out:
- did kafkatop keep up? After each step, once the cluster has settled (a fresh AdminSource sees the expected
  brokers alive and the others gone or fenced, and the same leaders and ISRs twice in a row), how many of the view's
  polls it took to show that state; within 2 is keeping up;
- did the topic keep every acknowledged record? A sequenced producer (acks=all, idempotence; durability's
  encoding) writes all along, a consumer in a group reads all along, and at the end durability's verifier counts
  lost, duplicated and out-of-order records per partition;
- is anything left behind? On a lab cluster, every pid the cluster records is a live node or gone, and no JVM runs
  from its state directory that is not one of its nodes.

The pure parts (settings, the choice of steps, convergence counting, the orphan check, the verdict, the report) live
in backends/chaos_model.py, the clients on their threads in backends/chaos_clients.py; both are re-exported here.
Every wait on Kafka or on a node has a deadline, and a fault (a node that never comes back, every broker down)
becomes a line of the report, never a crash of the run.
"""

from __future__ import annotations

import random
import secrets
import time

from kafkatop.backends.checks.chaos.context import ChaosContext
from kafkatop.backends.checks.chaos.ending import (
    end_offsets,
    read_back,
    start_down_nodes,
    stop_clients,
    wait_in_sync,
)
from kafkatop.backends.checks.chaos.ending import (
    orphans as find_orphans,
)
from kafkatop.backends.checks.chaos.preflight import Plan, preflight
from kafkatop.backends.checks.chaos.steps import begin, start_clients, take_step
from kafkatop.backends.checks.chaos.verdict import choose_step, judge, records_in_range, targets_of
from kafkatop.backends.checks.durability.verdict import acked_ends, verify
from kafkatop.backends.model.chaos import ChaosReport, ChaosStep
from kafkatop.backends.model.durability import total


class ChaosRun(ChaosContext):
    """One chaos run against a cluster. `run()` blocks (minutes): call it from a worker thread or the command line.

    `control` performs the steps (LabControl, or DemoControl for the demo); `admin_factory` makes the AdminSources:
    the view's long-lived one and a fresh one for each settling. `on_event` is called from the thread that runs
    the run. `cancel()`, from any thread, cuts the step under way short; the nodes that are down are started again
    and the report says the run is incomplete.

    On the demo, DemoControl must know the run's group (DemoCluster.groups) to move its coordinator off a broker
    that goes down, as Kafka does; the mock alone keeps it on the dead broker.
    """

    def cancel(self) -> None:
        self.cancelled.set()

    def preflight(self) -> Plan:
        """The topic and the nodes, or ChaosRefused before anything is touched."""
        return preflight(self)

    # --- the whole run ---------------------------------------------------------------------------------------------
    def run(self) -> ChaosReport:
        """Preflight (ChaosRefused before anything is touched), the steps, the ending, the report. A failure or an
        interrupt on the way still starts the nodes that are down, and stops the clients, before it is raised."""
        s = self.settings
        started = time.time()
        plan = preflight(self)
        seed = s.seed if s.seed is not None else secrets.randbelow(2**31)
        rng = random.Random(seed)
        run_id = secrets.token_hex(4)
        partitions = [p.id for p in plan.topic.partitions]
        self.emit(
            f"chaos on {plan.title}: {s.steps} steps, seed {seed}, actions {','.join(s.actions)}, max-down "
            f"{s.max_down} (safe: {plan.safe}: {plan.safe_reason}), '{s.topic}' at {s.rate:g} records/s"
        )
        for note in plan.notes:
            self.emit(f"note: {note}")
        problems: list[str] = []
        steps: list[ChaosStep] = []
        try:
            start_clients(self, run_id, plan)
            problems += begin(self)
            deadline = time.monotonic() + s.total_timeout_s
            for index in range(1, s.steps + 1):
                if self.cancelled.is_set():
                    break
                if time.monotonic() > deadline:
                    problems.append(
                        f"time limit of {s.total_timeout_s:g} s reached after {index - 1} of {s.steps} steps"
                    )
                    break
                nodes = self.nodes()
                planned = None if nodes is None else choose_step(rng, targets_of(nodes), s.actions, s.max_down)
                if planned is None:
                    problems.append(f"step {index}: no step possible (every broker node is starting or stopping)")
                    self.wait(s.poll_interval_s)
                    continue
                step, found = take_step(self, index, planned)
                steps.append(step)
                problems += found
            start_down_nodes(self, problems)
            wait_in_sync(self, problems)
            self.emit("ending: stopping the producer, reading to the end")
            producer = self.clients.producer
            assert producer is not None
            producer.stop(s.delivery_timeout_s)
            ends = end_offsets(self, partitions)
            if ends is None:
                ends = acked_ends(producer.deliveries(), plan.starts)
                problems.append(
                    f"the end offsets of '{s.topic}' could not be read within {s.read_timeout_s:g} s: read up to each "
                    "partition's last acknowledged offset instead"
                )
            read_complete, by_offset = read_back(self, run_id, plan.starts, ends, problems)
            deliveries = stop_clients(self, flush_s=s.delivery_timeout_s)
            problems += self.clients.extra
            read = records_in_range(by_offset, plan.starts, ends)
            rows = verify(deliveries, read, partitions, plan.starts, ends)
            consumer = self.clients.consumer
            assert consumer is not None
            consumed = len(records_in_range(consumer.read_by_offset(), plan.starts, ends))
            view = self.clients.view
            assert view is not None
            problems += [f"kafkatop's view: {e}" for e in view.errors[:5]]
            self.shutdown_actions()
            self.emit("ending: looking for orphan processes")
            orphans, orphans_note = find_orphans(self, plan.kind)
            if producer.halted is not None:
                problems.insert(0, producer.halted)
            verdict, text = judge(
                steps,
                total(rows),
                planned=s.steps,
                read_complete=read_complete,
                orphans=orphans,
                view_errors=len(view.errors),
                cancelled=self.cancelled.is_set(),
                halted=producer.halted,
            )
            report = ChaosReport(
                settings=s,
                seed=seed,
                run_id=run_id,
                bootstrap_servers=self.bootstrap_servers,
                cluster=plan.title,
                partitions_count=len(partitions),
                replication_factor=plan.topic.replication_factor,
                min_insync_replicas=plan.topic.min_insync_replicas,
                safe_max_down=plan.safe,
                safe_reason=plan.safe_reason,
                steps=tuple(steps),
                partitions=rows,
                read_complete=read_complete,
                consumed=consumed,
                view_polls=view.count,
                view_errors=len(view.errors),
                orphans=orphans,
                orphans_note=orphans_note,
                started_at=started,
                finished_at=time.time(),
                cancelled=self.cancelled.is_set(),
                verdict=verdict,
                verdict_text=text,
                notes=plan.notes,
                problems=tuple(problems),
            )
        except BaseException:
            self.cancelled.set()
            try:
                start_down_nodes(self, [], deadline_s=30.0)
            finally:
                stop_clients(self, flush_s=2.0)
                self.shutdown_actions()
            raise
        return report
