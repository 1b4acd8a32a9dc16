"""Fixtures of the integration tests that need a real Kafka (KAFKA_HOME)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.test_real_kafka import KraftNode, start_node, stop_node


@pytest.fixture(scope="module")
def kafka(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[KraftNode]:
    """One real KRaft node per test module, from KAFKA_HOME (tests/conftest.py skips `kafka` tests without it)."""
    node = start_node(kafka_home, tmp_path_factory.mktemp("kraft"))
    try:
        yield node
    finally:
        stop_node(node.proc)
