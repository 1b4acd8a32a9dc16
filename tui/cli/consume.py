"""`kafkatop consume`: a topic's records from where you say to the end of each partition, then exit — kcat -C -e,
joining no group. Values print as kafka-console-consumer.sh prints them (one per line, `null` for none), or as kcat
prints them: in a --format of its tokens (nothing for none), or as kcat -J's JSON lines: the records' bytes, an
export `kafkatop produce --json` sends back byte for byte (a field is decoded there only when --key-format or
--value-format names it, as kcat -J needs -s)."""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack, closing
from typing import BinaryIO

from kafkatop.backends.insight.record_json import as_json
from kafkatop.backends.insight.seek import parse_time
from kafkatop.backends.kafka.records.browser import MessageBrowser
from kafkatop.backends.model.formats import RecordField
from kafkatop.backends.model.messages import BEGINNING, BrowsedRecord, Seek
from kafkatop.tui.cli.common import connection
from kafkatop.tui.cli.compose_schemas import flagged, say_where_from, schema_ports
from kafkatop.tui.cli.consume_formats import RecordDecoding
from kafkatop.tui.cli.exits import DONE, FAILED, UsageError, err
from kafkatop.tui.cli.terminal import escaped_bytes, escaped_json, escapes

# kcat's -f tokens, and two of its own: %v (the value, as %s) and %e (the leader epoch).
FORMAT_TOKENS = {
    "t": "topic", "p": "partition", "o": "offset", "k": "key", "s": "value", "v": "value", "K": "key length",
    "S": "value length", "T": "timestamp (ms)", "h": "headers (name=value,…)", "e": "leader epoch", "%": "a %",
}  # fmt: skip
_TOKEN = re.compile(r"%(.)|\\(.)", re.DOTALL)
_ESCAPES = {"n": b"\n", "t": b"\t", "r": b"\r", "\\": b"\\", "0": b"\0"}


def compile_format(fmt: str) -> list[str | bytes]:
    """The format as literal bytes and token letters; an unknown token is bad input naming the ones there are."""
    parts: list[str | bytes] = []
    at = 0
    for m in _TOKEN.finditer(fmt):
        parts.append(fmt[at : m.start()].encode())
        at = m.end()
        token, escape = m.group(1), m.group(2)
        if token is not None:
            if token not in FORMAT_TOKENS:
                known = ", ".join(f"%{t} {what}" for t, what in FORMAT_TOKENS.items())
                raise UsageError(f"--format: no token %{token}; there are {known}")
            parts.append(b"%" if token == "%" else token)
        else:
            parts.append(_ESCAPES.get(escape, b"\\" + escape.encode()))
    parts.append(fmt[at:].encode())
    if not fmt.endswith(("\n", "\\n")):
        parts.append(b"\n")  # one record per line unless the format says otherwise
    return [p for p in parts if p]


def render(
    parts: list[str | bytes], r: BrowsedRecord, null: bytes = b"", shown: Callable[[bytes], bytes] = bytes
) -> bytes:
    """The record in the format; a missing key or value as `null`: nothing, as kcat's -f prints it (the default
    output passes b"null", as kafka-console-consumer.sh prints it). `shown`: what is done to the record's own bytes
    (its key, value, headers) — at a terminal, escaped; the format's own text is written as it is."""
    out = bytearray()
    for part in parts:
        if isinstance(part, bytes):
            out += part
        elif part in "sv":
            out += null if r.value is None else shown(r.value)
        elif part == "k":
            out += null if r.key is None else shown(r.key)
        else:
            out += shown(str(_field(part, r)).encode())
    return bytes(out)


def _field(token: str, r: BrowsedRecord) -> object:
    if token == "h":
        return ",".join(f"{name}={(value or b'').decode('utf-8', 'replace')}" for name, value in r.headers)
    return {
        "t": r.topic, "p": r.partition, "o": r.offset, "K": len(r.key) if r.key is not None else -1,
        "S": len(r.value) if r.value is not None else -1, "T": r.timestamp_ms if r.timestamp_ms is not None else -1,
        "e": r.leader_epoch if r.leader_epoch is not None else -1,
    }[token]  # fmt: skip


def _seek(args: argparse.Namespace) -> Seek:
    given = [name for name, v in (("--offset", args.offset), ("--timestamp", args.timestamp),
                                  ("--from-beginning", args.from_beginning or None)) if v is not None]  # fmt: skip
    if len(given) > 1:
        raise UsageError(f"{' and '.join(given)} together: give one place to start")
    if args.offset is not None:
        return Seek.offset(args.offset)
    if args.timestamp is not None:
        try:
            return Seek.timestamp(parse_time(args.timestamp, time.time()))
        except ValueError as e:
            raise UsageError(f"--timestamp {e}") from None
    return BEGINNING  # as kcat: a read that ends at the end starts at the beginning


def decoded_fields(args: argparse.Namespace) -> frozenset[RecordField]:
    """The fields read in their formats: both; with --json (an export, byte for byte) those its flags name only."""
    fields: tuple[RecordField, ...] = ("key", "value")
    return frozenset(which for which in fields if not args.json or flagged(args, which))


def cmd_consume(args: argparse.Namespace) -> int:
    seek = _seek(args)
    if args.json and args.format is not None:
        raise UsageError("--json and --format together: give one")
    parts = compile_format(args.format if args.format is not None else "%v")
    null = b"" if args.format is not None else b"null"
    out: BinaryIO = sys.stdout.buffer

    with ExitStack() as stack:
        fields = decoded_fields(args)
        codec, registry = schema_ports(args, stack, fields)  # a schema that cannot be used: refused before reading
        say_where_from(args, sorted(fields), "read")
        decoding = RecordDecoding(codec, args.topic, registry, fields, exact=args.json)

        # At a terminal the records' control characters are escaped, each record on its line (as `ls` shows names);
        # to a pipe or a file their bytes are written as they are (as kcat writes them).
        at_terminal = escapes(sys.stdout)
        shown = escaped_bytes if at_terminal else bytes

        def write(record: BrowsedRecord) -> None:
            if args.json:
                line = decoding.json_line(record, as_json)
                out.write(escaped_json(line) if at_terminal else line)
            else:
                out.write(render(parts, decoding.as_text(record), null, shown))

        mask = getattr(args, "context_mask", None)  # a context's: records masked as they are read
        if mask is not None and mask.active:
            err(f"context {args.context_name!r}: {mask.describe()}")
        browser = stack.enter_context(closing(MessageBrowser(connection(args), timeout_s=args.timeout, mask=mask)))
        try:
            partitions = None if args.partition is None else [args.partition]
            count = browser.read(args.topic, partitions, seek, write, args.isolation_level, args.max_messages)
            out.flush()
        except BrokenPipeError:
            # The reader left (| head): nothing more to say to it, nor at exit, when Python flushes stdout again.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return DONE
    undecoded = f"; {decoding.failed} could not be decoded and printed as bytes" if decoding.failed else ""
    err(f"{count} record{'s' if count != 1 else ''} read{undecoded}")  # stderr, as kafka-console-consumer.sh's count
    return FAILED if decoding.failed else DONE
