"""Which settings hold a secret, by their names: a connector's config (whose values kafkatop hides wherever it keeps
or shows them: backends/connect/masking.py) and the properties files kafkatop reads (--command-config, the Schema
Registry's), which must not be readable by others. Standard library only.

A name says "secret" when it holds one of Kafka's words for one (password, secret, credentials, JAAS, token, user
info, passphrase) or ends as a key does (`ssl.keystore.key`, `api.key`, `private.key`); what a plugin declares a
PASSWORD beyond these, only Connect knows (its plugins' config definitions). A value that is a config provider's
reference (`${file:/etc/secrets.properties:password}`, KIP-297) names where a secret is, and holds none."""

from __future__ import annotations

import re
import stat

HIDDEN = "[hidden]"  # as Kafka's Password.toString() prints one, and Connect's validation answers show it
# Words that mark a secret anywhere in a name (`database.password`, `clientSecret`, `sasl.jaas.config`).
_SECRET_WORDS = re.compile(r"pass(word|wd|phrase)|secret|credential|jaas|user[._-]?info|private|oauthbearer\.config",
                           re.IGNORECASE)  # fmt: skip
# Words that mark a secret as a whole part of a name (`auth.token`, `db.pwd`), and names that end as a key does
# (`ssl.keystore.key`, `api.key`, `apikey`, `ssl.key.pem`) — not `key.converter` or `key.ignore`.
_SECRET_PARTS = re.compile(r"(^|[._-])(tokens?|pwd)([._-]|$)|[._-](api|access|secret|private)?key(\.pem)?$|apikey$",
                           re.IGNORECASE)  # fmt: skip
_REFERENCE = re.compile(r"\$\{[^}]*\}")


def names_a_secret(key: str) -> bool:
    """Whether a setting of this name holds a secret."""
    return bool(_SECRET_WORDS.search(key) or _SECRET_PARTS.search(key))


def is_reference(value: str) -> bool:
    """Whether the value is only config provider references (`${provider:path:key}`), which hold no secret."""
    return bool(value.strip()) and not _REFERENCE.sub("", value).strip()


def holds_secret(key: str, value: str) -> bool:
    """Whether `key = value` in a properties file gives a secret (a reference or an empty value gives none)."""
    return names_a_secret(key) and bool(value.strip()) and not is_reference(value)


def readable_by_others(mode: int) -> str | None:
    """Who else may read a file of this mode ("group", "others", "group and others"), or None: only its owner."""
    who = [name for bit, name in ((stat.S_IRGRP, "group"), (stat.S_IROTH, "others")) if mode & bit]
    return " and ".join(who) or None


def open_secrets_warning(path: str, keys: list[str], mode: int) -> str | None:
    """What to say of a properties file at `path` that gives the secrets `keys` and has this mode: how to make it
    private, as ssh says of a private key others can read; None when nothing need be said. Never a value."""
    who = readable_by_others(mode)
    if who is None or not keys:
        return None
    return (f"{path} holds {', '.join(sorted(keys))} and is readable by {who} (mode {stat.S_IMODE(mode):04o}): "
            f"`chmod 600 {path}`")  # fmt: skip
