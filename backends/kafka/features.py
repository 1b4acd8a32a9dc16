"""The cluster's feature levels, as `kafka-features.sh describe` reads them: ApiVersions v4 from a broker (v3 leaves
out every feature whose lowest version is 0, KIP-1022), its supported features and the finalized levels."""

from __future__ import annotations

import time

from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.model.features import Feature, FeatureLevels
from kafkatop.backends.protocol.api_versions import ApiVersions, api_versions_body, decode_api_versions
from kafkatop.backends.protocol.connection import BrokerConnection, Unsupported, os_reason, require_supported
from kafkatop.backends.protocol.wire import (
    API_VERSIONS,
    ProtocolError,
)

FEATURES_VERSION = 4  # Kafka 3.9+: features whose lowest version is 0 are sent too


def describe_features(connection: KafkaConnection, timeout_s: float) -> FeatureLevels:
    """From the first bootstrap server that answers; SourceUnavailable when none does, Unsupported when the cluster
    has no features to say (before Kafka 2.7, the librdkafka mock)."""
    require_supported(connection, "ApiVersions", "kafka-features.sh describe")
    deadline = time.monotonic() + timeout_s
    reasons: list[str] = []
    for host, port in connection.addresses:
        try:
            with BrokerConnection(host, port, deadline, connection.client_settings) as conn:
                answer = conn.api_versions()
                if answer.versions.get(API_VERSIONS, (0, 0))[1] >= FEATURES_VERSION:
                    answer = decode_api_versions(conn.request(API_VERSIONS, FEATURES_VERSION, api_versions_body()))
                return levels_of(conn.address, answer)
        except Unsupported:
            raise  # every broker of a cluster speaks the same protocol: asking another changes nothing
        except OSError as e:
            reasons.append(f"{host}:{port}: {os_reason(e, timeout_s)}")
        except ProtocolError as e:
            reasons.append(f"{host}:{port}: {e}")
    raise SourceUnavailable("kafka", f"no broker answered ApiVersions ({'; '.join(reasons)})")


def levels_of(address: str, answer: ApiVersions) -> FeatureLevels:
    if not answer.supported_features:
        raise Unsupported(f"{address} reports no features (Kafka 2.7+ does; the librdkafka mock does not)")
    features = tuple(
        Feature(name, low, high, answer.finalized_features.get(name, (0, 0))[1])
        for name, (low, high) in sorted(answer.supported_features.items())
    )
    return FeatureLevels(address, features, answer.finalized_features_epoch)
