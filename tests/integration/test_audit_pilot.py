"""The live view's writes in the audit trail and on the Timeline, on librdkafka's mock cluster attached by address (a
real cluster's are in test_audit_kafka.py): a topic created through the view's topic admin — the port its `c` key
uses — is one entry of the trail, with Kafka's refusal (the mock takes no CreateTopics from a client), and one event
on the Timeline; a read through the same port is neither; the demo is not audited."""

from __future__ import annotations

import asyncio
import json
from contextlib import ExitStack
from pathlib import Path

import pytest

from kafkatop.backends.insight.timeline.model import EventKind
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.tui.cli.compose import compose_app
from kafkatop.tui.cli.contexts import apply_context
from kafkatop.tui.cli.parser import build_parser
from tests.conftest import pilot_until

pytestmark = pytest.mark.timeout(90)


async def test_a_write_of_the_view_is_in_the_trail_and_on_the_timeline(mock_cluster: MockCluster,
                                                                       isolated: Path) -> None:  # fmt: skip
    args = build_parser().parse_args(["--bootstrap-server", mock_cluster.bootstrap_servers, "--interval", "0.5"])
    apply_context(args)
    with ExitStack() as stack:
        app = compose_app(args, stack, terminal=False)
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot_until(pilot, lambda: app.view.cluster is not None, "the first poll")
            assert app.sources.topic_admin is not None and app.sources.writes is not None
            admin = app.sources.topic_admin()
            with pytest.raises(KafkatopError):
                await asyncio.to_thread(admin.create_topic, "t1", 1, 1)
            with pytest.raises(KafkatopError):  # a dry run (the mock has no CreatePartitions): no write either way
                await asyncio.to_thread(admin.add_partitions, "t1", 2, validate_only=True)

            def written() -> list[str]:
                return [e.text for e in app.feed.timeline.snapshot().events if e.kind is EventKind.OPERATION]

            await pilot_until(pilot, lambda: bool(written()), "the write on the Timeline")
            (event,) = written()
            assert event.startswith("User:ANONYMOUS  create topic t1  partitions=1 replication_factor=1  → failed: ")
    (line,) = (isolated / "state" / "kafkatop" / "audit.jsonl").read_text().splitlines()
    entry = json.loads(line)
    assert (entry["source"], entry["action"], entry["target"], entry["result"]) == ("live view", "create topic", "t1",
                                                                                   "failed")  # fmt: skip
    assert app.view.cluster is not None and entry["cluster_id"] == app.view.cluster.cluster_id


async def test_the_demo_is_not_audited(isolated: Path) -> None:
    args = build_parser().parse_args(["--demo", "--interval", "0.5"])
    with ExitStack() as stack:
        app = compose_app(args, stack, terminal=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot_until(pilot, lambda: app.view.cluster is not None, "the first poll")
            assert app.sources.writes is None
    assert not (isolated / "state" / "kafkatop" / "audit.jsonl").exists()
