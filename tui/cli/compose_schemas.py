"""Records' formats and the Schema Registry, for the composition root and the commands that read or write records
(consume, produce, the live view): the registry from --schema-registry, else the context's, else `[schema-registry]`
of kafkatop.toml, else of the user's config.toml; each topic's formats from `[formats.TOPIC]` there (the user's file,
the project's, the context's), then what was picked in the live view for this cluster, then the command's flags.

A command on one --topic checks the schemas of the fields it will use before any connection (a file read and parsed,
a subject known to the registry), and says once on stderr where a format it uses came from when not from its flags."""

from __future__ import annotations

import argparse
import tomllib
from collections.abc import Iterable
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from kafkatop.backends.model.contexts import ClusterContext
from kafkatop.backends.model.errors import KafkatopError, SourceUnavailable
from kafkatop.backends.model.format_config import (
    REMEMBERED,
    check_url,
    merged,
    parse_formats,
    parse_registry,
    read_remembered,
    remember,
)
from kafkatop.backends.model.formats import (
    FieldFormat,
    Format,
    FormatError,
    RecordField,
    RegistrySettings,
    TopicFormat,
    format_named,
)
from kafkatop.backends.ports import RecordCodec, SchemaRegistry
from kafkatop.tui.cli.common import state_root
from kafkatop.tui.cli.contexts import load_contexts, project_file, user_file
from kafkatop.tui.cli.exits import err
from kafkatop.tui.cli.secret_files import check_properties_file

if TYPE_CHECKING:
    from kafkatop.backends.schemas.registry import ConfluentRegistry


def _files(args: argparse.Namespace) -> list[tuple[Path, dict[str, object]]]:
    """The user's config.toml, then the project's kafkatop.toml (or --config), each read once; a file that is not
    there is skipped (one that cannot be read was already refused by the contexts or the lab spec)."""
    read = []
    project = project_file(args)
    for path in (user_file(), *(() if project is None else (project,))):
        try:
            read.append((path.absolute(), tomllib.loads(path.read_text(encoding="utf-8"))))
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
            raise FormatError(f"{path}: cannot read it ({e})") from None
    return read


def _context(args: argparse.Namespace) -> ClusterContext | None:
    name = getattr(args, "context_name", None)
    return None if name is None else load_contexts(args, quiet=True).get(name)


def registry_settings(args: argparse.Namespace) -> RegistrySettings | None:
    config = getattr(args, "schema_registry_config", None)
    url = getattr(args, "schema_registry", None)
    if url is not None:
        return RegistrySettings(check_url(url, "--schema-registry"), None if config is None else str(Path(config)))
    if config is not None:
        raise FormatError("--schema-registry-config goes with --schema-registry URL (or a [schema-registry] url)")
    context = _context(args)
    if context is not None and context.schema_registry is not None:
        return context.schema_registry
    found = None
    for path, data in _files(args):  # the project's over the user's
        found = parse_registry(data.get("schema-registry"), path) or found
    return found


def cluster_key(args: argparse.Namespace) -> str:
    """Whose topics a remembered format belongs to: the context, the lab, the bootstrap servers, or the demo."""
    if getattr(args, "context_name", None):
        return f"context:{args.context_name}"
    if getattr(args, "bootstrap_server", None):
        return f"bootstrap:{args.bootstrap_server}"
    if getattr(args, "demo", False):
        return "demo"
    return f"lab:{getattr(args, 'name', None) or 'lab'}"


def _layers(args: argparse.Namespace) -> list[tuple[str, dict[str, TopicFormat]]]:
    """Where formats are set, each with its words ("as set in FILE"), the later over the earlier."""
    layers = [(f"as set in {path}", parse_formats(data.get("formats"), path)) for path, data in _files(args)]
    context = _context(args)
    if context is not None:
        layers.append((f"as set in context {context.name} ({context.defined_in})", dict(context.formats)))
    root = state_root(args)
    layers.append((f"as picked in the live view ({root / REMEMBERED})", read_remembered(root, cluster_key(args))))
    return layers


def topic_formats(args: argparse.Namespace) -> dict[str, TopicFormat]:
    return merged(*(layer for _, layer in _layers(args)))


def flagged(args: argparse.Namespace, which: RecordField) -> bool:
    """Whether the command line says how the field reads or writes (--key-format, --key-schema, …)."""
    return any(getattr(args, f"{which}_{flag}", None) is not None for flag in _FLAGS)


_FLAGS = ("format", "schema", "subject", "message_type")


