"""Kafka's Java client properties (what `--command-config` of Kafka's own tools takes) in librdkafka's names.

Pure translation, standard library only: `security.protocol` as it is, `sasl.mechanism` → `sasl.mechanisms`, a PLAIN
or SCRAM `sasl.jaas.config` → `sasl.username` / `sasl.password`, PEM stores → file locations, and the endpoint
check. Java key stores (JKS, PKCS12) are named in `stores`, for an adapter to convert
(backends/kafka/security/keystores.py).
librdkafka's own names pass through unchanged; the rest is named in `ignored`, never silently dropped. No message here
quotes a value: a properties file holds passwords.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.librdkafka_names import LIBRDKAFKA_PROPERTIES


class ClientPropertiesError(BadInput):
    """A client properties file cannot be used as it is; the message names the key, never its value."""


StoreRole = Literal["truststore", "keystore"]


@dataclass(frozen=True, slots=True)
class StoreRef:
    """A Java key store to read: a truststore (the CAs to trust) or a keystore (this client's key and certificate)."""

    role: StoreRole
    location: str
    type: str  # as given (upper case): "PEM", "JKS", "PKCS12"; "" when not given (the adapter reads the file's kind)
    password: str | None = field(default=None, repr=False)  # ssl.truststore.password / ssl.keystore.password
    key_password: str | None = field(default=None, repr=False)  # ssl.key.password, when it differs from the store's


@dataclass(frozen=True, slots=True)
class TranslatedProperties:
    settings: tuple[tuple[str, str], ...] = field(repr=False)  # librdkafka names and values (secrets among them)
    stores: tuple[StoreRef, ...]  # to convert, each into settings (ssl.ca.*, ssl.certificate.*, ssl.key.*)
    ignored: tuple[str, ...]  # keys with no librdkafka equivalent

    def warning(self) -> str | None:
        """The one line that names what was ignored, or None."""
        if not self.ignored:
            return None
        return f"ignored: {', '.join(self.ignored)} (no librdkafka equivalent)"


# Same meaning, another name.
_RENAMED = {
    "sasl.mechanism": "sasl.mechanisms",
    "send.buffer.bytes": "socket.send.buffer.bytes",
    "receive.buffer.bytes": "socket.receive.buffer.bytes",
}
# Keys librdkafka knows by the same name but reads differently: Java's cipher names are IANA's, OpenSSL's are not.
_SAME_NAME_OTHER_MEANING = frozenset({"ssl.cipher.suites"})
_HANDLED = frozenset(
    {
        "sasl.jaas.config",
        "ssl.endpoint.identification.algorithm",
        "ssl.key.password",
        "ssl.truststore.location",
        "ssl.truststore.type",
        "ssl.truststore.password",
        "ssl.truststore.certificates",
        "ssl.keystore.location",
        "ssl.keystore.type",
        "ssl.keystore.password",
        "ssl.keystore.key",
        "ssl.keystore.certificate.chain",
    }
)
_PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
_SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
_OAUTH_MODULES = frozenset({
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule",
    "org.apache.kafka.common.security.oauthbearer.internals.OAuthBearerLoginModule",
})  # fmt: skip
# Kafka's login handler that fetches a token with client credentials (3.1+; before 3.9 under `secured`).
_OAUTH_HANDLERS = frozenset({
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
    "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler",
})  # fmt: skip
_UNSUPPORTED_MODULES = {"com.sun.security.auth.module.Krb5LoginModule": "GSSAPI"}
# Kafka's keys for a token from an OIDC provider: read by _oauthbearer when the mechanism is OAUTHBEARER.
_OAUTH_KEYS = frozenset({
    "sasl.login.callback.handler.class", "sasl.oauthbearer.token.endpoint.url", "sasl.oauthbearer.scope",
    "sasl.oauthbearer.client.credentials.client.id", "sasl.oauthbearer.client.credentials.client.secret",
    "sasl.oauthbearer.jwt.retriever.class",
})  # fmt: skip
_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
_FLAGS = frozenset({"required", "requisite", "sufficient", "optional"})


def translate_client_properties(props: Mapping[str, str]) -> TranslatedProperties:
    """librdkafka settings from Java client properties; ClientPropertiesError names the key that cannot be used."""
    out: dict[str, str] = {}
    ignored: list[str] = []
    for key, value in props.items():
        if key in _HANDLED or key.startswith("connect."):  # connect.*: Kafka Connect's (backends/connect/auth.py)
            continue
        if key in _RENAMED:
            out[_RENAMED[key]] = value
        elif key in LIBRDKAFKA_PROPERTIES and key not in _SAME_NAME_OTHER_MEANING:
            out[key] = value
        else:
            ignored.append(key)
    _sasl(props, out, ignored)
    endpoint = props.get("ssl.endpoint.identification.algorithm")
    if endpoint is not None:
        # Java turns the host name check off with an empty value; librdkafka with "none".
        out["ssl.endpoint.identification.algorithm"] = endpoint.strip().lower() or "none"
    stores = _stores(props, out)
    ignored += _unused_store_keys(props)
    return TranslatedProperties(tuple(sorted(out.items())), stores, tuple(sorted(ignored)))


def _unused_store_keys(props: Mapping[str, str]) -> list[str]:
    """A store's type or password given without the store itself: said, not silently dropped."""
    unused = []
    if not (props.get("ssl.truststore.location") or props.get("ssl.truststore.certificates")):
        unused += [k for k in ("ssl.truststore.type", "ssl.truststore.password") if k in props]
    if not (props.get("ssl.keystore.location") or props.get("ssl.keystore.key")):
        unused += [k for k in ("ssl.keystore.type", "ssl.keystore.password") if k in props]
    return unused


def _sasl(props: Mapping[str, str], out: dict[str, str], ignored: list[str]) -> None:
    mechanism = props.get("sasl.mechanism", props.get("sasl.mechanisms", "")).strip().upper()
    jaas = props.get("sasl.jaas.config")
    if jaas is None:
        return
    module, options = parse_jaas(jaas)
    if module in _OAUTH_MODULES or mechanism == "OAUTHBEARER":
        _oauthbearer(props, module, options, mechanism, out, ignored)
        return
    unsupported = _UNSUPPORTED_MODULES.get(module) or (mechanism if mechanism == "GSSAPI" else None)
    if unsupported:
        raise ClientPropertiesError(
            f"sasl.jaas.config: {unsupported} is not supported here (PLAIN, SCRAM and OAUTHBEARER with OIDC are); "
            "give librdkafka's own sasl.* settings instead"
        )
    if module not in (_PLAIN_MODULE, _SCRAM_MODULE):
        raise ClientPropertiesError(
            f"sasl.jaas.config: login module {module} is not supported (PlainLoginModule and ScramLoginModule are)"
        )
    missing = [k for k in ("username", "password") if k not in options]
    if missing:
        raise ClientPropertiesError(f"sasl.jaas.config: no {' and no '.join(missing)} option")
    out["sasl.username"] = options["username"]
    out["sasl.password"] = options["password"]
    ignored.extend(f"sasl.jaas.config option {k}" for k in sorted(options) if k not in ("username", "password"))
    if not mechanism:
        if module == _SCRAM_MODULE:
            raise ClientPropertiesError(
                "sasl.mechanism is missing: ScramLoginModule needs sasl.mechanism=SCRAM-SHA-256 or SCRAM-SHA-512"
            )
        out["sasl.mechanisms"] = "PLAIN"  # Java would try GSSAPI and fail; the login module says what was meant
    elif mechanism not in _MECHANISMS:
        raise ClientPropertiesError(f"sasl.mechanism {mechanism}: not supported here (use {', '.join(_MECHANISMS)})")


def _oauthbearer(props: Mapping[str, str], module: str, options: Mapping[str, str], mechanism: str,
                 out: dict[str, str], ignored: list[str]) -> None:  # fmt: skip
    """OAUTHBEARER as Kafka's clients take it from an OIDC provider (KIP-768): OAuthBearerLoginCallbackHandler, the
    token endpoint, clientId, clientSecret and scope in the JAAS line — as librdkafka's `oidc` method."""
    if mechanism != "OAUTHBEARER":
        raise ClientPropertiesError("sasl.jaas.config: OAuthBearerLoginModule goes with sasl.mechanism=OAUTHBEARER")
    if module not in _OAUTH_MODULES:
        raise ClientPropertiesError(
            "sasl.mechanism=OAUTHBEARER goes with sasl.jaas.config="
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required …"
        )
    ignored[:] = [k for k in ignored if k not in _OAUTH_KEYS]
    for key in _OAUTH_KEYS & out.keys():  # librdkafka names some the same: set below from what Kafka's mean
        del out[key]
    handler = props.get("sasl.login.callback.handler.class", "").strip()
    endpoint = props.get("sasl.oauthbearer.token.endpoint.url", "").strip()
    if handler not in _OAUTH_HANDLERS or not endpoint:
        raise ClientPropertiesError(
            "OAUTHBEARER is supported with an OIDC provider: sasl.login.callback.handler.class="
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler and "
            "sasl.oauthbearer.token.endpoint.url=https://… (unsecured test tokens are not)"
        )
    # Kafka 4.1's own keys (KIP-1139), else the JAAS options they replace (still read, with a deprecation warning).
    client = props.get("sasl.oauthbearer.client.credentials.client.id") or options.get("clientId")
    secret = props.get("sasl.oauthbearer.client.credentials.client.secret") or options.get("clientSecret")
    scope = props.get("sasl.oauthbearer.scope") or options.get("scope")
    if not client or not secret:
        raise ClientPropertiesError(
            "OAUTHBEARER: no client id or no client secret: sasl.oauthbearer.client.credentials.client.id and "
            '….client.secret (Kafka 4.1), or clientId="…" clientSecret="…" in sasl.jaas.config'
        )
    out.update({"sasl.mechanisms": "OAUTHBEARER", "sasl.oauthbearer.method": "oidc",
                "sasl.oauthbearer.token.endpoint.url": endpoint, "sasl.oauthbearer.client.id": client,
                "sasl.oauthbearer.client.secret": secret})  # fmt: skip
    if scope:
        out["sasl.oauthbearer.scope"] = scope
    ignored.extend(f"sasl.jaas.config option {k}" for k in sorted(options) if k not in ("clientId", "clientSecret",
                                                                                         "scope"))  # fmt: skip


def _stores(props: Mapping[str, str], out: dict[str, str]) -> tuple[StoreRef, ...]:
    stores: list[StoreRef] = []
    key_password = props.get("ssl.key.password")
    trust_type = props.get("ssl.truststore.type", "").strip().upper()
    inline_trust = props.get("ssl.truststore.certificates")
    if inline_trust:
        out["ssl.ca.pem"] = inline_trust
    elif props.get("ssl.truststore.location"):
        stores.append(
            StoreRef("truststore", props["ssl.truststore.location"], trust_type, props.get("ssl.truststore.password"))
        )
    key_type = props.get("ssl.keystore.type", "").strip().upper()
    inline_key, inline_chain = props.get("ssl.keystore.key"), props.get("ssl.keystore.certificate.chain")
    if inline_key or inline_chain:
        if not (inline_key and inline_chain):
            raise ClientPropertiesError("ssl.keystore.key and ssl.keystore.certificate.chain go together: give both")
        out["ssl.key.pem"] = inline_key
        out["ssl.certificate.pem"] = inline_chain
        if key_password:
            out["ssl.key.password"] = key_password
    elif props.get("ssl.keystore.location"):
        stores.append(
            StoreRef(
                "keystore", props["ssl.keystore.location"], key_type, props.get("ssl.keystore.password"), key_password
            )
        )
    elif key_password:
        out["ssl.key.password"] = key_password  # librdkafka's own ssl.key.location, with its key's password
    return tuple(stores)


# --- JAAS ------------------------------------------------------------------------------------------------------------
_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$.-")
_ESCAPED = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "a": "\a", "v": "\v"}


