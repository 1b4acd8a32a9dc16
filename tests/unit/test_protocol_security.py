"""kafkatop's own TLS and SASL settings and its SCRAM client, on RFC 7677's worked example (SCRAM-SHA-256: user
"user", password "pencil"). The exchange with a real Kafka: tests/integration/test_secured_lab_kafka.py."""

from __future__ import annotations

import pytest

from kafkatop.backends.protocol.security import SecurityError, scram, unsupported

CLIENT_NONCE = "rOprNGfwEbeRWgbNEkqO"
SERVER_FIRST = b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
CLIENT_FINAL = (
    b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
)
SERVER_FINAL = b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="


def exchange(server_final: bytes) -> list[bytes]:
    sent: list[bytes] = []
    replies = iter((SERVER_FIRST, server_final))

    def send(token: bytes) -> bytes:
        sent.append(token)
        return next(replies)

    scram(send, "sha256", "user", "pencil", "127.0.0.1:9", nonce=CLIENT_NONCE)
    return sent


def test_scram_sha_256_as_rfc_7677_computes_it() -> None:
    assert exchange(SERVER_FINAL) == [b"n,,n=user,r=" + CLIENT_NONCE.encode(), CLIENT_FINAL]


def test_a_server_signature_that_does_not_match_is_refused() -> None:
    with pytest.raises(SecurityError, match="signature does not match"):
        exchange(b"v=AAAAaaaa")


def test_a_server_error_is_told() -> None:
    with pytest.raises(SecurityError, match="SCRAM refused: invalid-proof"):
        exchange(b"e=invalid-proof")


@pytest.mark.parametrize(
    ("settings", "why"),
    [
        ({}, None),
        ({"security.protocol": "SSL"}, None),
        (
            {
                "security.protocol": "SASL_SSL",
                "sasl.mechanisms": "SCRAM-SHA-512",
                "sasl.username": "a",
                "sasl.password": "b",
            },
            None,
        ),  # fmt: skip
        ({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "GSSAPI"}, "SASL mechanism GSSAPI"),
        ({"security.protocol": "SASL_SSL", "sasl.mechanisms": "OAUTHBEARER"}, "OAUTHBEARER without sasl.oauthbearer"),
        ({"security.protocol": "SASL_SSL", "sasl.mechanisms": "OAUTHBEARER", "sasl.oauthbearer.method": "oidc"}, None),
        ({"security.protocol": "SASL_SSL", "sasl.mechanisms": "PLAIN"}, "without sasl.username"),
        ({"security.protocol": "TLS"}, "security.protocol TLS is none of"),
    ],
)
def test_what_kafkatop_s_own_connections_can_speak(settings: dict[str, str], why: str | None) -> None:
    said = unsupported(settings)
    assert (said is None) if why is None else (said is not None and why in said)
