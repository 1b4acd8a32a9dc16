from __future__ import annotations

from pathlib import Path

import pytest

from kafkatop.backends.lab.properties import listener_port, parse_properties, read_properties, split_list
from kafkatop.backends.model.errors import PropertiesError

# An excerpt of Kafka 3.x's stock config/server.properties, as the labs copy it to server-N.properties.
STOCK = r"""
############################# Server Basics #############################

# The id of the broker. This must be set to a unique integer for each broker.
broker.id=1

############################# Socket Server Settings #############################
#     listeners = listener_name://host_name:port
#   EXAMPLE:
#     listeners = PLAINTEXT://your.host.name:9092
listeners=PLAINTEXT://:9093
num.network.threads=3
log.dirs=/kafka/tmp/kafka-logs1
zookeeper.connect=localhost:2181
"""


def test_stock_server_properties() -> None:
    props = parse_properties(STOCK)
    assert props["broker.id"] == "1"
    assert props["listeners"] == "PLAINTEXT://:9093"
    assert props["log.dirs"] == "/kafka/tmp/kafka-logs1"
    assert "listeners = PLAINTEXT://your.host.name:9092" not in props.values()


def test_java_properties_syntax() -> None:
    text = "a = 1\nb:2\nc 3\n! bang comment\n  d=multi \\\n    line\ne=back\\\\slash\nf=tab\\there\ng\nkey\\=x=y\n"
    props = parse_properties(text)
    assert props == {
        "a": "1",
        "b": "2",
        "c": "3",
        "d": "multi line",
        "e": "back\\slash",
        "f": "tab\there",
        "g": "",
        "key=x": "y",
    }


def test_read_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(PropertiesError, match="server-9.properties: file not found"):
        read_properties(tmp_path / "server-9.properties")
    with pytest.raises(PropertiesError, match="is a directory"):
        read_properties(tmp_path)
    binary = tmp_path / "x.properties"
    binary.write_bytes(b"\x00\x01\x02")
    with pytest.raises(PropertiesError, match="binary content"):
        read_properties(binary)


def test_lists_and_ports() -> None:
    assert split_list(" PLAINTEXT://:9092, CONTROLLER://127.0.0.1:9093 ") == (
        "PLAINTEXT://:9092",
        "CONTROLLER://127.0.0.1:9093",
    )
    assert split_list(None) == ()
    assert listener_port("PLAINTEXT://127.0.0.1:9092") == 9092
    assert listener_port("PLAINTEXT://[::1]:9094") == 9094
    assert listener_port("nonsense") is None
