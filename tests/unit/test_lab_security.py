"""A secured lab's material: the CA signs each broker's certificate for 127.0.0.1 and localhost; passwords, keys and
client.properties are the owner's alone (0600, in a 0700 folder); the brokers' properties name the protocol's
listener, and the controllers' listener takes SASL PLAIN on a SASL lab (PLAINTEXT on a TLS-only one, which has no
users); client.properties reads back, through the --command-config translation, as the right librdkafka settings."""

from __future__ import annotations

import ipaddress
import stat
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from kafkatop.backends.lab.certs import new_ca, new_server_cert
from kafkatop.backends.lab.configs import node_properties, with_protocol
from kafkatop.backends.lab.properties import parse_properties, read_properties
from kafkatop.backends.lab.security import CLIENT_PROPERTIES, LabSecurity
from kafkatop.backends.lab.spec import ClusterSpec, SpecError, cluster_nodes
from kafkatop.backends.model.client_properties import translate_client_properties


def test_the_ca_signs_a_server_certificate_for_127_0_0_1_and_localhost() -> None:
    ca_key, ca = new_ca("lab")
    _, cert = new_server_cert(ca_key, ca, "broker-1.lab")
    cert.verify_directly_issued_by(ca)  # raises unless the CA's key signed it
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert not cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert san.get_values_for_type(x509.IPAddress) == [ipaddress.ip_address("127.0.0.1")]
    assert san.get_values_for_type(x509.DNSName) == ["localhost"]
    other_key, other = new_ca("other")
    with pytest.raises(ValueError):
        cert.verify_directly_issued_by(other)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("security", ["ssl", "sasl_plaintext", "sasl_ssl"])
def test_ensure_writes_private_material_and_a_client_properties_that_translates(tmp_path: Path, security: str) -> None:
    spec = ClusterSpec(name="sec", mode="kraft", brokers=2, base_port=39092, security=security).validate()
    nodes = cluster_nodes(spec, "kraft")
    lab = LabSecurity(tmp_path, "sec", security)
    lab.ensure(nodes)
    client = tmp_path / CLIENT_PROPERTIES
    assert _mode(client) == 0o600
    assert _mode(tmp_path / "security") == 0o700
    for f in (tmp_path / "security").iterdir():
        assert _mode(f) == 0o600, f
    props = read_properties(client)
    assert props["security.protocol"] == security.upper()
    translated = translate_client_properties(props)
    assert translated.ignored == ()
    got = dict(translated.settings)
    passwords = lab.passwords()
    if "sasl" in security:
        assert got["sasl.mechanisms"] == "SCRAM-SHA-512"
        assert (got["sasl.username"], got["sasl.password"]) == ("client", passwords["client"])
        assert passwords["admin"] != passwords["client"] and len(passwords["admin"]) >= 32
        assert lab.format_arguments() == [
            "--add-scram",
            f"SCRAM-SHA-512=[name=admin,password={passwords['admin']}]",
            "--add-scram",
            f"SCRAM-SHA-512=[name=client,password={passwords['client']}]",
        ]
        assert lab.redact(f"bad --add-scram {lab.format_arguments()[1]}") == (
            "bad --add-scram SCRAM-SHA-512=[name=admin,password=***]"
        )
    if "ssl" in security:
        (store,) = translated.stores
        assert (store.location, store.type) == (str(lab.ca_path), "PEM")
        ca = x509.load_pem_x509_certificate(lab.ca_path.read_bytes())
        for node in nodes:
            pem = lab.keystore_path(node).read_bytes()
            cert = x509.load_pem_x509_certificates(pem)[0]
            cert.verify_directly_issued_by(ca)
            serialization.load_pem_private_key(pem, None)  # unencrypted PKCS#8: Kafka's JDK reads no PBES2
    # Made once: a second ensure changes nothing.
    before = {f.name: f.read_bytes() for f in (tmp_path / "security").iterdir()}
    lab.ensure(nodes)
    assert before == {f.name: f.read_bytes() for f in (tmp_path / "security").iterdir()}


