"""The fault of a durability check, on a thread of its own so that deliveries go on being served: the leader of the
partition killed or stopped, the new leader waited for, the broker started again, every replica back in sync — each
step written to the fault's log with the records sent and reported by then."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from kafkatop.backends.checks.durability.context import DurabilityContext
from kafkatop.backends.checks.durability.verdict import check_control
from kafkatop.backends.model.cluster import NO_LEADER
from kafkatop.backends.model.durability import DurabilityError, Fault, FaultEvent, FaultTimeline
from kafkatop.backends.model.errors import KafkatopError

# Records sent whose delivery report has not come yet, at most: a twentieth of the run, between these bounds. Without
# a cap a fast cluster takes every record in one burst and the fault lands after the last one; with it, the fault
# meets records in flight, and more are sent after it.
WINDOW_MIN, WINDOW_MAX = 10, 1_000
# A SIGKILL'd leader is replaced once the controller gives up on it: KRaft after broker.session.timeout.ms (9 s),
# ZooKeeper mode after zookeeper.session.timeout.ms (18 s).
LEADER_WAIT_S = 60.0
# A control action bounds itself (a lab start waits up to 120 s for the node to serve); this only backstops it.
ACTION_WAIT_S = 300.0
POLL_S = 0.05
CHECK_EVERY_S = 0.2  # between metadata reads while waiting for a new leader or a full ISR
PROGRESS_EVERY_S = 0.1


@dataclass
class FaultLog:
    """The timeline while it is written, by the producing thread and the fault thread."""

    fault: Fault | None
    partition: int
    counts: Callable[[], tuple[int, int]]  # records (sent, reported) now
    lock: threading.Lock = field(default_factory=threading.Lock)
    values: dict[str, Any] = field(default_factory=dict)
    events: list[FaultEvent] = field(default_factory=list)

    def _event(self, at: float, what: str) -> None:
        sent, done = self.counts()
        self.events.append(FaultEvent(at, sent, done, what))

    def set(self, what: str | None = None, **values: Any) -> None:
        with self.lock:
            self.values.update(values)
            if what is not None:
                self._event(time.time(), what)

    def get(self, name: str) -> Any:
        with self.lock:
            return self.values.get(name)

    def claim(self, name: str, what: str) -> bool:
        """Sets `name` to now unless it is set already: True for the one caller that set it."""
        with self.lock:
            if self.values.get(name) is not None:
                return False
            self.values[name] = time.time()
            self._event(self.values[name], what)
            return True

    def frozen(self) -> FaultTimeline:
        with self.lock:
            return FaultTimeline(self.fault, self.partition, events=tuple(self.events), **self.values)


# --- the fault (on its own thread, so that deliveries go on being served) -------------------------------------
def fault(run: DurabilityContext, timeline: FaultLog) -> None:
    s = run.settings
    assert run.control is not None
    tp = f"{s.topic}-{s.partition}"
    try:
        leader = run.leader()
        if leader is None or leader == NO_LEADER:
            raise DurabilityError(f"{tp} has no leader to {s.fault} (metadata: {leader})")
        node = check_control(run.control.poll(), leader, s)
        if run.cancelled.is_set():
            return  # cancelled or interrupted while the leader was looked up: no fault after all
        what = f"{s.fault} {node.name} (leader of {tp})"
        run.fault_note = what
        timeline.set(what, node=node.name, leader_before=leader, fault_at=time.time())
        getattr(run.control, s.fault)(node.name)
        timeline.set(f"{node.name} is down", fault_done_at=time.time())
    except KafkatopError as e:
        timeline.set(f"{s.fault} failed: {e}", fault_error=str(e))
    finally:
        run.fault_note = None


def await_new_leader(run: DurabilityContext, timeline: FaultLog) -> None:
    before = timeline.get("leader_before")
    if timeline.get("fault_done_at") is None:
        return
    tp = f"{run.settings.topic}-{run.settings.partition}"
    run.fault_note = f"waiting for a new leader of {tp}"
    deadline = time.monotonic() + LEADER_WAIT_S
    leader = None
    while True:
        leader = run.leader()
        if leader is not None and leader not in (before, NO_LEADER):
            timeline.set(
                f"leader of {tp}: {before} → {leader}",
                leader_after=leader,
                leader_changed_at=time.time(),
            )
            break
        if time.monotonic() >= deadline:
            timeline.set(
                f"no new leader of {tp} within {LEADER_WAIT_S:g} s (metadata says {leader})",
                leader_after=leader,
            )
            break
        if run.cancelled.wait(CHECK_EVERY_S):
            break
    run.fault_note = None


def restart(run: DurabilityContext, timeline: FaultLog) -> None:
    node = timeline.get("node")
    if node is None or timeline.get("fault_done_at") is None:
        return
    assert run.control is not None
    if not timeline.claim("restart_at", f"start {node}"):
        return  # started already (a recovery and the planned restart can meet)
    run.fault_note = f"start {node}"
    try:
        run.control.start(node)
        timeline.set(f"{node} is up", restarted_at=time.time())
    except KafkatopError as e:
        timeline.set(f"start failed: {e}", restart_error=str(e))
    finally:
        run.fault_note = None


# --- the ISR ---------------------------------------------------------------------------------------------------
def wait_isr_full(run: DurabilityContext, timeline: FaultLog) -> str | None:
    """Waits until every partition of the topic has its whole replica set in sync; a problem line if not."""
    run.progress("waiting for ISR", force=True)
    deadline = time.monotonic() + run.settings.isr_timeout_s
    short = "no metadata"
    while True:
        parts = run.partition_metadata()
        if parts is not None:
            short_of = {p: pm for p, pm in parts.items() if pm.leader < 0 or set(pm.replicas) - set(pm.isrs)}
            if not short_of:
                timeline.set("ISR full again", isr_full_at=time.time())
                return None
            short = ", ".join(
                f"{run.settings.topic}-{p} ISR {list(pm.isrs)} of {list(pm.replicas)}"
                for p, pm in sorted(short_of.items())
            )
        if time.monotonic() >= deadline or run.cancelled.wait(CHECK_EVERY_S):
            return f"ISR not full within {run.settings.isr_timeout_s:g} s: {short}"


def recover(run: DurabilityContext, timeline: FaultLog, faults: ThreadPoolExecutor) -> None:
    """After a failure or an interrupt: a broker this run took down is started again, as planned."""
    run.cancelled.set()
    faults.shutdown(wait=False, cancel_futures=True)
    if run.fault_step is not None:
        wait([run.fault_step], timeout=ACTION_WAIT_S)  # a kill or stop under way ends before the start
    if run.settings.restart_at is not None:
        restart(run, timeline)  # does nothing unless the fault happened and no start was issued yet
