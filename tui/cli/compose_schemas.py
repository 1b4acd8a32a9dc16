"""Records' formats and the Schema Registry, for the composition root and the commands that read or write records
(consume, produce, the live view): the registry from --schema-registry, else the context's, else `[schema-registry]`
of kafkatop.toml, else of the user's config.toml; each topic's formats from `[formats.TOPIC]` there (the user's file,
the project's, the context's), then what was picked in the live view for this cluster, then the command's flags."""

from __future__ import annotations

import argparse
import tomllib
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from kafkatop.backends.model.contexts import ClusterContext
from kafkatop.backends.model.format_config import (
    check_url,
    merged,
    parse_formats,
    parse_registry,
    read_remembered,
    remember,
)
from kafkatop.backends.model.formats import FieldFormat, FormatError, RegistrySettings, TopicFormat, format_named
from kafkatop.backends.ports import RecordCodec, SchemaRegistry
from kafkatop.tui.cli.common import state_root
from kafkatop.tui.cli.contexts import load_contexts, project_file, user_file

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


def topic_formats(args: argparse.Namespace) -> dict[str, TopicFormat]:
    layers = [parse_formats(data.get("formats"), path) for path, data in _files(args)]
    context = _context(args)
    if context is not None:
        layers.append(dict(context.formats))
    layers.append(read_remembered(state_root(args), cluster_key(args)))
    return merged(*layers)


def _flag_field(args: argparse.Namespace, which: str, base: FieldFormat) -> FieldFormat:
    name = getattr(args, f"{which}_format", None)
    schema = getattr(args, f"{which}_schema", None)
    subject = getattr(args, f"{which}_subject", None)
    message_type = getattr(args, f"{which}_message_type", None)
    if name is None and schema is None and subject is None and message_type is None:
        return base
    fmt = format_named(name) if name is not None else base.format
    if name is None and not fmt.has_schema:
        raise FormatError(f"--{which}-schema/--{which}-subject need --{which}-format avro, protobuf or json-schema")
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


def _registry(settings: RegistrySettings | None, stack: ExitStack) -> ConfluentRegistry | None:
    if settings is None:
        return None
    from kafkatop.backends.schemas.registry import ConfluentRegistry

    registry = ConfluentRegistry(settings)
    stack.callback(registry.close)
    return registry


def schema_ports(args: argparse.Namespace, stack: ExitStack) -> tuple[RecordCodec, SchemaRegistry | None]:
    """The codec every topic's records are read and written by, and the registry (None: none configured)."""
    from kafkatop.backends.schemas.codec import SchemaCodec

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
    return codec, registry
