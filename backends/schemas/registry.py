"""ConfluentRegistry: a Schema Registry through confluent-kafka's SchemaRegistryClient (the SchemaRegistry port of
backends/ports.py), and the client's settings from kafkatop's: the URL(s), and a properties file of what may be secret
or a path (the keys of ALLOWED, as Confluent's clients name them). No message here quotes a value from that file.

Two clients on the same settings: `client`, whose caches the codec's serializers and deserializers share (a Protobuf
schema is kept there in the `format=serialized` form they read), and one for what a reader is shown (the Schemas tab:
a schema as the registry answers it, a subject's latest version read afresh at each poll). A poll asks for the
subjects and the default level, then, for every subject, its versions, its own level and its latest version (a
version already read is not asked for again: versions do not change). Every failure of the client (an answer with an
error, no answer, a TLS handshake refused) becomes one line: RegistryRefused for what the registry refused (a subject
or a schema not found, an incompatible or invalid schema), RegistryUnavailable for the rest.
"""

from __future__ import annotations

import ssl
import time
import urllib.parse
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from confluent_kafka.schema_registry import RegisteredSchema as ClientSchema
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient, SchemaRegistryError
from confluent_kafka.schema_registry.common._httpx_compat import httpx

from kafkatop.backends.model.addresses import socket_error_reason
from kafkatop.backends.model.errors import BadInput, KafkatopError, SourceUnavailable
from kafkatop.backends.model.formats import (
    FormatError,
    RegisteredSchema,
    RegistrySettings,
    SchemaReference,
    SchemasSnapshot,
    SchemaType,
    Subject,
)
from kafkatop.backends.model.properties import parse_properties

USER_INFO = "basic.auth.user.info"
CREDENTIALS_SOURCE = "basic.auth.credentials.source"
PATHS = ("ssl.ca.location", "ssl.certificate.location", "ssl.key.location")
ALLOWED = (USER_INFO, CREDENTIALS_SOURCE, *PATHS, "ssl.key.password")
SCHEMA_TYPES: tuple[SchemaType, ...] = ("AVRO", "PROTOBUF", "JSON")
LATEST_TTL_S = 30  # how long a subject's latest version is kept by the serializers (use.latest.version)
_NO_LEVEL = 40408  # the subject has no compatibility level of its own
_REFUSED = frozenset({40401, 40402, 40403, 40404, 40406, 409, 42201, 42202, 42203, 42205, 42206, 42208})


class RegistryUnavailable(SourceUnavailable):
    """The registry could not be asked: no answer, TLS refused, 401/403, a 5xx, or not a registry's answer."""


class RegistryRefused(BadInput):
    """The registry answered no: a subject, version or schema it does not have, a schema incompatible or invalid."""


def registry_config(settings: RegistrySettings, timeout_s: float = 10.0) -> dict[str, Any]:
    """SchemaRegistryClient's configuration; FormatError names what cannot be used (never a value of the file)."""
    urls = [url.strip().rstrip("/") for url in settings.url.split(",") if url.strip()]
    if not urls:
        raise FormatError("no schema registry URL: give http://HOST:PORT (or several, comma-separated)")
    for url in urls:
        parts = urllib.parse.urlsplit(url)
        if parts.username is not None or parts.password is not None:
            raise FormatError(f"the schema registry URL holds credentials: give them as {USER_INFO}=USER:PASSWORD in "
                              "the registry's properties file, never in the URL")  # fmt: skip
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise FormatError(f"{url!r} is not a schema registry URL: give http://HOST:PORT or https://HOST:PORT")
    conf: dict[str, Any] = {
        "url": ",".join(urls),
        "timeout": timeout_s,
        "max.retries": 1,  # one more try after a failure, soon: a poll or a record is not held for long
        "retries.wait.ms": 100,
        "retries.max.wait.ms": 500,
        "cache.latest.ttl.sec": LATEST_TTL_S,
    }
    if settings.properties_file:
        conf.update(_secrets(settings.properties_file))
    return conf


