"""A Kafka Connect connector as a file gives it: Connect's own JSON (`{"name": …, "config": {…}}`, as `POST
/connectors` takes it, or the config alone with its `name`, as `PUT /connectors/{name}/config`), or the `.properties`
connect-standalone takes. Read by `kafkatop connect create FILE` and by the Connect tab's create; pure but for
reading the file, whatever it holds: anything else raises ConnectRefused (exit 2) saying what is wrong."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from kafkatop.backends.model.connect import ConnectRefused
from kafkatop.backends.model.errors import unreadable
from kafkatop.backends.model.json_text import loads
from kafkatop.backends.model.properties import parse_properties
from kafkatop.backends.model.secrets import HIDDEN

MAX_FILE_BYTES = 1 << 20  # a connector's config is a few KiB; a larger file is not one
DIRECTORY = "a directory: give a connector's .json or .properties file"


@dataclass(frozen=True, slots=True)
class ConnectorFile:
    name: str
    config: tuple[tuple[str, str], ...]  # as the file gives it, `name` left out (Connect's request carries it)

    @property
    def class_name(self) -> str | None:
        return dict(self.config).get("connector.class")


def _value(where: str, key: str, value: object) -> str:
    """A JSON value as Connect's config takes it: a string (a number or a boolean written as one)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    kind = "an object" if isinstance(value, dict) else "a list" if isinstance(value, list) else "null"
    raise ConnectRefused(f"{where}: {key!r} is {kind}: a connector's config values are strings (or numbers)")


def _from_json(text: str, where: str) -> tuple[str | None, dict[str, str]]:
    try:
        data = loads(text)
    except json.JSONDecodeError as e:
        raise ConnectRefused(f"{where}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    if not isinstance(data, dict):
        raise ConnectRefused(f'{where}: expected a JSON object ({{"name": …, "config": {{…}}}}), not an array or value')
    name = data.get("name")
    config = data["config"] if "config" in data else data
    if not isinstance(config, dict):
        raise ConnectRefused(f"{where}: 'config' must be an object of settings")
    if "config" in data and set(data) - {"name", "config"}:
        extra = ", ".join(sorted(set(data) - {"name", "config"}))
        raise ConnectRefused(f"{where}: beside 'name' and 'config' it has {extra}: put settings inside 'config'")
    values = {str(k): _value(where, str(k), v) for k, v in config.items()}
    if name is not None and not isinstance(name, str):
        raise ConnectRefused(f"{where}: 'name' must be a string")
    return name, values


def name_problem(name: str) -> str | None:
    """Why Connect's REST API could not address a connector of this name once made, or None: its URLs carry the
    name as a path segment, and Jetty refuses an encoded `/` (400 Ambiguous URI path separator), so a connector
    named `a/b` could be created and never shown, stopped or deleted."""
    if "/" in name or "\\" in name or name in (".", ".."):
        return f"connector name {name!r}: no '/', '\\', '.' or '..' (Connect's REST paths could not reach it again)"
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        return f"connector name {name!r}: no control characters"
    return None


def parse_connector_file(text: str, where: str) -> ConnectorFile:
    """`text`, read from `where` (named in what is refused), as a connector: JSON when it starts with `{` or `[`,
    else properties. Its name is `name` (beside `config`, or among the settings)."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if not stripped:
        raise ConnectRefused(f"{where}: empty: give a connector's JSON or .properties (name=…, connector.class=…)")
    if stripped.startswith(("{", "[")):
        name, config = _from_json(stripped, where)
    else:
        config = parse_properties(text)
        name = None
    name = name or config.get("name")
    inner = config.get("name")
    if inner is not None and name is not None and inner != name:
        raise ConnectRefused(f"{where}: 'name' is {name!r} beside its config and {inner!r} inside it: give one name")
    if not name or not name.strip():
        raise ConnectRefused(f'{where}: no connector name: add name=… (properties) or "name": … (JSON)')
    if problem := name_problem(name.strip()):
        raise ConnectRefused(f"{where}: {problem}")
    if not config.get("connector.class"):
        raise ConnectRefused(f"{where}: no connector.class: name the plugin, e.g. connector.class=FileStreamSource")
    hidden = sorted(k for k, v in config.items() if v.strip() == HIDDEN)
    if hidden:  # a config copied from what kafkatop shows: sent, the mark would become the password
        raise ConnectRefused(f"{where}: {', '.join(hidden)} {'is' if len(hidden) == 1 else 'are'} {HIDDEN}, the mark "
                             "kafkatop shows in place of a secret, not the secret: write the value itself, or a "
                             "config provider's reference (${file:PATH:KEY})")  # fmt: skip
    return ConnectorFile(name.strip(), tuple((k, v) for k, v in config.items() if k != "name"))


def read_connector_file(path: str | Path) -> ConnectorFile:
    """The connector a file holds; ConnectRefused naming the file when it cannot be read or is not one."""
    p = Path(path).expanduser()
    try:
        with p.open("rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise ConnectRefused(f"{p}: {unreadable(e, DIRECTORY)}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ConnectRefused(f"{p}: larger than {MAX_FILE_BYTES >> 10} KiB: not a connector's config")
    if b"\x00" in raw:
        raise ConnectRefused(f"{p}: binary content: not a connector's .json or .properties")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")  # as Java reads properties
    return parse_connector_file(text, str(p))


def read_offsets_file(path: str | Path) -> list[dict[str, object]]:
    """The offsets a file holds for `connect offsets NAME --alter`, as `offsets NAME --json` prints them (Connect's
    `PATCH /connectors/NAME/offsets` body); ConnectRefused naming the file when it is not that."""
    p = Path(path).expanduser()
    try:
        data = loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        why = unreadable(e, "a directory: give a file as `offsets NAME --json` prints them")
        raise ConnectRefused(f"{p}: {why}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ConnectRefused(f"{p}: not valid JSON ({e}); write it as `offsets NAME --json` prints them") from None
    entries = data.get("offsets") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "partition" in e for e in entries):
        raise ConnectRefused(
            f'{p}: expected {{"offsets": [{{"partition": {{…}}, "offset": {{…}} or null}}, …]}}, as `kafkatop connect '
            "offsets NAME --json` prints them"
        )
    return entries
