"""The Connect tab against a real Apache Kafka 4.1 lab with two Connect workers (one combined broker+controller node):
the live view polls the workers through the real ConnectClient; a FileStreamSource is created from a file with the
tab's `A` (validated by a worker first), the worker running its task is killed with `K` from the process pane, and
the Timeline tells the worker lost, its task waiting, then RUNNING again on the other worker; `Z` pauses the
connector and `D` deletes it. Headless at 160x45.

Set KAFKA_HOME to run it (skipped without); KAFKATOP_TEST_BASE_PORT picks the first of the 13 ports it binds (else a
free block). Every process is stopped by its recorded pid at the end.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static

from kafkatop.backends.connect.client import ConnectClient
from kafkatop.backends.insight.timeline.model import EventKind
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.lab.control import LabControl
from kafkatop.backends.model.connect import Connector
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.connect.pane import ConnectPane
from kafkatop.tui.live.widgets.nodes import NodeTable
from tests.conftest import pilot_until
from tests.integration.test_supervisor import Clusters, free_port_block

pytestmark = pytest.mark.kafka


async def test_create_kill_failover_pause_delete_from_the_connect_tab(
    clusters: Clusters, kafka_home: Path, tmp_path: Path
) -> None:
    base = int(os.environ.get("KAFKATOP_TEST_BASE_PORT", "0")) or free_port_block(13)
    cluster = clusters.make(
        kafka_home, name="tab", mode="kraft", brokers=1, connect=2, heap="256m",
        base_port=base, controller_port=base + 4, zookeeper_port=base + 8, connect_port=base + 10,
    )  # fmt: skip
    snap = cluster.up(timeout_s=150)
    lines = tmp_path / "in.txt"
    lines.write_text("".join(f"line {i}\n" for i in range(100)))
    file = tmp_path / "lines-in.json"
    config = {"connector.class": "FileStreamSource", "file": str(lines), "topic": "lines", "tasks.max": "1"}
    file.write_text(json.dumps({"name": "lines-in", "config": config}))

    admin = AdminSource(KafkaConnection.parse(snap.bootstrap_servers, {}), timeout_s=5.0)
    connect = ConnectClient(cluster.connect_urls, timeout_s=10.0)
    sources = Sources(admin.poll, LabControl(cluster), connect=connect)
    settings = Settings(poll_interval_s=1.0, connect_interval_s=0.5, launch="lab")
    app = KafkatopApp(sources, settings)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            view: Any = lambda: app.view  # noqa: E731 - read at each poll

            def connector() -> Connector | None:
                return view().connect.connector("lines-in") if view().connect is not None else None

            def answering() -> bool:
                c = view().connect
                return c is not None and len(c.workers) == 2 and all(w.reachable for w in c.workers)

            await pilot_until(pilot, answering, "both workers answering", 90)
            await pilot.press("N")
            assert app.main_screen.query_one("#tabs").active == "tab-connect"  # type: ignore[attr-defined]

            # A: the file, validated by a worker (nothing created), then created with y.
            await pilot.press("A")
            dialog = app.screen
            dialog.query_one("#connector-file", Input).value = str(file)
            await pilot.press("enter")
            state = dialog.query_one("#connector-state", Static)
            await pilot_until(pilot, lambda: "the worker accepts it" in str(state.render()), "the validation", 20)
            assert connect.connectors_answer() == {}  # validated, nothing created yet
            await pilot.press("y")

            def running() -> Connector | None:
                c = connector()
                return c if c is not None and c.tasks and all(t.state == "RUNNING" for t in c.tasks) else None

            await pilot_until(pilot, running, "lines-in and its task RUNNING", 30)
            created = running()
            assert created is not None and created.type == "source" and created.class_name == "FileStreamSource"
            first = created.tasks[0].worker_id
            port = int(first.rpartition(":")[2])
            node = next(n for n in view().nodes.nodes if port in n.ports)
            panel = app.main_screen.query_one(ConnectPane)
            assert panel.selected_connector is not None and panel.selected_connector.name == "lines-in"

            # K on the worker running the task, from the process pane.
            await pilot.press("0")
            table = app.main_screen.query_one(NodeTable)
            table.move_cursor(row=table.get_row_index(node.name))
            await pilot.pause()
            await pilot.press("K")
            await pilot.press("y")

            def moved() -> bool:
                c = connector()
                return c is not None and bool(c.tasks) and c.tasks[0].worker_id not in ("", first) and \
                    c.tasks[0].state == "RUNNING"  # fmt: skip

            await pilot_until(pilot, moved, "the task RUNNING on the other worker", 75)
            events = app.timeline.snapshot().events
            kinds = [e.kind for e in events]
            lost = next(e for e in events if e.kind is EventKind.WORKER_LOST)
            assert lost.node == node.name and "lines-in/0" in lost.text
            assert EventKind.TASKS_WAITING in kinds
            again = next(e for e in events if e.kind is EventKind.TASK_MOVED)
            assert again.text.startswith("lines-in/0 RUNNING again on ") and f"after {first} was lost" in again.text
            incident = app.timeline.snapshot().incidents[-1]
            assert incident.title == f"kill -9 {node.name}"
            assert {EventKind.ACTION, EventKind.WORKER_LOST, EventKind.TASK_MOVED} <= {
                s.event.kind for s in incident.steps
            }

            # Z pauses it, D deletes it (after its confirmation).
            await pilot.press("N", "Z")
            await pilot_until(pilot, lambda: (c := connector()) is not None and c.state == "PAUSED", "PAUSED", 30)
            await pilot.press("D")
            await pilot.press("y")
            await pilot_until(pilot, lambda: view().connect is not None and connector() is None, "deleted", 30)
            operations = [e.text for e in app.timeline.snapshot().events if e.kind is EventKind.OPERATION]
            assert any(t.startswith("connector lines-in created (FileStreamSource) from a file") for t in operations)
            assert any(t.startswith("connector lines-in deleted") for t in operations)
            await pilot.press("q")
    finally:
        connect.close()
        admin.close()