def _tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, position) of each token: "word", "quoted", "=" or ";", as Java's StreamTokenizer reads a JAAS
    line for Kafka (comments skipped, "…" and '…' with backslash escapes)."""
    tokens: list[tuple[str, str, int]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise ClientPropertiesError(f"sasl.jaas.config: a comment opened at character {i + 1} never closes")
            i = end + 2
        elif c in "=;":
            tokens.append((c, c, i))
            i += 1
        elif c in "\"'":
            start, i = i, i + 1
            chars: list[str] = []
            while True:
                if i >= n:
                    raise ClientPropertiesError(
                        f"sasl.jaas.config: the quoted value at character {start + 1} is never closed"
                    )
                ch = text[i]
                if ch == c:
                    i += 1
                    break
                if ch == "\\" and i + 1 < n:
                    nxt = text[i + 1]
                    octal = len(text[i + 1 : i + 4]) - len(text[i + 1 : i + 4].lstrip("01234567"))
                    if octal:
                        chars.append(chr(int(text[i + 1 : i + 1 + octal], 8)))
                        i += 1 + octal
                    else:
                        chars.append(_ESCAPED.get(nxt, nxt))
                        i += 2
                    continue
                chars.append(ch)
                i += 1
            tokens.append(("quoted", "".join(chars), start))
        elif c in _WORD:
            start = i
            while i < n and text[i] in _WORD:
                i += 1
            tokens.append(("word", text[start:i], start))
        else:
            raise ClientPropertiesError(f"sasl.jaas.config: unexpected character at position {i + 1}")
    return tokens


def parse_jaas(text: str) -> tuple[str, dict[str, str]]:
    """(login module class, options) of one JAAS entry: `Module required key="value" …;` (the `;` may be left out).
    ClientPropertiesError says where it does not parse, without quoting it."""
    tokens = _tokens(text)
    if not tokens or tokens[0][0] != "word":
        raise ClientPropertiesError("sasl.jaas.config: expected a login module class name first")
    module = tokens[0][1]
    if len(tokens) < 2 or tokens[1][0] != "word" or tokens[1][1].lower() not in _FLAGS:
        raise ClientPropertiesError(
            "sasl.jaas.config: expected a control flag (required, requisite, sufficient or optional) after the "
            "login module"
        )
    options: dict[str, str] = {}
    i = 2
    while i < len(tokens) and tokens[i][0] != ";":
        kind, key, pos = tokens[i]
        if kind != "word":
            raise ClientPropertiesError(f"sasl.jaas.config: expected an option name at character {pos + 1}")
        # A word where an option name belongs may be the tail of an unquoted password (`password=my secret`):
        # the messages give its position, never the word.
        if i + 1 >= len(tokens) or tokens[i + 1][0] != "=":
            hint = ' (a value with a space must be quoted: password="…")' if i > 2 else ""
            raise ClientPropertiesError(f"sasl.jaas.config: expected option=value at character {pos + 1}{hint}")
        if i + 2 >= len(tokens) or tokens[i + 2][0] not in ("word", "quoted"):
            raise ClientPropertiesError(f"sasl.jaas.config: no value for the option at character {pos + 1}")
        options[key] = tokens[i + 2][1]
        i += 3
    if i < len(tokens) - 1:
        raise ClientPropertiesError(
            f"sasl.jaas.config: one login module only, and nothing after its ';' (character {tokens[i + 1][2] + 1})"
        )
    return module, options
