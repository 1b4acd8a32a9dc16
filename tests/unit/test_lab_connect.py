"""Kafka Connect workers of a lab: each worker's properties (golden, from the real stock
connect-distributed.properties), the internal topics' replication factor, plugin.path, a secured lab's client settings
(0600) and its REST API's basic auth (the extension, the JAAS in the JVM's KAFKA_OPTS, the users' file, kafkatop's own
and curl's credentials: 0600, never on a command line), a lab made before it (its doors said), the spec's `connect` and
`connect_port` (validation, kafkatop.toml, flags), the state file with and without workers, and the JVM's command line
as the process source reads it."""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from kafkatop.backends.connect.auth import connect_auth
from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.connect_auth import REST_EXTENSION
from kafkatop.backends.lab.doors import controllers_take_sasl, open_doors
from kafkatop.backends.lab.kafka_homes import KafkaInstall, KafkaVersion, Layout
from kafkatop.backends.lab.node_files import write_node_files
from kafkatop.backends.lab.processes import node_config, parse_jvm_cmdline
from kafkatop.backends.lab.properties import parse_properties, read_client_properties, read_properties
from kafkatop.backends.lab.runner import NodeRunner
from kafkatop.backends.lab.security import LabSecurity
from kafkatop.backends.lab.spec import ClusterSpec, NodeSpec, SpecError, cluster_nodes, load_spec_file
from kafkatop.backends.lab.state import LabState
from kafkatop.backends.lab.workers import LAB_REBALANCE_DELAY_MS, storage_replication_factor, worker_properties
from kafkatop.backends.model.nodes import ProcessRole
from kafkatop.tui.cli.common import build_spec
from kafkatop.tui.cli.connect import auth, worker_urls
from kafkatop.tui.cli.lab_status import print_status
from kafkatop.tui.cli.parser import build_parser
from tests.unit.test_lab_config import FIXTURES, check_golden

STOCK = FIXTURES / "stock" / "kafka-4.1" / "connect-distributed.properties"
JAR = Path("/opt/kafka/libs/connect-file-4.1.0.jar")


def render(spec: ClusterSpec, name: str = "connect-2", jars: tuple[Path, ...] = (JAR,), **kw: object) -> str:
    nodes = cluster_nodes(spec, "kraft")
    node = next(n for n in nodes if n.name == name)
    return worker_properties(
        STOCK.read_text(), spec=spec, node=node, nodes=nodes, plugin_jars=jars,
        stock_path="config/connect-distributed.properties", **kw,  # type: ignore[arg-type]
    )  # fmt: skip


def test_a_worker_as_a_lab_edits_the_stock_file() -> None:
    text = render(ClusterSpec(brokers=3, connect=2), service_loader=True)
    check_golden("kraft-4.1-connect-2.properties", text)
    props = parse_properties(text)
    assert props["bootstrap.servers"] == "127.0.0.1:9092,127.0.0.1:9093,127.0.0.1:9094"
    assert props["group.id"] == "lab-connect"
    assert [props[f"{k}.storage.topic"] for k in ("offset", "config", "status")] == [
        "connect-offsets", "connect-configs", "connect-status",
    ]  # fmt: skip
    assert {props[f"{k}.storage.replication.factor"] for k in ("offset", "config", "status")} == {"3"}
    # The second worker: REST on base_port + 200 + 1, on 127.0.0.1 only, advertised as such to the other workers.
    assert props["listeners"] == "http://127.0.0.1:9293"
    assert (props["rest.advertised.host.name"], props["rest.advertised.port"]) == ("127.0.0.1", "9293")
    assert "#listeners=HTTP://:8083" not in text and "listeners=http://127.0.0.1:9293" in text  # edited in place
    assert props["plugin.path"] == str(JAR)
    assert props["scheduled.rebalance.max.delay.ms"] == str(LAB_REBALANCE_DELAY_MS) == "20000"
    header = text[: text.index("##")]
    assert "300000 (5 minutes)" in header and "kafkatop restart connect-2" in header
    assert props["plugin.discovery"] == "service_load"  # Kafka 3.6+: no 8 s reflective scan of every jar at start
    assert props["key.converter"] == "org.apache.kafka.connect.json.JsonConverter"  # the stock's, untouched
    assert not any(k.startswith(("security.", "sasl.", "producer.", "consumer.", "admin.")) for k in props)


