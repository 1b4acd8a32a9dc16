"""Secrets in Connect's answers (backends/connect/masking.py, backends/model/secrets.py): a connector's config value
is hidden when its plugin declares the setting a PASSWORD (alone or under a prefix), when its name names a secret,
or — while the plugin's definitions are unknown — unless it is one of Connect's own settings; a config provider's
reference and an empty value stay; a secret quoted by a trace or a validation error is taken out of it; and a
connector file that holds the mark itself is refused, so that a masked config is never sent back as a password."""

from __future__ import annotations

import json

import pytest

from kafkatop.backends.connect.answers import connectors_of
from kafkatop.backends.connect.masking import (
    UNKNOWN,
    PasswordKeys,
    masked_connectors,
    masked_definitions,
    masked_validation,
    password_keys_of,
    scrubbed,
)
from kafkatop.backends.model.connect import ConnectRefused
from kafkatop.backends.model.connect_files import parse_connector_file
from kafkatop.backends.model.secrets import HIDDEN, holds_secret, is_reference, names_a_secret
from tests.doubles.connect_worker import recorded

SECRET_NAMES = [
    "connection.password", "database.password", "ssl.key.password", "ssl.keystore.password", "sasl.jaas.config",
    "producer.override.sasl.jaas.config", "basic.auth.user.info", "value.converter.basic.auth.user.info", "api.key",
    "api.secret", "apikey", "aws.secret.access.key", "ssl.keystore.key", "ssl.key.pem", "private.key",
    "sasl.oauthbearer.client.secret", "sasl.oauthbearer.config", "auth.token", "db.pwd", "clientSecret",
    "dbPassword", "sasl.password", "sasl.oauthbearer.assertion.private.key.passphrase", "encryption.key",
    "connection.user_info", "credentials.json",
]  # fmt: skip
PLAIN_NAMES = [
    "key.converter", "value.converter", "key.ignore", "topics", "name", "connector.class", "tasks.max",
    "ssl.key.location", "ssl.truststore.location", "file", "topic", "key.converter.schemas.enable", "sasl.mechanism",
    "security.protocol", "ssl.truststore.certificates", "sasl.username", "connection.user", "connection.url",
    "primary.key.mode", "keystore.type", "errors.tolerance",
]  # fmt: skip


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_a_name_that_names_a_secret(name: str) -> None:
    assert names_a_secret(name)


@pytest.mark.parametrize("name", PLAIN_NAMES)
def test_a_name_that_does_not(name: str) -> None:
    assert not names_a_secret(name)


def test_a_reference_or_an_empty_value_holds_no_secret() -> None:
    assert is_reference("${file:/etc/secrets.properties:password}") and is_reference(" ${env:A}${env:B} ")
    assert not is_reference("p${env:A}") and not is_reference("") and not is_reference("hunter22")
    assert holds_secret("sasl.jaas.config", 'x required password="p";')
    assert not holds_secret("sasl.jaas.config", " ") and not holds_secret("ssl.key.password", "${file:/a:b}")
    assert not holds_secret("sasl.mechanism", "PLAIN")


def expanded(config: dict[str, str], trace: str | None = None) -> dict[str, object]:
    task: dict[str, object] = {"id": 0, "state": "FAILED" if trace else "RUNNING", "worker_id": "127.0.0.1:8083"}
    if trace:
        task["trace"] = trace
    return {"c": {"status": {"name": "c", "type": "sink", "connector": {"state": "RUNNING", "worker_id": "w:1"},
                             "tasks": [task]},
                  "info": {"name": "c", "config": config, "tasks": [], "type": "sink"}}}  # fmt: skip


DECLARED = PasswordKeys(frozenset({"upstream.login", "ssl.truststore.certificates"}))


