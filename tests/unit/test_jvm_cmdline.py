from __future__ import annotations

from pathlib import Path

import pytest

from kafkatop.backends.lab.processes import node_config, parse_jvm_cmdline
from kafkatop.backends.model.errors import PropertiesError
from kafkatop.backends.model.nodes import ProcessRole

# What `bin/kafka-server-start.sh config/server-1.properties` leaves after kafka-run-class.sh exec's java.
KAFKA = (
    "/usr/lib/jvm/java-17-openjdk-amd64/bin/java -Xmx1G -Xms1G -server -XX:+UseG1GC -Djava.awt.headless=true "
    "-Dkafka.logs.dir=/opt/kafka/logs -cp /opt/kafka/libs/* kafka.Kafka config/server-1.properties"
).split()
CONFLUENT = "java -Xmx1G -cp /kafka/confluent/share/java/kafka/* io.confluent.support.metrics.SupportedKafka etc/kafka/server2.properties".split()  # noqa: E501
ZOOKEEPER = (
    "java -Xmx512M -cp libs/* org.apache.zookeeper.server.quorum.QuorumPeerMain config/zookeeper.properties".split()
)  # noqa: E501


def test_kafka_command_lines() -> None:
    cmd = parse_jvm_cmdline(KAFKA)
    assert cmd is not None and cmd.main_class == "kafka.Kafka" and cmd.config_file == "config/server-1.properties"
    confluent = parse_jvm_cmdline(CONFLUENT)
    assert confluent is not None and confluent.config_file == "etc/kafka/server2.properties"
    zk = parse_jvm_cmdline(ZOOKEEPER)
    assert zk is not None and zk.is_zookeeper


def test_overrides_and_non_kafka() -> None:
    cmd = parse_jvm_cmdline(["java", "kafka.Kafka", "s.properties", "--override", "broker.id=7"])
    assert cmd is not None and cmd.overrides == {"broker.id": "7"}
    # The shell wrapper carries the properties file but not the main class: never mistaken for the broker.
    assert parse_jvm_cmdline(["/bin/bash", "bin/kafka-server-start.sh", "config/server-1.properties"]) is None
    assert parse_jvm_cmdline(["java", "-jar", "app.jar"]) is None
    assert parse_jvm_cmdline([]) is None


def test_node_config_zookeeper_mode_broker(tmp_path: Path) -> None:
    f = tmp_path / "server-1.properties"
    f.write_text(
        "broker.id=1\nlisteners=PLAINTEXT://:9093\nlog.dirs=/tmp/k1,/tmp/k1b\nzookeeper.connect=localhost:2181\n"
    )
    cfg = node_config(parse_jvm_cmdline(["java", "kafka.Kafka", str(f)]), f)  # type: ignore[arg-type]
    assert (cfg.role, cfg.node_id, cfg.client_port, cfg.log_dirs) == (
        ProcessRole.BROKER,
        1,
        9093,
        ("/tmp/k1", "/tmp/k1b"),
    )


def test_node_config_kraft_roles(tmp_path: Path) -> None:
    f = tmp_path / "n.properties"
    f.write_text(
        "process.roles=broker,controller\nnode.id=3\ncontroller.listener.names=CONTROLLER\n"
        "listeners=CONTROLLER://127.0.0.1:9193,PLAINTEXT://127.0.0.1:9094\nlog.dirs=/tmp/n3\n"
    )
    cmd = parse_jvm_cmdline(["java", "kafka.Kafka", str(f)])
    cfg = node_config(cmd, f)  # type: ignore[arg-type]
    assert (cfg.role, cfg.node_id, cfg.client_port) == (ProcessRole.COMBINED, 3, 9094)
    f.write_text(
        "process.roles=controller\nnode.id=9\ncontroller.listener.names=CONTROLLER\nlisteners=CONTROLLER://:9193\n"
    )
    cfg = node_config(cmd, f)  # type: ignore[arg-type]
    assert (cfg.role, cfg.node_id, cfg.client_port) == (ProcessRole.CONTROLLER, 9, 9193)


def test_node_config_errors_name_the_file(tmp_path: Path) -> None:
    f = tmp_path / "bad.properties"
    f.write_text("broker.id=one\n")
    cmd = parse_jvm_cmdline(["java", "kafka.Kafka", str(f)])
    with pytest.raises(PropertiesError, match=r"bad.properties: node id 'one' is not a number"):
        node_config(cmd, f)  # type: ignore[arg-type]
    with pytest.raises(PropertiesError, match="file not found"):
        node_config(cmd, tmp_path / "missing.properties")  # type: ignore[arg-type]
