"""A lab with an authorizer (`up --security sasl_ssl --authorizer`, `authorizer = true` in kafkatop.toml): the
settings each node role gets (StandardAuthorizer everywhere; ANONYMOUS, the brokers on the controller listener, a
super user only where that listener is served), --authorizer without SASL refused in one line before anything is
made, admin.properties beside client.properties (0600 both), kafkatop's own commands and a lab's Connect workers as
admin, and no password on a command line."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from kafkatop.backends.lab.configs import node_properties
from kafkatop.backends.lab.install import KafkaInstall, KafkaVersion, Layout
from kafkatop.backends.lab.properties import parse_properties, read_properties
from kafkatop.backends.lab.security import ADMIN_PROPERTIES, AUTHORIZER, CLIENT_PROPERTIES, LabSecurity
from kafkatop.backends.lab.spec import ClusterSpec, NodeSpec, SpecError, cluster_nodes, load_spec_file
from kafkatop.backends.lab.state import LabSnapshot, LabState
from kafkatop.backends.lab.storage import format_command
from kafkatop.backends.model.client_properties import translate_client_properties
from kafkatop.backends.model.processes import ProcessRole
from kafkatop.tui.cli.common import build_spec, client_settings, lab_client_properties
from kafkatop.tui.cli.lab import security_text
from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.parser import build_parser

STOCK = Path(__file__).parent.parent / "fixtures" / "stock" / "kafka-4.1"
HOME = Path("/opt/kafka_2.13-4.1.0")
INSTALL = KafkaInstall(HOME, Layout.APACHE, KafkaVersion.parse("4.1.0"), HOME / "bin", HOME / "config", ".sh")
AUTHORIZER_KEYS = ("authorizer.class.name", "allow.everyone.if.no.acl.found", "super.users")


def _properties(tmp_path: Path, spec: ClusterSpec) -> dict[str, dict[str, str]]:
    """Each node's server.properties, as the runner writes them: the stock file of its role, the lab's settings."""
    nodes = cluster_nodes(spec, "kraft")
    security = LabSecurity(tmp_path, spec.name, spec.security, spec.authorizer)
    security.ensure(nodes)
    stock = {"broker": "broker.properties", "controller": "controller.properties"}
    return {
        node.name: parse_properties(
            node_properties(
                (STOCK / stock.get(node.role.value, "server.properties")).read_text(),
                spec=spec,
                mode="kraft",
                node=node,
                nodes=nodes,
                log_dir=tmp_path / "data" / node.name,
                stock_path="stock",
                security_settings=security.node_settings(node),
            )
        )
        for node in nodes
    }


def test_dedicated_controllers_count_the_brokers_anonymous_as_a_super_user_and_brokers_do_not(tmp_path: Path) -> None:
    spec = ClusterSpec(mode="kraft", brokers=2, controllers=1, security="sasl_ssl", authorizer=True).validate()
    props = _properties(tmp_path, spec)
    assert set(props) == {"controller-101", "broker-1", "broker-2"}
    for name, p in props.items():
        assert (p["authorizer.class.name"], p["allow.everyone.if.no.acl.found"]) == (AUTHORIZER, "false"), name
    assert props["controller-101"]["super.users"] == "User:admin;User:ANONYMOUS"
    assert props["broker-1"]["super.users"] == props["broker-2"]["super.users"] == "User:admin"
    # The controller listener stays PLAINTEXT: the brokers reach it as ANONYMOUS, which is why it is a super user.
    assert props["controller-101"]["listeners"] == "CONTROLLER://127.0.0.1:9192"


def test_combined_nodes_serve_the_controller_listener_and_a_fourth_broker_does_not(tmp_path: Path) -> None:
    spec = ClusterSpec(mode="kraft", brokers=4, security="sasl_plaintext", authorizer=True).validate()
    props = _properties(tmp_path, spec)
    for name in ("broker-1", "broker-2", "broker-3"):  # broker+controller: the quorum's voters
        assert props[name]["process.roles"] == "broker,controller"
        assert props[name]["super.users"] == "User:admin;User:ANONYMOUS"
    assert props["broker-4"]["process.roles"] == "broker"
    assert props["broker-4"]["super.users"] == "User:admin"
    assert props["broker-4"]["authorizer.class.name"] == AUTHORIZER


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
        "--security sasl_ssl (or sasl_plaintext)"
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
    )  # fmt: skip
    assert security_text(snap) == (
        "SASL_SSL (SCRAM-SHA-512 users admin, client; TLS by the lab's own CA; authorizer StandardAuthorizer: no ACL, "
        f"no access; controllers PLAINTEXT on 127.0.0.1) · client settings {tmp_path}/client.properties (user client) "
        f"· admin: {tmp_path}/admin.properties (user admin, a super user)"
    )


def test_an_existing_lab_without_an_authorizer_is_used_as_it_is(tmp_path: Path) -> None:
    """A lab's settings are in its nodes' files, written once: `up --authorizer` on a lab made without it says so."""
    made = ClusterSpec(name="old", mode="kraft", brokers=1, security="sasl_ssl")
    state = LabState(tmp_path / "old", INSTALL, made, "kraft")
    notes = state.differences(INSTALL, ClusterSpec(name="old", brokers=1, security="sasl_ssl", authorizer=True))
    assert notes[1:] == [
        "it has no authorizer",
        "use another --name, or `kafkatop down --delete` first, for a different cluster",
    ]


def test_a_connect_worker_gets_no_authorizer(tmp_path: Path) -> None:
    lab = LabSecurity(tmp_path, "acl", "sasl_ssl", authorizer=True)
    assert lab.authorizer_settings(NodeSpec("connect-1", ProcessRole.CONNECT, None, 9292)) == {}
