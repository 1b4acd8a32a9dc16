"""Contexts: named clusters, as kubectl and k9s name theirs — a lab (by name) or an attached cluster (bootstrap
servers, a client properties file, its ZooKeeper), each possibly read-only, with a colour for the header.

They are `[contexts.NAME]` tables in the user's `$XDG_CONFIG_HOME/kafkatop/config.toml` and in the project's
`kafkatop.toml`; the project's win on a shared name, except that a context the user made read-only stays read-only (a
project's file, often someone else's, cannot make it writable). `default-context = "NAME"` at the top of either names
the one used when no cluster is given. A context holds no secret: it names a client properties file (`command-config`),
whose own permissions guard its passwords (standard library only)."""

from __future__ import annotations

import re
import stat
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from kafkatop.backends.model.configs import closest_name
from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.format_config import parse_formats, parse_registry
from kafkatop.backends.model.formats import RegistrySettings, TopicFormat
from kafkatop.backends.model.lag import LagRules, parse_lag_rules
from kafkatop.backends.model.masking import MaskRules, parse_mask
from kafkatop.backends.model.topics import validate_topic_name

DEFAULT_KEY = "default-context"
KEYS = frozenset(
    {"lab", "state-dir", "bootstrap-server", "command-config", "zookeeper", "connect-url", "read-only", "colour",
     "color", "description", "schema-registry", "schema-registry-config", "formats", "lag", "mask", "show-records",
     "audit-topic"}
)  # fmt: skip
# Named so a password pasted into a context is refused, not kept in a file that is often shared (dotfiles).
_SECRET = re.compile(r"pass(word)?|secret|jaas|token|credential|\.key$", re.IGNORECASE)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
# The colour names a context may use, as #rrggbb (the CSS colours of these names): Rich and Textual both read hex.
COLOURS: dict[str, str] = {
    "red": "#ff0000", "green": "#008000", "yellow": "#ffff00", "blue": "#0000ff", "magenta": "#ff00ff",
    "cyan": "#00ffff", "white": "#ffffff", "orange": "#ffa500", "purple": "#800080", "pink": "#ffc0cb",
    "grey": "#808080", "gray": "#808080", "lime": "#00ff00", "teal": "#008080", "navy": "#000080",
    "maroon": "#800000", "olive": "#808000", "aqua": "#00ffff", "fuchsia": "#ff00ff", "silver": "#c0c0c0",
    "gold": "#ffd700", "crimson": "#dc143c", "orchid": "#da70d6",
}  # fmt: skip
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")


@dataclass(frozen=True, slots=True)
class ClusterContext:
    name: str
    defined_in: Path
    lab: str | None = None  # a lab cluster of kafkatop's, by name
    state_dir: str | None = None  # where that lab lives, when not the default
    bootstrap_server: str | None = None  # an attached cluster
    command_config: str | None = None  # its client properties (an absolute path)
    zookeeper: str | None = None
    connect_url: tuple[str, ...] = ()  # its Kafka Connect workers' REST URLs (kept for the Connect tab)
    read_only: bool = False
    colour: str | None = None  # #rrggbb
    description: str = ""
    schema_registry: RegistrySettings | None = None  # its Schema Registry (schema-registry, schema-registry-config)
    formats: tuple[tuple[str, TopicFormat], ...] = ()  # [contexts.NAME.formats.TOPIC]: its topics' formats
    lag: LagRules = LagRules()  # [contexts.NAME.lag]: how its groups' lag statuses are decided
    mask: MaskRules = MaskRules()  # mask = [...], show-records = false: what of its records may be seen
    audit_topic: str | None = None  # audit-topic = "…": its audit entries also as records of this topic, for a team
    # What to tell whoever uses it (its file readable by others, read-only kept over a project's redefinition): the
    # live view shows them on screen, where stderr is hidden.
    warnings: tuple[str, ...] = ()

    @property
    def kind(self) -> Literal["lab", "attach"]:
        return "lab" if self.lab is not None else "attach"

    @property
    def where(self) -> str:
        """What it points at, in a few words: `lab 'a'` or the bootstrap servers."""
        return f"lab {self.lab!r}" if self.lab is not None else str(self.bootstrap_server)


