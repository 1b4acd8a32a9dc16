"""An OAuth lab (`kafkatop up --security sasl_oauthbearer`): the issuer a node of its own, first to start, on
base+300 or --issuer-port; the brokers' OAUTHBEARER listener validated against the issuer's JWKS and their own login to
each other as admin; client.properties and admin.properties as Kafka's clients read them (and kafkatop: the same
translation as for any OAUTHBEARER file); the issuer's clients file holding the lab's passwords, 0600; no SCRAM users
formatted; the allowed-URLs JVM option given to the Kafka nodes and workers, not to the issuer; the authorizer
allowed, as on any SASL lab."""

from __future__ import annotations

import stat
from dataclasses import replace
from pathlib import Path

import pytest

from kafkatop.backends.insight.timeline.timeline import Timeline
from kafkatop.backends.lab.kafka_homes import KafkaInstall, KafkaVersion, Layout
from kafkatop.backends.lab.oauth import ALLOWED_URLS, LOGIN_HANDLER, VALIDATOR, LabIssuer
from kafkatop.backends.lab.properties import parse_properties
from kafkatop.backends.lab.security import ADMIN_PROPERTIES, CLIENT_PROPERTIES, LabSecurity, mechanism
from kafkatop.backends.lab.spec import ClusterSpec, SpecError, cluster_nodes
from kafkatop.backends.lab.state import LabState
from kafkatop.backends.model.client_properties import translate_client_properties
from kafkatop.backends.model.nodes import NodesSnapshot, NodeState, NodeView, ProcessRole
from kafkatop.tui.cli.common import build_spec
from kafkatop.tui.cli.parser import build_parser

HOME = Path("/opt/kafka_2.13-4.1.0")
INSTALL = KafkaInstall(HOME, Layout.APACHE, KafkaVersion.parse("4.1.0"), HOME / "bin", HOME / "config", ".sh")
SPEC = ClusterSpec(mode="kraft", brokers=3, base_port=31000, security="sasl_oauthbearer", authorizer=True)


def _security(tmp_path: Path, spec: ClusterSpec = SPEC) -> LabSecurity:
    security = LabSecurity(tmp_path, spec.name, spec.security, spec.authorizer, issuer_port=spec.first_issuer_port)
    security.ensure(cluster_nodes(spec, "kraft"))
    return security


def test_the_issuer_is_a_node_that_starts_first_on_base_plus_300() -> None:
    nodes = cluster_nodes(SPEC.validate(), "kraft")
    assert (nodes[0].name, nodes[0].role, nodes[0].port) == ("issuer", ProcessRole.ISSUER, 31300)
    assert [n.name for n in nodes[1:]] == ["broker-1", "broker-2", "broker-3"]
    assert not any(n.is_issuer for n in cluster_nodes(ClusterSpec(mode="kraft", security="sasl_ssl"), "kraft"))


def test_the_flag_names_the_issuer_port_and_a_clash_is_said() -> None:
    args = build_parser().parse_args(["up", "--security", "sasl_oauthbearer", "--issuer-port", "31999"])
    spec = build_spec(args)
    assert spec.security == "sasl_oauthbearer" and spec.first_issuer_port == 31999
    clash = ClusterSpec(mode="kraft", base_port=31000, security="sasl_oauthbearer", issuer_port=31100)
    with pytest.raises(SpecError, match=r"31100-31102 overlap OIDC issuer port \(--issuer-port\) 31100-31100"):
        clash.validate()


def test_an_authorizer_is_allowed_on_an_oauth_lab() -> None:
    assert SPEC.validate().authorizer_problem is None
    assert "sasl_oauthbearer" in str(ClusterSpec(mode="kraft", security="ssl", authorizer=True).authorizer_problem)


def test_the_brokers_validate_tokens_against_the_issuer_and_log_in_to_each_other_as_admin(tmp_path: Path) -> None:
    security = _security(tmp_path)
    broker = next(n for n in cluster_nodes(SPEC, "kraft") if n.is_broker)
    settings = security.node_settings(broker)
    prefix = "listener.name.sasl_plaintext.oauthbearer"
    assert settings["sasl.enabled.mechanisms"] == settings["sasl.mechanism.inter.broker.protocol"] == "OAUTHBEARER"
    assert settings[f"{prefix}.sasl.server.callback.handler.class"] == VALIDATOR
    assert settings[f"{prefix}.sasl.login.callback.handler.class"] == LOGIN_HANDLER
    assert settings["sasl.oauthbearer.jwks.endpoint.url"] == "http://127.0.0.1:31300/jwks"
    assert settings["sasl.oauthbearer.expected.issuer"] == "http://127.0.0.1:31300"
    assert settings["sasl.oauthbearer.expected.audience"] == "kafka"
    assert settings["sasl.oauthbearer.client.credentials.client.id"] == "admin"
    assert settings["sasl.oauthbearer.client.credentials.client.secret"] == security.passwords()["admin"]
    # the controllers' listener keeps SASL PLAIN, and the authorizer names admin, the tokens' sub
    assert settings["sasl.mechanism.controller.protocol"] == "PLAIN"
    assert settings["super.users"] == "User:admin"
    assert security.format_arguments() == []  # no SCRAM user: the issuer's clients are the lab's users
    assert mechanism("sasl_oauthbearer") == "OAUTHBEARER" and mechanism("sasl_ssl") == "SCRAM-SHA-512"


