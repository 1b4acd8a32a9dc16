"""Golden tests of the generated properties files (from the settings of the real stock files), and the spec."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kafkatop.backends.lab.configs import edit_properties, node_properties, zookeeper_properties
from kafkatop.backends.lab.kafka_homes import LabMode
from kafkatop.backends.lab.properties import parse_properties
from kafkatop.backends.lab.spec import ClusterSpec, SpecError, cluster_nodes, load_spec_file, quorum_voters
from kafkatop.backends.model.nodes import ProcessRole

FIXTURES = Path(__file__).parent.parent / "fixtures"
GOLDEN = FIXTURES / "golden"
STATE = Path("/home/lab/.local/state/kafkatop/lab")
# UPDATE_GOLDEN=1 rewrites the golden files; review the diff before committing it.
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text)
    assert text == path.read_text(), f"{name} differs from its golden file (UPDATE_GOLDEN=1 to accept)"


def render(version: str, stock: str, spec: ClusterSpec, mode: LabMode, node_name: str) -> str:
    nodes = cluster_nodes(spec, mode)
    node = next(n for n in nodes if n.name == node_name)
    text = (FIXTURES / "stock" / version / stock).read_text()
    if node.role is ProcessRole.ZOOKEEPER:
        return zookeeper_properties(
            text, spec=spec, node=node, data_dir=STATE / "data" / node.name, stock_path=f"config/{stock}"
        )
    return node_properties(
        text,
        spec=spec,
        mode=mode,
        node=node,
        nodes=nodes,
        log_dir=STATE / "data" / node.name,
        stock_path=f"config/{stock}",
    )


LAB = ClusterSpec(broker_properties=(("min.insync.replicas", "2"), ("unclean.leader.election.enable", "false")))


def test_zk_mode_broker_as_the_labs_edit_it() -> None:
    text = render("kafka-3.9", "server.properties", LAB, "zk", "broker-2")
    check_golden("zk-broker-2.properties", text)
    props = parse_properties(text)
    assert props["broker.id"] == "2"
    # The lab's edit: the commented `#listeners=PLAINTEXT://:9092` line filled in, on 127.0.0.1 only.
    assert props["listeners"] == props["advertised.listeners"] == "PLAINTEXT://127.0.0.1:9093"
    assert "#listeners=PLAINTEXT://:9092" not in text and "listeners=PLAINTEXT://127.0.0.1:9093" in text
    assert props["log.dirs"] == f"{STATE}/data/broker-2"
    assert props["zookeeper.connect"] == "127.0.0.1:2181"
    assert props["offsets.topic.replication.factor"] == "3" and props["transaction.state.log.min.isr"] == "2"
    assert props["min.insync.replicas"] == "2" and props["unclean.leader.election.enable"] == "false"
    assert "process.roles" not in props and "node.id" not in props


def test_zookeeper_properties() -> None:
    text = render("kafka-3.9", "zookeeper.properties", LAB, "zk", "zookeeper")
    check_golden("zookeeper.properties", text)
    props = parse_properties(text)
    assert props["clientPort"] == "2181" and props["clientPortAddress"] == "127.0.0.1"
    assert props["dataDir"] == f"{STATE}/data/zookeeper" and props["admin.enableServer"] == "false"
    assert "srvr" in props["4lw.commands.whitelist"].split(",")


def test_kraft_combined_node_of_kafka_4() -> None:
    spec = ClusterSpec(mode="kraft")
    text = render("kafka-4.1", "server.properties", spec, "kraft", "broker-1")
    check_golden("kraft-4.1-broker-1.properties", text)
    props = parse_properties(text)
    assert props["process.roles"] == "broker,controller" and props["node.id"] == "1"
    assert props["controller.quorum.voters"] == "1@127.0.0.1:9192,2@127.0.0.1:9193,3@127.0.0.1:9194"
    assert "controller.quorum.bootstrap.servers" not in props  # both set would make Kafka refuse the file
    # The voters take the place of the bootstrap servers they replace, not the end of the file.
    lines = text.splitlines()
    assert lines[lines.index("#controller.quorum.bootstrap.servers=localhost:9093") + 1].startswith(
        "controller.quorum.voters="
    )
    assert props["listeners"] == "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9192"
    assert props["share.coordinator.state.topic.replication.factor"] == "3"


def test_kraft_broker_only_node_beyond_the_three_voters() -> None:
    spec = ClusterSpec(mode="kraft", brokers=4)
    text = render("kafka-4.1", "broker.properties", spec, "kraft", "broker-4")
    check_golden("kraft-4.1-broker-4.properties", text)
    props = parse_properties(text)
    assert props["process.roles"] == "broker" and props["node.id"] == "4"
    assert props["listeners"] == "PLAINTEXT://127.0.0.1:9095"
    assert props["controller.quorum.voters"] == "1@127.0.0.1:9192,2@127.0.0.1:9193,3@127.0.0.1:9194"


def test_kraft_dedicated_controller() -> None:
    spec = ClusterSpec(mode="kraft", controllers=1)
    nodes = cluster_nodes(spec, "kraft")
    assert [(n.name, n.role, n.port) for n in nodes] == [
        ("controller-101", ProcessRole.CONTROLLER, 9192),
        ("broker-1", ProcessRole.BROKER, 9092),
        ("broker-2", ProcessRole.BROKER, 9093),
        ("broker-3", ProcessRole.BROKER, 9094),
    ]
    assert quorum_voters(nodes) == "101@127.0.0.1:9192"
    text = render("kafka-4.1", "controller.properties", spec, "kraft", "controller-101")
    check_golden("kraft-4.1-controller-101.properties", text)
    props = parse_properties(text)
    assert props["process.roles"] == "controller" and props["listeners"] == "CONTROLLER://127.0.0.1:9192"
    assert "inter.broker.listener.name" not in props


def test_kraft_on_kafka_3_9() -> None:
    spec = ClusterSpec(mode="kraft", brokers=1)
    text = render("kafka-3.9", "kraft/server.properties", spec, "kraft", "broker-1")
    check_golden("kraft-3.9-broker-1.properties", text)
    props = parse_properties(text)
    assert props["controller.quorum.voters"] == "1@127.0.0.1:9192"
    assert props["offsets.topic.replication.factor"] == "1"  # one broker: internal topics cannot have more
    assert "share.coordinator.state.topic.replication.factor" not in props  # 3.9 has no share groups


def test_edit_keeps_continuations_and_comments_out_duplicates() -> None:
    stock = "# c\nlog.dirs=/a,\\\n  /b\nkeep=1\nx=1\nx=2\n! bang comment\n"
    out = edit_properties(stock, {"log.dirs": "/data", "x": "9", "new.key": "v\\w", "keep": None})
    assert parse_properties(out) == {"log.dirs": "/data", "x": "9", "new.key": "v\\w"}
    assert "#keep=1" in out and "#x=2" in out and "! bang comment" in out and "  /b" not in out


def test_spec_validation_messages() -> None:
    with pytest.raises(SpecError, match="at least 1 broker"):
        ClusterSpec(brokers=0).validate()
    with pytest.raises(SpecError, match="min.insync.replicas=3 is more than the 2 broker"):
        ClusterSpec(brokers=2, broker_properties=(("min.insync.replicas", "3"),)).validate()
    with pytest.raises(SpecError, match="overlap"):
        ClusterSpec(mode="zk", base_port=2180).validate()
    with pytest.raises(SpecError, match="heap"):
        ClusterSpec(heap="lots").validate()
    with pytest.raises(SpecError, match="KRaft thing"):
        ClusterSpec(mode="zk", controllers=1).validate()
    assert ClusterSpec(brokers=5, mode="kraft").validate().brokers == 5


def test_toml_spec(tmp_path: Path) -> None:
    f = tmp_path / "kafkatop.toml"
    f.write_text(
        '[cluster]\nname = "course"\nbrokers = 3\nbase_port = 9093\nmode = "zk"\n\n'
        '[broker]\n"min.insync.replicas" = 2\n"unclean.leader.election.enable" = false\n'
    )
    spec, given = load_spec_file(f)
    assert (spec.name, spec.brokers, spec.base_port, spec.mode) == ("course", 3, 9093, "zk")
    assert dict(spec.broker_properties) == {"min.insync.replicas": "2", "unclean.leader.election.enable": "false"}
    assert set(given) == {"name", "brokers", "base_port", "mode"}
    f.write_text("[cluster]\nbrokerz = 3\n")
    with pytest.raises(SpecError, match="unknown \\[cluster\\] key\\(s\\) brokerz"):
        load_spec_file(f)
    f.write_text("[cluster\n")
    with pytest.raises(SpecError, match="not valid TOML"):
        load_spec_file(f)
    f.write_text('[cluster]\nbrokers = "three"\n')
    with pytest.raises(SpecError, match="whole number"):
        load_spec_file(f)


def test_readme_example_spec_is_valid(tmp_path: Path) -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    block = readme.split("```toml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "kafkatop.toml").write_text(block)
    spec, _ = load_spec_file(tmp_path / "kafkatop.toml")
    assert spec.validate().name == "course" and dict(spec.broker_properties)["min.insync.replicas"] == "2"


def test_a_value_with_a_newline_cannot_inject_a_setting(tmp_path: Path) -> None:
    """kafkatop.toml's [broker] values are written as java.util.Properties reads them back: one value, whole."""
    toml = tmp_path / "kafkatop.toml"
    toml.write_text(
        '[broker]\n"log.message.format.version" = "x\\nlisteners=PLAINTEXT://0.0.0.0:9092"\n'
        '"ssl.cipher.suites" = " leading\\tspace\\\\back"\n'
    )
    spec, _ = load_spec_file(toml)
    text = render("kafka-4.1", "server.properties", spec.validate(), "kraft", "broker-1")
    props = parse_properties(text)
    assert props["log.message.format.version"] == "x\nlisteners=PLAINTEXT://0.0.0.0:9092"
    assert props["ssl.cipher.suites"] == " leading\tspace\\back"
    assert props["listeners"].startswith("PLAINTEXT://127.0.0.1:9092,")


