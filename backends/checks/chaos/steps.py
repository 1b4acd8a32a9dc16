"""A chaos run's steps: the clients started and the cluster settled before the first, then each step — the action,
the cluster settling after it, how many of kafkatop's polls it took to show it, what the clients met meanwhile."""

from __future__ import annotations

import time

from confluent_kafka import KafkaException

from kafkatop.backends.checks.chaos.clients import WAIT_STEP_S, GroupConsumer, SequencedProducer, ViewPoller
from kafkatop.backends.checks.chaos.context import ChaosContext
from kafkatop.backends.checks.chaos.preflight import Plan
from kafkatop.backends.checks.chaos.verdict import leader_moves
from kafkatop.backends.kafka.errors import describe_error
from kafkatop.backends.model.chaos import ChaosRefused, ChaosStep, PlannedStep
from kafkatop.backends.model.consoles import ProducerSettings

ASSIGN_WAIT_S = 30.0  # for the consumer's first assignment before the first step


def start_clients(run: ChaosContext, run_id: str, plan: Plan) -> None:
    s = run.settings
    config = run.config("kafkatop-chaos")
    config.update(ProducerSettings(acks="all", idempotence=True).producer_config())
    config["message.timeout.ms"] = int(s.delivery_timeout_s * 1000)
    consumer_config = run.config("kafkatop-chaos")
    consumer_config.update(
        {
            "group.id": s.group,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": True,  # so that kafkatop's view shows the group's lag
            "enable.partition.eof": False,
            "isolation.level": "read_uncommitted",
        }
    )
    source = run.admin_factory(run.connection)
    try:
        consumer = GroupConsumer(consumer_config, s.topic, run_id, plan.starts)
        producer = SequencedProducer(config, s.topic, len(plan.topic.partitions), run_id, s.rate,
                                      s.delivery_timeout_s)  # fmt: skip
    except (KafkaException, ValueError, TypeError) as e:
        source.close()
        raise ChaosRefused(f"invalid client configuration: {run.connection.redact(describe_error(e))}") from None
    run.clients.view = ViewPoller(source, run.control, s.poll_interval_s)
    run.clients.consumer, run.clients.producer = consumer, producer
    run.clients.view.start()
    run.clients.consumer.start()
    run.clients.producer.start()


def begin(run: ChaosContext) -> list[str]:
    """Before the first step: the consumer in its group, and the cluster settled."""
    s = run.settings
    consumer = run.clients.consumer
    assert consumer is not None
    problems = []
    run.emit(f"waiting for the consumer to join group '{s.group}' and the cluster to settle")
    deadline = time.monotonic() + min(ASSIGN_WAIT_S, s.step_timeout_s)
    while not consumer.assigned.is_set() and time.monotonic() < deadline and not run.wait(WAIT_STEP_S):
        pass
    if not consumer.assigned.is_set() and not run.cancelled.is_set():
        problems.append(
            f"the consumer had no assignment in group '{s.group}' before the first step (a member of an earlier "
            "run that did not leave holds the join until its session times out)"
        )
    settled, why = run.settle(time.monotonic() + s.step_timeout_s)
    if settled is None and why != "cancelled":
        problems.append(f"the cluster had not settled before the first step: {why}")
    return problems


# --- one step ------------------------------------------------------------------------------------------------
def take_step(run: ChaosContext, index: int, planned: PlannedStep) -> tuple[ChaosStep, list[str]]:
    s = run.settings
    clients = run.clients
    assert clients.view is not None and clients.producer is not None and clients.consumer is not None
    problems: list[str] = []
    first_poll = max(0, clients.view.count - 1)  # the last view before the step: the leaders it started from
    producer_errors, consumer_errors = clients.producer.errors, clients.consumer.errors
    forced = " (no other step possible)" if planned.forced else ""
    run.emit(f"step {index}/{s.steps}: {planned.action} {planned.node}{forced}")
    at = time.time()
    t0 = time.monotonic()
    error = run.act(planned.action, planned.node)
    acted = time.monotonic()
    note = None
    if error is not None:
        if planned.action in ("start", "restart"):
            note = f"{planned.node} never came back: {error}"
        else:
            note = f"{planned.action} {planned.node} failed: {error}"
        problems.append(f"step {index}: {note}")
    settled, why = run.settle(acted + s.step_timeout_s)
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
        polls = run.converge(settled)
        if polls is None and not run.cancelled.is_set():
            # The cluster may have moved on (a preferred leader election): measured once more, against the
            # state it settled into next.
            again, _ = run.settle(time.monotonic() + s.step_timeout_s)
            if again is not None and again.state != settled.state:
                polls = run.converge(again)
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
        run.wait(s.hold_s)
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
    run.emit(describe_step(step), step)
    return step, problems


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