def test_broker_properties_of_a_sasl_ssl_lab(tmp_path: Path) -> None:
    spec = ClusterSpec(name="sec", mode="kraft", brokers=3, base_port=39092, security="sasl_ssl").validate()
    nodes = cluster_nodes(spec, "kraft")
    lab = LabSecurity(tmp_path, "sec", "sasl_ssl")
    lab.ensure(nodes)
    text = node_properties(
        "#listeners=PLAINTEXT://:9092\n",
        spec=spec,
        mode="kraft",
        node=nodes[0],
        nodes=nodes,
        log_dir=tmp_path / "data",
        stock_path="stock",
        security_settings=lab.node_settings(nodes[0]),
        controller_protocol=lab.controller_protocol,
    )
    props = parse_properties(text)
    assert props["listeners"] == "SASL_SSL://127.0.0.1:39092,CONTROLLER://127.0.0.1:39192"
    assert props["advertised.listeners"].startswith("SASL_SSL://127.0.0.1:39092")
    assert props["inter.broker.listener.name"] == "SASL_SSL"
    # The controllers' listener (no TLS there: it binds 127.0.0.1) takes SASL PLAIN; the map's other entries stay.
    assert props["listener.security.protocol.map"] == (
        "CONTROLLER:SASL_PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL"
    )
    assert props["listener.name.controller.sasl.enabled.mechanisms"] == "PLAIN"
    assert props["sasl.enabled.mechanisms"] == props["sasl.mechanism.inter.broker.protocol"] == "SCRAM-SHA-512"
    jaas = props["listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config"]
    assert f'username="admin" password="{lab.passwords()["admin"]}"' in jaas
    assert props["ssl.keystore.type"] == props["ssl.truststore.type"] == "PEM"
    assert props["ssl.keystore.location"] == str(lab.keystore_path(nodes[0]))


@pytest.mark.parametrize("security", ["plaintext", "ssl"])
def test_a_lab_without_sasl_keeps_its_controllers_listener_plaintext(tmp_path: Path, security: str) -> None:
    spec = ClusterSpec(name="sec", mode="kraft", brokers=1, security=security).validate()
    (node,) = cluster_nodes(spec, "kraft")
    lab = LabSecurity(tmp_path, "sec", security)
    lab.ensure((node,))
    assert (lab.controller_protocol, lab.controller_admin_properties_path) == ("PLAINTEXT", None)
    assert lab.controller_listener_settings(node) == {} and lab.controller_client_settings({"admin": "x"}) == {}
    text = node_properties(
        "", spec=spec, mode="kraft", node=node, nodes=(node,), log_dir=tmp_path / "data", stock_path="stock",
        security_settings=lab.node_settings(node), controller_protocol=lab.controller_protocol,
    )  # fmt: skip
    props = parse_properties(text)
    assert props["listener.security.protocol.map"].startswith("CONTROLLER:PLAINTEXT,")
    assert not [key for key in props if "sasl" in key] and not (tmp_path / "controller-admin.properties").exists()


def test_with_protocol_sets_one_listeners_entry() -> None:
    stock = "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL"
    assert with_protocol(stock, "CONTROLLER", "PLAINTEXT") is stock  # unchanged: the file reads as the stock one
    assert (
        with_protocol(stock, "CONTROLLER", "SASL_PLAINTEXT") == "CONTROLLER:SASL_PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL"
    )
    assert with_protocol("BROKER:SSL", "CONTROLLER", "SASL_PLAINTEXT") == "CONTROLLER:SASL_PLAINTEXT,BROKER:SSL"


def test_plaintext_labs_are_unchanged_and_security_needs_kraft(tmp_path: Path) -> None:
    lab = LabSecurity(tmp_path, "lab", "plaintext")
    lab.ensure(cluster_nodes(ClusterSpec(), "kraft"))
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(SpecError, match="needs a KRaft cluster"):
        ClusterSpec(mode="zk", security="ssl").validate()
    with pytest.raises(SpecError, match="security 'tls'"):
        ClusterSpec(security="tls").validate()