def say_where_from(args: argparse.Namespace, fields: Iterable[RecordField], verb: str) -> None:
    """One line per field of --topic the command uses whose format is not auto and came from a file, the context or
    the live view's picks rather than its flags: a format set elsewhere never changes a command silently."""
    topic = args.topic
    found = [(words, layer[topic]) for words, layer in _layers(args) if topic in layer]
    if not found:
        return
    words, fmt = found[-1]  # a later layer replaces a topic's formats whole
    for which in fields:
        field = fmt.of(which)
        if field.format is not Format.AUTO and not flagged(args, which):
            err(f"{which}s {verb} as {field.described}, {words}; --{which}-format overrides")


def _flag_field(args: argparse.Namespace, which: str, base: FieldFormat) -> FieldFormat:
    name = getattr(args, f"{which}_format", None)
    schema = getattr(args, f"{which}_schema", None)
    subject = getattr(args, f"{which}_subject", None)
    message_type = getattr(args, f"{which}_message_type", None)
    if name is None and schema is None and subject is None and message_type is None:
        return base
    if schema is not None and subject is not None:
        # The writer would take the subject's latest schema and leave the file unread: one of them is a mistake.
        raise FormatError(f"--{which}-schema and --{which}-subject together: give one — --{which}-schema FILE writes "
                          f"with the file (registered as subject TOPIC-{which}), --{which}-subject SUBJECT with that "
                          "subject's latest schema")  # fmt: skip
    fmt = format_named(name) if name is not None else base.format
    if name is None and not fmt.has_schema:
        named = (("schema", schema), ("subject", subject), ("message-type", message_type))
        given = [f"--{which}-{flag}" for flag, value in named if value is not None]
        need = "needs" if len(given) == 1 else "need"
        raise FormatError(f"{' and '.join(given)} {need} --{which}-format avro, protobuf or json-schema")
    schema = str(Path(schema).expanduser().resolve()) if schema is not None else None
    keep = name is None or fmt is base.format  # a flag changes one thing: the rest of the topic's setting stays
    return FieldFormat(
        fmt,
        schema if schema is not None or subject is not None else (base.schema_file if keep else None),
        subject if subject is not None or schema is not None else (base.subject if keep else None),
        message_type if message_type is not None else (base.message_type if keep else None),
    )


def with_flags(args: argparse.Namespace, base: TopicFormat) -> TopicFormat:
    """The topic's formats with --key-format/--value-format (and their schemas) over them."""
    return TopicFormat(_flag_field(args, "key", base.key), _flag_field(args, "value", base.value))


def unreadable(e: KafkatopError) -> str:
    """A registry's failure to answer, as the start of a line: "schema registry URL cannot be read (why)"."""
    return f"{e.source} cannot be read ({e.reason})" if isinstance(e, SourceUnavailable) else str(e)


def say_open_secrets(args: argparse.Namespace) -> None:
    """A registry properties file that holds a secret and others may read: said once (secret_files.py)."""
    settings = registry_settings(args)
    if settings is not None and settings.properties_file is not None:
        check_properties_file(args, settings.properties_file)


def _registry(settings: RegistrySettings | None, stack: ExitStack) -> ConfluentRegistry | None:
    if settings is None:
        return None
    from kafkatop.backends.schemas.registry import ConfluentRegistry

    registry = ConfluentRegistry(settings)
    stack.callback(registry.close)
    return registry


def schema_ports(
    args: argparse.Namespace, stack: ExitStack, check: Iterable[RecordField] = ()
) -> tuple[RecordCodec, SchemaRegistry | None]:
    """The codec every topic's records are read and written by, and the registry (None: none configured). `check`:
    the fields of --topic whose schema is checked now (its file read, its subject asked for), before any connection
    to Kafka: a FormatError says what cannot be used."""
    from kafkatop.backends.schemas.codec import SchemaCodec

    say_open_secrets(args)
    registry = _registry(registry_settings(args), stack)
    formats = topic_formats(args)
    topic = getattr(args, "topic", None)
    if isinstance(topic, str):
        formats[topic] = with_flags(args, formats.get(topic, TopicFormat()))
    root, key = state_root(args), cluster_key(args)

    def keep(name: str, fmt: TopicFormat) -> None:
        remember(root, key, name, fmt)

    codec = SchemaCodec(formats, registry, remember=keep)
    stack.callback(codec.close)
    if isinstance(topic, str):
        for which in check:
            codec.check(formats[topic].of(which), which)
    return codec, registry
