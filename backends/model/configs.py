"""Configs of a topic, a broker, or every broker (the cluster-wide defaults), as Kafka describes them: each entry with
its value, where the value comes from in Kafka's own words (DEFAULT_CONFIG, STATIC_BROKER_CONFIG,
DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG, DYNAMIC_TOPIC_CONFIG, …) and the synonyms behind it; and the
checks a change passes before anything is sent, the same for the command line and the Configs screen (standard
library only).

A sensitive value (a password, a key) never reaches kafkatop: Kafka sends null for it, and so does the model.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from kafkatop.backends.model.errors import BadInput, KafkatopError


class ConfigSource(StrEnum):
    """Where an entry's value comes from: the names of Kafka's admin client (ConfigEntry.ConfigSource)."""

    UNKNOWN = "UNKNOWN"
    DYNAMIC_TOPIC_CONFIG = "DYNAMIC_TOPIC_CONFIG"  # set on the topic
    DYNAMIC_BROKER_CONFIG = "DYNAMIC_BROKER_CONFIG"  # set on this broker while it runs
    DYNAMIC_DEFAULT_BROKER_CONFIG = "DYNAMIC_DEFAULT_BROKER_CONFIG"  # set cluster-wide, for every broker
    STATIC_BROKER_CONFIG = "STATIC_BROKER_CONFIG"  # the broker's server.properties
    DEFAULT_CONFIG = "DEFAULT_CONFIG"  # Kafka's built-in default
    DYNAMIC_BROKER_LOGGER_CONFIG = "DYNAMIC_BROKER_LOGGER_CONFIG"
    DYNAMIC_CLIENT_METRICS_CONFIG = "DYNAMIC_CLIENT_METRICS_CONFIG"
    DYNAMIC_GROUP_CONFIG = "DYNAMIC_GROUP_CONFIG"

    @property
    def is_default(self) -> bool:
        """Kafka's built-in default: nothing anyone set."""
        return self in (ConfigSource.DEFAULT_CONFIG, ConfigSource.UNKNOWN)


class ConfigType(StrEnum):
    """The type of a config's value (DescribeConfigs v3+); UNKNOWN from older brokers."""

    UNKNOWN = "UNKNOWN"
    BOOLEAN = "BOOLEAN"
    STRING = "STRING"
    INT = "INT"
    SHORT = "SHORT"
    LONG = "LONG"
    DOUBLE = "DOUBLE"
    LIST = "LIST"
    CLASS = "CLASS"
    PASSWORD = "PASSWORD"


ResourceKind = Literal["topic", "broker", "broker-defaults", "client-metrics"]


@dataclass(frozen=True, slots=True)
class ConfigResource:
    """What has configs: a topic, one broker (by id), or the defaults of every broker (Kafka's empty broker name)."""

    kind: ResourceKind
    name: str  # the topic's name, the broker's id, "" for the broker defaults

    @classmethod
    def topic(cls, name: str) -> ConfigResource:
        return cls("topic", name)

    @classmethod
    def broker(cls, broker_id: int) -> ConfigResource:
        return cls("broker", str(broker_id))

    @classmethod
    def broker_defaults(cls) -> ConfigResource:
        return cls("broker-defaults", "")

    @property
    def dynamic_source(self) -> ConfigSource:
        """The source of a value set on this very resource: what `--delete` removes, what kafka-configs calls the
        "Dynamic configs" of it."""
        return {
            "topic": ConfigSource.DYNAMIC_TOPIC_CONFIG,
            "broker": ConfigSource.DYNAMIC_BROKER_CONFIG,
            "broker-defaults": ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
            "client-metrics": ConfigSource.DYNAMIC_CLIENT_METRICS_CONFIG,
        }[self.kind]

    def __str__(self) -> str:
        if self.kind == "broker-defaults":
            return "the broker defaults (cluster-wide)"
        return f"{self.kind} {self.name}"


@dataclass(frozen=True, slots=True)
class ConfigSynonym:
    """One of the values behind an entry, most specific first, as Kafka lists them (e.g. DYNAMIC_TOPIC_CONFIG, then the
    broker's log.retention.ms as DEFAULT_CONFIG)."""

    name: str
    value: str | None
    source: ConfigSource