@pytest.mark.parametrize(
    ("brokers", "props", "rf"),
    [(1, (), 1), (2, (), 2), (3, (), 3), (5, (), 3), (3, (("default.replication.factor", "2"),), 2)],
)
def test_internal_topics_are_replicated_as_the_lab_replicates(
    brokers: int, props: tuple[tuple[str, str], ...], rf: int
) -> None:
    spec = ClusterSpec(brokers=brokers, connect=1, broker_properties=props)
    assert storage_replication_factor(spec, brokers) == rf
    written = parse_properties(render(spec, "connect-1"))
    assert written["offset.storage.replication.factor"] == written["status.storage.replication.factor"] == str(rf)


def test_without_file_connectors_plugin_path_stays_commented_out() -> None:
    text = render(ClusterSpec(connect=1), "connect-1", jars=())  # an install before 3.6: no plugin.discovery either
    assert not {"plugin.path", "plugin.discovery"} & set(parse_properties(text)) and "#plugin.path=" in text
    two = (Path("/k/libs/connect-file-3.9.0.jar"), Path("/k/libs/connect-file-extra.jar"))
    assert parse_properties(render(ClusterSpec(connect=1), "connect-1", jars=two))["plugin.path"] == ",".join(
        map(str, two)
    )


def test_a_secured_worker_gives_the_client_user_to_itself_and_its_connectors_clients(tmp_path: Path) -> None:
    security = LabSecurity(tmp_path, "lab", "sasl_ssl")
    spec = ClusterSpec(brokers=2, connect=1, security="sasl_ssl", mode="kraft")
    security.ensure(cluster_nodes(spec, "kraft"))
    password = security.passwords()["client"]
    props = parse_properties(render(spec, "connect-1", client_settings=security.client_settings(security.passwords())))
    for prefix in ("", "producer.", "consumer.", "admin."):
        assert props[f"{prefix}security.protocol"] == "SASL_SSL"
        assert props[f"{prefix}sasl.mechanism"] == "SCRAM-SHA-512"
        assert f'username="client" password="{password}"' in props[f"{prefix}sasl.jaas.config"]
        assert props[f"{prefix}ssl.truststore.location"] == str(security.ca_path)
    # client.properties says the same, from the same settings.
    client = read_properties(security.client_properties_path)
    assert client == {k: v for k, v in props.items() if k.startswith(("security.", "sasl.", "ssl."))}


def fake_install(root: Path, *, file_jar: bool = True) -> KafkaInstall:
    """An install's folders (stock config, libs) for config generation; nothing in it runs."""
    home = root / "kafka_2.13-4.1.0"
    (home / "config").mkdir(parents=True)
    (home / "libs").mkdir()
    shutil.copy(STOCK, home / "config")
    if file_jar:
        (home / "libs" / "connect-file-4.1.0.jar").write_bytes(b"")
        (home / "libs" / "connect-runtime-4.1.0.jar").write_bytes(b"")
    return KafkaInstall(home, Layout.APACHE, KafkaVersion.parse("4.1.0"), home / "bin", home / "config", ".sh")


def test_prepare_writes_a_secured_workers_file_0600_once(tmp_path: Path) -> None:
    install = fake_install(tmp_path)
    spec = ClusterSpec(name="sec", brokers=2, connect=1, security="sasl_plaintext", mode="kraft")
    state = LabState(tmp_path / "state" / "sec", install, spec, "kraft")
    state.state_dir.mkdir(parents=True)
    state.cluster_id = "AAAAAAAAAAAAAAAAAAAAAA"
    worker = state.node("connect-1")
    NodeRunner(state).prepare((worker,))  # a worker alone: no storage to format
    path = state.config_path(worker)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    props = read_properties(path)
    assert props["plugin.path"] == str(install.home / "libs" / "connect-file-4.1.0.jar")  # found by glob
    assert props["group.id"] == "sec-connect" and props["consumer.security.protocol"] == "SASL_PLAINTEXT"
    assert "ssl.truststore.location" not in props  # SASL without TLS
    assert not (state.data_dir(worker) / "meta.properties").exists()
    assert props["plugin.discovery"] == "service_load"  # a 4.1 install
    path.write_text(path.read_text() + "offset.flush.interval.ms=1000\n")
    NodeRunner(state).prepare((worker,))
    assert read_properties(path)["offset.flush.interval.ms"] == "1000"  # the user's edit survives


def _secured_lab(tmp_path: Path, security: str = "sasl_plaintext", workers: int = 1) -> LabState:
    spec = ClusterSpec(name="sec", brokers=1, connect=workers, security=security, mode="kraft")
    state = LabState(tmp_path / "state" / "sec", fake_install(tmp_path), spec, "kraft")
    state.state_dir.mkdir(parents=True)
    state.cluster_id = "AAAAAAAAAAAAAAAAAAAAAA"
    with state.file_lock():
        state.save()
    return state


