"""The browser's search over decoded records against a real Apache Kafka: Avro values written by confluent-kafka's
AvroSerializer (through the SCHEMA REGISTRY DOUBLE, tests/doubles/schema_registry.py: no real registry runs here),
searched by path and by a text that only their decoded form holds, through the real SchemaCodec; and plain JSON
values searched by path without a codec (the bytes read as JSON). Set KAFKA_HOME to run."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from confluent_kafka import Producer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from kafkatop.backends.kafka.records.browser import MessageBrowser
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.formats import RegistrySettings
from kafkatop.backends.model.messages import SearchProgress, SearchRequest
from kafkatop.backends.schemas.codec import SchemaCodec
from kafkatop.backends.schemas.registry import ConfluentRegistry
from tests.doubles.schema_registry import SchemaRegistryDouble
from tests.integration.test_real_kafka import KraftNode, create_topic

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(240)]

COUNT = 5_000
ORDER = {
    "type": "record", "name": "Order", "namespace": "shop", "fields": [
        {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
            {"name": "id", "type": "long"}, {"name": "email", "type": ["null", "string"], "default": None}]}},
        {"name": "status", "type": "string"},
        {"name": "total", "type": "double"},
    ],
}  # fmt: skip


def order(i: int) -> dict[str, object]:
    email = f"c{i}@example.com" if i % 2 else None
    return {"customer": {"id": i, "email": email}, "status": "PAID" if i % 10 else "NEW", "total": i / 4}


@pytest.fixture(scope="module")
def registry_double() -> Iterator[SchemaRegistryDouble]:
    with SchemaRegistryDouble() as double:
        yield double


@pytest.fixture(scope="module")
def filled(kafka: KraftNode, registry_double: SchemaRegistryDouble) -> KraftNode:
    create_topic(kafka, "orders-avro", 2)
    create_topic(kafka, "orders-json", 1)
    serialize = AvroSerializer(SchemaRegistryClient({"url": registry_double.url}), json.dumps(ORDER))
    producer = Producer({"bootstrap.servers": kafka.bootstrap, "linger.ms": 20})
    for i in range(COUNT):
        value = serialize(order(i), SerializationContext("orders-avro", MessageField.VALUE))
        producer.produce("orders-avro", value, key=str(i).encode(), partition=i % 2)
        producer.produce("orders-json", json.dumps(order(i)).encode(), partition=0)
        if i % 1000 == 0:
            producer.poll(0)
    assert producer.flush(60) == 0
    return kafka


def search(browser: MessageBrowser, topic: str, text: str, **how: object) -> SearchProgress:
    done = browser.search(SearchRequest(topic, text, **how), lambda _: None, lambda: False)  # type: ignore[arg-type]
    assert done.done and done.error is None, done
    return done


def test_avro_records_are_searched_by_path_and_by_their_decoded_text(
    filled: KraftNode, registry_double: SchemaRegistryDouble
) -> None:
    registry = ConfluentRegistry(RegistrySettings(registry_double.url), timeout_s=5)
    browser = MessageBrowser(KafkaConnection.parse(filled.bootstrap), codec=SchemaCodec({}, registry))
    plain = MessageBrowser(KafkaConnection.parse(filled.bootstrap))
    try:
        found = search(browser, "orders-avro", ".customer.id >= 4990")
        assert (found.scanned, found.matches) == (COUNT, 10)
        assert sorted(int(r.key or b"") for r in found.found) == list(range(4990, 5000))
        assert search(browser, "orders-avro", '.status == "NEW" and .total > 1200').matches == 19  # 4810 … 4990
        assert search(browser, "orders-avro", ".customer.email").matches == COUNT // 2  # present and not null
        assert search(browser, "orders-avro", '.customer.email ~ "C4999@"').matches == 1
        assert search(browser, "orders-avro", "key ~ /^12.$/").matches == 10  # the keys read as text
        # A long is a varint on the wire and a double 8 bytes: `"id": 1234,` and 1234.5 (4938 / 4) are only in the
        # decoded text.
        assert search(browser, "orders-avro", '"id": 1234,').matches == 1
        assert search(browser, "orders-avro", "1234.5", fields=("value",)).matches == 1
        assert search(plain, "orders-avro", '"id": 1234,').matches == 0  # the bytes only
        assert search(plain, "orders-avro", "1234.5").matches == 0
        # JSON values by path, without a codec: the bytes read as JSON.
        json_found = search(plain, "orders-json", '.status == "NEW" and .total > 1200')
        assert json_found.matches == 19
    finally:
        browser.close()
        plain.close()
        registry.close()