@dataclass(frozen=True, slots=True)
class ConfigEntry:
    name: str
    value: str | None  # None: sensitive (Kafka never sends it), or a config without a value
    source: ConfigSource
    is_sensitive: bool
    is_read_only: bool  # cannot be changed while the broker runs (a static broker config such as log.dirs)
    synonyms: tuple[ConfigSynonym, ...] = ()
    type: ConfigType = ConfigType.UNKNOWN

    def overridden_on(self, resource: ConfigResource) -> bool:
        """Set on this very resource (what a delete removes), not inherited from a broker or a default."""
        return self.source == resource.dynamic_source

    @property
    def shown_value(self) -> str:
        """The value for a person: a sensitive one masked, a missing one as Kafka prints it."""
        if self.is_sensitive:
            return "(sensitive: not shown)"
        return "null" if self.value is None else self.value


@dataclass(frozen=True, slots=True)
class ResourceConfigs:
    """Every entry Kafka described for one resource, by name (the order kafka-configs prints)."""

    resource: ConfigResource
    entries: tuple[ConfigEntry, ...]

    def entry(self, name: str) -> ConfigEntry | None:
        return next((e for e in self.entries if e.name == name), None)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.entries)

    @property
    def overrides(self) -> tuple[ConfigEntry, ...]:
        """The entries set on this resource itself: kafka-configs --describe without --all."""
        return tuple(e for e in self.entries if e.overridden_on(self.resource))


