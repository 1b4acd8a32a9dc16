"""Lag status changes on the Timeline (backends/insight/timeline, fed by backends/insight/lag): a group that leaves OK
for STALL, STOP, REWIND or ERR while no incident is open opens one of its own, recovered once that group is OK; WARN
alone opens none; inside a kill -9's incident every change is one of its steps, and the kill's recovery is the
cluster's, not the group's."""

from __future__ import annotations

from kafkatop.backends.insight.timeline.model import EventKind, Trigger
from kafkatop.backends.insight.timeline.timeline import Timeline
from kafkatop.backends.model.lag import LagStatus, StatusChange
from kafkatop.backends.model.nodes import NodeState
from tests.unit.test_timeline import T0, baseline, nodes

OK, WARN, STALL, STOP = LagStatus.OK, LagStatus.WARN, LagStatus.STALL, LagStatus.STOP


def change(group: str, was: LagStatus, now: LagStatus, at: float) -> StatusChange:
    return StatusChange(group, was, now, T0 + at, f"{now} for a reason")


def test_a_group_behind_opens_its_own_incident_recovered_when_it_is_ok_again() -> None:
    timeline = Timeline()
    baseline(timeline)
    timeline.observe_lag([change("audit", OK, WARN, 5)])
    assert timeline.snapshot().incidents == ()  # WARN alone: a step of nothing
    timeline.observe_lag([change("billing", OK, STOP, 10)])
    timeline.observe_lag([change("audit", WARN, STALL, 20), change("audit", STALL, STOP, 21)])
    billing, incident = timeline.snapshot().incidents  # each group its own: billing's superseded, not recovered
    assert (billing.title, billing.ended_at, billing.recovered) == ("group billing behind", T0 + 20, False)
    assert (incident.trigger, incident.title, incident.started_at, incident.open) == (
        Trigger.GROUP_BEHIND, "group audit behind", T0 + 20, True,
    )  # fmt: skip
    assert [s.event.text for s in incident.steps] == [
        "group audit: WARN -> STALL (STALL for a reason)", "group audit: STALL -> STOP (STOP for a reason)",
    ]  # fmt: skip
    timeline.observe_lag([change("billing", STOP, OK, 30)])  # another group's recovery: not this incident's
    assert timeline.snapshot().incidents[-1].open
    timeline.observe_lag([change("audit", STOP, OK, 65)])
    incident = timeline.snapshot().incidents[-1]
    assert incident.recovered_after_s == 45.0 and not incident.open
    assert incident.steps[-1].event.kind is EventKind.RECOVERED
    assert incident.steps[-1].event.text == "recovered 45.0 s after: group audit OK again"


def test_inside_a_kill_its_groups_are_steps_and_the_cluster_decides_recovery() -> None:
    timeline = Timeline()
    baseline(timeline)
    timeline.record_action("kill", "broker-2", T0 + 1)
    timeline.observe_nodes(nodes(T0 + 1.2, {1: NodeState.UP, 2: NodeState.KILLED, 3: NodeState.UP}))
    timeline.observe_lag([change("audit", OK, STALL, 3), change("audit", STALL, OK, 8)])
    (incident,) = timeline.snapshot().incidents
    assert incident.trigger is Trigger.KILL and incident.open  # a group's OK ends no kill -9
    assert [s.event.after for s in incident.steps if s.event.kind is EventKind.GROUP_STATUS] == ["STALL", "OK"]
