"""The cluster's feature levels, as `kafka-features.sh describe` reads them: ApiVersions v4 from a broker (v3 leaves
out every feature whose lowest version is 0, KIP-1022), its supported features and the finalized levels; and a change
of them, as `kafka-features.sh upgrade|downgrade` makes it (UpdateFeatures)."""

from __future__ import annotations

import time
from collections.abc import Mapping

from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.features import Feature, FeatureLevels
from kafkatop.backends.protocol.api_versions import ApiVersions, api_versions_body, decode_api_versions
from kafkatop.backends.protocol.connection import (
    BrokerConnection,
    Unsupported,
    on_any_broker,
    require_supported,
)
from kafkatop.backends.protocol.update_features import (
    UPDATE_FEATURES,
    FeatureUpdate,
    decode_response,
    request_body,
    updates_for,
)
from kafkatop.backends.protocol.wire import (
    API_VERSIONS,
    error_name,
)

FEATURES_VERSION = 4  # Kafka 3.9+: features whose lowest version is 0 are sent too


def describe_features(connection: KafkaConnection, timeout_s: float) -> FeatureLevels:
    """From the first bootstrap server that answers; SourceUnavailable when none does, Unsupported when the cluster
    has no features to say (before Kafka 2.7, the librdkafka mock)."""
    require_supported(connection, "ApiVersions", "kafka-features.sh describe")
    return on_any_broker(connection, timeout_s, "ApiVersions", features_of)


def features_of(conn: BrokerConnection) -> FeatureLevels:
    """The feature levels the broker at the other end of `conn` says; Unsupported when it says none."""
    answer = conn.api_versions()
    if answer.versions.get(API_VERSIONS, (0, 0))[1] >= FEATURES_VERSION:
        answer = decode_api_versions(conn.request(API_VERSIONS, FEATURES_VERSION, api_versions_body()))
    return levels_of(conn.address, answer)


def levels_of(address: str, answer: ApiVersions) -> FeatureLevels:
    if not answer.supported_features:
        raise Unsupported(f"{address} reports no features (Kafka 2.7+ does; the librdkafka mock does not)")
    features = tuple(
        Feature(name, low, high, answer.finalized_features.get(name, (0, 0))[1])
        for name, (low, high) in sorted(answer.supported_features.items())
    )
    return FeatureLevels(address, features, answer.finalized_features_epoch)


class FeaturesRefused(KafkatopError):
    """The controller refused a change of feature levels; the message is Kafka's."""


def update_features(
    connection: KafkaConnection, wanted: Mapping[str, int], timeout_s: float
) -> tuple[FeatureUpdate, ...]:
    """Finalize the `wanted` levels (`kafka-features.sh upgrade|downgrade --feature NAME=LEVEL`) through the first
    bootstrap server that answers: only those that differ are sent, and the call returns once that broker reports
    them (its metadata caught up), with the updates it sent (none when every level already was as wanted)."""
    require_supported(connection, "UpdateFeatures", "kafka-features.sh upgrade|downgrade")

    def update(conn: BrokerConnection) -> tuple[FeatureUpdate, ...]:
        finalized = {f.name: f.finalized_level for f in features_of(conn).features}
        updates = updates_for(wanted, finalized)
        if updates:
            _send(conn, updates)
            if not _finalized(conn, wanted):
                said = ", ".join(f"{u.name}={u.level}" for u in updates)
                raise FeaturesRefused(
                    f"the controller took {said}, but {conn.address} did not report it within {timeout_s:g} s"
                )
        return updates

    return on_any_broker(connection, timeout_s, "UpdateFeatures", update)


def _send(conn: BrokerConnection, updates: tuple[FeatureUpdate, ...]) -> None:
    version = conn.version_for(UPDATE_FEATURES)
    timeout_ms = max(1, int((conn.deadline - time.monotonic()) * 1000))
    answer = decode_response(conn.send(UPDATE_FEATURES, version, request_body(updates, timeout_ms)), version)
    refused: list[tuple[str | None, int, str | None]] = []
    if answer.error_code:
        refused.append((None, answer.error_code, answer.error_message))
    refused += [(name, code, message) for name, code, message in answer.results if code]
    if refused:
        raise FeaturesRefused(
            "; ".join(
                f"{name + ': ' if name else ''}{error_name(code)}{': ' + m if m else ''}" for name, code, m in refused
            )
        )


def _finalized(conn: BrokerConnection, wanted: Mapping[str, int]) -> bool:
    """Whether the broker asked reports the `wanted` levels before the deadline: the controller answers once the
    change is committed, and the broker applies it a moment later (seconds, when it is busy)."""
    while conn.deadline - time.monotonic() > 0.2:
        levels = features_of(conn)
        if all(levels.level(name) == level for name, level in wanted.items()):
            return True
        time.sleep(0.1)
    return False
