"""`kafkatop produce`: records from stdin or --file, one per line, as kafka-console-producer.sh and kcat -P take them
(keys, headers, the null marker), or as `kafkatop consume --json` printed them (an import: key, value, headers,
timestamp and partition kept, bytes for bytes). Records are sent as they are read; at the end every delivery is
waited for, and counted on stderr.

A bad line: in a --file (one that can be read twice), the whole file is read first, so a bad line sends nothing; from
stdin the lines before it are sent (and delivered) and nothing after it.

--json is an import: a field goes as its bytes unless the command's own --key-format/--value-format names it (the
formats set in kafkatop.toml or picked in the live view are for lines of text), and a decoded field (an object or
array, from `consume --json --value-format …` or kcat -J -s) without one is refused: sent as text it would not be
the record it was. The schemas a record is written with are checked, and the registry asked, before any record."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import BinaryIO

from kafkatop.backends.insight.produce_input import Encoders, LineReader, chomp, encoded, json_record, parse_header
from kafkatop.backends.kafka.records.bulk_producer import (
    MissingTopic,
    NotProducible,
    RecordProducer,
    producer_properties,
)
from kafkatop.backends.model.errors import BadInput, KafkatopError
from kafkatop.backends.model.formats import Format, RecordField, TopicFormat
from kafkatop.backends.model.produce import BadLine, Produced, ProducerRecord
from kafkatop.backends.ports import RecordCodec, SchemaRegistry
from kafkatop.tui.cli.common import connection
from kafkatop.tui.cli.compose_schemas import (
    flagged,
    registry_settings,
    say_open_secrets,
    say_where_from,
    schema_ports,
    topic_formats,
    unreadable,
    with_flags,
)
from kafkatop.tui.cli.exits import DONE, FAILED, INTERRUPTED, UsageError, err
from kafkatop.tui.cli.grant_lines import acl_flags
from kafkatop.tui.cli.produce_topic import created, not_created

Read = Callable[[bytes, int], ProducerRecord | None]


def _check_options(args: argparse.Namespace) -> None:
    if args.json and (args.property or args.key_delimiter is not None):
        raise UsageError("--json reads JSON lines: --property and --key-delimiter are for plain lines")
    if args.repartition and not args.json:
        raise UsageError("--repartition goes with --json (plain lines have no partition of their own)")
    if args.repartition and args.partition is not None:
        raise UsageError("--repartition and --partition together: give one")


def _reader(args: argparse.Namespace, encodes: frozenset[RecordField] = frozenset()) -> Read:
    """A line (its end chomped) as a record, or None for one to skip (a blank JSON line). `encodes`: the fields a
    format writes (a JSON line's decoded field is refused in the others)."""
    if not args.json:
        return LineReader.of(args.property or (), args.key_delimiter, args.header or ()).record
    headers = tuple(parse_header(h) for h in args.header or ())

    def read(line: bytes, number: int) -> ProducerRecord | None:
        record = json_record(line, number, encodes)
        if record is None or not headers:
            return record
        return dataclasses.replace(record, headers=(*headers, *record.headers))

    return read


_BOTH: tuple[RecordField, ...] = ("key", "value")
_TEXT = (Format.AUTO, Format.STRING)  # the line's bytes, sent as they are


def written_fields(args: argparse.Namespace) -> tuple[RecordField, ...]:
    """The fields written in their formats: both; with --json (an import, byte for byte) those its flags name."""
    return tuple(which for which in _BOTH if not args.json or flagged(args, which))


def encoders_of(codec: RecordCodec | None, topic: str, fields: tuple[RecordField, ...] = _BOTH) -> Encoders:
    """The `fields` a format writes: string and auto send the bytes read, as they are."""
    if codec is None:
        return {}
    fmt = codec.format_of(topic)

    def encoder(which: RecordField) -> Callable[[str], bytes]:
        return lambda text: codec.encode(topic, which, text)

    return {which: encoder(which) for which in fields if fmt.of(which).format not in _TEXT}


@dataclasses.dataclass(slots=True)
class Progress:
    """The number of the line read last: where a failure met while encoding it (the registry's) stopped the run."""

    line: int = 0


def records(
    stream: BinaryIO,
    read: Read,
    encoders: Encoders,
    place: Callable[[ProducerRecord, int], ProducerRecord],
    progress: Progress | None = None,
) -> Iterator[tuple[int, ProducerRecord]]:
    """Each line's record, numbered from 1, read as it is needed: a stream of any length takes a line's memory."""
    for number, raw in enumerate(stream, start=1):
        if progress is not None:
            progress.line = number
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


_SUBJECT_FORMATS = {"AVRO": "avro", "PROTOBUF": "protobuf", "JSON": "json-schema"}


def ask_registry(args: argparse.Namespace, fmt: TopicFormat, encodes: frozenset[RecordField],
                 registry: SchemaRegistry) -> None:  # fmt: skip
    """Before any record: a field written through the registry needs it to answer (else nothing is sent, said
    once, not as the first line's failure); a field sent as text (auto) whose topic has a subject for it is said,
    with the format that would encode it. One request per field."""
    down: KafkatopError | None = None
    for which in _BOTH:
        field = fmt.of(which)
        through = which in encodes and field.format.has_schema
        if not through and (args.json or field.format is not Format.AUTO or down is not None):
            continue  # --json sends bytes, string was asked for: no subject changes that; text needs no registry
        subject = field.subject or f"{args.topic}-{which}"
        try:
            if down is not None:
                raise down
            latest = registry.schema(subject)
        except BadInput:
            continue  # the registry answered: no such subject
        except KafkatopError as e:
            if not through:
                down = e
                continue
            raise KafkatopError(f"{unreadable(e)}: the {which}s are written through it as {field.described}, so "
                                "nothing was sent; check that the registry runs at that URL") from None  # fmt: skip
        if not through:
            name = _SUBJECT_FORMATS.get(latest.schema_type, "avro")
            err(f"the registry has subject {subject}, and {which}s are sent as text (auto): give --{which}-format "
                f"{name} to encode them")  # fmt: skip


def cmd_produce(args: argparse.Namespace) -> int:
    _check_options(args)
    with ExitStack() as stack:
        # A format or schema that cannot be used is refused before sending; with no registry and nothing to write
        # in, the codec (and the serializers' libraries, a second and more to import) is left out: the bytes read go
        # as they are.
        fields = written_fields(args)
        fmt = with_flags(args, topic_formats(args).get(args.topic, TopicFormat()))
        encodes = frozenset(which for which in fields if fmt.of(which).format not in _TEXT)
        say_open_secrets(args)
        say_where_from(args, fields, "written")
        if not encodes and registry_settings(args) is None:
            return produce(args)
        codec, registry = schema_ports(args, stack, encodes)
        if registry is not None:
            ask_registry(args, fmt, encodes, registry)
        return produce(args, codec, fields)


def produce(args: argparse.Namespace, codec: RecordCodec | None = None, fields: tuple[RecordField, ...] = _BOTH) -> int:
    """`codec`: the topic's formats (None: the bytes read go as they are), for its `fields`."""
    _check_options(args)
    encoders = encoders_of(codec, args.topic, fields)
    read = _reader(args, frozenset(encoders))
    properties = producer_properties(args.producer_property or [])
    with ExitStack() as stack:
        stream = _input(args, stack)
        acks = "all" if args.acks == "-1" else args.acks
        producer = RecordProducer(
            connection(args), acks=acks, compression=args.compression, properties=properties, timeout_s=args.timeout
        )
        stack.callback(producer.close)
        count = _partitions(args, producer)
        place = _placer(args, count)
        if args.file is not None and stream.seekable():
            try:
                for _ in records(stream, read, encoders, place):
                    pass
            except BadLine:
                err("nothing was sent: --file is read whole before anything is sent")
                raise
            stream.seek(0)
        progress = Progress()
        try:
            for _, record in records(stream, read, encoders, place, progress):
                producer.send(args.topic, record)
            produced = producer.finish()
        except KeyboardInterrupt:  # in a read, a send or the last wait: what was read is waited for once
            return _interrupted(producer)
        except BadLine as e:
            produced = producer.finish()
            err(f"{produced.summary()}; stopped at line {e.number}: nothing after it was sent")
            _said(produced)
            raise
        except KafkatopError:  # a refusal, a full queue that did not drain, the registry: what was sent, then why
            produced = producer.finish()
            err(f"{produced.summary()}; stopped at line {progress.line}: nothing from it on was sent")
            _said(produced)
            raise
        err(produced.summary())  # stderr, as kafka-console-consumer.sh's count
        _said(produced)
        _too_large(args, produced)
        refused = producer.refused(args.topic)
        if refused is not None:
            raise refused
        return FAILED if produced.failed else DONE


def _partitions(args: argparse.Namespace, producer: RecordProducer) -> int:
    """The topic's partition count. A topic the cluster does not have is asked for as kafka-console-producer.sh asks
    for it: the brokers create it when auto.create.topics.enable=true (said, and the records go), else refused."""
    try:
        return producer.partitions(args.topic, args.partition)
    except MissingTopic:
        pass
    from kafkatop.backends.kafka.records.first_use import first_use

    used = first_use(producer.connection, args.topic, args.timeout)
    if not used.created:
        raise NotProducible(not_created(args, used))
    err(created(used))
    return producer.partitions(args.topic, args.partition)


def _interrupted(producer: RecordProducer) -> int:
    """Ctrl-C: what was sent is waited for (up to --timeout), unless Ctrl-C comes again; then what was delivered."""
    try:
        produced = producer.finish()
        err(f"interrupted: {produced.summary()} (what was read before Ctrl-C was sent, and waited for)")
    except KeyboardInterrupt:
        produced = producer.produced
        err(f"interrupted: {produced.summary()}; {producer.unanswered} sent and not waited for (Ctrl-C again)")
    _said(produced)
    return INTERRUPTED


def _too_large(args: argparse.Namespace, produced: Produced) -> None:
    """Records the broker refused as over the topic's max.message.bytes: the limit, and how to raise it."""
    if not any(reason.startswith("MSG_SIZE_TOO_LARGE") for reason, _ in produced.reasons):
        return
    from kafkatop.backends.kafka.cluster.configs import ConfigAdmin
    from kafkatop.backends.model.configs import ConfigResource

    try:
        configs = ConfigAdmin(connection(args), min(args.timeout, 10.0)).describe(ConfigResource.topic(args.topic))
    except KafkatopError:
        configs = None  # the advice stands without the figure
    limit = None if configs is None else configs.entry("max.message.bytes")
    said = f" ({limit.value} bytes)" if limit is not None and limit.value else ""
    line = " ".join(("kafkatop", "configs", "--topic", args.topic, "--alter", "max.message.bytes=N", *acl_flags(args)))
    err(f"a record over the topic's max.message.bytes{said} is refused by the broker: raise it with `{line}`, or "
        "send smaller records")  # fmt: skip
