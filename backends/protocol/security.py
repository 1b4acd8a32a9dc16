"""TLS and SASL for kafkatop's own protocol connections, from the same client settings librdkafka is given (the
`--command-config` file, translated once: backends/model/client_properties.py): `ssl.ca.location|pem`,
`ssl.certificate.*` and `ssl.key.*`, `ssl.endpoint.identification.algorithm`, `sasl.mechanisms`, `sasl.username`,
`sasl.password`. SASL mechanisms PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, as Kafka's ScramSaslClient), and
OAUTHBEARER with an OIDC provider's client-credentials token (oidc.py; RFC 7628's exchange); GSSAPI is refused up
front, naming Kafka's tool for the job.

Kafka's exchange (KIP-43, KIP-152): ApiVersions, SaslHandshake v1 naming the mechanism, then the mechanism's tokens
in SaslAuthenticate (v1) requests. Nothing here puts a password in a message."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import ssl
import struct
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from kafkatop.backends.protocol import oidc
from kafkatop.backends.protocol.wire import (
    ProtocolError,
    Reader,
    encode_string,
    error_name,
    response_reader,
)

API_SASL_HANDSHAKE = 17
API_SASL_AUTHENTICATE = 36
SASL_HANDSHAKE_VERSION = 1  # v1: the tokens travel in SaslAuthenticate requests (Kafka 1.0+)
SASL_AUTHENTICATE_VERSION = 1  # v1 is not flexible; every Kafka since 2.0 serves it

PROTOCOLS = frozenset({"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"})
MECHANISMS = frozenset({"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"})
_SCRAM_HASHES = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}
# Kafka's bounds for both SCRAM mechanisms (ScramMechanism): its client refuses fewer, its brokers store no more. A
# count from the wire is a PBKDF2 loop: 2**31 of them would tie a worker for half an hour.
SCRAM_ITERATIONS = (4096, 16384)

Request = Callable[[int, int, bytes], bytes]  # (api key, version, body) -> the response after its size


class SecurityError(ProtocolError):
    """Settings kafkatop's own connections cannot use, or a TLS or SASL exchange that failed; the message says which."""


def security_protocol(settings: Mapping[str, str]) -> str:
    return settings.get("security.protocol", "PLAINTEXT").strip().upper()


def sasl_mechanism(settings: Mapping[str, str]) -> str:
    return settings.get("sasl.mechanisms", settings.get("sasl.mechanism", "GSSAPI")).strip().upper()


def unsupported(settings: Mapping[str, str]) -> str | None:
    """Why kafkatop's own connections cannot speak to a cluster with these settings, or None."""
    protocol = security_protocol(settings)
    if protocol not in PROTOCOLS:
        return f"security.protocol {protocol} is none of {', '.join(sorted(PROTOCOLS))}"
    if protocol.startswith("SASL_"):
        mechanism = sasl_mechanism(settings)
        if mechanism not in MECHANISMS:
            return f"SASL mechanism {mechanism} (kafkatop's own requests speak {', '.join(sorted(MECHANISMS))})"
        if mechanism == "OAUTHBEARER":
            return None if oidc.uses_oidc(settings) else "OAUTHBEARER without sasl.oauthbearer.method=oidc"
        if not settings.get("sasl.username") or "sasl.password" not in settings:
            return "SASL without sasl.username and sasl.password"
    return None


def tls_context(settings: Mapping[str, str]) -> ssl.SSLContext:
    """A client context as librdkafka would make it: the given CA (else the system's), the client's key and
    certificate if any, and the broker's host name checked unless endpoint identification is off."""
    ca_file = settings.get("ssl.ca.location")
    ca_pem = settings.get("ssl.ca.pem")
    try:
        context = ssl.create_default_context(cafile=ca_file or None, cadata=ca_pem or None)
    except (OSError, ssl.SSLError) as e:
        raise SecurityError(f"cannot read the CA certificates ({'ssl.ca.location' if ca_file else 'ssl.ca.pem'}): "
                            f"{e}") from None  # fmt: skip
    if settings.get("ssl.endpoint.identification.algorithm", "https").strip().lower() == "none":
        context.check_hostname = False
    _load_client_certificate(context, settings)
    return context


