"""`kafkatop produce`: records from stdin or --file, one per line, as kafka-console-producer.sh and kcat -P take them
(keys, headers, the null marker), or as `kafkatop consume --json` printed them (an import: key, value, headers,
timestamp and partition kept, bytes for bytes). Records are sent as they are read; at the end every delivery is
waited for, and counted on stderr.

A bad line: in a --file (one that can be read twice), the whole file is read first, so a bad line sends nothing; from
stdin the lines before it are sent (and delivered) and nothing after it."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import BinaryIO

from kafkatop.backends.insight.produce_input import Encoders, LineReader, chomp, encoded, json_record, parse_header
from kafkatop.backends.kafka.produce import RecordProducer, producer_properties
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.formats import Format, RecordField, TopicFormat
from kafkatop.backends.model.produce import BadLine, Produced, ProducerRecord
from kafkatop.backends.ports import RecordCodec
from kafkatop.tui.cli.common import connection
from kafkatop.tui.cli.compose_schemas import registry_settings, schema_ports, topic_formats, with_flags
from kafkatop.tui.cli.exits import DONE, FAILED, INTERRUPTED, UsageError, err

Read = Callable[[bytes, int], ProducerRecord | None]


def _check_options(args: argparse.Namespace) -> None:
    if args.json and (args.property or args.key_delimiter is not None):
        raise UsageError("--json reads JSON lines: --property and --key-delimiter are for plain lines")
    if args.repartition and not args.json:
        raise UsageError("--repartition goes with --json (plain lines have no partition of their own)")
    if args.repartition and args.partition is not None:
        raise UsageError("--repartition and --partition together: give one")


def _reader(args: argparse.Namespace) -> Read:
    """A line (its end chomped) as a record, or None for one to skip (a blank JSON line)."""
    if not args.json:
        return LineReader.of(args.property or (), args.key_delimiter, args.header or ()).record
    headers = tuple(parse_header(h) for h in args.header or ())
    if not headers:
        return json_record

    def read(line: bytes, number: int) -> ProducerRecord | None:
        record = json_record(line, number)
        return None if record is None else dataclasses.replace(record, headers=(*headers, *record.headers))

    return read


def encoders_of(codec: RecordCodec | None, topic: str) -> Encoders:
    """The fields a format writes: string and auto send the bytes read, as they are."""
    if codec is None:
        return {}
    fmt = codec.format_of(topic)

    def encoder(which: RecordField) -> Callable[[str], bytes]:
        return lambda text: codec.encode(topic, which, text)

    fields: tuple[RecordField, ...] = ("key", "value")
    return {which: encoder(which) for which in fields if fmt.of(which).format not in (Format.AUTO, Format.STRING)}


def records(
    stream: BinaryIO, read: Read, encoders: Encoders, place: Callable[[ProducerRecord, int], ProducerRecord]
) -> Iterator[tuple[int, ProducerRecord]]:
    """Each line's record, numbered from 1, read as it is needed: a stream of any length takes a line's memory."""
    for number, raw in enumerate(stream, start=1):
        record = read(chomp(raw), number)
        if record is not None:
            yield number, place(encoded(record, encoders, number) if encoders else record, number)


def _placer(args: argparse.Namespace, count: int) -> Callable[[ProducerRecord, int], ProducerRecord]:
    """Where each record goes: --partition, else a JSON record's own partition (checked against the topic's), else
    the partitioner (--repartition, and plain lines)."""
    if args.partition is not None or args.repartition:
        partition = args.partition

        def put(record: ProducerRecord, number: int) -> ProducerRecord:
            return record if record.partition == partition else dataclasses.replace(record, partition=partition)

        return put

    def check(record: ProducerRecord, number: int) -> ProducerRecord:
        if record.partition is not None and record.partition >= count:
            raise BadLine(number, f"partition {record.partition} does not exist: topic '{args.topic}' has {count} "
                          f"partition{'s' if count != 1 else ''}; give --repartition to let the partitioner place "
                          "the records by key, or --partition P")  # fmt: skip
        return record

    return check


def _input(args: argparse.Namespace, stack: ExitStack) -> BinaryIO:
    if args.file is None:
        if sys.stdin.isatty():
            err("reading records from the terminal, one per line; Ctrl-D ends")
        return sys.stdin.buffer
    try:
        return stack.enter_context(open(args.file, "rb"))  # noqa: SIM115 — closed by the stack
    except OSError as e:
        raise UsageError(f"--file {args.file}: cannot read it ({e.strerror or e})") from None


def _said(produced: Produced) -> None:
    for reason, count in produced.reasons:
        err(f"{count} record{'s' if count != 1 else ''} failed: {reason}")


def cmd_produce(args: argparse.Namespace) -> int:
    with ExitStack() as stack:
        # A format or schema that cannot be used is refused before sending; with none to write in, the codec (and
        # the serializers' libraries, a second and more to import) is left out: the bytes read go as they are.
        registry_settings(args)
        fmt = with_flags(args, topic_formats(args).get(args.topic, TopicFormat()))
        plain = all(fmt.of(which).format in (Format.AUTO, Format.STRING) for which in ("key", "value"))
        return produce(args, None if plain else schema_ports(args, stack)[0])


def produce(args: argparse.Namespace, codec: RecordCodec | None = None) -> int:
    """`codec`: the topic's formats (None: the bytes read go as they are)."""
    _check_options(args)
    read = _reader(args)
    properties = producer_properties(args.producer_property or [])
    with ExitStack() as stack:
        stream = _input(args, stack)
        acks = "all" if args.acks == "-1" else args.acks
        producer = RecordProducer(
            connection(args), acks=acks, compression=args.compression, properties=properties, timeout_s=args.timeout
        )
        stack.callback(producer.close)
        count = producer.partitions(args.topic, args.partition)
        place, encoders = _placer(args, count), encoders_of(codec, args.topic)
        if args.file is not None and stream.seekable():
            try:
                for _ in records(stream, read, encoders, place):
                    pass
            except BadLine:
                err("nothing was sent: --file is read whole before anything is sent")
                raise
            stream.seek(0)
        number = 0
        try:
            for number, record in records(stream, read, encoders, place):  # noqa: B007 — said if a send fails
                producer.send(args.topic, record)
        except KeyboardInterrupt:
            produced = producer.finish()
            err(f"interrupted: {produced.summary()} (what was read before Ctrl-C was sent, and waited for)")
            _said(produced)
            return INTERRUPTED
        except BadLine as e:
            produced = producer.finish()
            err(f"{produced.summary()}; stopped at line {e.number}: nothing after it was sent")
            _said(produced)
            raise
        except KafkatopError:  # a refusal or a full queue that did not drain: what was sent, then why it stopped
            produced = producer.finish()
            err(f"{produced.summary()}; stopped at line {number}: nothing from it on was sent")
            _said(produced)
            raise
        produced = producer.finish()
        err(produced.summary())  # stderr, as kafka-console-consumer.sh's count
        _said(produced)
        refused = producer.refused(args.topic)
        if refused is not None:
            raise refused
        return FAILED if produced.failed else DONE