def _secrets(path: str) -> dict[str, str]:
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise FormatError(f"{path}: {e.strerror or e} (the schema registry's properties file)") from None
    props = {k.strip(): v.strip() for k, v in parse_properties(text).items()}
    unknown = sorted(set(props) - set(ALLOWED))
    if unknown:
        raise FormatError(f"{path}: {', '.join(unknown)}: not a schema registry setting; the keys allowed are "
                          f"{', '.join(ALLOWED)}")  # fmt: skip
    source = props.pop(CREDENTIALS_SOURCE, "USER_INFO").upper()
    if source != "USER_INFO":
        raise FormatError(f"{path}: {CREDENTIALS_SOURCE}={source} is not supported here: give USER_INFO (or leave it "
                          f"out) with {USER_INFO}=USER:PASSWORD")  # fmt: skip
    if USER_INFO in props and ":" not in props[USER_INFO]:
        raise FormatError(f"{path}: {USER_INFO} must be USER:PASSWORD")
    for key in PATHS:
        if key in props and not Path(props[key]).is_file():
            raise FormatError(f"{path}: {key} does not name a readable file")
    return {k: v for k, v in props.items() if v}


def new_client(conf: Mapping[str, Any]) -> SchemaRegistryClient:
    try:
        return SchemaRegistryClient(dict(conf))
    except (ValueError, TypeError, OSError) as e:  # the client's own checks; ssl.SSLError is an OSError
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        hint = " (a wrong ssl.key.password?)" if isinstance(e, OSError) else ""
        raise FormatError(f"the schema registry settings cannot be used: {reason}{hint}") from None


def failure(e: Exception, where: str, timeout_s: float, credentials: bool = False) -> KafkatopError:
    """The client's failure as one line: what the registry said, or why it could not be asked (`credentials`: basic
    auth was given)."""
    if isinstance(e, SchemaRegistryError):
        said = " ".join(str(e.error_message or "").split())[:300]
        status = e.http_status_code
        if status == 401:
            if credentials:
                return RegistryUnavailable(where, f"401 Unauthorized: the user or password of {USER_INFO} is refused")
            return RegistryUnavailable(where, f"401 Unauthorized: it needs basic auth: give {USER_INFO}=USER:PASSWORD "
                                              "in the registry's properties file")  # fmt: skip
        if status == 403:
            return RegistryUnavailable(where, f"403 Forbidden: {said or 'the user may not do this'}")
        if e.error_code in _REFUSED or status in (409, 422):
            return RegistryRefused(f"{where}: {said} ({e.error_code})")
        if e.error_code == SchemaRegistryError.UNKNOWN or e.error_code == status == 404:
            return RegistryUnavailable(where, f"HTTP {status}, not a Schema Registry's answer: is the URL right?")
        return RegistryUnavailable(where, f"HTTP {status}: {said} ({e.error_code})")
    if isinstance(e, httpx.TimeoutException):
        return RegistryUnavailable(where, f"no answer within {timeout_s:g} s")
    cause: BaseException | None = e
    while cause is not None:
        if isinstance(cause, ssl.SSLError):
            return RegistryUnavailable(where, f"TLS handshake failed ({cause.reason or cause})")
        if isinstance(cause, OSError):
            return RegistryUnavailable(where, socket_error_reason(cause, timeout_s))
        cause = cause.__cause__ or cause.__context__
    reason = " ".join(str(e).split())[:300] or type(e).__name__
    return RegistryUnavailable(where, f"unreachable ({reason})" if isinstance(e, httpx.HTTPError) else reason)


def model_of(answer: ClientSchema, subject: str | None = None, version: int | None = None) -> RegisteredSchema:
    schema = answer.schema
    schema_type = (schema.schema_type or "AVRO").upper()
    references = schema.references or ()
    return RegisteredSchema(
        subject=answer.subject or subject or "",  # "" and 0: the registry did not say
        version=answer.version or version or 0,
        schema_id=answer.schema_id or 0,
        schema_type=next((t for t in SCHEMA_TYPES if t == schema_type), "AVRO"),
        schema=schema.schema_str or "",
        references=tuple(SchemaReference(r.name or "", r.subject or "", r.version or 0) for r in references),
    )


