"""A scenario run (backends/model/scenario.py): its topics created, then each step done and each of its expectations
watched on fresh polls until it holds (✓, with when and what was seen) or its deadline passes (✗, with what was seen
instead). Blocking: run it from the command line or a worker thread.

The nodes are acted on through NodeControl (the lab's own processes, by name); the cluster is seen through polls
(an AdminSource's ClusterSnapshot, the same the live view shows). `leader:T-P` is resolved on the poll taken just
before the step, so "kill the leader" kills whichever broker leads then. Every wait has a deadline: a node that never
comes back or a cluster that stops answering is an expectation not met, said as such, never a hang.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from kafkatop.backends.checks.scenario.records import AckedRecords
from kafkatop.backends.kafka.records.consumers import ConsumerPool
from kafkatop.backends.model.cluster import ClusterSnapshot, Partition
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.scenario import Expectation, Scenario, Step
from kafkatop.backends.model.scenario_report import ExpectResult, ScenarioReport, StepResult
from kafkatop.backends.ports import NodeControl

POLL_INTERVAL_S = 0.5
SETTLE_S = 60.0  # the topics' leaders and full ISRs, before the first step


class ScenarioRun:
    def __init__(
        self,
        scenario: Scenario,
        control: NodeControl,
        poll: Callable[[], ClusterSnapshot],
        connection: KafkaConnection,
        say: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.scenario = scenario
        self.control = control
        self.poll = poll
        self.records = AckedRecords(connection)
        self.consumers = ConsumerPool(connection)
        self._members: dict[str, list[str]] = {}  # group: its console consumers this run started, in order
        self._group_topics: dict[str, set[str]] = {}
        self.say = say
        self._down: list[str] = []  # the nodes this run killed or stopped, in order, until started again

    def run(self) -> ScenarioReport:
        started = time.time()
        self.records.create_topics(self.scenario.topics)
        self._settle()
        results: list[StepResult] = []
        for step in self.scenario.steps:
            result = self._step(step)
            results.append(result)
        return ScenarioReport(self.scenario.name, self.scenario.title, started, time.time(), tuple(results))

    def close(self) -> None:
        self.consumers.close()
        self.records.close()

    # --- steps ------------------------------------------------------------------------------------------------------
    def _settle(self) -> None:
        """Until every partition of the scenario's topics has a leader and its full ISR (a lab just started)."""
        deadline = time.monotonic() + SETTLE_S
        wanted = {t.name: t for t in self.scenario.topics}
        while time.monotonic() < deadline:
            snap = self._snapshot()
            if snap is not None and all(
                (t := snap.topic(name)) is not None
                and len(t.partitions) == spec.partitions
                and all(_leader(p) is not None and len(p.isr) == spec.replication_factor for p in t.partitions)
                for name, spec in wanted.items()
            ):
                return
            time.sleep(POLL_INTERVAL_S)
        raise KafkatopError(f"the topics {', '.join(wanted)} did not get leaders and full ISRs in {SETTLE_S:g} s")

    def _step(self, step: Step) -> StepResult:
        before = self._snapshot()
        at = time.time()
        node: str | None = None
        error: str | None = None
        self.say(f"step {step.number}: {step.describe()}" + (f" — {step.say}" if step.say else ""))
        try:
            if step.node is not None:
                node = self._node(before, step)
                self.say(f"  {step.action} {node}")
                getattr(self.control, step.action)(node)
                if step.action == "start":
                    self._down = [n for n in self._down if n != node]
                else:
                    self._down.append(node)
            elif step.action == "produce":
                assert step.topic is not None
                acked, failed = self.records.produce(step.topic, step.count)
                self.say(f"  {acked} acknowledged, {failed} refused")
            elif step.action == "consume":
                assert step.topic is not None and step.group is not None
                names = [
                    self.consumers.start([step.topic], step.group, from_beginning=True) for _ in range(step.members)
                ]
                self._members.setdefault(step.group, []).extend(names)
                self._group_topics.setdefault(step.group, set()).add(step.topic)
                self.say(f"  {', '.join(names)} started in group {step.group}")
            elif step.action == "stop-consumer":
                assert step.group is not None
                running = self._members.get(step.group) or []
                if not running:
                    raise KafkatopError(f"no consumer of this run is in group {step.group}")
                name = running.pop()
                self.consumers.stop(name)
                self.say(f"  {name} stopped")
            elif step.action == "wait":
                time.sleep(step.seconds)
        except KafkatopError as e:
            error = str(e)
            self.say(f"  ✗ {error}")
        expects = tuple(self._watch(e, at, before) for e in step.expect) if error is None else ()
        return StepResult(step.number, step.describe(), node, at, error, expects)

    def _node(self, snap: ClusterSnapshot | None, step: Step) -> str:
        assert step.node is not None
        if step.node.name is not None:
            return step.node.name
        if step.node.down is not None:
            if not self._down:
                raise KafkatopError(f"no node of this run is down: {step.node.down} names none")
            return self._down[-1] if step.node.down == "last-down" else self._down[0]
        topic, number = step.node.leader_of or step.node.follower_of or ("", 0)
        p = _partition(snap, topic, number)
        leader = _leader(p)
        if step.node.follower_of is not None:
            followers = sorted(r for r in (p.isr if p is not None else ()) if r != leader)
            if not followers:
                raise KafkatopError(f"{topic}-{number} has no in-sync follower to {step.action}")
            return f"broker-{followers[0]}"
        if leader is None:
            raise KafkatopError(f"{topic}-{number} has no leader to {step.action}")
        return f"broker-{leader}"

    # --- expectations -----------------------------------------------------------------------------------------------
    def _watch(self, e: Expectation, since: float, before: ClusterSnapshot | None) -> ExpectResult:
        deadline = since + e.within_s
        seen = "nothing yet (no poll answered)"
        known = False  # a poll answered: while every broker is down, none does (neither does kafka-topics.sh)
        while True:
            met, seen = self._check(e, before, seen)
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
            time.sleep(min(POLL_INTERVAL_S, max(0.0, deadline - now)))

    def _check(self, e: Expectation, before: ClusterSnapshot | None, seen: str) -> tuple[bool | None, str]:
        """Whether it holds now, and what was seen; None: not known (no poll answered, the partition not in it)."""
        if e.what == "acked-read-back":
            assert e.topic is not None
            try:
                missing, acked = self.records.read_back(e.topic)
            except KafkatopError as error:
                return False, str(error)
            return missing == 0, f"{acked - missing} of {acked} acknowledged records read back"
        snap = self._snapshot()
        if snap is None:
            return None, seen
        if e.what == "group":
            return self._group(snap, e)
        assert e.partition is not None
        p = _partition(snap, *e.partition)
        if p is None:
            return None, f"{e.partition[0]}-{e.partition[1]} not in the metadata (no broker answered?)"
        if e.what == "isr":
            return len(p.isr) == e.size, f"ISR {','.join(map(str, p.isr)) or 'empty'} ({len(p.isr)})"
        if e.what in ("elr", "last-known-elr"):
            name, members = ("ELR", p.elr) if e.what == "elr" else ("LastKnownElr", p.last_known_elr)
            if members is None:
                return False, f"{name} not read (a cluster without KIP-966, or a poll without DescribeTopicPartitions)"
            return len(members) == e.size, f"{name} {','.join(map(str, members)) or 'empty'} ({len(members)})"
        now = _leader(p)
        said = "none (-1)" if now is None else str(now)
        if e.leader == "none":
            return now is None, f"leader {said}"
        if e.leader == "changed":
            old = _leader(_partition(before, *e.partition))
            return now is not None and now != old, f"leader {said} (was {'none (-1)' if old is None else old})"
        return str(now) == e.leader, f"leader {said}"

    def _group(self, snap: ClusterSnapshot, e: Expectation) -> tuple[bool, str]:
        """Its members, and whether they share every partition of the topics this run's consumers read in it."""
        group = next((g for g in snap.groups if g.group_id == e.group), None)
        if group is None:
            return False, f"no group {e.group} in the poll"
        topics = self._group_topics.get(e.group or "", set())
        wanted = {(t, p.id) for t in topics if (found := snap.topic(t)) is not None for p in found.partitions}
        held = {(tp.topic, tp.partition) for m in group.members for tp in m.assignment}
        seen = f"{len(group.members)} member(s), {len(held & wanted)} of {len(wanted)} partitions assigned"
        return len(group.members) == e.members and (not e.members or wanted <= held), f"{seen} ({group.state})"

    def _snapshot(self) -> ClusterSnapshot | None:
        try:
            return self.poll()
        except KafkatopError:
            return None


def _partition(snap: ClusterSnapshot | None, topic: str, number: int) -> Partition | None:
    t = snap.topic(topic) if snap is not None else None
    return next((p for p in t.partitions if p.id == number), None) if t is not None else None


def _leader(p: Partition | None) -> int | None:
    """The partition's leader; None when it has none (Kafka's -1: every replica that may lead is down)."""
    return p.leader if p is not None and p.leader is not None and p.leader >= 0 else None
