"""A real Apache Kafka 4.1 lab (one combined node) with one Connect worker: its group `<lab>-connect` (a classic
group of protocol type "connect") is listed by the live poll — confluent-kafka's listing leaves it out — and shown by
the Groups tab as "classic (connect)", the group `kafkatop groups --list` names with the same type and protocol; and
a FileStreamSource on a file that does not exist, RUNNING as Kafka says, is said to wait for it by the lab's Connect
client (the composition root's: its workers run here), until the file is made.

Set KAFKA_HOME to run it (skipped without); KAFKATOP_TEST_BASE_PORT picks the first of the 13 ports it binds (else a
free block). Every process is stopped by its recorded pid at the end."""

from __future__ import annotations

import argparse
import json
import os
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.groups import ConsumerGroup
from kafkatop.tui.cli.compose_connect import connect_cluster
from kafkatop.tui.cli.main import main
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.widgets.line_table import LineTable
from tests.conftest import pilot_until
from tests.integration.test_supervisor import Clusters, free_port_block

pytestmark = pytest.mark.kafka


async def test_a_connect_workers_group_is_listed_as_kafka_lists_it(
    clusters: Clusters, kafka_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snap = _lab(clusters, kafka_home).up(timeout_s=150)
    admin = AdminSource(KafkaConnection.parse(snap.bootstrap_servers, {}), timeout_s=5.0)
    try:
        found: ConsumerGroup | None = None
        end = time.monotonic() + 60
        while found is None and time.monotonic() < end:  # the worker joins its group once its topics are made
            found = next((g for g in admin.poll().groups if g.group_id == "grp-connect"), None)
            time.sleep(0.5)
        assert found is not None, "the Connect worker's group in the poll"
        assert found.protocol_type == "connect" and found.group_type == "classic" and len(found.members) == 1

        assert main(["groups", "--list", "--bootstrap-server", snap.bootstrap_servers]) == 0
        listed = [line.split() for line in capsys.readouterr().out.splitlines()]
        assert ["grp-connect", "Classic", "connect"] in listed

        app = KafkatopApp(Sources(admin.poll), Settings(poll_interval_s=1.0, launch="lab"))
        async with app.run_test(size=(160, 45)) as pilot:
            table = app.query_one("#groups", LineTable)
            await pilot.press("5")  # Groups
            await pilot_until(pilot, lambda: "grp-connect" in table._all, "the group in the Groups tab", 30)
            assert table.row("grp-connect")[2] == "classic (connect)"
    finally:
        admin.close()


def _lab(clusters: Clusters, kafka_home: Path) -> Any:
    base = int(os.environ.get("KAFKATOP_TEST_BASE_PORT", "0")) or free_port_block(13)
    return clusters.make(
        kafka_home, name="grp", mode="kraft", brokers=1, connect=1, heap="256m",
        base_port=base, controller_port=base + 4, zookeeper_port=base + 8, connect_port=base + 10,
    )  # fmt: skip


def test_a_file_source_on_a_missing_file_is_said_to_wait_for_it(
    clusters: Clusters, kafka_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster = _lab(clusters, kafka_home)
    cluster.up(timeout_s=150)
    missing = tmp_path / "not yet.txt"
    config = {"connector.class": "FileStreamSource", "file": str(missing), "topic": "lines", "tasks.max": "1"}
    request = urllib.request.Request(f"{cluster.connect_urls[0]}/connectors", method="POST",
                                     data=json.dumps({"name": "lines-in", "config": config}).encode(),
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    with urllib.request.urlopen(request, timeout=30):
        pass
    with ExitStack() as stack:
        client = connect_cluster(argparse.Namespace(connect_url=None), cluster, stack)  # the live view's, for a lab
        assert client is not None

        def lines_in() -> Any:
            return client.poll().connector("lines-in")

        end = time.monotonic() + 60
        while not (lines_in() is not None and lines_in().running == 1) and time.monotonic() < end:
            time.sleep(0.5)
        c = lines_in()
        assert c.state == "RUNNING" and c.running == 1, c  # Kafka's word: RUNNING, while its task waits
        assert c.waiting == f"waiting for {missing}: it does not exist yet"
        lab = ["--name", "grp", "--state-dir", str(cluster.state_dir.parent)]
        assert main(["connect", "status", "lines-in", *lab]) == 0
        assert f"note: waiting for {missing}: it does not exist yet (its task retries until it does)" in \
            capsys.readouterr().out  # fmt: skip
        assert main(["connect", "list", *lab]) == 0
        assert f"note: connector lines-in is waiting for {missing}: it does not exist yet" in capsys.readouterr().err
        missing.write_text("a line\n")
        assert lines_in().waiting_for is None
