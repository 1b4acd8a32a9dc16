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
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import KafkaException

from kafkatop.backends.checks.chaos.clients import (
    WAIT_STEP_S,
    AdminFactory,
    ClusterSource,
    GroupConsumer,
    SequencedProducer,
    ViewPoller,
    jvms_under,
    read_range,
)
from kafkatop.backends.checks.chaos.verdict import (
    check_chaos_topic,
    choose_step,
    cluster_state,
    expected_alive,
    judge,
    lab_orphans,
    leader_moves,
    polls_to_converge,
    records_in_range,
    safe_max_down,
    targets_of,
    unsettled_reason,
)
from kafkatop.backends.checks.durability.verdict import acked_ends, verify
from kafkatop.backends.kafka.admin import AdminSource
from kafkatop.backends.kafka.errors import describe_error
from kafkatop.backends.lab.control import LabControl
from kafkatop.backends.lab.runner import NodeStartError
from kafkatop.backends.model.chaos import (
    Action,
    ChaosError,
    ChaosEvent,
    ChaosRefused,
    ChaosReport,
    ChaosSettings,
    ChaosStep,
    ClusterState,
    PlannedStep,
    RecordedNode,
    TargetNode,
)
from kafkatop.backends.model.cluster import NO_LEADER, ClusterSnapshot, Topic
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.consoles import ProducerSettings
from kafkatop.backends.model.durability import RecordDelivery, total
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.nodes import NodesSnapshot, NodeState
from kafkatop.backends.ports import NodeControl

# A control action bounds itself (a lab start waits up to 120 s for the node to serve, a stop 30 s before SIGKILL);
# this only backstops it.
ACTION_WAIT_S = 180.0
# View polls measured after the cluster settled before the view is said never to have shown it.
CONVERGE_POLLS_MAX = 5
ASSIGN_WAIT_S = 30.0  # for the consumer's first assignment before the first step


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text


# --- the run --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Plan:
    """What the preflight found."""

    topic: Topic
    starts: dict[int, int]
    safe: int
    safe_reason: str
    title: str
    kind: str
    notes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Settled:
    state: ClusterState
    since: float  # time.monotonic() when the first of the two equal reads ended
    view_index: int  # the view's poll count then: every view poll started since has at least this index


@dataclass
class _Clients:
    producer: SequencedProducer | None = None
    consumer: GroupConsumer | None = None
    view: ViewPoller | None = None
    extra: list[str] = field(default_factory=list)


