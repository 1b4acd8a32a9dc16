"""UpdateFeatures (API key 57), v1–v2 (flexible; Kafka 3.0+ with KIP-778's upgrade types): what `kafka-features.sh
upgrade|downgrade|disable --feature NAME=LEVEL` sends. Any broker takes it and forwards it to the active controller.

Schemas: clients/src/main/resources/common/message/UpdateFeatures{Request,Response}.json in apache/kafka. Decoders
are bounded: truncated or foreign bytes raise ProtocolError.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kafkatop.backends.protocol.wire import (
    NO_TAGGED_FIELDS,
    Api,
    encode_compact_array,
    encode_compact_string,
    int16,
    int32,
    response_reader,
)

UPDATE_FEATURES = Api(57, "UpdateFeatures", (1, 2))  # v0 has AllowDowngrade, not the upgrade type
UPGRADE = 1  # kafka-features.sh upgrade: a higher level only
SAFE_DOWNGRADE = 2  # kafka-features.sh downgrade/disable: a lower level, refused where it would lose metadata


@dataclass(frozen=True, slots=True)
class FeatureUpdate:
    name: str
    level: int  # 0: disable the feature (kafka-features.sh disable)
    upgrade_type: int  # UPGRADE or SAFE_DOWNGRADE


@dataclass(frozen=True, slots=True)
class UpdateFeaturesAnswer:
    error_code: int
    error_message: str | None
    results: tuple[tuple[str, int, str | None], ...]  # v1: (feature, error code, message) each; v2 sends none


def request_body(updates: tuple[FeatureUpdate, ...], timeout_ms: int, validate_only: bool = False) -> bytes:
    """The same body in v1 and v2: only the response differs."""
    items = [
        encode_compact_string(u.name) + int16(u.level) + bytes([u.upgrade_type]) + NO_TAGGED_FIELDS for u in updates
    ]
    return int32(timeout_ms) + encode_compact_array(items) + bytes([1 if validate_only else 0]) + NO_TAGGED_FIELDS


def decode_response(payload: bytes, version: int) -> UpdateFeaturesAnswer:
    r = response_reader(payload)
    r.int32()  # throttle time
    error_code, message = r.int16(), r.compact_nullable_string()
    results: list[tuple[str, int, str | None]] = []
    if version < 2:
        for _ in range(r.compact_array_length()):
            results.append((r.compact_string(), r.int16(), r.compact_nullable_string()))
            r.skip_tagged_fields()
    r.skip_tagged_fields()
    r.end()
    return UpdateFeaturesAnswer(error_code, message, tuple(results))


def updates_for(wanted: Mapping[str, int], finalized: Mapping[str, int]) -> tuple[FeatureUpdate, ...]:
    """The updates that take `finalized` levels to `wanted` ones: an upgrade up, a safe downgrade down, none where
    they are equal."""
    return tuple(
        FeatureUpdate(name, level, UPGRADE if level > finalized.get(name, 0) else SAFE_DOWNGRADE)
        for name, level in sorted(wanted.items())
        if level != finalized.get(name, 0)
    )
