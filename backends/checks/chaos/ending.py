"""The end of a chaos run: every broker started again, every partition led with its full ISR, the records read to the
end of each partition (by a fresh consumer where the group's stopped short), the clients stopped, and the lab looked
through for processes left behind."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from confluent_kafka import KafkaException

from kafkatop.backends.checks.chaos.clients import WAIT_STEP_S, jvms_under, read_range
from kafkatop.backends.checks.chaos.context import ChaosContext
from kafkatop.backends.checks.chaos.verdict import lab_orphans, targets_of
from kafkatop.backends.kafka.errors import describe_error
from kafkatop.backends.lab.control import LabControl
from kafkatop.backends.model.chaos import RecordedNode, TargetNode
from kafkatop.backends.model.cluster import NO_LEADER
from kafkatop.backends.model.durability import RecordDelivery
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.nodes import NodeState


# --- the ending ----------------------------------------------------------------------------------------------
def start_down_nodes(run: ChaosContext, problems: list[str], deadline_s: float = 60.0) -> None:
    """Every broker node that is down is started again (a node starting or stopping is waited for first)."""
    deadline = time.monotonic() + deadline_s
    while True:
        nodes = run.nodes()
        targets: Sequence[TargetNode] = () if nodes is None else targets_of(nodes)
        if not any(t.state is NodeState.STOPPING for t in targets) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    for t in targets:
        if t.down:
            run.emit(f"ending: start {t.name}")
            error = run.act("start", t.name)
            if error is not None:
                problems.append(f"{t.name} could not be started at the end: {error}")


def wait_in_sync(run: ChaosContext, problems: list[str]) -> None:
    """Until every partition of the topic has a leader and (where Kafka reports one) a full ISR."""
    s = run.settings
    run.emit("ending: waiting for every partition to be led, with a full ISR")
    source = run.admin_factory(run.connection)
    deadline = time.monotonic() + s.isr_timeout_s
    short = "no metadata"
    try:
        while True:
            snapshot, reason = run.read(source)
            topic = None if snapshot is None else snapshot.topic(s.topic)
            if topic is not None:
                lacking = [
                    p
                    for p in topic.partitions
                    if p.leader == NO_LEADER or (run.check_isr and set(p.isr) != set(p.replicas))
                ]
                if not lacking:
                    return
                short = ", ".join(f"{s.topic}-{p.id} leader {p.leader} ISR {list(p.isr)}" for p in lacking)
            elif reason is not None:
                short = reason
            if time.monotonic() >= deadline:
                problems.append(f"not every partition was led with a full ISR within {s.isr_timeout_s:g} s: {short}")
                return
            time.sleep(0.2)
    finally:
        source.close()


def end_offsets(run: ChaosContext, partitions: Sequence[int]) -> dict[int, int] | None:
    s = run.settings
    source = run.admin_factory(run.connection)
    deadline = time.monotonic() + s.read_timeout_s
    try:
        while True:
            snapshot, _ = run.read(source)
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


def read_back(
    run: ChaosContext, run_id: str, starts: Mapping[int, int], ends: Mapping[int, int], problems: list[str]
) -> tuple[bool, dict[tuple[int, int], int | None]]:
    """Waits for the group's consumer to reach `ends`; what it has not read by the read timeout, a fresh
    consumer reads. (Whether every partition was read to its end, the records by offset.)"""
    s = run.settings
    consumer = run.clients.consumer
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
    run.emit(f"ending: the group's consumer stopped short ({where}); a fresh consumer reads the rest")
    try:
        rest, reached = read_range(
            run.config("kafkatop-chaos"), s.topic, run_id, short, {p: ends[p] for p in short}, s.read_timeout_s
        )
    except (KafkaException, ValueError, TypeError) as e:
        rest, reached = {}, dict(short)
        where += f"; the fresh consumer failed: {describe_error(e)}"
    by_offset.update(rest)
    missing = [f"{s.topic}-{p} at {reached.get(p, 0)} of {ends[p]}" for p in short if reached.get(p, 0) < ends[p]]
    text = f"the group's consumer did not reach the end within {s.read_timeout_s:g} s ({where}): a fresh consumer "
    problems.append(text + ("read the rest" if not missing else f"did not read it all ({', '.join(missing)})"))
    return not missing, by_offset


def orphans(run: ChaosContext, kind: str) -> tuple[tuple[str, ...] | None, str]:
    if not isinstance(run.control, LabControl):
        where = "the demo's brokers are mock brokers inside this process" if kind == "demo" else "not a lab"
        return None, f"not applicable: {where}"
    try:
        snapshot = run.control.cluster.refresh()
    except KafkatopError as e:  # the state file unreadable now: said, not raised
        return None, f"could not be checked: {e}"
    nodes = [RecordedNode(n.name, n.state, n.pid) for n in snapshot.nodes]
    jvms = jvms_under(snapshot.state_dir)
    found = lab_orphans(nodes, jvms, snapshot.state_dir)
    return found, f"{len(nodes)} recorded nodes and {len(jvms)} JVMs running from {snapshot.state_dir} checked"


def stop_clients(run: ChaosContext, flush_s: float) -> list[RecordDelivery]:
    clients, problems = run.clients, run.clients.extra
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
