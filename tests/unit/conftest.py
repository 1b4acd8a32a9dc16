"""Fixtures of the unit tests of the record formats: the Schema Registry test double (no real registry can run here,
tests/doubles/schema_registry.py) on 127.0.0.1, kafkatop's adapter over it, and confluent-kafka's own client of it
(the serializers' registry, writing the bytes the codecs read)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient

from kafkatop.backends.model.formats import RegistrySettings
from kafkatop.backends.schemas.registry import ConfluentRegistry
from tests.doubles.schema_registry import SchemaRegistryDouble


@pytest.fixture
def double() -> Iterator[SchemaRegistryDouble]:
    with SchemaRegistryDouble() as d:
        yield d


@pytest.fixture
def registry(double: SchemaRegistryDouble) -> Iterator[ConfluentRegistry]:
    r = ConfluentRegistry(RegistrySettings(double.url), timeout_s=5.0)
    yield r
    r.close()


@pytest.fixture
def client(double: SchemaRegistryDouble) -> Iterator[SchemaRegistryClient]:
    c = SchemaRegistryClient({"url": double.url})
    yield c
    c.close()
