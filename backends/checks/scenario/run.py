"""A scenario run (backends/model/scenario.py): its topics created, then each step done and each of its expectations
watched on fresh polls until it holds (✓, with when and what was seen) or its deadline passes (✗, with what was seen
instead). Blocking: run it from the command line or a worker thread — whole (`run`), or a step at a time (`next_step`,
the live view's `space`), each change told as a ScenarioState to `on_progress`.

The nodes are acted on through NodeControl (the lab's own processes, by name); the cluster is seen through polls
(an AdminSource's ClusterSnapshot, the same the live view shows). `leader:T-P` is resolved on the poll taken just
before the step, so "kill the leader" kills whichever broker leads then. A step marked `by-key` is the user's in the
live view (`by_key=True`): the run says which key on which node and waits until the node is seen so, or until told to
do it itself (`do_it`). Every wait has a deadline: a node that never comes back or a cluster that stops answering is an
expectation not met, said as such, never a hang.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import replace

from kafkatop.backends.checks.scenario.connectors import ScenarioConnect
from kafkatop.backends.checks.scenario.expectations import Evidence, leader, partition
from kafkatop.backends.checks.scenario.records import AckedRecords
from kafkatop.backends.checks.scenario.transactions import ScenarioTransactions
from kafkatop.backends.kafka.records.consumers import ConsumerPool
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.elections import ElectionType
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.nodes import NodeState
from kafkatop.backends.model.scenario import Expectation, Scenario, Step
from kafkatop.backends.model.scenario_report import (
    ExpectResult,
    PlannedExpect,
    PlannedStep,
    ScenarioPhase,
    ScenarioReport,
    ScenarioState,
    StepResult,
)
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.ports import ConnectCluster, LeaderElectionsFactory, NodeControl, TopicAdmin

POLL_INTERVAL_S = 0.5
SETTLE_S = 60.0  # the topics' leaders and full ISRs, before the first step
BY_KEY_S = 600.0  # a step the user does by key: how long the run waits for it
KEYS = {"kill": "K", "stop": "t", "start": "s"}  # the live view's keys (Brokers, or the process table)
_DONE_BY_KEY = {
    "kill": (NodeState.KILLED, NodeState.DOWN, NodeState.FAILED),
    "stop": (NodeState.DOWN,),
    "start": (NodeState.UP,),
}


# Actions that take a while (a produce waits for every acknowledgement; an aborted transaction, for its records'
# delivery timeout): their expectations are timed from their end. A kill, stop or start is timed from its start.
_TIMED_FROM_END = ("produce", "transaction", "consume", "elect")


class ScenarioStopped(KafkatopError):
    """The run was told to stop (the live view closing): nothing more is done."""


def plan(scenario: Scenario) -> tuple[PlannedStep, ...]:
    return tuple(
        PlannedStep(
            s.number, s.describe(), s.say, s.by_key, tuple(PlannedExpect(e.describe(), e.explain) for e in s.expect)
        )  # fmt: skip
        for s in scenario.steps
    )


class ScenarioRun:
    def __init__(
        self,
        scenario: Scenario,
        control: NodeControl,
        poll: Callable[[], ClusterSnapshot],
        connection: KafkaConnection,
        say: Callable[[str], None] = lambda _: None,
        *,
        topics: TopicAdmin | None = None,  # None: created with the connection's own admin client
        on_progress: Callable[[ScenarioState], None] = lambda _: None,
        by_key: bool = False,  # the live view: `by-key` steps wait for the user
        cancelled: Callable[[], bool] = lambda: False,
        elections: LeaderElectionsFactory | None = None,  # the `elect` steps' ElectLeaders
        connect: ConnectCluster | None = None,  # the lab's Kafka Connect workers
    ) -> None:
        self.scenario = scenario
        self.control = control
        self.poll = poll
        run = uuid.uuid4().hex[:8]
        self.records = AckedRecords(connection, run)
        self.transactions = ScenarioTransactions(connection, run)
        self.connect = ScenarioConnect(connect, control.poll, scenario.name)
        self.evidence = Evidence(poll, self.records, self.transactions, self.connect)
        self.consumers = ConsumerPool(connection)
        self._topics = topics
        self._members: dict[str, list[str]] = {}  # group: its console consumers this run started, in order
        self.say = say
        self._on_progress = on_progress
        self._by_key = by_key
        self._cancelled = cancelled
        self._elections = elections
        self.do_it = threading.Event()  # a `by-key` step: the user asked the run to do it after all
        self._down: list[str] = []  # the nodes this run killed or stopped, in order, until started again
        self._prepared = False
        self.busy = False  # a step under way (in a worker): closed by the run itself once it stops
        self._closed = False
        self.state = ScenarioState(scenario.name, scenario.title, plan(scenario), ScenarioPhase.READY)

    def _tell(self, **changes: object) -> None:
        self.state = replace(self.state, **changes)  # type: ignore[arg-type]
        self._on_progress(self.state)

    def run(self) -> ScenarioReport:
        started = time.time()
        while not self.state.finished:
            self.next_step()
        if self.state.phase is ScenarioPhase.FAILED:
            raise KafkatopError(self.state.note or "the scenario could not go on")
        return ScenarioReport(self.scenario.name, self.scenario.title, started, time.time(), self.state.ended)

    def next_step(self) -> StepResult | None:
        """Prepares the run if it is not yet, then does the next step and watches its expectations; None when it
        could not go on (the state says why) or every step is done."""
        if self.state.finished:
            return None
        self.busy = True
        try:
            if not self._prepared:
                self._tell(phase=ScenarioPhase.PREPARING, note=None)
                self._prepare()
                self._prepared = True
            step = self.scenario.steps[len(self.state.ended)]
            result = self._step(step)
        except KafkatopError as e:
            if not isinstance(e, ScenarioStopped):
                self._tell(phase=ScenarioPhase.FAILED, running=None, watching=None, note=str(e))
                return None
            raise
        finally:
            self.busy = False
            if self._cancelled():
                self.close()  # stopped under way: what it started is closed by the thread that used it
        last = len(self.state.ended) + 1 == len(self.scenario.steps)
        self._tell(ended=(*self.state.ended, result), running=None, watching=None, note=None,
                   phase=ScenarioPhase.DONE if last else ScenarioPhase.BETWEEN)  # fmt: skip
        return result

    def do_yourself(self, from_now_on: bool = False) -> None:
        if from_now_on:
            self._by_key = False
        self.do_it.set()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.consumers.close()
            self.transactions.close()
            self.records.close()
            self.connect.close()

    # --- steps ------------------------------------------------------------------------------------------------------
    def _prepare(self) -> None:
        """Its topics created (those already there used as they are: a lab left running by an earlier run), then
        until every partition of them has a leader and its full ISR (a lab just started)."""
        if self._topics is None:
            self.records.create_topics(self.scenario.topics)
        else:
            there = self._snapshot()
            for spec in self.scenario.topics:
                if there is None or there.topic(spec.name) is None:
                    self._topics.create_topic(spec.name, spec.partitions, spec.replication_factor,
                                              dict(spec.config) or None)  # fmt: skip
        deadline = time.monotonic() + SETTLE_S
        wanted = {t.name: t for t in self.scenario.topics}
        while time.monotonic() < deadline:
            self._check_cancelled()
            snap = self._snapshot()
            if snap is not None and all(
                (t := snap.topic(name)) is not None
                and len(t.partitions) == spec.partitions
                and all(leader(p) is not None and len(p.isr) == spec.replication_factor for p in t.partitions)
                for name, spec in wanted.items()
            ):
                return
            self._sleep(POLL_INTERVAL_S)
        raise KafkatopError(f"the topics {', '.join(wanted)} did not get leaders and full ISRs in {SETTLE_S:g} s")

    def _step(self, step: Step) -> StepResult:
        before = self._snapshot()
        at = time.time()
        node: str | None = None
        error: str | None = None
        self.say(f"step {step.number}: {step.describe()}" + (f" — {step.say}" if step.say else ""))
        running = StepResult(step.number, step.describe(), None, at, None, ())
        self._tell(phase=ScenarioPhase.RUNNING, running=running, watching=None, note=None)
        try:
            if step.node is not None:
                node = self._node(before, step)
                self._tell(running=replace(running, node=node))
                if step.by_key and self._by_key:
                    at = self._await_key(step, node)  # its expectations are timed from when it was done
                else:
                    self.say(f"  {step.action} {node}")
                    getattr(self.control, step.action)(node)
                if step.action == "start":
                    self._down = [n for n in self._down if n != node]
                else:
                    self._down.append(node)
            elif step.action == "produce":
                assert step.topic is not None
                acked, failed, errors = self.records.produce(step.topic, step.count, step.retry)
                self.evidence.produced[step.topic] = (acked, failed, errors)
                why = f" ({', '.join(f'{name} ×{n}' for name, n in errors.most_common())})" if errors else ""
                self.say(f"  {acked} acknowledged, {failed} refused{why}")
            elif step.action == "consume":
                assert step.topic is not None and step.group is not None
                names = [
                    self.consumers.start([step.topic], step.group, from_beginning=True) for _ in range(step.members)
                ]
                self._members.setdefault(step.group, []).extend(names)
                self.evidence.group_topics.setdefault(step.group, set()).add(step.topic)
                self.say(f"  {', '.join(names)} started in group {step.group}")
            elif step.action == "stop-consumer":
                assert step.group is not None
                members = self._members.get(step.group) or []
                if not members:
                    raise KafkatopError(f"no consumer of this run is in group {step.group}")
                name = members.pop()
                self.consumers.stop(name)
                self.say(f"  {name} stopped")
            elif step.action == "wait":
                self._sleep(step.seconds)
            elif step.action == "elect":
                self._elect(step)
            elif step.action == "transaction":
                self._transaction(step)
            elif step.action == "connector":
                assert step.connector is not None
                self.say(f"  {self.connect.create(step.connector, step.config)}")
        except ScenarioStopped:
            raise
        except KafkatopError as e:
            error = str(e)
            self.say(f"  ✗ {error}")
        # records sent, a transaction ended: "within 30 s" of that, not of the step's start
        since = time.time() if step.action in _TIMED_FROM_END else at
        result = StepResult(step.number, step.describe(), node, at, error, ())
        if error is None:
            for expected in step.expect:
                self._tell(running=result, phase=ScenarioPhase.RUNNING, note=None)
                result = replace(result, expects=(*result.expects, self._watch(expected, since, before)))
        return result

    def _elect(self, step: Step) -> None:
        """ElectLeaders for the step's partition, as kafka-leader-election.sh --election-type asks it."""
        assert step.partition is not None
        if self._elections is None:
            raise KafkatopError("this cluster's leaders cannot be elected from here")
        topic, number = step.partition
        elector = self._elections()
        try:
            results = elector.elect(ElectionType(step.election.upper()), [TopicPartition(topic, number)])
        finally:
            elector.close()
        for r in results.results:
            if not r.elected and not r.not_needed:
                raise KafkatopError(f"{step.election} election on {topic}-{number} refused: {r.error}: {r.message}")
        self.say(f"  {step.election} leader election on {topic}-{number}: done")

    def _transaction(self, step: Step) -> None:
        partitions = next(t.partitions for t in self.scenario.topics if t.name == step.topic)
        assert step.topic is not None
        done = self.transactions.send(step.topic, partitions, step.count, step.end)
        self.say(f"  {done}")

    def _await_key(self, step: Step, node: str) -> float:
        """A `by-key` step in the live view: the user presses the key on the node (or asks the run to do it); when
        it was seen done."""
        wanted = _DONE_BY_KEY[step.action]
        whose = f" — {step.node}" if step.node is not None and step.node.name is None else ""
        self.do_it.clear()
        self._tell(phase=ScenarioPhase.YOUR_TURN,
                   note=f"press {KEYS[step.action]} on {node}{whose} in Brokers (or the process table: 0); "
                        "space does it for you")  # fmt: skip
        deadline = time.monotonic() + BY_KEY_S
        while time.monotonic() < deadline:
            self._check_cancelled()
            if self.do_it.is_set():
                self.say(f"  {step.action} {node} (asked of kafkatop)")
                getattr(self.control, step.action)(node)
                break
            view = self.control.poll().node(node)
            if view is not None and view.state in wanted:
                self.say(f"  {step.action} {node} (by key)")
                break
            self.do_it.wait(POLL_INTERVAL_S)
        else:
            raise KafkatopError(f"{node} was not {step.action}ed by key within {BY_KEY_S / 60:g} min")
        self._tell(phase=ScenarioPhase.RUNNING, note=None)
        return time.time()

    def _node(self, snap: ClusterSnapshot | None, step: Step) -> str:
        assert step.node is not None
        if step.node.name is not None:
            return step.node.name
        if step.node.worker_of is not None:
            return self.connect.worker_of(step.node.worker_of)
        if step.node.down is not None:
            if not self._down:
                raise KafkatopError(f"no node of this run is down: {step.node.down} names none")
            return self._down[-1] if step.node.down == "last-down" else self._down[0]
        topic, number = step.node.leader_of or step.node.follower_of or ("", 0)
        p = partition(snap, topic, number)
        led = leader(p)
        if step.node.follower_of is not None:
            followers = sorted(r for r in (p.isr if p is not None else ()) if r != led)
            if not followers:
                raise KafkatopError(f"{topic}-{number} has no in-sync follower to {step.action}")
            return f"broker-{followers[0]}"
        if led is None:
            raise KafkatopError(f"{topic}-{number} has no leader to {step.action}")
        return f"broker-{led}"

    # --- expectations -----------------------------------------------------------------------------------------------
    def _watch(self, e: Expectation, since: float, before: ClusterSnapshot | None) -> ExpectResult:
        deadline = since + e.within_s
        seen = "nothing yet (no poll answered)"
        known = False  # a poll answered: while every broker is down, none does (neither does kafka-topics.sh)
        while True:
            met, seen = self.evidence.check(e, before, seen)
            known = known or met is not None
            now = time.time()
            if e.throughout and met is False:  # it had to hold all along
                self.say(f"  ✗ {e.describe()}: {seen} after {now - since:.1f} s")
                return ExpectResult(e.describe(), False, None, f"{seen} after {now - since:.1f} s", e.explain)
            if (met and not e.throughout) or (e.throughout and known and now >= deadline):
                self.say(f"  ✓ {e.describe()}: {seen}, after {now - since:.1f} s")
                return ExpectResult(e.describe(), True, now - since, seen, e.explain)
            if now >= deadline:
                self.say(f"  ✗ {e.describe()}: still {seen} at the deadline")
                return ExpectResult(e.describe(), False, None, seen, e.explain)
            self._tell(watching=f"{seen} · {now - since:.0f} of {e.within_s:g} s")
            self._sleep(min(POLL_INTERVAL_S, max(0.0, deadline - now)))

    def _check_cancelled(self) -> None:
        if self._cancelled():
            raise ScenarioStopped("the scenario was stopped")

    def _sleep(self, seconds: float) -> None:
        """A wait that a stop ends within a poll's interval."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            self._check_cancelled()
            time.sleep(min(left, POLL_INTERVAL_S))

    def _snapshot(self) -> ClusterSnapshot | None:
        return self.evidence.snapshot()
