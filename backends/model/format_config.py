"""Where records' formats and the Schema Registry are configured: `[schema-registry]` and `[formats.TOPIC]` tables
of kafkatop.toml and of the user's config.toml, the same keys in a context, and the formats a user picked in the
live view, remembered per cluster in kafkatop's state folder (standard library only).

    [schema-registry]
    url = "http://127.0.0.1:8081"
    config = "registry.properties"        # basic.auth.user.info, ssl.* (mode 600): no secret here

    [formats.orders]                      # a topic; [formats."a.b"] for a name with dots
    value = "avro"
    value-schema = "schemas/orders.avsc"  # or value-subject = "orders-value"; value-message-type for Protobuf
    key = "string"

A context takes `schema-registry = "URL"`, `schema-registry-config = "FILE"` and `[contexts.NAME.formats.TOPIC]`.
Relative paths are read from the folder of the file that names them.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from kafkatop.backends.model.formats import (
    FieldFormat,
    Format,
    FormatError,
    RecordField,
    RegistrySettings,
    TopicFormat,
    format_named,
)
from kafkatop.backends.model.json_text import loads

REGISTRY_KEYS = frozenset({"url", "config"})
_FIELD_KEYS = ("", "-schema", "-subject", "-message-type")
FORMAT_KEYS = frozenset(f"{which}{suffix}" for which in ("key", "value") for suffix in _FIELD_KEYS)


def _text(table: Mapping[str, object], key: str, where: str) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise FormatError(f'{where}: {key} = {value!r} must be a non-empty string, e.g. {key} = "…"')
    return value.strip()


def _table(table: object, where: str, example: str, known: frozenset[str], known_text: str) -> dict[str, object]:
    """`table` if it is a TOML table of known keys; otherwise the error that says so, `example` after "must be a
    table", `known_text` after "known:"."""
    if not isinstance(table, dict):
        raise FormatError(f"{where} must be a table{example}")
    unknown = sorted(set(table) - known)
    if unknown:
        raise FormatError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {known_text}")
    return table


def _path(value: str | None, base: Path) -> str | None:
    return None if value is None else str((base / Path(value).expanduser()).resolve())


def parse_registry(table: object, path: Path, where: str = "[schema-registry]") -> RegistrySettings | None:
    """A `[schema-registry]` table (url, config); None when there is none."""
    if table is None:
        return None
    where = f"{path}: {where}"
    example = ': [schema-registry] url = "http://HOST:8081"'
    table = _table(table, where, example, REGISTRY_KEYS, "url, config (a properties file)")
    url = _text(table, "url", where)
    if url is None:
        raise FormatError(f'{where}: no url; e.g. url = "http://127.0.0.1:8081"')
    return RegistrySettings(check_url(url, where), _path(_text(table, "config", where), path.parent))


def check_url(url: str, where: str) -> str:
    """One URL or several, comma-separated, each http(s)://HOST[:PORT][/path]."""
    for one in url.split(","):
        one = one.strip()
        scheme, sep, rest = one.partition("://")
        if not sep or scheme not in ("http", "https") or not rest or rest.startswith("/"):
            raise FormatError(f"{where}: {one!r} is not a registry URL: give http://HOST:PORT or https://HOST:PORT")
    return url


def parse_formats(tables: object, path: Path, where: str = "formats") -> dict[str, TopicFormat]:
    """`[formats.TOPIC]` tables: each topic's key and value formats, schema files resolved against `path`'s folder."""
    if tables is None:
        return {}
    if not isinstance(tables, dict):
        raise FormatError(f'{path}: {where} must be tables, e.g. [{where}.orders] value = "avro"')
    found = {}
    for topic, table in tables.items():
        at = f"{path}: [{where}.{topic}]"
        table = _table(table, at, ', e.g. value = "json"', FORMAT_KEYS, ", ".join(sorted(FORMAT_KEYS)))
        found[str(topic)] = TopicFormat(_field(table, "key", at, path.parent), _field(table, "value", at, path.parent))
    return found


def _field(table: Mapping[str, object], which: RecordField, at: str, base: Path) -> FieldFormat:
    name = _text(table, which, at)
    schema = _path(_text(table, f"{which}-schema", at), base)
    subject = _text(table, f"{which}-subject", at)
    message_type = _text(table, f"{which}-message-type", at)
    try:
        fmt = format_named(name) if name is not None else Format.AUTO
        return FieldFormat(fmt, schema, subject, message_type)
    except FormatError as e:
        raise FormatError(f"{at}: {e}") from None


def merged(*layers: Mapping[str, TopicFormat]) -> dict[str, TopicFormat]:
    """Later layers over earlier ones, topic by topic."""
    out: dict[str, TopicFormat] = {}
    for layer in layers:
        out.update(layer)
    return out


def with_field(fmt: TopicFormat, which: RecordField, field: FieldFormat) -> TopicFormat:
    return replace(fmt, key=field) if which == "key" else replace(fmt, value=field)


# --- the formats picked in the live view, remembered per cluster ------------------------------------------------------
REMEMBERED = "formats.json"


def _field_json(f: FieldFormat) -> dict[str, str]:
    out = {"format": f.format.value}
    for key, value in (("schema_file", f.schema_file), ("subject", f.subject), ("message_type", f.message_type)):
        if value is not None:
            out[key] = value
    return out


def _field_of(data: object) -> FieldFormat:
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise FormatError("not a field's format")
    return FieldFormat(
        format_named(data.get("format", "auto")), data.get("schema_file"), data.get("subject"), data.get("message_type")
    )


def read_remembered(state_root: Path, cluster: str) -> dict[str, TopicFormat]:
    """The formats picked for `cluster`'s topics; a file that cannot be read is as none (it is a convenience)."""
    try:
        data = loads((state_root / REMEMBERED).read_text(encoding="utf-8"))
        topics = data.get(cluster, {}) if isinstance(data, dict) else {}
        return {t: TopicFormat(_field_of(f.get("key")), _field_of(f.get("value"))) for t, f in topics.items()}
    except (OSError, ValueError, AttributeError, TypeError):
        return {}


def remember(state_root: Path, cluster: str, topic: str, fmt: TopicFormat) -> None:
    """Keep `fmt` for `cluster`'s `topic`: read, change and replace the file whole (never half written)."""
    path = state_root / REMEMBERED
    try:
        data = loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    data.setdefault(cluster, {})[topic] = {"key": _field_json(fmt.key), "value": _field_json(fmt.value)}
    state_root.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=state_root, prefix=".formats.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    os.replace(tmp, path)
