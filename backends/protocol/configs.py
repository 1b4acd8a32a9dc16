"""DescribeConfigs (API key 32, v1–v4), IncrementalAlterConfigs (44, v0–v1) and Metadata (3, v9–v12, brokers only)
on Kafka's wire format (wire.py): request bodies and bounded decoders.

Spoken by kafkatop itself, though confluent-kafka has describe_configs and incremental_alter_configs: its entries
keep their synonyms in a dict by name, so a topic's min.insync.replicas loses all but one of its three synonyms (all
three are named min.insync.replicas), and it refuses the empty resource name that means "every broker" (the
cluster-wide defaults). Schemas: clients/src/main/resources/common/message/*.json in apache/kafka.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from kafkatop.backends.model.configs import ConfigEntry, ConfigResource, ConfigSource, ConfigSynonym, ConfigType
from kafkatop.backends.protocol.wire import (
    NO_TAGGED_FIELDS,
    Api,
    ProtocolError,
    Reader,
    encode_array,
    encode_compact_array,
    encode_compact_string,
    encode_string,
    encode_uvarint,
    error_name,
)

METADATA = Api(3, "Metadata", (9, 12), flexible_from=9)  # the flexible ones (Kafka 2.4+)
# v1: sources and synonyms; v3: types
DESCRIBE_CONFIGS = Api(32, "DescribeConfigs", (1, 4), flexible_from=4)
INCREMENTAL_ALTER_CONFIGS = Api(44, "IncrementalAlterConfigs", (0, 1), flexible_from=1)

# ConfigResource.Type: TOPIC 2, BROKER 4, CLIENT_METRICS 16 (KIP-714, Kafka 3.7+)
_RESOURCE_TYPES = {"topic": 2, "broker": 4, "broker-defaults": 4, "client-metrics": 16}

# DescribeConfigsResponse's ConfigSource codes, by the admin client's names.
_SOURCES = {
    0: ConfigSource.UNKNOWN,
    1: ConfigSource.DYNAMIC_TOPIC_CONFIG,
    2: ConfigSource.DYNAMIC_BROKER_CONFIG,
    3: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
    4: ConfigSource.STATIC_BROKER_CONFIG,
    5: ConfigSource.DEFAULT_CONFIG,
    6: ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG,
    7: ConfigSource.DYNAMIC_CLIENT_METRICS_CONFIG,
    8: ConfigSource.DYNAMIC_GROUP_CONFIG,
}
_TYPES = {
    0: ConfigType.UNKNOWN, 1: ConfigType.BOOLEAN, 2: ConfigType.STRING, 3: ConfigType.INT, 4: ConfigType.SHORT,
    5: ConfigType.LONG, 6: ConfigType.DOUBLE, 7: ConfigType.LIST, 8: ConfigType.CLASS, 9: ConfigType.PASSWORD,
}  # fmt: skip

OP_SET, OP_DELETE = 0, 1  # IncrementalAlterConfigs' ConfigOperation (APPEND 2 and SUBTRACT 3 are not used)


class _Strings:
    """Strings and arrays of one version: compact (flexible versions) or int16/int32-sized."""

    def __init__(self, flexible: bool) -> None:
        self.flexible = flexible

    def string(self, value: str) -> bytes:
        return encode_compact_string(value) if self.flexible else encode_string(value)

    def nullable(self, value: str | None) -> bytes:
        if self.flexible:
            return encode_compact_string(value)
        return struct.pack(">h", -1) if value is None else encode_string(value)

    def array(self, items: list[bytes]) -> bytes:
        return encode_compact_array(items) if self.flexible else encode_array(items)

    def tags(self) -> bytes:
        return NO_TAGGED_FIELDS if self.flexible else b""


class _Read:
    """The reading side of _Strings."""

    def __init__(self, r: Reader, flexible: bool) -> None:
        self.r = r
        self.flexible = flexible

    def string(self) -> str:
        return self.r.compact_string() if self.flexible else self.r.string()

    def nullable(self) -> str | None:
        return self.r.compact_nullable_string() if self.flexible else self.r.nullable_string()

    def array_length(self) -> int:
        return self.r.compact_array_length() if self.flexible else self.r.array_length()

    def tags(self) -> None:
        if self.flexible:
            self.r.skip_tagged_fields()

    def one_resource(self, api: str) -> tuple[int, str | None]:
        """A response's throttle time and its one result's head: (error code, error message); its resource type and
        name are skipped."""
        self.r.int32()  # throttle time
        results = self.array_length()
        if results != 1:
            raise ProtocolError(f"{api} answered with {results} results for one resource")
        code, message = self.r.int16(), self.nullable()
        self.r.int8()  # resource type
        self.string()  # resource name
        return code, message


# --- Metadata: the brokers' addresses -------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class BrokerAddress:
    node_id: int
    host: str
    port: int
    rack: str | None = None


def metadata_brokers_body(version: int) -> bytes:
    """No topics (an empty array, not null: null asks for every topic), no auto-creation, no authorized operations."""
    body = encode_uvarint(1) + b"\x00"  # topics: []; allow_auto_topic_creation: false
    if version <= 10:
        body += b"\x00"  # include_cluster_authorized_operations (v8–v10)
    return body + b"\x00" + NO_TAGGED_FIELDS  # include_topic_authorized_operations


def decode_metadata_brokers(r: Reader, version: int) -> list[BrokerAddress]:
    """The brokers of a Metadata response (v9–v12) asked for no topic."""
    return decode_metadata_cluster(r, version)[1]


def decode_metadata_cluster(r: Reader, version: int) -> tuple[str | None, list[BrokerAddress]]:
    """The cluster id and the brokers of a Metadata response (v9–v12) asked for no topic."""
    r.int32()  # throttle time
    brokers = []
    for _ in range(r.compact_array_length()):
        node_id, host, port, rack = r.int32(), r.compact_string(), r.int32(), r.compact_nullable_string()
        r.skip_tagged_fields()
        brokers.append(BrokerAddress(node_id, host, port, rack))
    cluster_id = r.compact_nullable_string()
    r.int32()  # controller id
    if r.compact_array_length():
        raise ProtocolError("Metadata answered with topics, though none was asked for")
    # What follows (cluster authorized operations up to v10, tagged fields) is not needed, and not read: the
    # librdkafka mock ends its v12 answer with a byte more than Kafka's schema has.
    return cluster_id, brokers


# --- DescribeConfigs --------------------------------------------------------------------------------------------------
def describe_configs_body(resource: ConfigResource, version: int) -> bytes:
    """One resource, every config (keys null), with synonyms; no documentation."""
    s = _Strings(version >= 4)
    keys = encode_uvarint(0) if s.flexible else struct.pack(">i", -1)  # null: every config
    item = struct.pack(">b", _RESOURCE_TYPES[resource.kind]) + s.string(resource.name) + keys + s.tags()
    body = s.array([item]) + b"\x01"  # include_synonyms
    if version >= 3:
        body += b"\x00"  # include_documentation
    return body + s.tags()


@dataclass(frozen=True, slots=True)
class DescribedConfigs:
    error_code: int
    error_message: str | None
    entries: tuple[ConfigEntry, ...]  # as the broker sent them

    @property
    def error(self) -> str | None:
        """Kafka's error name and message, or None."""
        if not self.error_code:
            return None
        name = error_name(self.error_code)
        return f"{name}: {self.error_message}" if self.error_message else name