def test_client_and_admin_properties_are_kafka_s_oauth_settings_and_kafkatop_reads_them(tmp_path: Path) -> None:
    security = _security(tmp_path)
    for name, user in ((CLIENT_PROPERTIES, "client"), (ADMIN_PROPERTIES, "admin")):
        path = tmp_path / name
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        text = path.read_text()
        props = parse_properties(text)
        assert props["security.protocol"] == "SASL_PLAINTEXT" and props["sasl.mechanism"] == "OAUTHBEARER"
        assert props["sasl.oauthbearer.token.endpoint.url"] == "http://127.0.0.1:31300/token"
        assert props["sasl.oauthbearer.client.credentials.client.id"] == user
        assert props["sasl.oauthbearer.client.credentials.client.secret"] == security.passwords()[user]
        assert f"export KAFKA_OPTS=-D{ALLOWED_URLS}=http://127.0.0.1:31300/jwks,http://127.0.0.1:31300/token" in text
        librdkafka = dict(translate_client_properties(props).settings)
        assert librdkafka["sasl.oauthbearer.method"] == "oidc" and librdkafka["sasl.oauthbearer.client.id"] == user


def test_the_issuer_s_clients_are_the_lab_s_passwords_in_0600_files(tmp_path: Path) -> None:
    security = _security(tmp_path)
    issuer = security.issuer
    assert issuer is not None
    assert stat.S_IMODE(issuer.folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(issuer.clients_path.stat().st_mode) == 0o600
    assert parse_properties(issuer.clients_path.read_text()) == security.passwords()


def test_the_issuer_runs_this_python_and_no_secret_is_on_its_command_line(tmp_path: Path) -> None:
    security = _security(tmp_path)
    assert security.issuer is not None
    command = " ".join(security.issuer.command())
    assert "-m kafkatop.backends.lab.oidc_issuer --port 31300 --dir" in command
    assert not [p for p in security.passwords().values() if p in command]


def test_no_issuer_on_other_labs(tmp_path: Path) -> None:
    assert LabSecurity(tmp_path, "lab", "sasl_ssl", issuer_port=31300).issuer is None
    urls = "http://127.0.0.1:1/jwks,http://127.0.0.1:1/token"
    assert LabIssuer(tmp_path, 1).allowed_urls_option() == f"-D{ALLOWED_URLS}={urls}"


def test_an_issuer_port_without_an_oauth_lab_is_refused_and_an_existing_lab_says_its_own() -> None:
    with pytest.raises(SpecError, match=r"--issuer-port 31999 is the OIDC issuer's of an OAuth lab: add --security"):
        ClusterSpec(mode="kraft", issuer_port=31999).validate()


def test_an_existing_lab_says_where_its_issuer_is(tmp_path: Path) -> None:
    state = LabState(tmp_path / "lab", INSTALL, SPEC, "kraft")
    notes = state.differences(INSTALL, replace(SPEC, issuer_port=31999))
    assert notes[1] == "its OIDC issuer is on port 31300"
    plain = LabState(tmp_path / "p", INSTALL, ClusterSpec(name="p", mode="kraft"), "kraft")
    assert plain.differences(INSTALL, replace(SPEC, name="p", issuer_port=31999))[-2:-1] == ["it has no OIDC issuer"]


def _issuer_nodes(at: float, issuer: NodeState) -> NodesSnapshot:
    views = (
        NodeView("issuer", ProcessRole.ISSUER, None, issuer, 11 if issuer is NodeState.UP else None, (31300,), None,
                 None, 10.0, None),
        NodeView("broker-1", ProcessRole.COMBINED, 1, NodeState.UP, 12, (31000, 31100), None, None, 10.0, None),
    )  # fmt: skip
    return NodesSnapshot(at, "lab", "lab", views, True)


def test_the_issuer_killed_and_started_again_are_events_not_incidents() -> None:
    """It holds no partition: an incident of its own would wait for a recovery that never comes."""
    timeline = Timeline()
    timeline.observe_nodes(_issuer_nodes(1000.0, NodeState.UP))
    timeline.record_action("kill", "issuer", 1001.0)
    timeline.observe_nodes(_issuer_nodes(1002.0, NodeState.KILLED))
    timeline.record_action("start", "issuer", 1003.0)
    timeline.observe_nodes(_issuer_nodes(1004.0, NodeState.UP))
    snapshot = timeline.snapshot()
    assert [e.node for e in snapshot.events].count("issuer") >= 3 and snapshot.incidents == ()
