"""A lab with an authorizer (`up --security sasl_ssl --authorizer`, `authorizer = true` in kafkatop.toml): the
settings each node role gets (StandardAuthorizer everywhere, admin the one super user, no User:ANONYMOUS anywhere: the
controllers' listener takes SASL PLAIN, and every node logs in there as admin; a lab made before, PLAINTEXT there,
keeps it for the nodes added to it), --authorizer without SASL refused in one line before anything is made,
admin.properties and controller-admin.properties beside client.properties (0600 all), kafkatop's own commands and a
lab's Connect workers as admin, and no password on a command line."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from kafkatop.backends.lab.configs import node_properties
from kafkatop.backends.lab.kafka_homes import KafkaInstall, KafkaVersion, Layout
from kafkatop.backends.lab.properties import parse_properties, read_properties
from kafkatop.backends.lab.security import ADMIN_PROPERTIES, AUTHORIZER, CLIENT_PROPERTIES, LabSecurity
from kafkatop.backends.lab.security import CONTROLLER_ADMIN_PROPERTIES as CONTROLLER_ADMIN
from kafkatop.backends.lab.spec import ClusterSpec, NodeSpec, SpecError, cluster_nodes, load_spec_file
from kafkatop.backends.lab.state import LabSnapshot, LabState
from kafkatop.backends.lab.storage import format_command
from kafkatop.backends.model.client_properties import translate_client_properties
from kafkatop.backends.model.nodes import ProcessRole
from kafkatop.tui.cli.common import build_spec, client_settings, lab_client_properties
from kafkatop.tui.cli.lab_status import security_text
from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.parser import build_parser

STOCK = Path(__file__).parent.parent / "fixtures" / "stock" / "kafka-4.1"
HOME = Path("/opt/kafka_2.13-4.1.0")
INSTALL = KafkaInstall(HOME, Layout.APACHE, KafkaVersion.parse("4.1.0"), HOME / "bin", HOME / "config", ".sh")
AUTHORIZER_KEYS = ("authorizer.class.name", "allow.everyone.if.no.acl.found", "super.users")


def _texts(tmp_path: Path, spec: ClusterSpec, *, controller_sasl: bool = True) -> dict[str, str]:
    """Each node's server.properties, as the runner writes them: the stock file of its role, the lab's settings."""
    nodes = cluster_nodes(spec, "kraft")
    security = LabSecurity(tmp_path, spec.name, spec.security, spec.authorizer, controller_sasl=controller_sasl)
    security.ensure(nodes)
    stock = {"broker": "broker.properties", "controller": "controller.properties"}
    return {
        node.name: node_properties(
            (STOCK / stock.get(node.role.value, "server.properties")).read_text(),
            spec=spec,
            mode="kraft",
            node=node,
            nodes=nodes,
            log_dir=tmp_path / "data" / node.name,
            stock_path="stock",
            security_settings=security.node_settings(node),
            controller_protocol=security.controller_protocol,
        )
        for node in nodes
    }


def _properties(tmp_path: Path, spec: ClusterSpec, *, controller_sasl: bool = True) -> dict[str, dict[str, str]]:
    return {n: parse_properties(t) for n, t in _texts(tmp_path, spec, controller_sasl=controller_sasl).items()}


PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule required"


def test_every_node_has_admin_alone_as_super_user_and_the_controllers_take_sasl_plain(tmp_path: Path) -> None:
    spec = ClusterSpec(mode="kraft", brokers=2, controllers=1, security="sasl_ssl", authorizer=True).validate()
    texts = _texts(tmp_path, spec)
    props = {name: parse_properties(text) for name, text in texts.items()}
    password = LabSecurity(tmp_path, spec.name, "sasl_ssl").passwords()["admin"]
    assert set(props) == {"controller-101", "broker-1", "broker-2"}
    for name, p in props.items():
        assert (p["authorizer.class.name"], p["allow.everyone.if.no.acl.found"]) == (AUTHORIZER, "false"), name
        assert p["super.users"] == "User:admin", name
        assert "ANONYMOUS" not in texts[name], name
        # Every node reaches the controllers over SASL PLAIN as admin: brokers register, controllers vote.
        assert p["listener.security.protocol.map"].split(",")[0] == "CONTROLLER:SASL_PLAINTEXT", name
        assert p["sasl.mechanism.controller.protocol"] == "PLAIN", name
        jaas = p["listener.name.controller.plain.sasl.jaas.config"]
        assert jaas.startswith(PLAIN) and f'username="admin" password="{password}"' in jaas, name
    controller = props["controller-101"]
    assert controller["listeners"] == "CONTROLLER://127.0.0.1:9192"
    assert controller["listener.name.controller.sasl.enabled.mechanisms"] == "PLAIN"
    assert controller["listener.name.controller.plain.sasl.jaas.config"].endswith(f' user_admin="{password}";')
    for broker in ("broker-1", "broker-2"):  # they serve no controllers' listener: they only log in to it
        assert "user_admin" not in props[broker]["listener.name.controller.plain.sasl.jaas.config"]
        assert "listener.name.controller.sasl.enabled.mechanisms" not in props[broker]
        assert props[broker]["sasl.enabled.mechanisms"] == "SCRAM-SHA-512"  # the brokers' listener: SCRAM, as before


def test_combined_nodes_serve_the_controller_listener_and_a_fourth_broker_logs_in_to_it(tmp_path: Path) -> None:
    spec = ClusterSpec(mode="kraft", brokers=4, security="sasl_plaintext", authorizer=True).validate()
    props = _properties(tmp_path, spec)
    for name in ("broker-1", "broker-2", "broker-3"):  # broker+controller: the quorum's voters
        assert props[name]["process.roles"] == "broker,controller"
        assert props[name]["super.users"] == "User:admin"
        assert props[name]["listener.name.controller.sasl.enabled.mechanisms"] == "PLAIN"
        assert props[name]["sasl.enabled.mechanisms"] == "SCRAM-SHA-512"  # the brokers' listener keeps SCRAM
        assert "user_admin=" in props[name]["listener.name.controller.plain.sasl.jaas.config"]
    assert props["broker-4"]["process.roles"] == "broker"
    assert props["broker-4"]["super.users"] == "User:admin"
    assert props["broker-4"]["authorizer.class.name"] == AUTHORIZER
    assert props["broker-4"]["sasl.mechanism.controller.protocol"] == "PLAIN"
    assert "user_admin=" not in props["broker-4"]["listener.name.controller.plain.sasl.jaas.config"]


def test_a_sasl_lab_without_an_authorizer_locks_its_controllers_too(tmp_path: Path) -> None:
    props = _properties(tmp_path, ClusterSpec(mode="kraft", brokers=1, security="sasl_plaintext").validate())
    assert props["broker-1"]["listener.security.protocol.map"].startswith("CONTROLLER:SASL_PLAINTEXT,")
    assert props["broker-1"]["listener.name.controller.sasl.enabled.mechanisms"] == "PLAIN"
    assert "super.users" not in props["broker-1"]


def test_a_lab_whose_controllers_were_written_plaintext_keeps_them_so_for_a_node_added_to_it(tmp_path: Path) -> None:
    """A lab made before kafkatop took SASL on the controllers' listener: a node written for it now (add-broker)
    reaches its controllers as they are, PLAINTEXT, as ANONYMOUS, which its controllers' files make a super user."""
    spec = ClusterSpec(mode="kraft", brokers=2, controllers=1, security="sasl_ssl", authorizer=True).validate()
    props = _properties(tmp_path, spec, controller_sasl=False)
    for name, p in props.items():
        assert p["listener.security.protocol.map"].startswith("CONTROLLER:PLAINTEXT,"), name
        assert not any(key.startswith(("listener.name.controller.", "sasl.mechanism.controller")) for key in p), name
    assert props["controller-101"]["super.users"] == "User:admin;User:ANONYMOUS"
    assert props["broker-1"]["super.users"] == "User:admin"
    old = LabSecurity(tmp_path / "old", "old", "sasl_ssl", authorizer=True, controller_sasl=False)
    old.ensure(cluster_nodes(spec, "kraft"))
    assert old.controller_admin_properties_path is None and not (tmp_path / "old" / CONTROLLER_ADMIN).exists()


