"""The scenario pane on the demo (the librdkafka mock under kafkatop's demo controller), driven by Textual's pilot:
`space` a step at a time, `A` the rest, a step done by the user's own key, and the marks the run leaves on the
failover timeline. The run is the real one (backends/checks/scenario/run.py): records produced with acks=all and read
back, a mock broker killed and started."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from textual.widgets import Input

from kafkatop.backends.checks.scenario.builtin import builtin_scenarios
from kafkatop.backends.checks.scenario.runs import ScenarioRuns
from kafkatop.backends.demo.cluster import DemoCluster
from kafkatop.backends.demo.consoles import DemoConsoles
from kafkatop.backends.demo.node_control import DemoControl
from kafkatop.backends.demo.source import DemoSource
from kafkatop.backends.demo.topics import DemoTopicAdmin
from kafkatop.backends.insight.timeline.model import EventKind
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.scenario import Scenario
from kafkatop.backends.model.scenario_file import parse_scenario
from kafkatop.backends.model.scenario_report import ScenarioPhase
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.widgets.nodes import NodeTable
from tests.conftest import pilot_until
from tests.fixtures.demo import demo_with_consoles
from tests.unit.test_scenario import AS_WRITTEN

# The issue's own shape (tests/unit/test_scenario.py), its kill left to the user.
BY_KEY = AS_WRITTEN.replace('node = "leader:ch-0"', 'node = "leader:ch-0"\nby-key = true')


@pytest.fixture
def demo() -> Iterator[tuple[DemoCluster, DemoControl, DemoConsoles]]:
    with demo_with_consoles() as made:
        yield made


def scenario_app(demo: Any, scenario: Scenario, read_only: bool = False) -> tuple[KafkatopApp, ScenarioRuns]:
    cluster, control, consoles = demo
    connection = KafkaConnection.parse(cluster.bootstrap_servers)
    admin = AdminSource(connection, timeout_s=1.0, watch_groups=cluster.groups)
    source = DemoSource(control, admin, consoles.consumer_views, cluster.groups)  # as compose.py wires the demo
    own = DemoSource(control, AdminSource(connection, timeout_s=1.0), consoles.consumer_views, cluster.groups)
    runs = ScenarioRuns(connection, control, own.poll, lambda: DemoTopicAdmin(control), own.close)
    sources = Sources(source.poll, control, None, None, consoles, scenarios=runs)
    settings = Settings(poll_interval_s=0.2, launch="demo", scenario=scenario, read_only=read_only)
    return KafkatopApp(sources, settings), runs


async def test_space_does_a_step_and_a_runs_the_rest(demo: Any) -> None:
    app, runs = scenario_app(demo, builtin_scenarios()["seed-002"])
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot_until(pilot, lambda: app.view.scenario is not None and app.view.cluster is not None, "open")
            assert app.view.scenario is not None and app.view.scenario.phase is ScenarioPhase.READY
            app.set_focus(None)
            await pilot.press("space")  # its topic there already (the demo's purchases), 300 records, read back
            await pilot_until(pilot, lambda: app.view.scenario is not None and len(app.view.scenario.ended) == 1,
                              "step 1", timeout_s=60)  # fmt: skip
            (first,) = app.view.scenario.ended
            assert first.passed and "300 of 300" in first.expects[0].seen
            await pilot.press("A")
            await pilot_until(pilot, lambda: app.view.scenario is not None and app.view.scenario.finished,
                              "the rest", timeout_s=120)  # fmt: skip
            state = app.view.scenario
            assert state.phase is ScenarioPhase.DONE, state.note
            assert [s.passed for s in state.ended] == [True, True, True], state.ended
            assert state.ended[1].node is not None and state.ended[1].node.startswith("broker-")
            marks = [e.text for e in app.feed.timeline.snapshot().events if e.kind is EventKind.OPERATION]
            assert any(m.startswith("scenario seed-002 step 2: kill -9 leader:purchases-0") for m in marks), marks
            assert any("✓ the ISR of purchases-0 has 2 replicas" in m for m in marks), marks
            assert marks[-1] == "scenario seed-002 done: 5 of 5 expectations held"
            assert "5/5 held" in str(app.query_one("#scenario").render().renderables[0])  # type: ignore[attr-defined]
    finally:
        runs.close()


async def test_a_step_by_key_waits_for_the_users_kill(demo: Any) -> None:
    app, runs = scenario_app(demo, parse_scenario(BY_KEY, "by-key.toml"))
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot_until(pilot, lambda: app.view.scenario is not None and app.view.cluster is not None, "open")
            app.set_focus(None)
            await pilot.press("space")
            await pilot_until(pilot, lambda: app.view.scenario is not None
                              and app.view.scenario.phase is ScenarioPhase.YOUR_TURN,
                              "your turn", timeout_s=60)  # fmt: skip
            state = app.view.scenario
            assert state.running is not None and state.running.node is not None and state.note is not None
            node = state.running.node
            assert state.note.startswith(f"press K on {node} — leader:ch-0")
            await pilot.pause(1.0)
            assert app.view.scenario.phase is ScenarioPhase.YOUR_TURN  # it waits: nothing killed for the user
            table = app.query_one(NodeTable)
            table.focus()
            table.move_cursor(row=table.get_row_index(node))
            await pilot.press("K", "y")  # the user's own kill -9, confirmed
            await pilot_until(pilot, lambda: app.view.scenario is not None and app.view.scenario.finished,
                              "the ISR shrunk", timeout_s=60)  # fmt: skip
            (step,) = app.view.scenario.ended
            assert step.passed and step.node == node, step
    finally:
        runs.close()


async def test_a_space_typed_in_a_field_is_text_and_read_only_opens_nothing(demo: Any) -> None:
    app, runs = scenario_app(demo, builtin_scenarios()["seed-002"])
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot_until(pilot, lambda: app.view.scenario is not None and app.view.cluster is not None, "open")
            await pilot.press("3")  # Produce
            field = app.query_one("#produce-line", Input)
            field.focus()
            await pilot.press("a", "space", "b")
            assert field.value == "a b"
            await pilot.pause(0.5)
            assert app.view.scenario is not None and app.view.scenario.phase is ScenarioPhase.READY
    finally:
        runs.close()
    app, runs = scenario_app(demo, builtin_scenarios()["seed-002"], read_only=True)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot_until(pilot, lambda: app.view.cluster is not None, "the first poll")
            assert app.view.scenario is None and runs.run is None
            assert any("kills nodes" in n.message for n in app._notifications)
    finally:
        runs.close()
