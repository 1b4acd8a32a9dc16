"""ApiVersions (API key 18): what a broker serves, asked first on every connection, in v3 (flexible) with the v0
fallback librdkafka uses; v3+'s tagged fields carry the broker's supported features and the cluster's finalized
feature levels (KIP-584; v4 sends those whose lowest version is 0 too, KIP-1022)."""

from __future__ import annotations

from dataclasses import dataclass, field

from kafkatop.backends.protocol.wire import CLIENT_SOFTWARE, NO_TAGGED_FIELDS, Reader, encode_compact_string


def api_versions_body() -> bytes:
    name, version = CLIENT_SOFTWARE
    return encode_compact_string(name) + encode_compact_string(version) + NO_TAGGED_FIELDS


@dataclass(frozen=True, slots=True)
class ApiVersions:
    correlation_id: int
    error_code: int
    versions: dict[int, tuple[int, int]]  # api key -> (min, max)
    # v3's tagged fields (KIP-584): the features this broker supports, name -> (min, max) version; the cluster's
    # finalized feature levels, name -> (min, max) level, and their epoch (None: not sent)
    supported_features: dict[str, tuple[int, int]] = field(default_factory=dict)
    finalized_features: dict[str, tuple[int, int]] = field(default_factory=dict)
    finalized_features_epoch: int | None = None


def decode_api_versions_v0(payload: bytes) -> ApiVersions:
    """An ApiVersions v0 response: what a broker that cannot read v3 (the librdkafka mock's) still answers."""
    r = Reader(payload)
    correlation_id = r.int32()
    error_code = r.int16()
    versions: dict[int, tuple[int, int]] = {}
    for _ in range(r.array_length()):
        key, lo, hi = r.int16(), r.int16(), r.int16()
        versions[key] = (lo, hi)
    r.end()
    return ApiVersions(correlation_id, error_code, versions)


def decode_api_versions(payload: bytes) -> ApiVersions:
    """An ApiVersions response (after the size). Its header is v0 even for v3: the client cannot know yet."""
    r = Reader(payload)
    correlation_id = r.int32()
    error_code = r.int16()
    versions: dict[int, tuple[int, int]] = {}
    if error_code == 35:
        # UNSUPPORTED_VERSION comes as a v0 body, so an old broker can still say what it supports.
        for _ in range(r.array_length()):
            key, lo, hi = r.int16(), r.int16(), r.int16()
            versions[key] = (lo, hi)
        return ApiVersions(correlation_id, error_code, versions)
    for _ in range(r.compact_array_length()):
        key, lo, hi = r.int16(), r.int16(), r.int16()
        r.skip_tagged_fields()
        versions[key] = (lo, hi)
    r.int32()  # throttle time
    supported: dict[str, tuple[int, int]] = {}
    finalized: dict[str, tuple[int, int]] = {}
    epoch: int | None = None
    for _ in range(r.tagged_field_count()):  # each: tag, size, value
        tag, size = r.uvarint(), r.uvarint()
        if tag == 0:  # SupportedFeatures: name, min version, max version
            for _ in range(r.compact_array_length()):
                name, low, high = r.compact_string(), r.int16(), r.int16()
                r.skip_tagged_fields()
                supported[name] = (low, high)
        elif tag == 1:  # FinalizedFeaturesEpoch
            epoch = r.int64()
        elif tag == 2:  # FinalizedFeatures: name, max version level, min version level
            for _ in range(r.compact_array_length()):
                name, high, low = r.compact_string(), r.int16(), r.int16()
                r.skip_tagged_fields()
                finalized[name] = (low, high)
        else:
            r.take(size)  # ZkMigrationReady, and what later versions add
    r.end()
    return ApiVersions(correlation_id, error_code, versions, supported, finalized, epoch)
