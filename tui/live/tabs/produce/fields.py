"""What the producer console's key, headers and format fields mean: the headers typed (`name=value,…`), the topic's
formats said in a few words, and typed lines made records — split at the key separator, encoded in the topic's
formats by the RecordCodec port (in the sending worker: a registry may be asked) and sent as bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kafkatop.backends.model.consoles import ClientError, escape_payload, split_key
from kafkatop.backends.model.formats import (
    FieldFormat,
    Format,
    FormatError,
    RecordField,
    RegisteredSchema,
    SchemaType,
    TopicFormat,
)
from kafkatop.backends.ports import Consoles, RecordCodec

Header = tuple[str, bytes]

# Formats whose bytes are the line's UTF-8, as before formats: the console encodes them itself.
PLAIN = (Format.AUTO, Format.STRING)
REGISTERED: dict[SchemaType, str] = {"AVRO": "avro", "PROTOBUF": "protobuf", "JSON": "json-schema"}  # F's names


def parse_headers(text: str) -> tuple[Header, ...]:
    """`name=value,name2=value2` as Kafka headers: a value runs to the next comma and may hold '='; a name may not be
    empty (spaces round it dropped); a name may come twice, as Kafka allows. KafkatopError says which one is wrong."""
    headers: list[Header] = []
    for item in text.split(","):
        if not item.strip():
            continue  # "a=1," or "a=1,,b=2": nothing between the commas
        name, sep, value = item.partition("=")
        if not sep:
            raise ClientError(f"headers: {item.strip()!r} has no '=': write name=value, several separated by commas")
        if not name.strip():
            raise ClientError(f"headers: {item.strip()!r} has no name before its '=' (write name=value)")
        headers.append((name.strip(), value.encode("utf-8")))
    return tuple(headers)


def _plain(fmt: FieldFormat) -> bool:
    return fmt.format in PLAIN


def format_said(fmt: TopicFormat | None, registered: RegisteredSchema | None = None) -> str:
    """The topic's formats for the console's line: 'value: avro (orders.avsc)', then the key's when it has one of its
    own (what is cut first where the line is narrow); 'value: text' when lines go as they are typed (no codec, or
    auto) — with, for auto, the topic's value subject in the registry (`registered`) and the key that uses it."""
    if fmt is None:
        return "value: text"
    value = "value: text" if fmt.value.format is Format.AUTO else f"value: {fmt.value.described}"
    if fmt.value.format is Format.AUTO and registered is not None:
        # Its format first: where the row is narrow (80 columns), what is cut is the subject and the key to press.
        value += f" · registry has {REGISTERED[registered.schema_type]} ({registered.subject}): F in Messages sets it"
    return value if _plain(fmt.key) else f"{value} · key: {fmt.key.described}"


def value_subject(topic: str) -> str:
    """The subject a topic's values are registered under by the serializers' default (TopicNameStrategy)."""
    return f"{topic}-value"


def line_placeholder(fmt: TopicFormat | None) -> str:
    """What the message field asks for: a line as typed, or JSON for a structured format, hex or base64."""
    value = Format.AUTO if fmt is None else fmt.value.format
    said = "a message"
    if value.has_schema or value is Format.JSON:
        said = "a JSON value"
    elif value not in PLAIN:
        said = f"a value in {value.value}"  # hex, base64
    return f"{said}; Enter sends it (paste several lines to send them all)"


@dataclass(frozen=True, slots=True)
class Typed:
    """A record as typed (its key and value), shown in its delivery line instead of the bytes the codec made."""

    key: str | None
    value: str


@dataclass(frozen=True, slots=True)
class LinesSent:
    """What a send of lines queued: each record's sequence number, its typed text when a codec encoded it, and why
    the lines after them were not queued (a refusal once some were)."""

    seqs: tuple[int, ...]
    typed: tuple[Typed | None, ...]
    failed: str | None = None


@dataclass(frozen=True, slots=True)
class _Record:
    key: bytes | None
    value: bytes
    typed: Typed | None


def _encode(codec: RecordCodec | None, topic: str, which: RecordField, fmt: FieldFormat, text: str) -> bytes:
    if codec is None or _plain(fmt):
        return text.encode("utf-8")
    try:
        return codec.encode(topic, which, text)
    except FormatError as e:
        raise FormatError(f"{which}: {e}") from None  # the codec's words say the schema and the field


def _typed(key: str | None, value: str) -> Typed:
    return Typed(None if key is None else escape_payload(key.encode()), escape_payload(value.encode()))


def encode_lines(
    codec: RecordCodec | None, topic: str, lines: Sequence[str], key: str | None, separator: str | None
) -> list[_Record]:
    """Every line as a record in the topic's formats, before any is sent: a line that does not fit (FormatError, its
    number said when there are several) sends none. A line's own key (at the separator), else `key` (the key field's,
    encoded once: its refusal is the field's, not a line's)."""
    fmt = codec.format_of(topic) if codec is not None else TopicFormat()
    coded = not (_plain(fmt.key) and _plain(fmt.value))
    field_key = None if key is None else _encode(codec, topic, "key", fmt.key, key)
    records: list[_Record] = []
    for number, line in enumerate(lines, start=1):
        where = number if len(lines) > 1 else None
        line_key, value = split_key(line, separator, where)
        try:
            key_bytes = field_key if line_key is None else _encode(codec, topic, "key", fmt.key, line_key)
            value_bytes = _encode(codec, topic, "value", fmt.value, value)
        except FormatError as e:
            raise FormatError(f"line {where}: {e}" if where is not None else str(e)) from None
        typed_key = key if line_key is None else line_key
        records.append(_Record(key_bytes, value_bytes, _typed(typed_key, value) if coded else None))
    return records


def send_lines(
    consoles: Consoles,
    codec: RecordCodec | None,
    topic: str,
    lines: Sequence[str],
    key: str | None,
    separator: str | None,
    headers: Sequence[Header],
) -> LinesSent:
    """Encode the lines (see encode_lines), then queue them in order with the headers. Run in a worker: a codec may ask
    its registry. A refusal before any was queued is raised; after some, it is what they were sent with."""
    records = encode_lines(codec, topic, lines, key, separator)
    seqs: list[int] = []
    for record in records:
        try:
            seqs.append(consoles.send_record(topic, record.key, record.value, headers))
        except ClientError as e:
            if not seqs:
                raise  # as it is: a missing topic, the authorizer's refusal
            failed = f"{e} ({len(seqs)} of {len(records)} lines were queued before)"
            return LinesSent(tuple(seqs), tuple(r.typed for r in records[: len(seqs)]), failed)
    return LinesSent(tuple(seqs), tuple(r.typed for r in records))