def test_a_setting_name_that_is_not_one_is_refused() -> None:
    with pytest.raises(SpecError, match=r"a Kafka setting's name is letters"):
        ClusterSpec(broker_properties=(("x\nlisteners", "PLAINTEXT://0.0.0.0:9092"),)).validate()


@pytest.mark.parametrize(
    ("listeners", "binds"),
    [
        ("PLAINTEXT://0.0.0.0:9092", "all interfaces"),
        ("PLAINTEXT://:9092", "all interfaces"),
        ("PLAINTEXT://127.0.0.1:9092,EXTERNAL://192.0.2.7:9192", "192.0.2.7"),
        ("PLAINTEXT://[::]:9092", "all interfaces"),
    ],
)
def test_listeners_beyond_loopback_are_refused_unless_allowed(listeners: str, binds: str) -> None:
    spec = ClusterSpec(broker_properties=(("listeners", listeners),))
    with pytest.raises(SpecError, match="--allow-remote-listeners") as e:
        spec.validate()
    assert binds in str(e.value)
    allowed = ClusterSpec(broker_properties=(("listeners", listeners),), allow_remote_listeners=True).validate()
    assert binds in allowed.remote_listeners


def test_loopback_listeners_are_a_lab_s_own() -> None:
    for listeners in ("PLAINTEXT://127.0.0.1:9092", "PLAINTEXT://localhost:9092", "PLAINTEXT://[::1]:9092"):
        assert ClusterSpec(broker_properties=(("listeners", listeners),)).validate().remote_listeners == []
