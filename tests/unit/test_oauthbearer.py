"""SASL/OAUTHBEARER with an OIDC provider: Kafka's client properties (the JAAS options and Kafka 4.1's own keys)
as librdkafka's `oidc` method; the token fetched with client credentials from the labs' stand-in issuer
(backends/lab/oidc_issuer.py, a real HTTP server on loopback), cached, and refused in words naming the endpoint and
the client, never the secret; its RS256 signature checked against the issuer's JWKS; RFC 7628's first message.
Against a real Kafka 4.1 broker: tests/integration/test_oauthbearer_kafka.py."""

from __future__ import annotations

import base64
import json
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from kafkatop.backends.insight.grants import principal_of
from kafkatop.backends.lab.oidc_issuer import serve, write_clients
from kafkatop.backends.model.client_properties import ClientPropertiesError, translate_client_properties
from kafkatop.backends.protocol import oidc

HANDLER = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler"
MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"


@pytest.fixture
def issuer(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    secrets = write_clients(tmp_path, ("admin", "client"))
    server = serve(0, tmp_path)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.issuer.url, secrets
    finally:
        server.shutdown()
        server.server_close()


def props(**more: str) -> dict[str, str]:
    return {"security.protocol": "SASL_SSL", "sasl.mechanism": "OAUTHBEARER", "sasl.login.callback.handler.class":
            HANDLER, "sasl.oauthbearer.token.endpoint.url": "https://idp.example/token", **more}  # fmt: skip


def test_the_jaas_options_and_kafka_4_1_s_keys_become_librdkafka_s_oidc() -> None:
    jaas = props(**{"sasl.jaas.config": f'{MODULE} required clientId="svc" clientSecret="s3" scope="kafka";'})
    settings = dict(translate_client_properties(jaas).settings)
    assert {k: v for k, v in settings.items() if k.startswith("sasl")} == {
        "sasl.mechanisms": "OAUTHBEARER", "sasl.oauthbearer.method": "oidc",
        "sasl.oauthbearer.token.endpoint.url": "https://idp.example/token", "sasl.oauthbearer.client.id": "svc",
        "sasl.oauthbearer.client.secret": "s3", "sasl.oauthbearer.scope": "kafka",
    }  # fmt: skip
    assert principal_of(settings) == "User:svc"
    new = props(**{"sasl.jaas.config": f"{MODULE} required ;", "sasl.oauthbearer.client.credentials.client.id": "a",
                   "sasl.oauthbearer.client.credentials.client.secret": "b"})  # fmt: skip
    translated = translate_client_properties(new)
    assert dict(translated.settings)["sasl.oauthbearer.client.id"] == "a" and not translated.ignored


@pytest.mark.parametrize(("change", "said"), [
    ({"sasl.login.callback.handler.class": ""}, "OAUTHBEARER is supported with an OIDC provider"),
    ({"sasl.jaas.config": f'{MODULE} required clientId="svc";'}, "OAUTHBEARER: no client id or no client secret"),
    ({"sasl.mechanism": "PLAIN"}, "OAuthBearerLoginModule goes with sasl.mechanism=OAUTHBEARER"),
])  # fmt: skip
def test_what_cannot_be_used_is_named(change: dict[str, str], said: str) -> None:
    given = props(**{"sasl.jaas.config": f'{MODULE} required clientId="svc" clientSecret="s3";'}) | change
    with pytest.raises(ClientPropertiesError, match=said):
        translate_client_properties(given)


def settings(url: str, client: str, secret: str) -> dict[str, str]:
    return {"sasl.oauthbearer.method": "oidc", oidc.ENDPOINT: f"{url}/token", oidc.CLIENT_ID: client,
            oidc.CLIENT_SECRET: secret, oidc.SCOPE: "kafka"}  # fmt: skip


def test_a_token_signed_as_the_jwks_says_cached_and_a_refusal_in_words(issuer: tuple[str, dict[str, str]]) -> None:
    url, secrets = issuer
    token = oidc.access_token(settings(url, "admin", secrets["admin"]))
    assert oidc.access_token(settings(url, "admin", secrets["admin"])) is token  # cached
    head, body, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=="))
    assert (claims["sub"], claims["iss"], claims["aud"], claims["scope"]) == ("admin", url, "kafka", "kafka")
    with urllib.request.urlopen(f"{url}/jwks", timeout=5) as answer:  # what a broker's validator reads
        (jwk,) = json.loads(answer.read())["keys"]
    assert json.loads(base64.urlsafe_b64decode(head + "=="))["kid"] == jwk["kid"]
    n, e = (int.from_bytes(base64.urlsafe_b64decode(jwk[k] + "=="), "big") for k in ("n", "e"))
    signed = base64.urlsafe_b64decode(signature + "==")
    rsa.RSAPublicNumbers(e, n).public_key().verify(
        signed, f"{head}.{body}".encode(), padding.PKCS1v15(), hashes.SHA256()
    )
    with pytest.raises(oidc.TokenError) as refused:
        oidc.access_token(settings(url, "client", "wrong"))
    assert str(refused.value) == (f"the token endpoint {url}/token (client 'client') refused: 401 invalid_client: "
                                  "unknown client or wrong secret")  # fmt: skip
    assert "wrong" not in str(refused.value).replace("wrong secret", "")
    with socket.create_server(("127.0.0.1", 0)) as closed:
        port = closed.getsockname()[1]  # nothing listens there once it is closed
    with pytest.raises(oidc.TokenError, match=rf"^the token endpoint http://127.0.0.1:{port}/token \(client 'admin'\) "
                                              "did not answer"):  # fmt: skip
        oidc.access_token(settings(f"http://127.0.0.1:{port}", "admin", "x"))


def test_a_password_in_the_endpoint_s_url_is_never_said() -> None:
    with socket.create_server(("127.0.0.1", 0)) as closed:
        port = closed.getsockname()[1]
    with pytest.raises(oidc.TokenError) as refused:
        oidc.access_token(settings(f"http://u:hunter2@127.0.0.1:{port}", "admin", "x"))
    assert "hunter2" not in str(refused.value) and f"http://127.0.0.1:{port}/token" in str(refused.value)


def test_rfc_7628_s_first_message() -> None:
    assert oidc.initial_response("abc") == b"n,,\x01auth=Bearer abc\x01\x01"


def test_the_issuer_runs_as_its_own_process_and_stops_on_sigterm(tmp_path: Path) -> None:
    write_clients(tmp_path, ("admin",))
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    issuer = subprocess.Popen([sys.executable, "-m", "kafkatop.backends.lab.oidc_issuer", "--port", str(port),
                               "--dir", str(tmp_path)])  # fmt: skip
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{port}/.well-known/openid-configuration", timeout=2
                ) as a:
                    assert json.loads(a.read())["grant_types_supported"] == ["client_credentials"]
                break
            except OSError:
                assert time.monotonic() < deadline and issuer.poll() is None, "the issuer did not serve"
                time.sleep(0.2)
        issuer.send_signal(signal.SIGTERM)
        assert issuer.wait(10) == 0
    finally:
        if issuer.poll() is None:
            issuer.kill()
            issuer.wait(5)
