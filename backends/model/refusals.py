"""librdkafka's words for a refused connection, in one line that names the cause (standard library only).

librdkafka says why a secured connection failed (a wrong password, an untrusted certificate, TLS or SASL on the wrong
listener) only in its log and error_cb, while the request that needed it fails as a bare _TRANSPORT or timeout. These
patterns turn its words into the reason to show; librdkafka's texts quote no setting's value. The Spark data source
uses them in the executors too (spark/session.py ships this module).
"""

from __future__ import annotations

import re

_SECURITY_REASONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"invalid credentials with SASL mechanism (\S+)"),
        "authentication failed: wrong user name or password (SASL {0})",
    ),
    (
        re.compile(
            r"SASL (\S+) mechanism handshake failed: Broker: Unsupported SASL mechanism: "
            r"broker's supported mechanisms: ([^(]*?)\s*\("
        ),
        "the broker does not take SASL {0} (it takes {1}): set sasl.mechanism to one of those",
    ),
    (
        re.compile(
            r"SASL \S+ mechanism handshake failed: Broker: Request not valid in current SASL state: "
            r"broker's supported mechanisms:\s*\("
        ),
        "this listener takes no SASL (a PLAINTEXT or SSL listener?): set security.protocol to PLAINTEXT or SSL",
    ),
    (
        re.compile(r"SASL Handshake not supported by broker"),
        "this listener takes no SASL (a PLAINTEXT or SSL listener?): set security.protocol to PLAINTEXT or SSL",
    ),
    (
        re.compile(r"SASL authentication error: ([^(]*?)\s*\(after"),
        "authentication failed: {0}",
    ),
    (
        re.compile(r"certificate verify failed: ?([^,(]*)"),
        "the broker's TLS certificate is not trusted ({0}): check ssl.truststore.location (or ssl.ca.location) "
        "names the CA that signed it",
    ),
    (
        re.compile(r"connecting to a PLAINTEXT broker listener\?"),
        "this listener does not speak TLS (a PLAINTEXT or SASL_PLAINTEXT listener?): set security.protocol to "
        "PLAINTEXT or SASL_PLAINTEXT",
    ),
    (re.compile(r"SSL handshake failed: ([^(]*?)\s*\(after"), "TLS handshake failed: {0}"),
)


def security_reason(text: str) -> str | None:
    """A librdkafka log line or error about TLS or SASL, worded in one line; None for anything else."""
    for pattern, words in _SECURITY_REASONS:
        m = pattern.search(text)
        if m:
            return words.format(*(g.strip() for g in m.groups())).replace(" ()", "")
    return None
