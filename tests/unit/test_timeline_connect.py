"""Kafka Connect on the failover timeline (backends/insight/timeline/connect.py), fed with snapshots built from the
REST answers recorded on a real Kafka 4.1 lab (tests/fixtures/connect/) and changed by hand: a worker killed, its
tasks waiting, RUNNING again on the other worker, the worker back; no clock, no network."""

from __future__ import annotations

from dataclasses import replace

from kafkatop.backends.insight.timeline.model import EventKind, TimelineEvent, Trigger
from kafkatop.backends.insight.timeline.timeline import Timeline
from kafkatop.backends.model.connect import ConnectSnapshot, ConnectTask
from kafkatop.backends.model.nodes import NodesSnapshot, NodeState, NodeView, ProcessRole
from tests.fixtures.connect_views import WORKER_IDS, connect_snapshot, unreachable, workers

T0 = 1_700_000_000.0
W1, W2 = WORKER_IDS  # lines-in runs on W1, lines-out's two tasks on W2, broken-sink's failed task on W1


def lab_nodes(at: float, connect_2: NodeState = NodeState.UP, pid: int = 4202) -> NodesSnapshot:
    """A lab's two Connect workers, serving their REST API on the recorded workers' ports."""
    views = tuple(
        NodeView(f"connect-{i}", ProcessRole.CONNECT, None, state, p if state is NodeState.UP else None, (port,),
                 None, None, 10.0, None)
        for i, state, p, port in ((1, NodeState.UP, 4201, 24480), (2, connect_2, pid, 24481))
    )  # fmt: skip
    return NodesSnapshot(at, "lab", "lab", views, True)


def polled(at: float, *, down: tuple[str, ...] = (), moved: dict[str, str] | None = None) -> ConnectSnapshot:
    """The recorded snapshot at `at`: the workers in `down` not answering, tasks (`lines-out/0`) moved to a worker."""
    base = connect_snapshot(at=at)
    moved = moved or {}
    connectors = tuple(
        replace(
            c, tasks=tuple(replace(t, worker_id=moved.get(f"{t.connector}/{t.task}", t.worker_id)) for t in c.tasks)
        )
        for c in base.connectors
    )
    return ConnectSnapshot(at, workers(down), connectors)


def events(timeline: Timeline, kind: EventKind) -> list[TimelineEvent]:
    return [e for e in timeline.snapshot().events if e.kind is kind]


def test_the_first_poll_is_a_baseline_and_an_unchanged_one_says_nothing() -> None:
    timeline = Timeline()
    timeline.observe_connect(polled(T0))
    timeline.observe_connect(polled(T0 + 2))
    assert timeline.snapshot().events == ()


def test_a_killed_worker_its_tasks_waiting_then_running_on_the_other_worker_with_times() -> None:
    timeline = Timeline()
    timeline.observe_nodes(lab_nodes(T0))
    timeline.observe_connect(polled(T0))
    timeline.record_action("kill", "connect-2", T0 + 1)
    timeline.observe_nodes(lab_nodes(T0 + 1.5, NodeState.KILLED))
    timeline.observe_connect(polled(T0 + 2, down=(W2,)))
    timeline.observe_connect(polled(T0 + 4, down=(W2,)))  # the status still says RUNNING on the dead worker
    both = {"lines-out/0": W1, "lines-out/1": W1}
    timeline.observe_connect(polled(T0 + 27, down=(W2,), moved={"lines-out/0": W1}))
    timeline.observe_connect(polled(T0 + 29, down=(W2,), moved=both))

    (lost,) = events(timeline, EventKind.WORKER_LOST)
    assert lost.node == "connect-2" and lost.at == T0 + 2
    assert lost.text == (f"Connect worker {W2} did not answer (connection refused: is the worker down?); it ran 2 "
                         "task(s) (lines-out/0, lines-out/1)")  # fmt: skip
    (waiting,) = events(timeline, EventKind.TASKS_WAITING)
    assert waiting.at == T0 + 4 and waiting.text.startswith(f"2 task(s) (lines-out/0, lines-out/1) of {W2} wait")
    assert "scheduled.rebalance.max.delay.ms" in waiting.text and "Kafka's default is 5 min" in waiting.text
    assert "unless the lost worker led the group" in waiting.text
    moves = events(timeline, EventKind.TASK_MOVED)
    assert [(e.at, e.text) for e in moves] == [
        (T0 + 27, f"lines-out/0 RUNNING again on {W1}, 25.0 s after {W2} was lost"),
        (T0 + 29, f"lines-out/1 RUNNING again on {W1}, 27.0 s after {W2} was lost"),
    ]
    (incident,) = timeline.snapshot().incidents
    assert incident.trigger is Trigger.KILL and incident.title == "kill -9 connect-2" and incident.open
    steps = [(s.event.kind, s.since_start_s) for s in incident.steps]
    assert steps == [
        (EventKind.ACTION, 0.0), (EventKind.PROCESS_GONE, 0.5), (EventKind.WORKER_LOST, 1.0),
        (EventKind.TASKS_WAITING, 3.0), (EventKind.TASK_MOVED, 26.0), (EventKind.TASK_MOVED, 28.0),
    ]  # fmt: skip


