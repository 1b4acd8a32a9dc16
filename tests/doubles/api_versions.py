"""A BrokerConnection that only answers ApiVersions, with a recorded or edited answer: what a cluster offers, without
a socket (share and streams groups' support checks)."""

from __future__ import annotations

from pathlib import Path

from kafkatop.backends.protocol.api_versions import ApiVersions, decode_api_versions

RECORDED = Path(__file__).parents[1] / "fixtures" / "protocol"


def kafka_4_1_api_versions() -> ApiVersions:
    """Kafka 4.1's ApiVersions v4 answer, recorded: share.version=0, streams.version=0, unstable APIs off."""
    return decode_api_versions((RECORDED / "api_versions_v4_kafka_4_1.bin").read_bytes())


class ApiVersionsDouble:
    """A BrokerConnection's ApiVersions, without a socket."""

    address = "127.0.0.1:9092"

    def __init__(self, answer: ApiVersions) -> None:
        self.answer = answer

    def api_versions(self) -> ApiVersions:
        return self.answer