def test_a_plugins_password_and_a_secrets_name_are_hidden_everywhere_in_the_snapshot() -> None:
    config = {"connector.class": "com.example.Sink", "topics": "orders", "connection.url": "jdbc:postgresql://db/x",
              "connection.password": "conn-secret-1", "upstream.login": "declared-secret-2",
              "source.cluster.ssl.truststore.certificates": "prefixed-secret-3", "file.password": "",
              "vault.password": "${vault:secret/db:password}"}  # fmt: skip
    body = expanded(config, trace="java.sql.SQLException: login refused for declared-secret-2\n\tat x.y(Y.java:1)")
    masked = masked_connectors(body, lambda class_name: DECLARED if class_name == "com.example.Sink" else UNKNOWN)
    (connector,) = connectors_of(masked)
    shown = dict(connector.config)
    assert shown["connection.password"] == shown["upstream.login"] == HIDDEN
    assert shown["source.cluster.ssl.truststore.certificates"] == HIDDEN  # declared, under MirrorMaker's prefix
    assert shown["connection.url"] == "jdbc:postgresql://db/x" and shown["topics"] == "orders"
    assert shown["file.password"] == "" and shown["vault.password"] == "${vault:secret/db:password}"
    assert connector.topics == ("orders",)
    text = json.dumps(masked) + repr(connector) + json.dumps(connector.raw)
    assert "secret-1" not in text and "secret-2" not in text and "secret-3" not in text
    assert connector.tasks[0].trace is not None and f"login refused for {HIDDEN}" in connector.tasks[0].trace
    assert config["connection.password"] == "conn-secret-1"  # masked as a copy: the answer read is left as it came


def test_while_a_plugins_definitions_are_unknown_only_connects_own_settings_are_shown() -> None:
    config = {"connector.class": "com.example.Unknown", "topics": "orders", "tasks.max": "2", "login": "who-knows"}
    (connector,) = connectors_of(masked_connectors(expanded(config), lambda class_name: UNKNOWN))
    assert dict(connector.config) == {"connector.class": "com.example.Unknown", "topics": "orders", "tasks.max": "2",
                                      "login": HIDDEN}  # fmt: skip


def test_the_recorded_answers_of_the_file_connectors_are_left_as_they_are() -> None:
    body = json.loads(recorded("connectors_expanded.json"))
    keys = password_keys_of(json.loads(recorded("plugin_config_filestreamsink.json")))
    assert keys == PasswordKeys(frozenset()) and keys.known
    assert masked_connectors(body, lambda class_name: keys) == body
    assert password_keys_of({"error_code": 404}) == UNKNOWN


def test_a_validation_hides_what_its_definitions_declare_and_scrubs_its_errors() -> None:
    field = {"definition": {"name": "upstream.login", "type": "PASSWORD"},
             "value": {"name": "upstream.login", "value": "declared-secret-2", "errors": []}}  # fmt: skip
    named = {"definition": {"name": "connection.password", "type": "STRING"},
             "value": {"name": "connection.password", "value": "conn-secret-1",
                       "errors": ["Invalid value conn-secret-1 for configuration connection.password"]}}  # fmt: skip
    plain = {"definition": {"name": "topics", "type": "LIST"}, "value": {"name": "topics", "value": "t", "errors": []}}
    body = {"name": "Sink", "error_count": 1, "configs": [field, named, plain]}
    masked = masked_validation(body)
    assert "secret-1" not in json.dumps(masked) and "secret-2" not in json.dumps(masked)
    values = [c["value"]["value"] for c in masked["configs"]]
    assert values == [HIDDEN, HIDDEN, "t"]
    assert masked["configs"][1]["value"]["errors"] == [f"Invalid value {HIDDEN} for configuration connection.password"]


def test_a_password_default_is_hidden_in_a_plugins_definitions() -> None:
    body = [{"name": "a.password", "type": "PASSWORD", "default_value": "changeit"},
            {"name": "b", "type": "STRING", "default_value": "x"}]  # fmt: skip
    assert [d["default_value"] for d in masked_definitions(body)] == [HIDDEN, "x"]


def test_a_short_secret_is_not_scrubbed_from_text() -> None:
    assert scrubbed("a word and a password", ("a", "password")) == f"a word and a {HIDDEN}"


def test_a_connector_file_holding_the_mark_is_refused_never_sent() -> None:
    text = json.dumps({"name": "c", "config": {"connector.class": "X", "connection.password": HIDDEN}})
    with pytest.raises(ConnectRefused) as refused:
        parse_connector_file(text, "c.json")
    said = str(refused.value)
    assert said.startswith("c.json: connection.password is [hidden], the mark kafkatop shows in place of a secret")
    assert "${file:PATH:KEY}" in said
    ok = parse_connector_file(json.dumps({"name": "c", "config": {"connector.class": "X", "p": "${file:/a:b}"}}), "f")
    assert dict(ok.config)["p"] == "${file:/a:b}"
