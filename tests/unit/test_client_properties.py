"""Kafka's Java client properties (`--command-config`) translated to librdkafka's names: JAAS lines, stores (PEM,
PKCS12 made here with cryptography, JKS made here with the JDK's keytool), what is ignored, and what is refused —
every refusal one line that never quotes a value."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.serialization import BestAvailableEncryption, pkcs12

from kafkatop.backends.kafka.security.keystores import keytool, store_settings
from kafkatop.backends.lab.certs import cert_pem, key_pem, new_ca, new_server_cert
from kafkatop.backends.model.client_properties import (
    ClientPropertiesError,
    StoreRef,
    parse_jaas,
    translate_client_properties,
)
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.cli.main import main

SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule"
PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"
CANARY = "S3cr3t-Canary-7731"


def settings(props: dict[str, str]) -> dict[str, str]:
    return dict(translate_client_properties(props).settings)


# --- JAAS and SASL ---------------------------------------------------------------------------------------------------
def test_scram_jaas_becomes_username_password_and_mechanisms() -> None:
    got = settings(
        {
            "security.protocol": "SASL_SSL",
            "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.jaas.config": f'{SCRAM} required username="alice" password="{CANARY}";',
        }
    )
    assert got == {
        "security.protocol": "SASL_SSL",
        "sasl.mechanisms": "SCRAM-SHA-512",
        "sasl.username": "alice",
        "sasl.password": CANARY,
    }


def test_plain_jaas_without_semicolon_and_unquoted_values_implies_plain() -> None:
    got = settings(
        {"security.protocol": "SASL_PLAINTEXT", "sasl.jaas.config": f"{PLAIN} required username=bob password=pw"}
    )
    assert got["sasl.mechanisms"] == "PLAIN"
    assert (got["sasl.username"], got["sasl.password"]) == ("bob", "pw")


def test_jaas_quoted_values_keep_escaped_quotes_backslashes_spaces_and_semicolons() -> None:
    module, options = parse_jaas(
        f'{SCRAM}  required\n  username="a \\"quoted\\" name"   password="back\\\\slash;semi=colon" /* note */ ;'
    )
    assert module == SCRAM
    assert options == {"username": 'a "quoted" name', "password": "back\\slash;semi=colon"}


def test_jaas_single_quotes_and_comments() -> None:
    _, options = parse_jaas(f"// a comment\n{PLAIN} required username='x' password='y z';")
    assert options == {"username": "x", "password": "y z"}


@pytest.mark.parametrize(
    ("jaas", "says"),
    [
        (f'{SCRAM} username="a" password="{CANARY}";', "control flag"),
        (f'{SCRAM} required username "a" password="{CANARY}";', "expected option=value at character 66"),
        (f'{SCRAM} required username="a" password="{CANARY}', "never closed"),
        (f'{SCRAM} required username="a" password=;', "no value for the option at character 79"),
        # An unquoted password with a space: its tail reads as an option name, and is never quoted back.
        (f'{SCRAM} required username="a" password=first {CANARY};', "must be quoted"),
        (f'{SCRAM} required username="a" password="{CANARY}"; {PLAIN} required;', "one login module only"),
        (f'{SCRAM} required username="a" password="{CANARY}" ! ;', "unexpected character"),
        ('"quoted" required;', "login module class name"),
        (f'{SCRAM} required username="a";', "no password option"),
    ],
)
def test_a_jaas_line_that_does_not_parse_is_one_line_without_the_secret(jaas: str, says: str) -> None:
    with pytest.raises(ClientPropertiesError) as e:
        translate_client_properties({"sasl.mechanism": "SCRAM-SHA-256", "sasl.jaas.config": jaas})
    message = str(e.value)
    assert says in message
    assert "\n" not in message and CANARY not in message


@pytest.mark.parametrize(
    ("props", "said"),
    [
        (
            {"sasl.jaas.config": "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;"},
            "OAuthBearerLoginModule goes with sasl.mechanism=OAUTHBEARER",
        ),
        (
            {"sasl.mechanism": "GSSAPI", "sasl.jaas.config": "com.sun.security.auth.module.Krb5LoginModule required;"},
            "GSSAPI is not supported here",
        ),
        (
            {"sasl.mechanism": "OAUTHBEARER", "sasl.jaas.config": f'{PLAIN} required username="a" password="b";'},
            "sasl.mechanism=OAUTHBEARER goes with sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.",
        ),
    ],
)
def test_gssapi_and_a_mismatched_oauthbearer_are_refused_in_one_line(props: dict[str, str], said: str) -> None:
    # OAUTHBEARER with an OIDC provider is supported: tests/unit/test_oauthbearer.py
    with pytest.raises(ClientPropertiesError, match=said):
        translate_client_properties(props)


def test_scram_without_a_mechanism_is_refused() -> None:
    with pytest.raises(ClientPropertiesError, match="SCRAM-SHA-256 or SCRAM-SHA-512"):
        translate_client_properties({"sasl.jaas.config": f'{SCRAM} required username="a" password="b";'})


# --- pass-through, renames, ignored ----------------------------------------------------------------------------------
def test_librdkafka_names_pass_through_and_java_only_keys_are_named_once() -> None:
    t = translate_client_properties(
        {
            "client.id": "me",
            "sasl.mechanisms": "PLAIN",
            "ssl.endpoint.identification.algorithm": "",
            "send.buffer.bytes": "131072",
            "ssl.enabled.protocols": "TLSv1.3",
            "ssl.cipher.suites": "TLS_AES_128_GCM_SHA256",
            "default.api.timeout.ms": "60000",
            "sasl.login.callback.handler.class": "x.Y",
        }
    )
    assert dict(t.settings) == {
        "client.id": "me",
        "sasl.mechanisms": "PLAIN",
        "ssl.endpoint.identification.algorithm": "none",
        "socket.send.buffer.bytes": "131072",
    }
    assert t.warning() == (
        "ignored: default.api.timeout.ms, sasl.login.callback.handler.class, ssl.cipher.suites, "
        "ssl.enabled.protocols (no librdkafka equivalent)"
    )


def test_a_store_password_without_its_store_is_named() -> None:
    t = translate_client_properties({"ssl.truststore.password": CANARY, "ssl.keystore.type": "JKS"})
    assert t.ignored == ("ssl.keystore.type", "ssl.truststore.password")
    assert CANARY not in (t.warning() or "")


def test_nothing_ignored_gives_no_warning_and_reprs_hide_secrets() -> None:
    t = translate_client_properties(
        {"sasl.mechanism": "PLAIN", "sasl.jaas.config": f'{PLAIN} required username="u" password="{CANARY}";'}
    )
    assert t.warning() is None
    assert CANARY not in repr(t)
    connection = KafkaConnection.parse("127.0.0.1:9092", dict(t.settings))
    assert CANARY not in repr(connection)
    assert connection.redact(f"failed with {CANARY}") == "failed with ***"


def test_inline_pem_keystore_and_truststore() -> None:
    got = settings(
        {
            "ssl.truststore.type": "PEM",
            "ssl.truststore.certificates": "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----",
            "ssl.keystore.type": "PEM",
            "ssl.keystore.key": "-----BEGIN ENCRYPTED PRIVATE KEY-----\nK\n-----END ENCRYPTED PRIVATE KEY-----",
            "ssl.keystore.certificate.chain": "-----BEGIN CERTIFICATE-----\nC\n-----END CERTIFICATE-----",
            "ssl.key.password": "kp",
        }
    )
    assert set(got) == {"ssl.ca.pem", "ssl.key.pem", "ssl.certificate.pem", "ssl.key.password"}


# --- stores -------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pki() -> dict[str, bytes]:
    ca_key, ca = new_ca("test")
    key, cert = new_server_cert(ca_key, ca, "client")
    return {
        "ca": cert_pem(ca),
        "key": key_pem(key),
        "cert": cert_pem(cert),
        "ca_obj": ca,
        "key_obj": key,
        "cert_obj": cert,
    }  # type: ignore[dict-item]


def test_pem_truststore_is_handed_over_by_location(tmp_path: Path, pki: dict[str, bytes]) -> None:
    path = tmp_path / "ca.pem"
    path.write_bytes(pki["ca"])
    t = translate_client_properties({"ssl.truststore.type": "PEM", "ssl.truststore.location": str(path)})
    assert [store_settings(s) for s in t.stores] == [{"ssl.ca.location": str(path)}]


def test_pem_keystore_with_an_encrypted_key(tmp_path: Path, pki: dict[str, bytes]) -> None:
    path = tmp_path / "client.pem"
    path.write_bytes(key_pem(pki["key_obj"], CANARY) + pki["cert"])  # type: ignore[arg-type]
    ok = StoreRef("keystore", str(path), "PEM", None, CANARY)
    assert store_settings(ok) == {
        "ssl.certificate.location": str(path),
        "ssl.key.location": str(path),
        "ssl.key.password": CANARY,
    }
    with pytest.raises(ClientPropertiesError, match="wrong ssl.key.password") as e:
        store_settings(StoreRef("keystore", str(path), "PEM", None, "not-it"))
    assert CANARY not in str(e.value)


def test_pkcs12_truststore_and_keystore(tmp_path: Path, pki: dict[str, bytes]) -> None:
    trust = tmp_path / "trust.p12"
    trust.write_bytes(
        pkcs12.serialize_java_truststore(
            [pkcs12.PKCS12Certificate(pki["ca_obj"], b"ca")], BestAvailableEncryption(b"trustpw")
        )  # type: ignore[arg-type]
    )
    keystore = tmp_path / "key.p12"
    keystore.write_bytes(
        pkcs12.serialize_key_and_certificates(
            b"me", pki["key_obj"], pki["cert_obj"], [pki["ca_obj"]], BestAvailableEncryption(CANARY.encode())
        )  # type: ignore[arg-type]
    )
    t = translate_client_properties(
        {
            "ssl.truststore.location": str(trust),
            "ssl.truststore.type": "PKCS12",
            "ssl.truststore.password": "trustpw",
            "ssl.keystore.location": str(keystore),
            "ssl.keystore.type": "PKCS12",
            "ssl.keystore.password": CANARY,
        }
    )
    got: dict[str, str] = {}
    for store in t.stores:
        got |= store_settings(store)
    assert got["ssl.ca.pem"].encode() == pki["ca"]
    assert got["ssl.certificate.pem"].encode() == pki["cert"] + pki["ca"]
    assert got["ssl.key.pem"].encode() == pki["key"]
    with pytest.raises(ClientPropertiesError, match="wrong ssl.keystore.password") as e:
        store_settings(StoreRef("keystore", str(keystore), "PKCS12", "wrong"))
    assert CANARY not in str(e.value)


def test_jks_truststore_through_keytool(tmp_path: Path, pki: dict[str, bytes]) -> None:
    try:
        tool = keytool()
    except ClientPropertiesError:
        pytest.skip("no JDK keytool on this machine (JAVA_HOME, PATH)")
    ca = tmp_path / "ca.pem"
    ca.write_bytes(pki["ca"])
    jks = tmp_path / "trust.jks"
    made = subprocess.run(
        [tool, "-importcert", "-noprompt", "-alias", "ca", "-file", str(ca), "-keystore", str(jks),
         "-storetype", "JKS", "-storepass", CANARY],
        capture_output=True, check=False, timeout=60,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert jks.read_bytes()[:4] == b"\xfe\xed\xfe\xed"
    got = store_settings(StoreRef("truststore", str(jks), "JKS", CANARY))
    assert got == {"ssl.ca.pem": pki["ca"].decode()}
    with pytest.raises(ClientPropertiesError, match="wrong ssl.truststore.password") as e:
        store_settings(StoreRef("truststore", str(jks), "JKS", "wrong-password"))
    assert CANARY not in str(e.value) and "\n" not in str(e.value)


def test_a_missing_store_is_named() -> None:
    with pytest.raises(ClientPropertiesError, match=r"ssl.truststore.location /nowhere/ca.jks: file not found"):
        store_settings(StoreRef("truststore", "/nowhere/ca.jks", "JKS", "pw"))


# --- the command line: exit 2, one line, no traceback, no secret ------------------------------------------------
@pytest.mark.parametrize(
    "content",
    [
        None,  # missing
        f'sasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config={SCRAM} required username="a" password="{CANARY}\n',
        f"ssl.truststore.location=/nowhere/trust.jks\nssl.truststore.password={CANARY}\n",
        f'sasl.mechanism=OAUTHBEARER\nsasl.jaas.config={PLAIN} required username="a" password="{CANARY}";\n',
    ],
)
def test_a_bad_command_config_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None
) -> None:
    path = tmp_path / "client.properties"
    if content is not None:
        path.write_text(content)
        path.chmod(0o600)  # as a secrets file should be: others reading it would be one more line, said once
    code = main(["describe", "--bootstrap-server", "127.0.0.1:1", "--command-config", str(path), "--timeout", "1"])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("kafkatop: --command-config "), err
    assert CANARY not in err and "Traceback" not in err


def test_ignored_keys_are_named_in_one_warning_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "client.properties"
    path.write_text("request.timeout.ms=1000\nssl.enabled.protocols=TLSv1.2\ndefault.api.timeout.ms=5\n")
    main(["describe", "--bootstrap-server", "127.0.0.1:1", "--command-config", str(path), "--timeout", "0.5"])
    lines = [line for line in capsys.readouterr().err.splitlines() if "ignored:" in line]
    assert lines == [
        f"kafkatop: --command-config {path}: ignored: default.api.timeout.ms, ssl.enabled.protocols "
        "(no librdkafka equivalent)"
    ]


@pytest.mark.parametrize("key_password", [None, "another-key-password"])
def test_jks_keystore_through_keytool(tmp_path: Path, pki: dict[str, bytes], key_password: str | None) -> None:
    """A JKS keystore (made from a PKCS12 one with keytool), its key's password the store's or one of its own."""
    try:
        tool = keytool()
    except ClientPropertiesError:
        pytest.skip("no JDK keytool on this machine (JAVA_HOME, PATH)")
    p12 = tmp_path / "key.p12"
    p12.write_bytes(
        pkcs12.serialize_key_and_certificates(
            b"me",
            pki["key_obj"],
            pki["cert_obj"],
            [pki["ca_obj"]],
            BestAvailableEncryption(CANARY.encode()),  # type: ignore[arg-type]
        )
    )
    jks = tmp_path / "key.jks"
    extra = ["-destkeypass", key_password] if key_password else []
    made = subprocess.run(
        [tool, "-importkeystore", "-noprompt", "-srckeystore", str(p12), "-srcstoretype", "PKCS12",
         "-srcstorepass", CANARY, "-destkeystore", str(jks), "-deststoretype", "JKS", "-deststorepass", CANARY,
         "-srcalias", "me", "-destalias", "me", *extra],
        capture_output=True, check=False, timeout=60,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    got = store_settings(StoreRef("keystore", str(jks), "JKS", CANARY, key_password))
    assert got["ssl.key.pem"].encode() == pki["key"]
    assert got["ssl.certificate.pem"].encode().startswith(pki["cert"])