def decode_describe_configs(r: Reader, version: int) -> DescribedConfigs:
    """The response to one resource's DescribeConfigs (after the header)."""
    rd = _Read(r, version >= 4)
    code, message = rd.one_resource("DescribeConfigs")
    entries = []
    for _ in range(rd.array_length()):
        name, value = rd.string(), rd.nullable()
        read_only, source, sensitive = r.boolean(), r.int8(), r.boolean()
        synonyms = []
        for _ in range(rd.array_length()):
            s_name, s_value, s_source = rd.string(), rd.nullable(), r.int8()
            rd.tags()
            synonyms.append(ConfigSynonym(s_name, s_value, _SOURCES.get(s_source, ConfigSource.UNKNOWN)))
        kind = ConfigType.UNKNOWN
        if version >= 3:
            kind = _TYPES.get(r.int8(), ConfigType.UNKNOWN)
            rd.nullable()  # documentation (not asked for)
        rd.tags()
        # A sensitive value comes as null; should a broker send one anyway, it is dropped here, never kept.
        entries.append(
            ConfigEntry(
                name, None if sensitive else value, _SOURCES.get(source, ConfigSource.UNKNOWN), sensitive, read_only,
                tuple(ConfigSynonym(s.name, None, s.source) for s in synonyms) if sensitive else tuple(synonyms), kind,
            )
        )  # fmt: skip
    rd.tags()  # result
    rd.tags()  # response
    r.end()
    return DescribedConfigs(code, message, tuple(entries))


# --- IncrementalAlterConfigs ------------------------------------------------------------------------------------------
def incremental_alter_configs_body(
    resource: ConfigResource, to_set: dict[str, str], to_delete: tuple[str, ...], validate_only: bool, version: int
) -> bytes:
    s = _Strings(version >= 1)
    ops = [s.string(name) + struct.pack(">b", OP_SET) + s.nullable(value) + s.tags() for name, value in to_set.items()]
    ops += [s.string(name) + struct.pack(">b", OP_DELETE) + s.nullable(None) + s.tags() for name in to_delete]
    item = struct.pack(">b", _RESOURCE_TYPES[resource.kind]) + s.string(resource.name) + s.array(ops) + s.tags()
    return s.array([item]) + (b"\x01" if validate_only else b"\x00") + s.tags()


def decode_incremental_alter_configs(r: Reader, version: int) -> tuple[int, str | None]:
    """(error code, error message) of the one resource altered."""
    rd = _Read(r, version >= 1)
    code, message = rd.one_resource("IncrementalAlterConfigs")
    rd.tags()
    rd.tags()
    r.end()
    return code, message