def test_the_worker_back_ends_the_incident_once_every_task_runs() -> None:
    timeline = Timeline()
    timeline.observe_nodes(lab_nodes(T0))
    timeline.observe_connect(polled(T0))
    timeline.record_action("kill", "connect-2", T0 + 1)
    timeline.observe_nodes(lab_nodes(T0 + 2, NodeState.KILLED))
    timeline.observe_connect(polled(T0 + 2, down=(W2,)))
    both = {"lines-out/0": W1, "lines-out/1": W1}
    timeline.observe_connect(polled(T0 + 30, down=(W2,), moved=both))
    assert timeline.snapshot().incidents[-1].open  # the worker's process is still down
    timeline.observe_nodes(lab_nodes(T0 + 40, NodeState.UP, pid=4300))
    timeline.observe_connect(polled(T0 + 41, moved=both))

    (back,) = events(timeline, EventKind.WORKER_BACK)
    assert (
        back.node == "connect-2"
        and back.text == f"Connect worker {W2} answers again (Kafka Connect 4.1.0), 39.0 s after it was lost"
    )
    incident = timeline.snapshot().incidents[-1]
    assert incident.recovered and incident.steps[-1].event.kind is EventKind.RECOVERED


def test_a_worker_of_an_attached_connect_lost_opens_an_incident_of_its_own() -> None:
    """No process panes (an attached Connect cluster): the loss is seen by the REST API alone."""
    timeline = Timeline()
    timeline.observe_connect(polled(T0))
    timeline.observe_connect(polled(T0 + 2, down=(W1,)))
    (incident,) = timeline.snapshot().incidents
    assert incident.trigger is Trigger.WORKER_LOST and not incident.announced
    assert (
        incident.title == f"{W1} lost"
        and "it ran 2 task(s) (broken-sink/0, lines-in/0)" in incident.steps[0].event.text
    )


def test_a_poll_no_worker_answered_deletes_no_connector() -> None:
    timeline = Timeline()
    timeline.observe_connect(polled(T0))
    timeline.observe_connect(unreachable(T0 + 2))
    assert events(timeline, EventKind.CONNECTOR_CHANGED) == []
    assert [e.node for e in events(timeline, EventKind.WORKER_LOST)] == [W1, W2]
    timeline.observe_connect(polled(T0 + 4))  # both back, the connectors as they were: no connector changed either
    assert events(timeline, EventKind.CONNECTOR_CHANGED) == []
    assert len(events(timeline, EventKind.WORKER_BACK)) == 2


def test_connectors_created_deleted_and_changing_state_and_a_task_failing_with_its_trace() -> None:
    timeline = Timeline()
    first = polled(T0)
    timeline.observe_connect(replace(first, connectors=first.connectors[1:]))  # before broken-sink was created
    timeline.observe_connect(polled(T0 + 2))
    paused = connect_snapshot("connectors_paused_stopped.json", at=T0 + 4)
    timeline.observe_connect(paused)
    timeline.observe_connect(replace(paused, taken_at=T0 + 6, connectors=paused.connectors[:2]))

    said = [e.text for e in events(timeline, EventKind.CONNECTOR_CHANGED)]
    assert said == [
        f"connector broken-sink created (sink, FileStreamSink) on {W1}: RUNNING",
        "connector lines-in RUNNING→STOPPED",
        "connector lines-out RUNNING→PAUSED",
        "connector lines-out deleted",
    ]
    tasks = [e.text for e in events(timeline, EventKind.TASK_STATE)]
    assert tasks == [f"lines-out/0 RUNNING→PAUSED on {W2}", f"lines-out/1 RUNNING→PAUSED on {W2}"]


def test_a_task_failing_says_the_first_line_of_its_trace_and_unassigned_tasks_keep_the_incident_open() -> None:
    timeline = Timeline()
    ok = polled(T0)
    broken = ok.connector("broken-sink")
    assert broken is not None
    running = replace(broken, tasks=(ConnectTask("broken-sink", 0, "RUNNING", W1),))
    timeline.observe_connect(replace(ok, connectors=(running, *ok.connectors[1:])))
    timeline.observe_connect(polled(T0 + 2))
    (failed,) = events(timeline, EventKind.TASK_STATE)
    trace = "org.apache.kafka.connect.errors.ConnectException: Couldn't find or create file '/nonexistent/dir/out.txt'"
    assert failed.text == f"broken-sink/0 RUNNING→FAILED on {W1}: {trace} for FileStreamSinkTask"
    unassigned = replace(broken, tasks=(ConnectTask("broken-sink", 0, "UNASSIGNED", W1),))
    timeline.observe_connect(replace(ok, taken_at=T0 + 4, connectors=(unassigned, *ok.connectors[1:])))
    assert events(timeline, EventKind.TASK_STATE)[-1].text == f"broken-sink/0 FAILED→UNASSIGNED on {W1}"


def test_an_older_poll_finishing_late_is_ignored() -> None:
    timeline = Timeline()
    timeline.observe_connect(polled(T0))
    timeline.observe_connect(polled(T0 + 4, down=(W2,)))
    timeline.observe_connect(polled(T0 + 2))  # taken before the loss: says nothing of a worker back
    assert events(timeline, EventKind.WORKER_BACK) == [] and len(events(timeline, EventKind.WORKER_LOST)) == 1
