"""kafka-broker-api-versions.sh lists the brokers in the order of a HashMap<Node> (Collectors.toMap over the
metadata's nodes): Node.hashCode() of Kafka 4.x and that order, against what Java printed for the same nodes
(javac against kafka-clients-4.1.0.jar: `new Node(…).hashCode()`, then the map's values)."""

from __future__ import annotations

from kafkatop.backends.model.java_order import hash_order, node_hash

NODES = [
    (1, "kafka-1.example.com", 9092, None),
    (2, "kafka-2.example.com", 9092, None),
    (3, "kafka-3.example.com", 9092, None),
    (4, "kafka-4.example.com", 9092, "eu-1a"),
    (5, "10.0.0.5", 9092, None),
    (6, "10.0.0.6", 9092, None),
]


def test_node_hash_is_javas() -> None:
    assert [node_hash(*n) for n in NODES] == [-706221520, 647117968, 2000457456, 2059816547, -13583491, -12630179]


def test_brokers_come_in_the_tools_order() -> None:
    assert [n[0] for n in hash_order(NODES, lambda n: node_hash(*n))] == [2, 6, 4, 1, 3, 5]


def test_a_fenced_node_hashes_apart() -> None:
    """Boolean.hashCode(): 1231 for true, 1237 for false, the last term."""
    assert node_hash(1, "h", 1, None, fenced=True) - node_hash(1, "h", 1, None) == 1231 - 1237
