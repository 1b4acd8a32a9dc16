"""librdkafka's words for a refused connection (as a Kafka 4.1 lab made it say them), in one line each."""

from __future__ import annotations

import pytest

from kafkatop.backends.model.refusals import security_reason

B = "sasl_ssl://127.0.0.1:39092/bootstrap: "


@pytest.mark.parametrize(
    ("logged", "said"),
    [
        (
            B + "SASL authentication error: Authentication failed during authentication due to invalid credentials "
            "with SASL mechanism SCRAM-SHA-512 (after 308ms in state AUTH_REQ)",
            "authentication failed: wrong user name or password (SASL SCRAM-SHA-512)",
        ),
        (
            B + "SASL PLAIN mechanism handshake failed: Broker: Unsupported SASL mechanism: broker's supported "
            "mechanisms: SCRAM-SHA-512 (after 301ms in state AUTH_HANDSHAKE)",
            "the broker does not take SASL PLAIN (it takes SCRAM-SHA-512): set sasl.mechanism to one of those",
        ),
        (
            B + "SASL SCRAM-SHA-512 mechanism handshake failed: Broker: Request not valid in current SASL state: "
            "broker's supported mechanisms:  (after 0ms in state AUTH_HANDSHAKE)",
            "this listener takes no SASL (a PLAINTEXT or SSL listener?): set security.protocol to PLAINTEXT or SSL",
        ),
        (
            B + "SSL handshake failed: error:0A000086:SSL routines::certificate verify failed: broker certificate "
            "could not be verified, verify that ssl.ca.location is correctly configured (after 3ms in state X)",
            "the broker's TLS certificate is not trusted (broker certificate could not be verified): check "
            "ssl.truststore.location (or ssl.ca.location) names the CA that signed it",
        ),
        (
            B + "SSL handshake failed: Disconnected: SSL connection closed by peer: connecting to a PLAINTEXT broker "
            "listener? (after 1ms in state SSL_HANDSHAKE)",
            "this listener does not speak TLS (a PLAINTEXT or SASL_PLAINTEXT listener?): set security.protocol to "
            "PLAINTEXT or SASL_PLAINTEXT",
        ),
        (B + "Connect to ipv4#127.0.0.1:39092 failed: Connection refused (after 0ms in state CONNECT)", None),
    ],
)
def test_librdkafka_security_failures_in_one_line(logged: str, said: str | None) -> None:
    assert security_reason(logged) == said
