"""ConfluentRegistry (backends/schemas/registry.py) against the Schema Registry TEST DOUBLE (no real registry can run
here): the poll of the Schemas tab, a schema by subject and by id, registering; its settings from kafkatop's (a
properties file of secrets and paths, whose values no message quotes); and every failure as one line, never a
traceback: no answer, no registry there, 401, a subject that is not there, an incompatible schema."""

from __future__ import annotations

import json
import socket
import ssl
from pathlib import Path

import pytest

from kafkatop.backends.lab.certs import cert_pem, key_pem, new_ca, new_server_cert
from kafkatop.backends.model.formats import FormatError, RegistrySettings
from kafkatop.backends.schemas.registry import (
    ALLOWED,
    ConfluentRegistry,
    RegistryRefused,
    RegistryUnavailable,
    registry_config,
)
from tests.doubles.schema_registry import SchemaRegistryDouble

V1 = json.dumps({"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"}]})
V2 = json.dumps(
    {
        "type": "record",
        "name": "R",
        "fields": [{"name": "a", "type": "int"}, {"name": "b", "type": "long", "default": 0}],
    }
)
SECRET = "pa55-w0rd-never-shown"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def properties(tmp_path: Path, text: str) -> str:
    path = tmp_path / "registry.properties"
    path.write_text(text)
    return str(path)


def test_poll_of_the_double_gives_subjects_versions_levels_and_latest_schemas(
    double: SchemaRegistryDouble, registry: ConfluentRegistry
) -> None:
    first = double.register("orders-value", V1)
    second = double.register("orders-value", V2)
    double.register("audit-value", V1)
    double.store.set_level("orders-value", {"compatibility": "FULL"})
    snap = registry.poll()
    assert snap.error is None and snap.url == double.url
    assert snap.compatibility == "BACKWARD"
    assert [(s.name, s.versions, s.compatibility) for s in snap.subjects] == [
        ("audit-value", (1,), None),
        ("orders-value", (1, 2), "FULL"),
    ]
    latest = snap.subjects[1].latest
    assert latest is not None
    assert (latest.subject, latest.version, latest.schema_id, latest.schema_type) == ("orders-value", 2, second, "AVRO")
    assert json.loads(latest.schema) == json.loads(V2)
    asked = double.count("GET", "/subjects/orders-value/versions/2")
    registry.poll()
    assert double.count("GET", "/subjects/orders-value/versions/2") == asked  # a version is read once
    assert first == snap.subjects[0].latest.schema_id  # type: ignore[union-attr]


def test_schema_by_subject_and_by_id_and_register(double: SchemaRegistryDouble, registry: ConfluentRegistry) -> None:
    schema_id = registry.register("orders-value", "AVRO", V1)
    assert registry.register("orders-value", "AVRO", V1) == schema_id
    assert registry.schema("orders-value").schema_id == schema_id
    assert registry.schema("orders-value", 1).version == 1
    found = registry.schema_by_id(schema_id)
    assert (found.subject, found.version, found.schema_type, json.loads(found.schema)) == (
        "orders-value",
        1,
        "AVRO",
        json.loads(V1),
    )
    text = 'syntax = "proto3"; message Ping { int32 n = 1; }'
    proto_id = registry.register("ping-value", "PROTOBUF", text)
    assert registry.schema_by_id(proto_id).schema == text  # as registered: what a reader is shown
    double.store.delete_subject("ping-value", permanent=False)
    orphan = registry.schema_by_id(proto_id)
    assert (orphan.subject, orphan.version, orphan.schema_type) == ("", 0, "PROTOBUF")  # the registry does not say


def test_what_the_double_refuses_is_one_line_of_bad_input(registry: ConfluentRegistry) -> None:
    with pytest.raises(RegistryRefused, match=r"Subject 'nope' not found\. \(40401\)$"):
        registry.schema("nope")
    with pytest.raises(RegistryRefused, match=r"Schema 42 not found \(40403\)"):
        registry.schema_by_id(42)
    registry.register("s", "AVRO", V1)
    incompatible = json.dumps({"type": "record", "name": "R", "fields": [{"name": "z", "type": "int"}]})
    with pytest.raises(RegistryRefused) as caught:
        registry.register("s", "AVRO", incompatible)
    assert "incompatible" in str(caught.value) and "\n" not in str(caught.value)
    with pytest.raises(RegistryRefused, match="42201"):
        registry.register("s", "AVRO", '{"type": "nope"}')


def test_no_answer_is_said_in_the_snapshot_never_raised() -> None:
    registry = ConfluentRegistry(RegistrySettings(f"http://127.0.0.1:{closed_port()}"), timeout_s=2.0)
    try:
        snap = registry.poll()
        assert snap.subjects == () and snap.error is not None
        assert "connection refused" in snap.error and "\n" not in snap.error
        with pytest.raises(RegistryUnavailable, match="connection refused"):
            registry.schema_by_id(1)
    finally:
        registry.close()
    with socket.socket() as silent:  # accepts, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        registry = ConfluentRegistry(RegistrySettings(f"http://127.0.0.1:{silent.getsockname()[1]}"), timeout_s=0.5)
        try:
            assert "no answer within 0.5 s" in (registry.poll().error or "")
        finally:
            registry.close()