class ChaosRun:
    """One chaos run against a cluster. `run()` blocks (minutes): call it from a worker thread or the command line.

    `control` performs the steps (LabControl, or DemoControl for the demo); `admin_factory` makes the AdminSources:
    the view's long-lived one and a fresh one for each settling. `on_event` is called from the thread that runs
    the run. `cancel()`, from any thread, cuts the step under way short; the nodes that are down are started again
    and the report says the run is incomplete.

    On the demo, DemoControl must know the run's group (DemoCluster.groups) to move its coordinator off a broker
    that goes down, as Kafka does; the mock alone keeps it on the dead broker.
    """

    def __init__(
        self,
        control: NodeControl,
        connection: KafkaConnection,
        settings: ChaosSettings,
        *,
        admin_factory: AdminFactory | None = None,
        on_event: Callable[[ChaosEvent], None] | None = None,
    ) -> None:
        self.control = control
        self.connection = connection
        self.bootstrap_servers = connection.bootstrap_servers
        self.settings = settings
        self._admin_factory = admin_factory or self._default_admin
        self._on_event = on_event
        self._cancelled = threading.Event()
        self._actions: ThreadPoolExecutor | None = None
        self._check_isr = True
        self._clients = _Clients()

    def _default_admin(self, connection: KafkaConnection) -> ClusterSource:
        return AdminSource(connection, timeout_s=self.settings.view_timeout_s)

    def cancel(self) -> None:
        self._cancelled.set()

    def _emit(self, text: str, step: ChaosStep | None = None) -> None:
        if self._on_event is not None:
            self._on_event(ChaosEvent(time.time(), text, step))

    # --- plumbing ------------------------------------------------------------------------------------------------
    def _config(self, client_id: str) -> dict[str, Any]:
        config = self.connection.config(client_id)
        # librdkafka backs reconnects off up to 10 s: a broker back from the dead would stay dark that long.
        config.setdefault("reconnect.backoff.max.ms", 1000)
        return config

    def _nodes(self) -> NodesSnapshot | None:
        try:
            return self.control.poll()
        except Exception:  # noqa: BLE001 - an unreadable node list is "nothing to expect yet", never a crash
            return None

    def _read(self, source: ClusterSource) -> tuple[ClusterSnapshot | None, str | None]:
        try:
            return source.poll(), None
        except KafkatopError as e:
            return None, str(e)
        except Exception as e:  # noqa: BLE001 - a read that fails is not a settled cluster; said, not raised
            return None, f"{type(e).__name__}: {e}"

    def _wait(self, seconds: float) -> bool:
        """Sleeps, unless cancelled first (True)."""
        return self._cancelled.wait(max(0.0, seconds))

    def _act(self, action: Action, node: str) -> str | None:
        """Performs the action; its error as one line (None: done). A bug in a control is an error, not a crash."""
        if self._actions is None:
            self._actions = ThreadPoolExecutor(1, thread_name_prefix="kafkatop-chaos-action")
        future = self._actions.submit(getattr(self.control, action), node)
        try:
            future.result(timeout=ACTION_WAIT_S)
        except FutureTimeout:
            return f"{action} {node} did not return within {ACTION_WAIT_S:g} s"
        except NodeStartError as e:
            return f"{e.node} {e.reason}"  # without the log tail: the node's log has it
        except KafkatopError as e:
            return _first_line(str(e))
        except Exception as e:  # noqa: BLE001 - see above
            return f"{type(e).__name__}: {e}"
        return None

    # --- preflight -----------------------------------------------------------------------------------------------
    def preflight(self) -> _Plan:
        """The topic and the nodes, or ChaosRefused before anything is touched; SourceUnavailable when the cluster
        does not answer."""
        s = self.settings
        source = self._admin_factory(self.connection)
        try:
            snapshot = source.poll()
            topic = check_chaos_topic(snapshot, s.topic)
            for _ in range(5):  # a partition whose leader has just moved may lack its watermark for a poll
                if all(p.high_watermark is not None for p in topic.partitions):
                    break
                self._wait(s.poll_interval_s)
                topic = check_chaos_topic(source.poll(), s.topic)
        finally:
            source.close()
        missing = [p.id for p in topic.partitions if p.high_watermark is None]
        if missing:
            raise ChaosError(f"cannot read the end offsets of {s.topic}-{missing[0]}: check that its leader is up")
        nodes = self.control.poll()
        if nodes.kind == "attach":
            raise ChaosRefused(
                "kafkatop can kill and stop the brokers of a cluster it did not start, but not start them again, "
                "and a chaos run must: run it on a lab cluster (kafkatop up)"
            )
        targets = targets_of(nodes)
        if not targets:
            raise ChaosRefused("kafkatop controls no broker of this cluster: run the chaos on a lab cluster")
        rf = topic.replication_factor
        safe, why = safe_max_down(rf, topic.min_insync_replicas, nodes)
        notes: list[str] = []
        if s.max_down > safe:
            notes.append(
                f"max-down {s.max_down} is above the safe {safe} ({why}): with that many brokers down, acks=all "
                "writes fail (NOT_ENOUGH_REPLICAS) or the KRaft quorum is lost; failed records are counted, and "
                "none acknowledged may be lost"
            )
        if s.max_down >= len(targets):
            notes.append(
                f"max-down {s.max_down} lets every broker be down at once: the cluster is then unavailable, and the "
                "producer's records wait (failing after the delivery timeout)"
            )
        if "start" not in s.actions:
            notes.append("start is not among the actions: a down node is started only when no other step is possible")
        self._check_isr = nodes.kind != "demo"
        if not self._check_isr:
            notes.append("the librdkafka mock reports ISR = replicas: ISRs are compared, but not waited for")
        starts = {p.id: int(p.high_watermark or 0) for p in topic.partitions}
        return _Plan(topic, starts, safe, why, nodes.title, nodes.kind, tuple(notes))

    # --- settling and convergence ---------------------------------------------------------------------------------
    def _settle(self, deadline: float) -> tuple[_Settled | None, str]:
        """Reads the cluster with a fresh AdminSource until it is as the nodes' states say and the same twice in a
        row; (None, why not) at the deadline."""
        source = self._admin_factory(self.connection)
        gap = max(0.1, self.settings.poll_interval_s)
        why = "not read yet"
        first: _Settled | None = None
        try:
            while True:
                nodes = self._nodes()
                snapshot, reason = self._read(source)
                ended = time.monotonic()
                expected = None if nodes is None else expected_alive(nodes)
                not_yet = unsettled_reason(snapshot, expected, check_isr=self._check_isr)
                if not_yet is None:
                    state = cluster_state(snapshot, nodes, reason)
                    if first is not None and first.state == state:
                        return first, ""
                    view = self._clients.view
                    first = _Settled(state, ended, 0 if view is None else view.count)
                else:
                    first, why = None, not_yet
                    if snapshot is None and reason is not None and not_yet == "no metadata":
                        why = reason
                if ended >= deadline:
                    return None, why if first is None else "it changed between reads"
                if self._wait(gap):
                    return None, "cancelled"
        finally:
            source.close()

    def _converge(self, settled: _Settled) -> int | None:
        """View polls started after the cluster settled, up to the first that shows it (None: none within
        CONVERGE_POLLS_MAX)."""
        view = self._clients.view
        assert view is not None
        s = self.settings
        limit = time.monotonic() + CONVERGE_POLLS_MAX * (s.poll_interval_s + s.view_timeout_s) + 1.0
        while True:
            polls = [p for p in view.polls(settled.view_index) if p.started_at >= settled.since]
            found = polls_to_converge(polls, settled.state, settled.since)
            if found is not None:
                return found
            if len(polls) >= CONVERGE_POLLS_MAX or time.monotonic() > limit or self._wait(WAIT_STEP_S):
                return None

    # --- one step ------------------------------------------------------------------------------------------------
    def _step(self, index: int, planned: PlannedStep) -> tuple[ChaosStep, list[str]]:
        s = self.settings
        clients = self._clients
        assert clients.view is not None and clients.producer is not None and clients.consumer is not None
        problems: list[str] = []
        first_poll = max(0, clients.view.count - 1)  # the last view before the step: the leaders it started from
        producer_errors, consumer_errors = clients.producer.errors, clients.consumer.errors
        forced = " (no other step possible)" if planned.forced else ""
        self._emit(f"step {index}/{s.steps}: {planned.action} {planned.node}{forced}")
        at = time.time()
        t0 = time.monotonic()
        error = self._act(planned.action, planned.node)
        acted = time.monotonic()
        note = None
        if error is not None:
            if planned.action in ("start", "restart"):
                note = f"{planned.node} never came back: {error}"
            else:
                note = f"{planned.action} {planned.node} failed: {error}"
            problems.append(f"step {index}: {note}")
        settled, why = self._settle(acted + s.step_timeout_s)
        polls = None
        alive: tuple[int, ...] = ()
        if settled is None:
            if why == "cancelled":
                pass
            elif planned.action in ("start", "restart") and error is None and "not registered" in why:
                note = f"{planned.node} never came back within {s.step_timeout_s:g} s ({why})"
                problems.append(f"step {index}: {note}")
            else:
                text = f"the cluster did not settle within {s.step_timeout_s:g} s after {planned.action} {planned.node}"
                note = f"{text} ({why})"
                problems.append(f"step {index}: {note}")
        else:
            polls = self._converge(settled)
            if polls is None and not self._cancelled.is_set():
                # The cluster may have moved on (a preferred leader election): measured once more, against the
                # state it settled into next.
                again, _ = self._settle(time.monotonic() + s.step_timeout_s)
                if again is not None and again.state != settled.state:
                    polls = self._converge(again)
                    settled = again
                    note = "the cluster changed again after it settled; measured against the state it reached next"
            alive = settled.state.brokers_alive
            if not settled.state.available:
                view_says = next(
                    (p.state.reason for p in reversed(clients.view.polls(first_poll)) if not p.state.available), None
                )
                note = (
                    "every broker is down: the cluster is unavailable"
                    + (f", as kafkatop says ({view_says.split('. ')[0]})" if view_says else "")
                    + "; the producer's records wait, and fail after the delivery timeout"
                )
        if settled is not None and s.hold_s:
            self._wait(s.hold_s)
        view_states = [p.state for p in clients.view.polls(first_poll)]
        step = ChaosStep(
            index=index,
            action=planned.action,
            node=planned.node,
            at=at,
            action_s=acted - t0,
            settled=settled is not None,
            settle_s=None if settled is None else max(0.0, settled.since - acted),
            polls_to_converge=polls,
            leader_moves=leader_moves(view_states, s.topic),
            producer_errors=clients.producer.errors - producer_errors,
            consumer_errors=clients.consumer.errors - consumer_errors,
            brokers_alive=alive,
            forced=planned.forced,
            error=error,
            note=note,
        )
        self._emit(describe_step(step), step)
        return step, problems

    # --- the ending ----------------------------------------------------------------------------------------------
    def _start_down_nodes(self, problems: list[str], deadline_s: float = 60.0) -> None:
        """Every broker node that is down is started again (a node starting or stopping is waited for first)."""
        deadline = time.monotonic() + deadline_s
        while True:
            nodes = self._nodes()
            targets: Sequence[TargetNode] = () if nodes is None else targets_of(nodes)
            if not any(t.state is NodeState.STOPPING for t in targets) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        for t in targets:
            if t.down:
                self._emit(f"ending: start {t.name}")
                error = self._act("start", t.name)
                if error is not None:
                    problems.append(f"{t.name} could not be started at the end: {error}")

    def _wait_in_sync(self, problems: list[str]) -> None:
        """Until every partition of the topic has a leader and (where Kafka reports one) a full ISR."""
        s = self.settings
        self._emit("ending: waiting for every partition to be led, with a full ISR")
        source = self._admin_factory(self.connection)
        deadline = time.monotonic() + s.isr_timeout_s
        short = "no metadata"
        try:
            while True:
                snapshot, reason = self._read(source)
                topic = None if snapshot is None else snapshot.topic(s.topic)
                if topic is not None:
                    lacking = [
                        p
                        for p in topic.partitions
                        if p.leader == NO_LEADER or (self._check_isr and set(p.isr) != set(p.replicas))
                    ]
                    if not lacking:
                        return
                    short = ", ".join(f"{s.topic}-{p.id} leader {p.leader} ISR {list(p.isr)}" for p in lacking)
                elif reason is not None:
                    short = reason
                if time.monotonic() >= deadline:
                    problems.append(
                        f"not every partition was led with a full ISR within {s.isr_timeout_s:g} s: {short}"
                    )
                    return
                time.sleep(0.2)
        finally:
            source.close()

    def _end_offsets(self, partitions: Sequence[int]) -> dict[int, int] | None:
        s = self.settings
        source = self._admin_factory(self.connection)
        deadline = time.monotonic() + s.read_timeout_s
        try:
            while True:
                snapshot, _ = self._read(source)
                topic = None if snapshot is None else snapshot.topic(s.topic)
                if topic is not None:
                    ends = {p.id: p.high_watermark for p in topic.partitions}
                    if all(ends.get(p) is not None for p in partitions):
                        return {p: int(ends[p] or 0) for p in partitions}
                if time.monotonic() >= deadline:
                    return None
                time.sleep(0.2)
        finally:
            source.close()

    def _read_back(
        self, run_id: str, starts: Mapping[int, int], ends: Mapping[int, int], problems: list[str]
    ) -> tuple[bool, dict[tuple[int, int], int | None]]:
        """Waits for the group's consumer to reach `ends`; what it has not read by the read timeout, a fresh
        consumer reads. (Whether every partition was read to its end, the records by offset.)"""
        s = self.settings
        consumer = self._clients.consumer
        assert consumer is not None
        deadline = time.monotonic() + s.read_timeout_s
        while True:
            positions = consumer.positions()
            short = {p: positions.get(p, 0) for p, end in ends.items() if positions.get(p, 0) < end}
            if not short or time.monotonic() >= deadline:
                break
            time.sleep(WAIT_STEP_S)
        by_offset = consumer.read_by_offset()
        if not short:
            return True, by_offset
        where = ", ".join(f"{s.topic}-{p} at {at} of {ends[p]}" for p, at in sorted(short.items()))
        self._emit(f"ending: the group's consumer stopped short ({where}); a fresh consumer reads the rest")
        try:
            rest, reached = read_range(
                self._config("kafkatop-chaos"), s.topic, run_id, short, {p: ends[p] for p in short}, s.read_timeout_s
            )
        except (KafkaException, ValueError, TypeError) as e:
            rest, reached = {}, dict(short)
            where += f"; the fresh consumer failed: {describe_error(e)}"
        by_offset.update(rest)
        missing = [f"{s.topic}-{p} at {reached.get(p, 0)} of {ends[p]}" for p in short if reached.get(p, 0) < ends[p]]
        text = f"the group's consumer did not reach the end within {s.read_timeout_s:g} s ({where}): a fresh consumer "
        problems.append(text + ("read the rest" if not missing else f"did not read it all ({', '.join(missing)})"))
        return not missing, by_offset

    def _orphans(self, kind: str) -> tuple[tuple[str, ...] | None, str]:
        if not isinstance(self.control, LabControl):
            where = "the demo's brokers are mock brokers inside this process" if kind == "demo" else "not a lab"
            return None, f"not applicable: {where}"
        try:
            snapshot = self.control.cluster.refresh()
        except KafkatopError as e:  # the state file unreadable now: said, not raised
            return None, f"could not be checked: {e}"
        nodes = [RecordedNode(n.name, n.state, n.pid) for n in snapshot.nodes]
        jvms = jvms_under(snapshot.state_dir)
        found = lab_orphans(nodes, jvms, snapshot.state_dir)
        return found, f"{len(nodes)} recorded nodes and {len(jvms)} JVMs running from {snapshot.state_dir} checked"

    def _stop_clients(self, flush_s: float) -> list[RecordDelivery]:
        clients, problems = self._clients, self._clients.extra
        deliveries: list[RecordDelivery] = []
        if clients.producer is not None and not clients.producer.stop(flush_s):
            problems.append("the producer did not stop in time: its last deliveries count as failed")
        if clients.producer is not None:
            deliveries = clients.producer.deliveries()
        if clients.consumer is not None and not clients.consumer.stop():
            problems.append("the consumer did not close in time (its group coordinator may be down)")
        if clients.view is not None:
            clients.view.stop()
        return deliveries

    # --- the whole run ---------------------------------------------------------------------------------------------
    def run(self) -> ChaosReport:
        """Preflight (ChaosRefused before anything is touched), the steps, the ending, the report. A failure or an
        interrupt on the way still starts the nodes that are down, and stops the clients, before it is raised."""
        s = self.settings
        started = time.time()
        plan = self.preflight()
        seed = s.seed if s.seed is not None else secrets.randbelow(2**31)
        rng = random.Random(seed)
        run_id = secrets.token_hex(4)
        partitions = [p.id for p in plan.topic.partitions]
        self._emit(
            f"chaos on {plan.title}: {s.steps} steps, seed {seed}, actions {','.join(s.actions)}, max-down "
            f"{s.max_down} (safe: {plan.safe}: {plan.safe_reason}), '{s.topic}' at {s.rate:g} records/s"
        )
        for note in plan.notes:
            self._emit(f"note: {note}")
        problems: list[str] = []
        steps: list[ChaosStep] = []
        try:
            self._start_clients(run_id, plan)
            problems += self._begin()
            deadline = time.monotonic() + s.total_timeout_s
            for index in range(1, s.steps + 1):
                if self._cancelled.is_set():
                    break
                if time.monotonic() > deadline:
                    problems.append(
                        f"time limit of {s.total_timeout_s:g} s reached after {index - 1} of {s.steps} steps"
                    )
                    break
                nodes = self._nodes()
                planned = None if nodes is None else choose_step(rng, targets_of(nodes), s.actions, s.max_down)
                if planned is None:
                    problems.append(f"step {index}: no step possible (every broker node is starting or stopping)")
                    self._wait(s.poll_interval_s)
                    continue
                step, found = self._step(index, planned)
                steps.append(step)
                problems += found
            self._start_down_nodes(problems)
            self._wait_in_sync(problems)
            self._emit("ending: stopping the producer, reading to the end")
            producer = self._clients.producer
            assert producer is not None
            producer.stop(s.delivery_timeout_s)
            ends = self._end_offsets(partitions)
            if ends is None:
                ends = acked_ends(producer.deliveries(), plan.starts)
                problems.append(
                    f"the end offsets of '{s.topic}' could not be read within {s.read_timeout_s:g} s: read up to each "
                    "partition's last acknowledged offset instead"
                )
            read_complete, by_offset = self._read_back(run_id, plan.starts, ends, problems)
            deliveries = self._stop_clients(flush_s=s.delivery_timeout_s)
            problems += self._clients.extra
            read = records_in_range(by_offset, plan.starts, ends)
            rows = verify(deliveries, read, partitions, plan.starts, ends)
            consumer = self._clients.consumer
            assert consumer is not None
            consumed = len(records_in_range(consumer.read_by_offset(), plan.starts, ends))
            view = self._clients.view
            assert view is not None
            problems += [f"kafkatop's view: {e}" for e in view.errors[:5]]
            self._shutdown_actions()
            self._emit("ending: looking for orphan processes")
            orphans, orphans_note = self._orphans(plan.kind)
            if producer.halted is not None:
                problems.insert(0, producer.halted)
            verdict, text = judge(
                steps,
                total(rows),
                planned=s.steps,
                read_complete=read_complete,
                orphans=orphans,
                view_errors=len(view.errors),
                cancelled=self._cancelled.is_set(),
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
                cancelled=self._cancelled.is_set(),
                verdict=verdict,
                verdict_text=text,
                notes=plan.notes,
                problems=tuple(problems),
            )
        except BaseException:
            self._cancelled.set()
            try:
                self._start_down_nodes([], deadline_s=30.0)
            finally:
                self._stop_clients(flush_s=2.0)
                self._shutdown_actions()
            raise
        return report

    def _start_clients(self, run_id: str, plan: _Plan) -> None:
        s = self.settings
        config = self._config("kafkatop-chaos")
        config.update(ProducerSettings(acks="all", idempotence=True).producer_config())
        config["message.timeout.ms"] = int(s.delivery_timeout_s * 1000)
        consumer_config = self._config("kafkatop-chaos")
        consumer_config.update(
            {
                "group.id": s.group,
                "auto.offset.reset": "earliest",
                "enable.auto.commit": True,  # so that kafkatop's view shows the group's lag
                "enable.partition.eof": False,
                "isolation.level": "read_uncommitted",
            }
        )
        source = self._admin_factory(self.connection)
        try:
            consumer = GroupConsumer(consumer_config, s.topic, run_id, plan.starts)
            producer = SequencedProducer(config, s.topic, len(plan.topic.partitions), run_id, s.rate,
                                          s.delivery_timeout_s)  # fmt: skip
        except (KafkaException, ValueError, TypeError) as e:
            source.close()
            raise ChaosRefused(f"invalid client configuration: {self.connection.redact(describe_error(e))}") from None
        self._clients.view = ViewPoller(source, self.control, s.poll_interval_s)
        self._clients.consumer, self._clients.producer = consumer, producer
        self._clients.view.start()
        self._clients.consumer.start()
        self._clients.producer.start()

    def _begin(self) -> list[str]:
        """Before the first step: the consumer in its group, and the cluster settled."""
        s = self.settings
        consumer = self._clients.consumer
        assert consumer is not None
        problems = []
        self._emit(f"waiting for the consumer to join group '{s.group}' and the cluster to settle")
        deadline = time.monotonic() + min(ASSIGN_WAIT_S, s.step_timeout_s)
        while not consumer.assigned.is_set() and time.monotonic() < deadline and not self._wait(WAIT_STEP_S):
            pass
        if not consumer.assigned.is_set() and not self._cancelled.is_set():
            problems.append(
                f"the consumer had no assignment in group '{s.group}' before the first step (a member of an earlier "
                "run that did not leave holds the join until its session times out)"
            )
        settled, why = self._settle(time.monotonic() + s.step_timeout_s)
        if settled is None and why != "cancelled":
            problems.append(f"the cluster had not settled before the first step: {why}")
        return problems

    def _shutdown_actions(self) -> None:
        if self._actions is not None:
            self._actions.shutdown(wait=False, cancel_futures=True)
            self._actions = None


def describe_step(step: ChaosStep) -> str:
    """One line for a finished step."""
    head = f"step {step.index}: {step.action} {step.node}"
    if not step.settled:
        return f"{head}: {step.note or 'did not settle'}"
    polls = "never" if step.polls_to_converge is None else f"{step.polls_to_converge}"
    text = (
        f"{head}: settled after {step.settle_s or 0:.1f} s, view converged within {polls} poll"
        f"{'' if step.polls_to_converge == 1 else 's'}{'' if step.converged else ' (more than 2)'}, "
        f"{step.leader_moves} leader move{'' if step.leader_moves == 1 else 's'}, "
        f"{step.producer_errors} producer / {step.consumer_errors} consumer errors"
    )
    return f"{text}; {step.note}" if step.note else text