@pytest.mark.parametrize("security", ["ssl", "sasl_ssl"])
def test_a_secured_labs_workers_ask_for_admin_on_their_rest_api(tmp_path: Path, security: str) -> None:
    state = _secured_lab(tmp_path, security)
    worker = state.node("connect-1")
    runner = NodeRunner(state)
    runner.prepare((worker,))
    password = runner.security.passwords()["admin"]
    assert read_properties(state.config_path(worker))["rest.extension.classes"] == REST_EXTENSION
    assert "rest.extension.classes: the REST API takes HTTP basic auth" in state.config_path(worker).read_text()
    folder = state.state_dir
    files = {
        "connect-admin.properties": f"connect.basic.auth.user.info=admin:{password}\n",
        "connect.netrc": f"machine 127.0.0.1 login admin password {password}\n",
        "security/connect-users.properties": f"\nadmin={password}\n",
        "security/connect-jaas.conf": (
            "KafkaConnect {\n  org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required\n"
            f'  file="{folder}/security/connect-users.properties";\n}};\n'
        ),
    }
    for name, ending in files.items():
        path = folder / name
        assert stat.S_IMODE(path.stat().st_mode) == 0o600 and path.read_text().endswith(ending), name
    # kafkatop's own client reads the same file, as `--command-config` or by itself for the lab's workers.
    assert connect_auth(read_client_properties(folder / "connect-admin.properties"), "f").user_info == (
        f"admin:{password}"
    )
    assert runner.rest_user_info() == f"admin:{password}"  # the readiness probe's: `GET /` asks too
    # The JVM gets the JAAS file by a path relative to its working directory (the state folder): no space to split,
    # and no password on its command line.
    env = runner.env(worker)
    assert env["KAFKA_OPTS"].endswith("-Djava.security.auth.login.config=security/connect-jaas.conf")
    assert password not in " ".join(env.values())
    assert runner.env(state.node("broker-1")).get("KAFKA_OPTS") == os.environ.get("KAFKA_OPTS")
    snap = LabCluster(state).snapshot()
    assert (snap.connect_admin_properties, snap.connect_netrc) == (
        folder / "connect-admin.properties", folder / "connect.netrc"
    )  # fmt: skip
    said = io.StringIO()
    print_status(snap, said, measured={})
    assert (
        f"connect http://127.0.0.1:9292 (Kafka Connect workers' REST API; basic auth, user admin: kafkatop uses "
        f"{folder}/connect-admin.properties, curl --netrc-file {folder}/connect.netrc http://127.0.0.1:9292/connectors)"
    ) in said.getvalue()
    assert password not in said.getvalue() and "note:" not in said.getvalue()


def test_a_plaintext_labs_workers_ask_no_one(tmp_path: Path) -> None:
    state = _secured_lab(tmp_path, "plaintext")
    worker = state.node("connect-1")
    runner = NodeRunner(state)
    runner.prepare((worker,))
    assert "rest.extension.classes" not in read_properties(state.config_path(worker))
    assert not (state.state_dir / "connect-admin.properties").exists() and not (state.state_dir / "security").exists()
    assert runner.rest_user_info() is None and "login.config" not in runner.env(worker).get("KAFKA_OPTS", "")


def test_kafkatop_connect_on_a_secured_lab_uses_its_connect_admin_properties(tmp_path: Path) -> None:
    state = _secured_lab(tmp_path)
    NodeRunner(state).prepare((state.node("connect-1"),))
    password = NodeRunner(state).security.passwords()["admin"]
    by_name = ["connect", "list", "--name", "sec", "--state-dir", str(state.state_dir.parent)]
    args = build_parser().parse_args(by_name)
    assert worker_urls(args) == ("http://127.0.0.1:9292",)
    assert auth(args).user_info == f"admin:{password}"
    other = tmp_path / "other.properties"
    other.write_text("connect.basic.auth.user.info=someone:else\n")
    told = build_parser().parse_args([*by_name, "--command-config", str(other)])
    worker_urls(told)
    assert auth(told).user_info == "someone:else"  # --command-config wins
    plain = _secured_lab(tmp_path / "plain", "plaintext")
    NodeRunner(plain).prepare((plain.node("connect-1"),))
    args = build_parser().parse_args(["connect", "list", "--name", "sec", "--state-dir", str(plain.state_dir.parent)])
    worker_urls(args)
    assert auth(args).user_info is None