class ConfluentRegistry:
    """A Schema Registry at `settings.url`; each request bounded by `timeout_s` (and tried once more on failure)."""

    def __init__(self, settings: RegistrySettings, timeout_s: float = 10.0) -> None:
        self.settings = settings
        self.timeout_s = timeout_s
        conf = registry_config(settings, timeout_s)
        self.client = new_client(conf)  # the codec's: its caches are the serdes'
        self._reader = new_client(conf)  # what a reader is shown
        self._pool: ThreadPoolExecutor | None = None
        self.where = f"schema registry {conf['url']}"
        self.credentials = USER_INFO in conf

    @property
    def url(self) -> str:
        return self.settings.url

    def poll(self) -> SchemasSnapshot:
        """The subjects, each with its versions, own level and latest version; never raises: `error` says why not."""
        at = time.time()
        try:
            names = self.call(self._reader.get_subjects)
            default = self.call(self._reader.get_compatibility)
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="schema-registry")
            found = list(self._pool.map(self._subject, names))
        except KafkatopError as e:
            return SchemasSnapshot(self.url, error=str(e), at=at)
        except Exception as e:  # noqa: BLE001 — never raises (a poll after close, say): said in one line
            return SchemasSnapshot(
                self.url, error=f"{self.where}: {' '.join(str(e).split()) or type(e).__name__}", at=at
            )
        subjects = tuple(sorted((s for s in found if s is not None), key=lambda s: s.name))
        return SchemasSnapshot(self.url, subjects, default, at=at)

    def _subject(self, name: str) -> Subject | None:
        try:
            versions = tuple(self.call(self._reader.get_versions, name))
            latest = self.call(self._reader.get_version, name, versions[-1]) if versions else None
        except RegistryRefused:
            return None  # deleted since the subjects were listed
        return Subject(name, versions, self._level(name), model_of(latest, name) if latest is not None else None)

    def _level(self, subject: str) -> str | None:
        """The subject's own compatibility level; None when it has none (40408: the default applies)."""
        try:
            level: str = self._reader.get_compatibility(subject)
        except SchemaRegistryError as e:
            if e.error_code == _NO_LEVEL:
                return None
            raise failure(e, self.where, self.timeout_s, self.credentials) from None
        except Exception as e:  # noqa: BLE001 — no answer: one line
            raise failure(e, self.where, self.timeout_s, self.credentials) from None
        return level

    def schema(self, subject: str, version: int | None = None) -> RegisteredSchema:
        answer = self.call(self._reader.get_version, subject, "latest" if version is None else version)
        return model_of(answer, subject, version)

    def schema_by_id(self, schema_id: int) -> RegisteredSchema:
        schema = self.call(self._reader.get_schema, schema_id)
        holder = self.holder(schema_id, self._reader)
        subject, version = holder if holder is not None else (None, None)
        return model_of(ClientSchema(subject, version, schema_id, None, schema), subject, version)

    def holder(
        self, schema_id: int, client: SchemaRegistryClient | None = None, topic_subject: str = ""
    ) -> tuple[str, int] | None:
        """The subject and version holding a schema id, when the registry says (`/schemas/ids/{id}/versions`): the
        topic's own subject (`topic_subject`) when it is one of them, else the first."""
        try:
            held = self.call((client or self.client).get_schema_versions, schema_id)
        except KafkatopError:
            return None
        pairs = [(str(v.subject), int(v.version)) for v in held if v.subject is not None and v.version is not None]
        return next((p for p in pairs if p[0] == topic_subject), pairs[0] if pairs else None)

    def register(self, subject: str, schema_type: SchemaType, schema: str) -> int:
        schema_id: int = self.call(self._reader.register_schema, subject, Schema(schema, schema_type))
        return schema_id

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        self.client.close()
        self._reader.close()

    def call(self, method: Any, *args: Any) -> Any:
        """A method of one of the clients, its failure as one line."""
        try:
            return method(*args)
        except Exception as e:  # noqa: BLE001 — the client raises httpx's, its own and ValueError: each said in one line
            raise failure(e, self.where, self.timeout_s, self.credentials) from None
