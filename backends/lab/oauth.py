"""An OAuth lab (`kafkatop up --security sasl_oauthbearer`): SASL/OAUTHBEARER on the brokers' listener, with tokens
from an OIDC issuer that is one of the lab's nodes (`issuer`, backends/lab/oidc_issuer.py, the stand-in issuer).

The issuer knows two clients, `admin` and `client`, whose secrets are the lab's passwords (security.py). A token's
`sub` is its client id, so the brokers see User:admin and User:client, as on a SCRAM lab. The brokers validate tokens
with Kafka's own OAuthBearerValidatorCallbackHandler against the issuer's JWKS (audience `kafka`, issuer its URL), and
reach each other as admin with a token of their own (OAuthBearerLoginCallbackHandler): a broker needs the issuer up to
start. Once started it keeps the JWKS it read and its token (an hour), so killing the issuer stops new logins only.
The controllers' listener keeps SASL PLAIN (security.py): the quorum does not wait for an issuer.

Kafka 4 fetches only the URLs listed in a JVM's `-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls`: the lab's nodes
and workers get it in KAFKA_OPTS, and Kafka's tools need it too (`allowed_urls_option`, printed by `kafkatop up`).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

HOST = "127.0.0.1"
AUDIENCE = "kafka"  # the tokens' `aud`, and the scope the lab's clients ask for
CLIENTS_FILE = "issuer-clients.properties"  # the issuer's clients, `id=secret` per line (0600)
OAUTHBEARER = "OAUTHBEARER"
ISSUER_DIR = "issuer"  # under the lab's security/ (0700): the issuer's RSA key and its clients' secrets, 0600 each
ALLOWED_URLS = "org.apache.kafka.sasl.oauthbearer.allowed.urls"
_PACKAGE = "org.apache.kafka.common.security.oauthbearer"
LOGIN_HANDLER = f"{_PACKAGE}.OAuthBearerLoginCallbackHandler"
VALIDATOR = f"{_PACKAGE}.OAuthBearerValidatorCallbackHandler"
_JAAS = f"{_PACKAGE}.OAuthBearerLoginModule required ;"  # the client id and secret are settings of their own (4.1)


@dataclass(frozen=True, slots=True)
class LabIssuer:
    """The OIDC issuer of one OAuth lab: where it serves, its folder, and the settings that name it."""

    folder: Path
    port: int

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def token_url(self) -> str:
        return f"{self.url}/token"

    @property
    def jwks_url(self) -> str:
        return f"{self.url}/jwks"

    @property
    def clients_path(self) -> Path:
        return self.folder / CLIENTS_FILE

    def clients_text(self, secrets: Mapping[str, str]) -> str:
        """The clients file (for 0600): each of `secrets`' users a client, its password the client's secret."""
        lines = "".join(f"{user}={secret}\n" for user, secret in secrets.items())
        return "# the lab's OIDC issuer's clients: id=secret (the lab's passwords)\n" + lines

    def command(self) -> list[str]:
        """The issuer's process: this Python, so that it runs where kafkatop is installed."""
        module = "kafkatop.backends.lab.oidc_issuer"
        return [sys.executable, "-m", module, "--port", str(self.port), "--dir", str(self.folder)]

    def allowed_urls_option(self) -> str:
        return allowed_urls_option(self.url)

    def client_settings(self, user: str, secret: str) -> dict[str, str]:
        """A Java client's SASL settings as `user` (Kafka 4.1's client-credentials settings; secrets: 0600 files)."""
        return {
            "sasl.mechanism": OAUTHBEARER,
            "sasl.login.callback.handler.class": LOGIN_HANDLER,
            "sasl.oauthbearer.token.endpoint.url": self.token_url,
            "sasl.oauthbearer.client.credentials.client.id": user,
            "sasl.oauthbearer.client.credentials.client.secret": secret,
            "sasl.oauthbearer.scope": AUDIENCE,
            "sasl.jaas.config": _JAAS,
        }

    def broker_settings(self, listener: str, admin_secret: str) -> dict[str, str | None]:
        """A broker's: OAUTHBEARER on `listener`, tokens validated against the issuer's JWKS, and its own login to
        the other brokers as admin."""
        prefix = f"listener.name.{listener.lower()}.{OAUTHBEARER.lower()}"
        login = self.client_settings("admin", admin_secret)
        settings: dict[str, str | None] = {
            "sasl.enabled.mechanisms": OAUTHBEARER,
            "sasl.mechanism.inter.broker.protocol": OAUTHBEARER,
            f"{prefix}.sasl.jaas.config": _JAAS,
            f"{prefix}.sasl.server.callback.handler.class": VALIDATOR,
            f"{prefix}.sasl.login.callback.handler.class": LOGIN_HANDLER,
            "sasl.oauthbearer.jwks.endpoint.url": self.jwks_url,
            "sasl.oauthbearer.expected.audience": AUDIENCE,
            "sasl.oauthbearer.expected.issuer": self.url,
        }
        return settings | {key: value for key, value in login.items() if key.startswith("sasl.oauthbearer.")}


def allowed_urls_option(issuer_url: str) -> str:
    """The JVM option that lets Kafka 4's clients and brokers fetch the issuer's token endpoint and JWKS."""
    return f"-D{ALLOWED_URLS}={issuer_url}/jwks,{issuer_url}/token"


def issuer_serves(port: int, timeout_s: float = 1.0) -> bool:
    """Whether the issuer on `port` hands out its JWKS, the first thing a starting broker asks of it."""
    import urllib.request  # here: every command that names a lab imports this module, few start an issuer

    no_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # 127.0.0.1 is never behind a proxy
    try:
        with no_proxy.open(f"http://{HOST}:{port}/jwks", timeout=timeout_s) as answer:
            return bool(answer.status == 200)
    except OSError:  # refused, an HTTP error, a timeout
        return False
