"""How kafkatop authenticates to Connect workers: basic auth and TLS, from the client properties file
(`--command-config`), under keys of its own beside Kafka's (a Kafka client has no Connect settings):

    connect.basic.auth.user.info=USER:PASSWORD        basic auth (Connect's BasicAuthSecurityRestExtension)
    connect.ssl.ca.location=/path/ca.pem              the CA (PEM) that signed the workers' certificates
    connect.ssl.certificate.location=/path/client.pem this client's certificate (PEM), when the workers ask for one
    connect.ssl.key.location=/path/client.key         its private key (PEM), unless in the certificate file
    connect.ssl.key.password=…                        the key's password, if it has one
    connect.ssl.endpoint.identification.algorithm=    empty: do not check the workers' host names (https: check)

No message here quotes a value: the file holds passwords.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from kafkatop.backends.model.errors import BadInput

PREFIX = "connect."
USER_INFO = "connect.basic.auth.user.info"
CA = "connect.ssl.ca.location"
CERTIFICATE = "connect.ssl.certificate.location"
KEY = "connect.ssl.key.location"
KEY_PASSWORD = "connect.ssl.key.password"
ENDPOINT = "connect.ssl.endpoint.identification.algorithm"
KEYS = (USER_INFO, CA, CERTIFICATE, KEY, KEY_PASSWORD, ENDPOINT)


@dataclass(frozen=True, slots=True)
class ConnectAuth:
    user_info: str | None = None  # USER:PASSWORD for basic auth
    ssl_context: ssl.SSLContext | None = None  # None: the system's CAs, for an https URL
    ignored: tuple[str, ...] = ()  # connect.* keys kafkatop does not know (a typo?), named, never quoted

    def warning(self) -> str | None:
        if not self.ignored:
            return None
        return f"ignored: {', '.join(self.ignored)} (not a key of kafkatop connect; README names them)"


def connect_auth(props: Mapping[str, str], where: str) -> ConnectAuth:
    """The basic auth and TLS settings among `props` (a client properties file, `where`); BadInput names a key that
    cannot be used, never its value."""
    user_info = props.get(USER_INFO)
    if user_info is not None:
        user, sep, _ = user_info.partition(":")
        if not sep or not user:
            raise BadInput(f"{where}: {USER_INFO} must be USER:PASSWORD")
    ignored = tuple(sorted(k for k in props if k.startswith(PREFIX) and k not in KEYS))
    if not any(k in props for k in (CA, CERTIFICATE, KEY, KEY_PASSWORD, ENDPOINT)):
        return ConnectAuth(user_info, None, ignored)
    return ConnectAuth(user_info, _ssl_context(props, where), ignored)


def _ssl_context(props: Mapping[str, str], where: str) -> ssl.SSLContext:
    ca, certificate, key = (props.get(k, "").strip() or None for k in (CA, CERTIFICATE, KEY))
    for name, path in ((CA, ca), (CERTIFICATE, certificate), (KEY, key)):
        if path is not None and not Path(path).is_file():
            raise BadInput(f"{where}: {name} names {path}, which is not a file")
    if key is not None and certificate is None:
        raise BadInput(f"{where}: {KEY} without {CERTIFICATE}: give the client certificate too")
    try:
        context = ssl.create_default_context(cafile=ca)
    except ssl.SSLError as e:
        raise BadInput(f"{where}: {CA}: {ca} holds no CA certificate in PEM ({e.reason or e})") from None
    if props.get(ENDPOINT, "https").strip().lower() in ("", "none"):
        context.check_hostname = False
    if certificate is not None:
        try:
            context.load_cert_chain(certificate, key, props.get(KEY_PASSWORD))
        except ssl.SSLError as e:
            raise BadInput(f"{where}: the client certificate and key ({CERTIFICATE}, {KEY}) cannot be used "
                           f"({e.reason or 'bad PEM'}; a wrong {KEY_PASSWORD}?)") from None  # fmt: skip
    return context