def _load_client_certificate(context: ssl.SSLContext, settings: Mapping[str, str]) -> None:
    cert_file, key_file = settings.get("ssl.certificate.location"), settings.get("ssl.key.location")
    cert_pem, key_pem = settings.get("ssl.certificate.pem"), settings.get("ssl.key.pem")
    password = settings.get("ssl.key.password")
    if not (cert_file or cert_pem):
        return
    try:
        if cert_file:
            context.load_cert_chain(cert_file, key_file or None, password)
            return
        # The ssl module loads a chain from files only: a private folder (0700) that lives for this call.
        with tempfile.TemporaryDirectory(prefix="kafkatop-tls-") as folder:
            chain = Path(folder) / "client.pem"
            fd = os.open(chain, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as out:
                out.write((key_pem or "") + "\n" + (cert_pem or ""))
            context.load_cert_chain(str(chain), None, password)
    except (OSError, ssl.SSLError) as e:
        raise SecurityError(f"cannot load the client's key and certificate (ssl.certificate.*, ssl.key.*): "
                            f"{getattr(e, 'reason', None) or e.strerror or e}") from None  # fmt: skip


# --- SASL -----------------------------------------------------------------------------------------------------------
def authenticate(request: Request, settings: Mapping[str, str], address: str) -> None:
    """SaslHandshake, then the mechanism's exchange; SecurityError (Kafka's words, no secret) when refused."""
    mechanism = sasl_mechanism(settings)
    r = response_reader(request(API_SASL_HANDSHAKE, SASL_HANDSHAKE_VERSION, encode_string(mechanism)), flexible=False)
    code = r.int16()
    offered = [r.string() for _ in range(r.array_length())]
    if code:
        raise SecurityError(
            f"{address} refused SASL mechanism {mechanism} ({error_name(code)}); "
            f"it offers {', '.join(offered) or 'none'}"
        )

    def send(token: bytes) -> bytes:
        body = struct.pack(">i", len(token)) + token
        r = response_reader(request(API_SASL_AUTHENTICATE, SASL_AUTHENTICATE_VERSION, body), flexible=False)
        code, message = r.int16(), r.nullable_string()
        reply = _bytes(r)
        if code:
            detail = f": {message}" if message else ""
            raise SecurityError(f"{address}: SASL {mechanism} authentication failed ({error_name(code)}){detail}")
        return reply

    if mechanism == "OAUTHBEARER":
        try:
            token = oidc.access_token(settings)
        except oidc.TokenError as e:
            raise SecurityError(f"{address}: SASL OAUTHBEARER: {e}") from None
        if send(oidc.initial_response(token)):  # RFC 7628: a refusal comes as a JSON challenge, ended by one 0x01
            send(b"\x01")
            raise SecurityError(f"{address}: SASL OAUTHBEARER: the broker refused the token")
        return
    username, password = settings["sasl.username"], settings["sasl.password"]
    if mechanism == "PLAIN":
        send(b"\0" + username.encode() + b"\0" + password.encode())
        return
    scram(send, _SCRAM_HASHES[mechanism], username, password, address)


def _bytes(r: Reader) -> bytes:
    n = r.int32()
    return b"" if n < 0 else r.take(n)


def _saslname(name: str) -> str:
    return name.replace("=", "=3D").replace(",", "=2C")


def _attributes(message: bytes, what: str) -> dict[str, str]:
    try:
        text = message.decode("utf-8")
        return dict(part.split("=", 1) for part in text.split(",") if part)
    except ValueError:
        raise SecurityError(f"SCRAM: the broker's {what} message does not parse") from None


def scram(send: Callable[[bytes], bytes], hash_name: str, username: str, password: str, address: str,
          nonce: str | None = None) -> None:  # fmt: skip
    """RFC 5802's client: client-first, server-first, client-final with the proof, and the server's signature
    checked (so a server that does not know the password is caught too)."""
    client_nonce = nonce or secrets.token_urlsafe(24)
    first_bare = f"n={_saslname(username)},r={client_nonce}"
    server_first = send(("n,," + first_bare).encode())
    attrs = _attributes(server_first, "first")
    if "e" in attrs:
        raise SecurityError(f"{address}: SCRAM refused: {attrs['e']}")
    try:
        combined, salt, iterations = attrs["r"], base64.b64decode(attrs["s"]), int(attrs["i"])
    except (KeyError, ValueError):
        raise SecurityError(f"{address}: SCRAM: the broker's first message lacks its nonce, salt or count") from None
    if not combined.startswith(client_nonce):
        raise SecurityError(f"{address}: SCRAM: the broker's nonce does not extend kafkatop's")
    lowest, highest = SCRAM_ITERATIONS
    if not lowest <= iterations <= highest:
        raise SecurityError(
            f"{address}: SCRAM: the broker's iteration count {iterations} is outside Kafka's {lowest}–{highest}"
        )
    salted = hashlib.pbkdf2_hmac(hash_name, password.encode("utf-8"), salt, iterations)
    client_key = hmac.digest(salted, b"Client Key", hash_name)
    stored_key = hashlib.new(hash_name, client_key).digest()
    without_proof = f"c=biws,r={combined}"
    auth_message = f"{first_bare},{server_first.decode('utf-8')},{without_proof}".encode()
    signature = hmac.digest(stored_key, auth_message, hash_name)
    proof = bytes(a ^ b for a, b in zip(client_key, signature, strict=True))
    server_final = _attributes(send(f"{without_proof},p={base64.b64encode(proof).decode()}".encode()), "final")
    if "e" in server_final:
        raise SecurityError(f"{address}: SCRAM refused: {server_final['e']}")
    server_key = hmac.digest(salted, b"Server Key", hash_name)
    expected = base64.b64encode(hmac.digest(server_key, auth_message, hash_name)).decode()
    # As bytes: compare_digest raises TypeError on a str that is not ASCII, and the broker's is anything it sends.
    if not hmac.compare_digest(server_final.get("v", "").encode(), expected.encode()):
        raise SecurityError(f"{address}: SCRAM: the broker's signature does not match (not the server it claims?)")