def test_a_lab_made_before_its_doors_were_locked_is_said_so_and_added_nodes_fit_it(tmp_path: Path) -> None:
    """Its files are written once: a worker file without the extension, controllers' files PLAINTEXT there."""
    spec = ClusterSpec(name="old", brokers=1, controllers=1, connect=1, security="sasl_plaintext", mode="kraft")
    install = fake_install(tmp_path)
    shutil.copy(STOCK.with_name("broker.properties"), install.config_dir)
    state = LabState(tmp_path / "old", install, spec, "kraft")
    state.state_dir.mkdir()
    (state.state_dir / "config").mkdir()
    controller, worker = state.node("controller-101"), state.node("connect-1")
    state.config_path(controller).write_text(
        "process.roles=controller\ncontroller.listener.names=CONTROLLER\n"
        "listener.security.protocol.map=CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT\n"
    )
    state.config_path(worker).write_text("group.id=old-connect\n")
    assert not controllers_take_sasl(state.nodes, state.config_path)
    assert open_doors("sasl_plaintext", state.nodes, state.config_path) == [
        "its KRaft controllers' listener is PLAINTEXT (User:ANONYMOUS a super user where it has an authorizer): any "
        "process of this machine may act on it through --bootstrap-controller",
        "the REST API of connect-1 asks for no credentials",
    ]
    assert open_doors("plaintext", state.nodes, state.config_path) == []  # nothing to lock: every door open, as asked
    said = io.StringIO()
    print_status(LabCluster(state).snapshot(), said, measured={})
    assert (
        "note: lab 'old' was made before kafkatop locked these doors, and its nodes' files are kept: its KRaft "
        "controllers' listener is PLAINTEXT"
    ) in said.getvalue() and "`kafkatop down --delete` then `up` makes it anew, locked" in said.getvalue()
    write_node_files(state, (state.node("broker-1"),))  # what add-broker writes for it
    broker = read_properties(state.config_path(state.node("broker-1")))
    assert broker["listener.security.protocol.map"].startswith("CONTROLLER:PLAINTEXT,")
    assert "sasl.mechanism.controller.protocol" not in broker
    assert not (state.state_dir / "controller-admin.properties").exists()
    state.config_path(controller).unlink()  # a new lab: nothing written yet, so its controllers take SASL
    assert controllers_take_sasl(state.nodes, state.config_path)