# --- failures ---------------------------------------------------------------------------------------------------------
class ConfigError(KafkatopError):
    """Configs could not be read or changed; the message names the resource and, when Kafka refused, Kafka's error
    name and message. `code`: Kafka's error name (e.g. "INVALID_CONFIG"), or None for kafkatop's own checks."""

    def __init__(self, message: str, *, resource: ConfigResource | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.resource = resource
        self.code = code


class ConfigRefused(ConfigError, BadInput):
    """The change (or the resource asked for) is wrong as given: refused by kafkatop's checks or by Kafka; nothing
    was changed. A command exits with 2."""


# --- a change, as typed -------------------------------------------------------------------------------------------
_ALTER_EXAMPLE = "--alter retention.ms=3600000,cleanup.policy=[compact,delete]"


def split_items(text: str) -> list[str]:
    """`k=v,k2=[a,b]` split at the commas outside square brackets, as kafka-configs splits --add-config."""
    items: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [item.strip() for item in items if item.strip()]


def parse_alter(texts: Sequence[str]) -> dict[str, str]:
    """`--alter` values ("k=v,k2=v2"; a list value in brackets, "cleanup.policy=[compact,delete]") as a dict; the
    last of a name wins. An empty value is Kafka's empty string (e.g. no throttled replicas)."""
    out: dict[str, str] = {}
    for text in texts:
        for item in split_items(text):
            name, sep, value = item.partition("=")
            name, value = name.strip(), value.strip()
            if not sep or not name:
                raise ConfigRefused(f"--alter {item!r}: expected NAME=VALUE, for example {_ALTER_EXAMPLE}")
            if value.startswith("[") and value.endswith("]"):
                value = value[1:-1]
            out[name] = value
    return out


def parse_delete(texts: Sequence[str]) -> tuple[str, ...]:
    """`--delete` values ("k" or "k,k2"), in order, each once."""
    names: list[str] = []
    for text in texts:
        for name in split_items(text):
            if "=" in name:
                raise ConfigRefused(f"--delete {name!r}: give the config's name only, e.g. --delete retention.ms")
            if name not in names:
                names.append(name)
    return tuple(names)


# --- checks before anything is sent -----------------------------------------------------------------------------------
_INT_RANGES = {
    ConfigType.SHORT: (-(2**15), 2**15 - 1),
    ConfigType.INT: (-(2**31), 2**31 - 1),
    ConfigType.LONG: (-(2**63), 2**63 - 1),
}
_WHOLE = re.compile(r"[+-]?[0-9]+")
_LISTENER_PREFIX = re.compile(r"listener\.name\.[^.]+\.(.+)")


def check_value(entry: ConfigEntry, value: str) -> str | None:
    """None when `value` has the entry's type (as far as its type says), else why not. Kafka checks the rest (ranges,
    choices such as cleanup.policy) when asked to validate."""
    text = value.strip()
    kind = entry.type
    if kind in _INT_RANGES:
        low, high = _INT_RANGES[kind]
        if not _WHOLE.fullmatch(text):
            return f"{entry.name} is a whole number ({kind.value}): {value!r} is not one"
        if not low <= int(text) <= high:
            return f"{entry.name} is a {kind.value}, from {low} to {high}: {text} is out of range"
    elif kind is ConfigType.DOUBLE:
        try:
            float(text)
        except ValueError:
            return f"{entry.name} is a number (DOUBLE): {value!r} is not one"
    elif kind is ConfigType.BOOLEAN and text.lower() not in ("true", "false"):
        return f"{entry.name} is true or false: not {value!r}"
    return None


def closest_name(name: str, known: Sequence[str]) -> str | None:
    found = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return found[0] if found else None


def _known_entry(name: str, known: ResourceConfigs) -> ConfigEntry | None:
    """The entry that says whether `name` exists and can change. A listener's own setting
    (listener.name.<listener>.<broker config>) is the broker config's: Kafka describes one that is set as read-only,
    yet changes it."""
    if known.resource.kind != "topic" and (m := _LISTENER_PREFIX.fullmatch(name)):
        return known.entry(m[1])
    return known.entry(name)


def is_read_only(configs: ResourceConfigs, name: str) -> bool:
    """Whether Kafka cannot change `name` while the broker runs, as check_change judges it (a listener's own setting
    by its broker config's flag)."""
    entry = _known_entry(name, configs)
    return entry is not None and entry.is_read_only


# Broker configs Kafka takes dynamically but never lists in DescribeConfigs unless set (DynamicConfig.Broker): the
# replication throttle of kafka-reassign-partitions.sh --throttle, and the log-dir move rate. Each a rate in bytes/s.
DYNAMIC_ONLY_BROKER_CONFIGS = frozenset(
    {
        "leader.replication.throttled.rate",
        "follower.replication.throttled.rate",
        "replica.alter.log.dirs.io.max.bytes.per.second",
    }
)


def check_change(
    current: ResourceConfigs,
    to_set: Mapping[str, str],
    to_delete: Sequence[str],
    known: ResourceConfigs | None = None,
) -> list[str]:
    """Every problem with this change that can be seen before asking Kafka; empty when none.

    `current`: the resource as described now; `known`: the configs that say which names exist and which are
    read-only, when `current` does not (the broker defaults describe only what is set: a broker's configs say the
    rest).
    """
    known = known or current
    what = "topic config" if current.resource.kind == "topic" else "broker config"
    problems: list[str] = []
    if not to_set and not to_delete:
        problems.append("nothing to change: give --alter NAME=VALUE and/or --delete NAME")
    for name in to_set.keys() & set(to_delete):
        problems.append(f"{name} is both set and deleted: give it once")
    for name in [*to_set, *(n for n in to_delete if n not in to_set)]:
        entry = _known_entry(name, known)
        # Described (read-only, oddly) once set, unknown before: Kafka changes them either way.
        if current.resource.kind != "topic" and name in DYNAMIC_ONLY_BROKER_CONFIGS:
            if name in to_set and not to_set[name].isdigit():
                problems.append(f"{name}={to_set[name]!r}: a rate in bytes per second, a whole number")
            continue
        if entry is None:
            near = closest_name(name, known.names)
            hint = f": did you mean {near}?" if near else f" ({len(known.names)} names are known; --all lists them)"
            problems.append(f"unknown {what} name {name!r}{hint}")
        elif entry.is_read_only:
            problems.append(
                f"{name} is read-only: Kafka cannot change it while the broker runs; set it in the broker's "
                "server.properties and restart the broker"
            )
        elif name in to_set and (problem := check_value(entry, to_set[name])) is not None:
            problems.append(problem)
    for name in to_delete:
        if name in to_set or _known_entry(name, known) is None:
            continue
        entry = current.entry(name)
        if entry is None or not entry.overridden_on(current.resource):
            source = f" (its value comes from {entry.source.value})" if entry is not None else ""
            problems.append(f"{name} is not set on {current.resource}{source}: nothing to delete")
    return problems
