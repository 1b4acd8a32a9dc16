"""A stand-in OpenID Connect issuer for labs (issue 44: SASL/OAUTHBEARER) — not an identity provider for anything
else. No maintained OIDC test server on the package registries here grants client credentials (oidc-provider-mock
0.3.4 grants authorization_code and refresh_token only), so this one speaks just what Kafka's clients and brokers ask of
one: OAuth 2.0's client-credentials grant (RFC 6749 §4.4; the client authenticated by HTTP basic auth, as Kafka's
OAuthBearerLoginCallbackHandler and librdkafka's `oidc` method send it, or by form fields), RS256 JWTs (RFC 7519) with
`sub` the client id, `iss`, `aud`, `iat`, `exp` and `scope`, their public key as a JWKS (RFC 7517) for
OAuthBearerValidatorCallbackHandler, and the discovery document. On 127.0.0.1 only.

Its folder holds its RSA key (`issuer-key.pem`) and its clients (`issuer-clients.properties`, `id=secret` per line),
both 0600; the key is kept across restarts, so tokens handed out before stay valid.

Run as its own process: `python -m kafkatop.backends.lab.oidc_issuer --port PORT --dir DIR` (until SIGTERM).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import os
import secrets
import signal
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from kafkatop.backends.lab.oauth import AUDIENCE, CLIENTS_FILE, HOST

KEY_FILE = "issuer-key.pem"
LIFETIME_S = 3600
_MAX_BODY = 16 * 1024


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Issuer:
    """The keys and clients of one issuer, and the tokens it signs."""

    def __init__(self, folder: Path, url: str) -> None:
        self.url = url
        self.key = _key(folder / KEY_FILE)
        self.clients = _clients(folder / CLIENTS_FILE)
        numbers = self.key.public_key().public_numbers()
        self.jwk = {"kty": "RSA", "use": "sig", "alg": "RS256", "n": b64url(_int_bytes(numbers.n)),
                    "e": b64url(_int_bytes(numbers.e))}  # fmt: skip
        self.jwk["kid"] = b64url(hashlib.sha256(json.dumps(self.jwk, sort_keys=True).encode()).digest()[:12])

    def discovery(self) -> dict[str, Any]:
        return {"issuer": self.url, "token_endpoint": f"{self.url}/token", "jwks_uri": f"{self.url}/jwks",
                "grant_types_supported": ["client_credentials"], "id_token_signing_alg_values_supported": ["RS256"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"]}  # fmt: skip

    def token(self, client_id: str, client_secret: str, scope: str | None) -> dict[str, Any] | None:
        """A token for this client (None: not one of them, or not its secret)."""
        known = self.clients.get(client_id)
        if known is None or not hmac.compare_digest(known.encode(), client_secret.encode()):
            return None
        now = int(time.time())
        claims = {"iss": self.url, "sub": client_id, "aud": AUDIENCE, "iat": now, "nbf": now,
                  "exp": now + LIFETIME_S, "scope": scope or AUDIENCE, "client_id": client_id,
                  "jti": secrets.token_hex(8)}  # fmt: skip
        return {"access_token": self.sign(claims), "token_type": "Bearer", "expires_in": LIFETIME_S,
                "scope": claims["scope"]}  # fmt: skip

    def sign(self, claims: dict[str, Any]) -> str:
        header = {"alg": "RS256", "typ": "JWT", "kid": self.jwk["kid"]}
        signing = f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(claims).encode())}"
        signature = self.key.sign(signing.encode(), padding.PKCS1v15(), hashes.SHA256())
        return f"{signing}.{b64url(signature)}"


def _int_bytes(n: int) -> bytes:
    return n.to_bytes((n.bit_length() + 7) // 8, "big")


def _private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _key(path: Path) -> rsa.RSAPrivateKey:
    if path.exists():
        loaded = serialization.load_pem_private_key(path.read_bytes(), password=None)
        assert isinstance(loaded, rsa.RSAPrivateKey)
        return loaded
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    _private(path, key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                     serialization.NoEncryption()))  # fmt: skip
    return key


def _clients(path: Path) -> dict[str, str]:
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.lstrip().startswith("#"):
            name, _, secret = line.partition("=")
            found[name.strip()] = secret.strip()
    return found


def write_clients(folder: Path, names: tuple[str, ...]) -> dict[str, str]:
    """The lab's clients (`admin`, `client`), each with a new secret, written 0600; their secrets."""
    made = {name: secrets.token_urlsafe(24) for name in names}
    _private(folder / CLIENTS_FILE, "".join(f"{n}={s}\n" for n, s in made.items()).encode())
    return made


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass  # the lab's issuer is quiet: its refusals are the clients' errors

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        issuer = self.server.issuer
        if self.path == "/.well-known/openid-configuration":
            self._json(200, issuer.discovery())
        elif self.path == "/jwks":
            self._json(200, {"keys": [issuer.jwk]})
        else:
            self._json(404, {"error": "not_found"})

    def do_POST(self) -> None:  # noqa: N802
        if self.path != "/token":
            self._json(404, {"error": "not_found"})
            return
        size = int(self.headers.get("Content-Length") or 0)
        if size > _MAX_BODY:
            self._json(413, {"error": "invalid_request"})
            return
        form = {k: v[-1] for k, v in urllib.parse.parse_qs(self.rfile.read(size).decode("utf-8", "replace")).items()}
        if form.get("grant_type") != "client_credentials":
            self._json(400, {"error": "unsupported_grant_type"})
            return
        client_id, client_secret = form.get("client_id", ""), form.get("client_secret", "")
        auth = self.headers.get("Authorization", "")
        if auth.lower().startswith("basic "):
            try:
                pair = base64.b64decode(auth[6:].strip()).decode("utf-8")
            except ValueError:
                pair = ":"
            name, _, secret = pair.partition(":")
            client_id, client_secret = urllib.parse.unquote_plus(name), urllib.parse.unquote_plus(secret)
        token = self.server.issuer.token(client_id, client_secret, form.get("scope"))
        if token is None:
            self.server.note(f"refused client {client_id!r}: unknown client or wrong secret")
            self._json(401, {"error": "invalid_client", "error_description": "unknown client or wrong secret"})
        else:
            self.server.note(f"token for client {client_id!r}, {LIFETIME_S} s")
            self._json(200, token)

    def _json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int, issuer: Issuer) -> None:
        super().__init__((HOST, port), _Handler)
        self.issuer = issuer
        self.logged = False  # as its own process (main): a line per token handed out or refused, in its log

    def note(self, text: str) -> None:
        if self.logged:
            _note(text)


def _note(text: str) -> None:
    """One line of the issuer's log (its node pane's tail): what it handed out and refused, never a token."""
    sys.stderr.write(f"[{time.strftime('%Y-%m-%d %H:%M:%S')}] {text}\n")
    sys.stderr.flush()


def serve(port: int, folder: Path) -> _Server:
    """The issuer on 127.0.0.1:`port` (0: any free port), not yet serving: call serve_forever (or run it in a
    thread)."""
    server = _Server(port, Issuer(folder, f"http://{HOST}:{port}"))
    if port == 0:
        server.issuer = Issuer(folder, f"http://{HOST}:{server.server_address[1]}")
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description="a lab's stand-in OIDC issuer (client credentials, RS256)")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--dir", type=Path, required=True)
    args = parser.parse_args()
    server = serve(args.port, args.dir)
    server.logged = True
    # shutdown() waits for serve_forever to return: from this (its own) thread it would wait forever
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    issuer = server.issuer
    _note(f"OIDC issuer {issuer.url} serving: token endpoint /token, JWKS /jwks; clients {', '.join(issuer.clients)}")
    try:
        server.serve_forever()
    finally:
        server.server_close()
        _note("stopped")


if __name__ == "__main__":
    main()