# --- the spec ---------------------------------------------------------------------------------------------------------
def test_workers_come_after_the_brokers_on_ports_base_plus_200() -> None:
    nodes = cluster_nodes(ClusterSpec(brokers=2, controllers=1, connect=2, base_port=24000), "kraft")
    assert [(n.name, n.role, n.node_id, n.port) for n in nodes] == [
        ("controller-101", ProcessRole.CONTROLLER, 101, 24100),
        ("broker-1", ProcessRole.BROKER, 1, 24000),
        ("broker-2", ProcessRole.BROKER, 2, 24001),
        ("connect-1", ProcessRole.CONNECT, None, 24200),
        ("connect-2", ProcessRole.CONNECT, None, 24201),
    ]
    given = cluster_nodes(ClusterSpec(brokers=1, connect=2, connect_port=8083), "zk")
    assert [n.port for n in given if n.is_connect] == [8083, 8084]
    assert not any(n.is_connect for n in cluster_nodes(ClusterSpec(), "kraft"))


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        (ClusterSpec(connect=-1), "connect must be 0 (no Kafka Connect workers) or more"),
        (ClusterSpec(connect=2, connect_port=9093), "broker ports (--base-port) 9092-9094 overlap Connect REST ports"),
        (ClusterSpec(connect=1, connect_port=9192, mode="kraft"), "controller ports (--controller-port) 9192-9194 "
         "overlap Connect REST ports (--connect-port) 9192-9192"),
        (ClusterSpec(connect=1, connect_port=2181, mode="zk"), "ZooKeeper port (--zookeeper-port) 2181-2181 overlap "
         "Connect REST ports"),
        (ClusterSpec(connect=3, connect_port=65534), "Connect REST ports (--connect-port) 65534-65536 outside 1-65535"),
        (ClusterSpec(brokers=201, connect=1), "broker ports (--base-port) 9092-9292 overlap Connect REST ports"),
    ],
)  # fmt: skip
def test_worker_ports_must_not_overlap_the_others(spec: ClusterSpec, problem: str) -> None:
    with pytest.raises(SpecError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        spec.validate()


def test_no_workers_need_no_ports() -> None:
    ClusterSpec(connect=0, connect_port=9092).validate()  # unused: no overlap to speak of
    ClusterSpec(connect=2, base_port=24000, controller_port=24050, connect_port=24300, mode="kraft").validate()


def test_kafkatop_toml_and_flags(tmp_path: Path) -> None:
    toml = tmp_path / "kafkatop.toml"
    toml.write_text("[cluster]\nbrokers = 2\nconnect = 2\nconnect_port = 24300\n")
    spec, given = load_spec_file(toml)
    assert (spec.connect, spec.connect_port, spec.first_connect_port) == (2, 24300, 24300)
    assert given == {"brokers": 2, "connect": 2, "connect_port": 24300}
    for bad in ('connect = "2"', "connect = true", "connect_port = 1.5"):
        toml.write_text(f"[cluster]\n{bad}\n")
        with pytest.raises(SpecError, match="must be a whole number"):
            load_spec_file(toml)
    toml.write_text("[cluster]\nconnect = 2\n")
    args = build_parser().parse_args(["up", "--config", str(toml), "--connect", "3", "--connect-port", "24310"])
    assert (build_spec(args).connect, build_spec(args).connect_port) == (3, 24310)  # flags win
    args = build_parser().parse_args(["up", "--config", str(toml)])
    assert (build_spec(args).connect, build_spec(args).first_connect_port) == (2, 9292)


@pytest.mark.parametrize("argv", [["up", "--connect", "-1"], ["up", "--connect", "two"], ["up", "--connect-port", "0"]])
def test_bad_flags_are_refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(argv)
    assert exited.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


# --- the state file -------------------------------------------------------------------------------------------------
def test_a_state_file_from_before_workers_loads_and_one_with_them_round_trips(tmp_path: Path) -> None:
    old = tmp_path / "old"
    old.mkdir()
    spec = {"name": "old", "mode": "kraft", "brokers": 1, "base_port": 24000, "zookeeper_port": 2181,
            "controller_port": None, "controllers": 0, "heap": "256m", "broker_properties": [],
            "security": "plaintext", "allow_remote_listeners": False, "elr": None, "share_groups": False}  # fmt: skip
    node = {"name": "broker-1", "role": "broker+controller", "node_id": 1, "port": 24000, "controller_port": 24100}
    (old / "cluster.json").write_text(json.dumps({
        "format": 1, "name": "old", "kafka_home": str(tmp_path / "gone"), "kafka_version": "4.1.0", "mode": "kraft",
        "cluster_id": None, "spec": spec, "nodes": [node],
    }))  # fmt: skip
    state = LabState.load(old, need_install=False)
    assert (state.spec.connect, [n.name for n in state.nodes]) == (0, ["broker-1"])

    install = fake_install(tmp_path)
    new = LabState(tmp_path / "new", install, ClusterSpec(name="new", brokers=1, connect=2, mode="kraft"), "kraft")
    new.state_dir.mkdir()
    with new.file_lock():
        new.save()
    again = LabState.load(new.state_dir, need_install=False)
    assert again.spec.connect == 2
    assert [(n.name, n.role, n.port) for n in again.nodes if n.is_connect] == [
        ("connect-1", ProcessRole.CONNECT, 9292),
        ("connect-2", ProcessRole.CONNECT, 9293),
    ]
    assert again.node("connect-2") == NodeSpec("connect-2", ProcessRole.CONNECT, None, 9293)
    assert again.stock_role(again.node("connect-1")) == "connect"
    assert install.stock_config("kraft", "connect") == install.config_dir / "connect-distributed.properties"
    notes = again.differences(install, ClusterSpec(name="new", connect=3))
    assert "connect is 2, not 3" in notes and any("kafkatop add-connect" in n for n in notes)


# --- the JVM, as the process source sees it -----------------------------------------------------------------------
def test_a_connect_distributed_jvm_is_a_connect_worker_on_its_rest_port(tmp_path: Path) -> None:
    config = tmp_path / "connect-1.properties"
    config.write_text(render(ClusterSpec(connect=1), "connect-1"))
    cmd = parse_jvm_cmdline(["/usr/bin/java", "-Xmx256m", "-cp", "libs/*", "-name", "connectDistributed",
                             "org.apache.kafka.connect.cli.ConnectDistributed", str(config)])  # fmt: skip
    assert cmd is not None and cmd.is_connect and cmd.config_file == str(config)
    found = node_config(cmd, config)
    assert (found.role, found.node_id, found.client_port) == (ProcessRole.CONNECT, None, 9292)
    stock = tmp_path / "stock.properties"
    shutil.copy(STOCK, stock)
    assert node_config(cmd, stock).client_port == 8083  # Connect's own default listener