@dataclass(frozen=True, slots=True)
class Contexts:
    contexts: tuple[ClusterContext, ...] = ()
    default: str | None = None
    files: tuple[Path, ...] = ()  # the files read, in order (later ones win)
    warnings: tuple[str, ...] = ()

    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.contexts)

    def get(self, name: str) -> ClusterContext:
        for c in self.contexts:
            if c.name == name:
                return c
        if not self.contexts:
            where = " or ".join(str(f) for f in self.files) or "kafkatop.toml"
            raise BadInput(
                f"no context {name!r}: no context is defined; add a [contexts.{name}] table to {where} "
                '(bootstrap-server = "HOST:PORT", or lab = "NAME"); `kafkatop contexts` lists them'
            )
        raise BadInput(f"no context {name!r}; the contexts are {', '.join(self.names())} (`kafkatop contexts`)")


def parse_contexts(data: Mapping[str, object], path: Path) -> tuple[dict[str, ClusterContext], str | None]:
    """The `[contexts.*]` tables and `default-context` of one TOML document read from `path`."""
    default = data.get(DEFAULT_KEY)
    if default is not None and (not isinstance(default, str) or not default.strip()):
        raise BadInput(f'{path}: {DEFAULT_KEY} = {default!r} must be a context\'s name, e.g. {DEFAULT_KEY} = "lab"')
    tables = data.get("contexts", {})
    if not isinstance(tables, dict):
        raise BadInput(f"{path}: contexts must be tables, e.g. [contexts.staging]")
    found: dict[str, ClusterContext] = {}
    for name, table in tables.items():
        if not isinstance(table, dict):
            raise BadInput(f"{path}: contexts.{name} must be a table: [contexts.{name}]")
        found[name] = _context(str(name), table, path)
    return found, default


def _context(name: str, table: Mapping[str, object], path: Path) -> ClusterContext:
    where = f"{path}: [contexts.{name}]"
    if not _NAME.match(name):
        raise BadInput(f"{where}: a context's name is letters, digits, '.', '_' and '-' (at most 63)")
    secrets = sorted(k for k in table if _SECRET.search(k))
    if secrets:
        raise BadInput(
            f"{where}: {', '.join(secrets)}: a context holds no secret; put it in a client properties file (mode "
            "600) and name that file with command-config"
        )
    unknown = sorted(set(table) - KEYS)
    if unknown:
        raise BadInput(f"{where}: unknown key(s) {', '.join(_guessed(k) for k in unknown)}; known: "
                       f"{', '.join(sorted(KEYS))}")  # fmt: skip

    def text(key: str) -> str | None:
        value = table.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            raise BadInput(f'{where}: {key} = {value!r} must be a non-empty string, e.g. {key} = "…"')
        return value.strip()

    lab, bootstrap = text("lab"), text("bootstrap-server")
    if (lab is None) == (bootstrap is None):
        raise BadInput(
            f'{where}: give one of lab = "NAME" (a lab cluster of kafkatop\'s) or bootstrap-server = "HOST:PORT" '
            "(a cluster to attach to)"
        )
    if lab is not None and "zookeeper" in table:
        raise BadInput(f"{where}: zookeeper is an attached cluster's; a lab knows its own")
    read_only = table.get("read-only", False)
    if not isinstance(read_only, bool):
        raise BadInput(f"{where}: read-only = {read_only!r} must be true or false")
    colour = text("colour") or text("color")
    if colour is not None and colour.lower() not in COLOURS and not _HEX.match(colour):
        raise BadInput(f"{where}: colour {colour!r}: give #rrggbb or one of {', '.join(sorted(COLOURS))}")
    urls = table.get("connect-url", ())
    if isinstance(urls, str):
        urls = (urls,)
    if not isinstance(urls, (list, tuple)) or not all(isinstance(u, str) for u in urls):
        raise BadInput(f'{where}: connect-url must be a URL or a list of them, e.g. ["http://127.0.0.1:8083"]')
    config = text("command-config")
    if config is not None:
        config = str((path.parent / Path(config).expanduser()).resolve())  # relative to the file that names it
    state_dir = text("state-dir")
    if state_dir is not None:
        state_dir = str((path.parent / Path(state_dir).expanduser()).resolve())
    registry = None
    if "schema-registry" in table or "schema-registry-config" in table:
        # Its own name: the registry's properties are not the Kafka client's (command-config), whose SASL/TLS stay.
        url, registry_config = text("schema-registry"), text("schema-registry-config")
        if url is None:
            raise BadInput(f'{where}: schema-registry-config goes with schema-registry = "http://HOST:8081"')
        given = {"url": url} | ({"config": registry_config} if registry_config else {})
        registry = parse_registry(given, path, f"[contexts.{name}]")
    formats = tuple(parse_formats(table.get("formats"), path, f"contexts.{name}.formats").items())
    audit_topic = text("audit-topic")
    if audit_topic is not None and (problem := validate_topic_name(audit_topic)):
        raise BadInput(f"{where}: audit-topic: {problem}")
    return ClusterContext(
        name, path, lab=lab, state_dir=state_dir, bootstrap_server=bootstrap, command_config=config,
        zookeeper=text("zookeeper"), connect_url=tuple(urls), read_only=read_only,
        colour=COLOURS.get(colour.lower(), colour) if colour is not None else None,
        description=text("description") or "", schema_registry=registry, formats=formats,
        lag=parse_lag_rules(table.get("lag"), f"[contexts.{name}.lag] in {path}"), mask=_mask(table, where),
        audit_topic=audit_topic,
    )  # fmt: skip