@pytest.mark.parametrize("security", ["sasl_ssl", "plaintext"])
def test_no_authorizer_asked_none_is_set(tmp_path: Path, security: str) -> None:
    for p in _properties(tmp_path, ClusterSpec(mode="kraft", brokers=1, security=security).validate()).values():
        assert not set(AUTHORIZER_KEYS) & set(p)


@pytest.mark.parametrize("security", ["plaintext", "ssl"])
def test_an_authorizer_without_sasl_is_refused_in_one_line(security: str) -> None:
    with pytest.raises(SpecError) as refused:
        ClusterSpec(mode="kraft", security=security, authorizer=True).validate()
    assert str(refused.value) == (
        f"--authorizer needs SASL users to tell apart (on {security} every client is User:ANONYMOUS): add "
        "--security sasl_ssl (or sasl_plaintext, sasl_oauthbearer)"
    )


def test_up_authorizer_without_sasl_exits_2_before_anything_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KAFKA_HOME", raising=False)  # refused before a Kafka is looked for
    state = tmp_path / "state"
    assert main(["up", "--authorizer", "--security", "ssl", "--state-dir", str(state)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "add --security sasl_ssl" in err
    assert not state.exists()


def test_the_flag_and_the_toml_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    parse = build_parser().parse_args
    assert build_spec(parse(["up", "--security", "sasl_ssl", "--authorizer"])).authorizer
    assert not build_spec(parse(["up"])).authorizer
    toml = tmp_path / "kafkatop.toml"
    toml.write_text('[cluster]\nsecurity = "sasl_ssl"\nauthorizer = true\n')
    spec = build_spec(parse(["up"])).validate()
    assert (spec.security, spec.authorizer) == ("sasl_ssl", True)
    toml.write_text('[cluster]\nauthorizer = "yes"\n')
    with pytest.raises(SpecError, match="authorizer = 'yes' must be true or false"):
        load_spec_file(toml)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_sasl_lab_writes_admin_properties_beside_client_properties(tmp_path: Path) -> None:
    spec = ClusterSpec(name="acl", mode="kraft", brokers=1, security="sasl_ssl", authorizer=True).validate()
    lab = LabSecurity(tmp_path, "acl", "sasl_ssl", authorizer=True)
    lab.ensure(cluster_nodes(spec, "kraft"))
    assert lab.admin_properties_path == tmp_path / ADMIN_PROPERTIES
    passwords = lab.passwords()
    for name, user in ((CLIENT_PROPERTIES, "client"), (ADMIN_PROPERTIES, "admin")):
        path = tmp_path / name
        assert _mode(path) == 0o600
        assert path.read_text().startswith(f"# kafkatop lab cluster 'acl': user {user}'s settings for SASL_SSL")
        got = dict(translate_client_properties(read_properties(path)).settings)
        assert (got["sasl.username"], got["sasl.password"]) == (user, passwords[user])
    # The controllers' listener (--bootstrap-controller): admin over SASL_PLAINTEXT, PLAIN, no TLS there.
    controller = tmp_path / CONTROLLER_ADMIN
    assert lab.controller_admin_properties_path == controller and _mode(controller) == 0o600
    assert controller.read_text().startswith(
        "# kafkatop lab cluster 'acl': user admin's settings for the KRaft controllers' listener (SASL_PLAINTEXT, "
        "PLAIN),\n# in Kafka's Java client format. For Kafka's tools with --bootstrap-controller"
    )
    translated = translate_client_properties(read_properties(controller))
    assert translated.ignored == () and translated.stores == ()
    assert dict(translated.settings) == {
        "security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN",
        "sasl.username": "admin", "sasl.password": passwords["admin"],
    }  # fmt: skip
    # A Connect worker would need ACLs on its group and topics: on a lab with an authorizer, it is admin.
    assert f'username="admin" password="{passwords["admin"]}"' in lab.worker_settings()["sasl.jaas.config"]
    plain = LabSecurity(tmp_path, "acl", "sasl_ssl")
    assert 'username="client"' in plain.worker_settings()["sasl.jaas.config"]


def test_tls_alone_has_no_users_and_no_admin_properties(tmp_path: Path) -> None:
    lab = LabSecurity(tmp_path, "tls", "ssl")
    lab.ensure(cluster_nodes(ClusterSpec(mode="kraft", brokers=1, security="ssl"), "kraft"))
    assert lab.admin_properties_path is None and not (tmp_path / ADMIN_PROPERTIES).exists()
    assert (tmp_path / CLIENT_PROPERTIES).is_file()


def test_kafkatop_uses_admin_properties_for_a_lab_by_name_unless_told(tmp_path: Path) -> None:
    folder = tmp_path / "acl"
    folder.mkdir()
    lab = LabSecurity(folder, "acl", "sasl_plaintext", authorizer=True)
    lab.ensure(cluster_nodes(ClusterSpec(mode="kraft", brokers=1, security="sasl_plaintext"), "kraft"))
    by_name = build_parser().parse_args(["describe", "--name", "acl", "--state-dir", str(tmp_path)])
    assert lab_client_properties(by_name) == folder / ADMIN_PROPERTIES
    assert client_settings(by_name)["sasl.username"] == "admin"
    told = build_parser().parse_args(
        ["describe", "--name", "acl", "--state-dir", str(tmp_path), "--command-config", str(folder / CLIENT_PROPERTIES)]
    )
    assert client_settings(told)["sasl.username"] == "client"
    (folder / ADMIN_PROPERTIES).unlink()  # a lab made before admin.properties was: its client's, as before
    assert lab_client_properties(by_name) == folder / CLIENT_PROPERTIES


def test_no_password_on_the_format_command_line(tmp_path: Path) -> None:
    lab = LabSecurity(tmp_path, "acl", "sasl_ssl", authorizer=True)
    cmd, argfile = format_command(INSTALL, "CLUSTERID", tmp_path / "c.properties", lab, tmp_path / "args")
    assert argfile is not None
    for password in lab.passwords().values():
        assert password in argfile and not any(password in arg for arg in cmd)


def test_status_says_which_user_each_file_is(tmp_path: Path) -> None:
    snap = LabSnapshot(
        "acl", "kraft", str(HOME), "4.1.0", "ID", tmp_path, (), "sasl_ssl",
        tmp_path / CLIENT_PROPERTIES, tmp_path / ADMIN_PROPERTIES, authorizer=True,
        controller_admin_properties=tmp_path / CONTROLLER_ADMIN,
    )  # fmt: skip
    assert security_text(snap) == (
        "SASL_SSL (SCRAM-SHA-512 users admin, client; TLS by the lab's own CA; authorizer StandardAuthorizer: no ACL, "
        "no access; controllers SASL_PLAINTEXT (PLAIN, user admin) on 127.0.0.1) · client settings "
        f"{tmp_path}/client.properties (user client) · admin: {tmp_path}/admin.properties (user admin, a super user) "
        f"· controllers: {tmp_path}/controller-admin.properties (user admin, for --bootstrap-controller)"
    )
    made_before = LabSnapshot(
        "acl", "kraft", str(HOME), "4.1.0", "ID", tmp_path, (), "sasl_ssl",
        tmp_path / CLIENT_PROPERTIES, tmp_path / ADMIN_PROPERTIES, authorizer=True,
    )  # fmt: skip
    assert "controllers PLAINTEXT on 127.0.0.1" in security_text(made_before)
    assert "for --bootstrap-controller" not in security_text(made_before)


def test_an_existing_lab_without_an_authorizer_is_used_as_it_is(tmp_path: Path) -> None:
    """A lab's settings are in its nodes' files, written once: `up --authorizer` on a lab made without it says so."""
    made = ClusterSpec(name="old", mode="kraft", brokers=1, security="sasl_ssl")
    state = LabState(tmp_path / "old", INSTALL, made, "kraft")
    notes = state.differences(INSTALL, ClusterSpec(name="old", brokers=1, security="sasl_ssl", authorizer=True))
    assert notes[1:] == [
        "it has no authorizer",
        f"use another --name, or `kafkatop down --delete --name old --state-dir {tmp_path}` first (its data is lost), "
        "for a different cluster",
    ]


def test_a_connect_worker_gets_no_authorizer(tmp_path: Path) -> None:
    lab = LabSecurity(tmp_path, "acl", "sasl_ssl", authorizer=True)
    assert lab.authorizer_settings(NodeSpec("connect-1", ProcessRole.CONNECT, None, 9292)) == {}
