from __future__ import annotations

import pytest

from kafkatop.backends.model.zookeeper import PartitionState
from kafkatop.backends.zookeeper import znodes
from kafkatop.backends.zookeeper.znodes import MalformedZnode
from tests.fixtures import kafka_znodes as kz


def test_broker_registration_as_kafka_writes_it() -> None:
    b = znodes.parse_broker_registration(2, kz.broker_registration(2, 9094, rack="r1"))
    assert (b.id, b.host, b.port, b.rack, b.alive) == (2, "127.0.0.1", 9094, "r1", True)


def test_registration_without_plaintext_uses_first_endpoint() -> None:
    data = b'{"endpoints":["SASL_SSL://broker-7.example:9096"],"host":null,"port":-1,"version":5}'
    b = znodes.parse_broker_registration(7, data)
    assert (b.host, b.port) == ("broker-7.example", 9096)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"host": "h", "port": ', "/brokers/ids/3: not valid JSON"),
        (b"[1, 2]", "expected a JSON object, found list"),
        (b"\xff\xfe", "not UTF-8"),
        (b'{"version":5}', "no host/port and no endpoints"),
    ],
)
def test_malformed_registration_names_znode_and_fault(data: bytes, message: str) -> None:
    with pytest.raises(MalformedZnode, match=message) as err:
        znodes.parse_broker_registration(3, data)
    assert err.value.path == "/brokers/ids/3"


def test_controller_topic_and_state() -> None:
    assert znodes.parse_controller(kz.controller(2)) == 2
    assert znodes.parse_controller_epoch(b"7") == 7
    assignment, topic_id = znodes.parse_topic_assignment("t", kz.topic_assignment({0: [1, 2, 0], 1: [2, 0, 1]}))
    assert assignment == {0: (1, 2, 0), 1: (2, 0, 1)}
    assert topic_id == "b7ujvXKySsqMY6LgfU5j1Q"
    state = znodes.parse_partition_state("t", 0, kz.partition_state(1, [1, 2], 4, 3))
    assert state == PartitionState(leader=1, isr=(1, 2), leader_epoch=4, controller_epoch=3)


def test_state_with_leader_recovery_field_of_kafka_3_2() -> None:
    data = b'{"controller_epoch":1,"leader":-1,"version":2,"leader_epoch":3,"isr":[2],"leader_recovery_state":0}'
    assert znodes.parse_partition_state("t", 0, data).leader == -1


def test_malformed_state_and_assignment() -> None:
    with pytest.raises(MalformedZnode, match="field 'isr' should be a list of broker ids"):
        znodes.parse_partition_state("t", 0, b'{"controller_epoch":1,"leader":1,"leader_epoch":0,"isr":"1,2"}')
    with pytest.raises(MalformedZnode, match="partition id 'x' is not a number"):
        znodes.parse_topic_assignment("t", b'{"partitions":{"x":[1]}}')
    with pytest.raises(MalformedZnode, match="expected an integer"):
        znodes.parse_controller_epoch(b"one")