def test_a_registry_behind_basic_auth_needs_the_properties_file(tmp_path: Path) -> None:
    with SchemaRegistryDouble(user="reader", password=SECRET) as d:
        anonymous = ConfluentRegistry(RegistrySettings(d.url), timeout_s=5.0)
        wrong = ConfluentRegistry(RegistrySettings(d.url, properties(tmp_path, "basic.auth.user.info=reader:nope\n")))
        right = ConfluentRegistry(
            RegistrySettings(
                d.url,
                properties(
                    tmp_path, f"basic.auth.credentials.source=USER_INFO\nbasic.auth.user.info=reader:{SECRET}\n"
                ),
            )
        )
        try:
            said = anonymous.poll().error or ""
            assert "401 Unauthorized" in said and "basic.auth.user.info=USER:PASSWORD" in said
            assert "refused" in (wrong.poll().error or "")
            assert right.poll().error is None
        finally:
            for r in (anonymous, wrong, right):
                r.close()


def test_settings_refused_name_the_key_never_the_value(tmp_path: Path) -> None:
    def refused(url: str, text: str | None = None) -> str:
        with pytest.raises(FormatError) as caught:
            registry_config(RegistrySettings(url, None if text is None else properties(tmp_path, text)))
        message = str(caught.value)
        assert SECRET not in message and "\n" not in message
        return message

    assert "never in the URL" in refused(f"http://me:{SECRET}@localhost:8081")
    assert "is not a schema registry URL" in refused("ftp://localhost")
    said = refused("http://localhost:8081", f"basic.auth.user.info=me:{SECRET}\nbasic.auth.pasword={SECRET}\n")
    assert "basic.auth.pasword" in said and all(key in said for key in ALLOWED)
    assert "give USER_INFO" in refused("http://localhost:8081", "basic.auth.credentials.source=URL\n")
    assert "must be USER:PASSWORD" in refused("http://localhost:8081", f"basic.auth.user.info={SECRET}\n")
    said = refused("http://localhost:8081", f"ssl.ca.location={tmp_path}/{SECRET}.pem\n")
    assert said.endswith("registry.properties: ssl.ca.location does not name a readable file")
    with pytest.raises(FormatError, match="No such file"):
        registry_config(RegistrySettings("http://localhost:8081", str(tmp_path / "missing.properties")))
    conf = registry_config(
        RegistrySettings("http://a:1, https://b:2/", properties(tmp_path, f"ssl.key.password={SECRET}")), timeout_s=3.0
    )
    assert conf["url"] == "http://a:1,https://b:2" and conf["timeout"] == 3.0 and conf["ssl.key.password"] == SECRET


def test_tls_checks_the_registrys_ca_and_presents_a_client_certificate(tmp_path: Path) -> None:
    ca_key, ca = new_ca("registry-test")
    server_key, server_cert = new_server_cert(ca_key, ca, "registry")
    client_key, client_cert = new_server_cert(ca_key, ca, "kafkatop")
    files = {
        "ca.pem": cert_pem(ca),
        "server.pem": cert_pem(server_cert) + key_pem(server_key),
        "client.pem": cert_pem(client_cert),
        "client.key": key_pem(client_key, SECRET),
    }
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(tmp_path / "server.pem")
    server.load_verify_locations(tmp_path / "ca.pem")
    server.verify_mode = ssl.CERT_REQUIRED  # a client certificate asked for
    mutual = (
        f"ssl.ca.location={tmp_path / 'ca.pem'}\nssl.certificate.location={tmp_path / 'client.pem'}\n"
        f"ssl.key.location={tmp_path / 'client.key'}\n"
    )
    with SchemaRegistryDouble(tls=server) as d:
        assert d.url.startswith("https://127.0.0.1:")
        trusted = ConfluentRegistry(
            RegistrySettings(d.url, properties(tmp_path, mutual + f"ssl.key.password={SECRET}"))
        )
        try:
            d.register("s", V1)
            assert [s.name for s in trusted.poll().subjects] == ["s"]
        finally:
            trusted.close()
        untrusted = ConfluentRegistry(RegistrySettings(d.url), timeout_s=3.0)  # certifi's CAs do not know this one
        try:
            said = untrusted.poll().error or ""
            assert "TLS handshake failed (CERTIFICATE_VERIFY_FAILED)" in said and "\n" not in said
        finally:
            untrusted.close()
    with pytest.raises(FormatError, match=r"cannot be used: .*\(a wrong ssl.key.password\?\)$") as caught:
        ConfluentRegistry(RegistrySettings("https://localhost:1", properties(tmp_path, mutual + "ssl.key.password=no")))
    assert SECRET not in str(caught.value)
