"""An OAuth 2.0 access token for SASL/OAUTHBEARER (KIP-768), fetched as librdkafka's `sasl.oauthbearer.method=oidc`
and Kafka's OAuthBearerLoginCallbackHandler fetch it: the client-credentials grant (RFC 6749 §4.4) posted to
`sasl.oauthbearer.token.endpoint.url`, the client authenticated by HTTP basic auth (its id and secret form-encoded
first, as RFC 6749 §2.3.1 asks), `scope` when one is given. Cached per client and endpoint until a fifth of its life
is left, then fetched again; never logged, never in a message.

A refusal is said as the endpoint said it (`invalid_client: …`, with the HTTP status), an endpoint that does not
answer as such — in words a user can act on, naming the endpoint and the client, not the secret."""

from __future__ import annotations

import base64
import hashlib
import json
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping

from kafkatop.backends.protocol.wire import ProtocolError

ENDPOINT, CLIENT_ID, CLIENT_SECRET, SCOPE = (
    "sasl.oauthbearer.token.endpoint.url", "sasl.oauthbearer.client.id", "sasl.oauthbearer.client.secret",
    "sasl.oauthbearer.scope",
)  # fmt: skip
TIMEOUT_S = 10.0
# (endpoint, client, scope, the secret's digest): (token, refresh after). The secret is in the key, so that another
# file of the same client with another secret (a wrong one, a rotated one) is asked of the endpoint, not served here.
_cache: dict[tuple[str, str, str, bytes], tuple[str, float]] = {}
_lock = threading.Lock()


class TokenError(ProtocolError):
    """No token: the endpoint did not answer, or refused the client; the message names both, never the secret.
    `unanswered`: it did not answer (down, unreachable), as opposed to refusing."""

    def __init__(self, message: str, *, unanswered: bool = False) -> None:
        super().__init__(message)
        self.unanswered = unanswered


def uses_oidc(settings: Mapping[str, str]) -> bool:
    return settings.get("sasl.oauthbearer.method", "").strip().lower() == "oidc"


def access_token(settings: Mapping[str, str], timeout_s: float = TIMEOUT_S) -> str:
    """A token for these settings' client: the cached one while it has more than a fifth of its life left."""
    endpoint, client = settings.get(ENDPOINT, ""), settings.get(CLIENT_ID, "")
    if not endpoint or not client or CLIENT_SECRET not in settings:
        raise TokenError(f"OAUTHBEARER (oidc) needs {ENDPOINT}, {CLIENT_ID} and {CLIENT_SECRET}")
    key = (endpoint, client, settings.get(SCOPE, ""), hashlib.sha256(settings[CLIENT_SECRET].encode()).digest())
    with _lock:
        cached = _cache.get(key)
        if cached is not None and time.monotonic() < cached[1]:
            return cached[0]
    token, lifetime = _fetch(endpoint, client, settings[CLIENT_SECRET], settings.get(SCOPE), settings, timeout_s)
    with _lock:
        _cache[key] = (token, time.monotonic() + lifetime * 0.8)
    return token


def _fetch(endpoint: str, client: str, secret: str, scope: str | None, settings: Mapping[str, str],
           timeout_s: float) -> tuple[str, float]:  # fmt: skip
    form = {"grant_type": "client_credentials", **({"scope": scope} if scope else {})}
    pair = f"{urllib.parse.quote_plus(client)}:{urllib.parse.quote_plus(secret)}"
    request = urllib.request.Request(endpoint, data=urllib.parse.urlencode(form).encode(), method="POST", headers={
        "Authorization": "Basic " + base64.b64encode(pair.encode()).decode(),
        "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json",
    })  # fmt: skip
    ca = settings.get("https.ca.location")  # librdkafka's CA for the token endpoint, else the system's
    context = ssl.create_default_context(cafile=ca) if endpoint.lower().startswith("https:") else None
    said = f"the token endpoint {_shown(endpoint)} (client {client!r})"
    try:
        with urllib.request.urlopen(request, timeout=timeout_s, context=context) as answer:  # noqa: S310 - https or http given by the user
            body = json.loads(answer.read(1 << 20))
    except urllib.error.HTTPError as e:
        raise TokenError(f"{said} refused: {e.code} {_oauth_error(e)}") from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", None) or e
        raise TokenError(f"{said} did not answer: {reason}", unanswered=True) from None
    except ValueError:
        raise TokenError(f"{said} answered something that is not JSON") from None
    token = body.get("access_token") if isinstance(body, dict) else None
    if not isinstance(token, str) or not token:
        raise TokenError(f"{said} answered without an access_token")
    expires = body.get("expires_in")
    return token, float(expires) if isinstance(expires, int | float) and expires > 0 else 300.0


def _shown(url: str) -> str:
    """The endpoint as a message may show it: a user and password written into the URL left out."""
    parts = urllib.parse.urlsplit(url)
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl() if "@" in parts.netloc else url


def _oauth_error(e: urllib.error.HTTPError) -> str:
    """RFC 6749 §5.2's error and its description, else the HTTP reason."""
    try:
        body = json.loads(e.read(64 * 1024))
    except (ValueError, OSError):
        return str(e.reason)
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, str):
        described = body.get("error_description")
        return error + (f": {described}" if isinstance(described, str) and described else "")
    return str(e.reason)


def initial_response(token: str) -> bytes:
    """RFC 7628's client first message: no authorization identity, the bearer token, the two separators."""
    return b"n,,\x01auth=Bearer " + token.encode() + b"\x01\x01"
