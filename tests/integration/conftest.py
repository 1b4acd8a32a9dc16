"""Fixtures of the integration tests that need a real Kafka (KAFKA_HOME)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.test_real_kafka import KraftNode, start_node, stop_node


@pytest.fixture(scope="module")
def kafka(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KraftNode]:
    """One real KRaft node per test module, from KAFKA_HOME (the modules' skip marks say why when it is unset)."""
    home = Path(os.environ["KAFKA_HOME"])
    if not (home / "bin" / "kafka-server-start.sh").is_file():
        pytest.fail(f"KAFKA_HOME={home} has no bin/kafka-server-start.sh: not an Apache Kafka install")
    node = start_node(home, tmp_path_factory.mktemp("kraft"))
    try:
        yield node
    finally:
        stop_node(node.proc)
