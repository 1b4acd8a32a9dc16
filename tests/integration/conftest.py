"""Fixtures of the integration tests: every cluster source a test makes is closed after it; a real Kafka (KAFKA_HOME)
for the tests that need one; lab clusters, always brought down."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafkatop.backends.kafka.admin.admin import AdminSource
from tests.integration.test_real_kafka import KraftNode, running_node
from tests.integration.test_supervisor import Clusters


@pytest.fixture(autouse=True)
def close_admin_sources(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Closes every AdminSource a test made, however it made it (an app's source is never closed by the app: the
    command line's composition root does that). An unclosed one keeps its librdkafka threads reconnecting to a mock
    cluster long gone, and a few dozen of them slowed every later test of the run by minutes."""
    made: list[AdminSource] = []
    init = AdminSource.__init__

    def recorded(self: AdminSource, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(AdminSource, "__init__", recorded)
    yield
    for source in made:
        source.close()


@pytest.fixture(scope="module")
def kafka(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[KraftNode]:
    """One real KRaft node per test module, from KAFKA_HOME (tests/conftest.py skips `kafka` tests without it)."""
    with running_node(kafka_home, tmp_path_factory.mktemp("kraft")) as node:
        yield node


@pytest.fixture
def clusters(tmp_path: Path) -> Iterator[Clusters]:
    """Lab clusters a test makes, always brought down after it; then any recorded pid still alive (start time
    verified) is killed."""
    c = Clusters(tmp_path)
    yield c
    c.cleanup()