def _guessed(key: str) -> str:
    """An unknown key, with the known one it is most like: `bootstrap-servers (did you mean bootstrap-server?)`."""
    close = closest_name(key.lower().replace("_", "-"), sorted(KEYS))
    return f"{key} (did you mean {close}?)" if close else key


def read_contexts(files: Sequence[Path]) -> Contexts:
    """The contexts of `files` that exist, later files over earlier ones (the user's file, then the project's), but
    read-only wins: a context read-only in one file stays so when a later one redefines it without."""
    merged: dict[str, ClusterContext] = {}
    default: str | None = None
    default_from = Path()
    read: list[Path] = []
    warnings: list[str] = []
    for path in files:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            continue
        except OSError as e:
            raise BadInput(f"{path}: cannot read it ({e.strerror or e})") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise BadInput(f"{path}: not valid TOML ({e})") from None
        path = path.absolute()
        read.append(path)
        found, named = parse_contexts(data, path)
        exposed = any(c.command_config for c in found.values()) and _readable_by_others(path)
        for name, context in found.items():
            if exposed:  # told with each of its contexts, where stderr is hidden (the live view)
                context = _warned(context, f"{path} is readable by other users and names client properties files: "
                                           f"`chmod 600 {path}` (and keep those files 600 too)")  # fmt: skip
            merged[name] = _over(merged.get(name), context)
            warnings += merged[name].warnings
        if named is not None:
            default, default_from = named, path
    if default is not None and default not in merged:
        raise BadInput(
            f"{default_from}: {DEFAULT_KEY} = {default!r}: no such context (defined: {', '.join(merged) or 'none'})"
        )
    return Contexts(tuple(merged.values()), default, tuple(read), tuple(dict.fromkeys(warnings)))  # each said once


def _mask(table: Mapping[str, object], where: str) -> MaskRules:
    rules = table.get("mask", [])
    if not isinstance(rules, list):
        raise BadInput(f'{where}: mask is a list: mask = [".card.number", "headers.authorization", "~ /\\\\d{{16}}/"]')
    return parse_mask(rules, table.get("show-records", True), where)


def _over(was: ClusterContext | None, context: ClusterContext) -> ClusterContext:
    """`context` in place of `was`, the same name defined in an earlier file; read-only and masks are kept."""
    if was is not None and was.mask.active:  # a project's file adds masks to the user's, never takes one away
        context = replace(context, mask=was.mask.merged(context.mask))
    if was is None or not was.read_only or context.read_only:
        return context
    return _warned(
        replace(context, read_only=True),
        f"{context.defined_in}: [contexts.{context.name}] redefines the one in {was.defined_in} without read-only; "
        f"it stays read-only (a project's file cannot make a read-only context writable: drop read-only = true "
        f"from {was.defined_in} to write to it)",
    )


def _warned(context: ClusterContext, warning: str) -> ClusterContext:
    return replace(context, warnings=(*context.warnings, warning))


def _readable_by_others(path: Path) -> bool:
    try:
        return bool(path.stat().st_mode & (stat.S_IRGRP | stat.S_IROTH))
    except OSError:
        return False
