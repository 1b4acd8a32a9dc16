"""kafkatop's own protocol connection against the librdkafka mock cluster (real sockets): the mock cannot read
ApiVersions v3 and answers with a refusal that does not decode, so the connection asks again in v0, as librdkafka
does, and learns what the mock serves."""

from __future__ import annotations

import time

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.protocol.connection import BrokerConnection, Unsupported
from kafkatop.backends.protocol.wire import Api

API_METADATA = 3
API_DESCRIBE_QUORUM = 55


def test_a_broker_that_cannot_read_api_versions_v3_is_asked_in_v0() -> None:
    with MockCluster(1) as mock:
        host, port = mock.bootstrap_servers.split(",")[0].rsplit(":", 1)
        with BrokerConnection(host, int(port), time.monotonic() + 5) as conn:
            versions = conn.api_versions()
            assert versions.error_code == 0 and API_METADATA in versions.versions
            metadata = Api(API_METADATA, "Metadata", (0, 12))
            assert conn.version_for(metadata) == min(versions.versions[API_METADATA][1], 12)
            try:
                conn.version_for(Api(API_DESCRIBE_QUORUM, "DescribeQuorum", (0, 2)))
            except Unsupported as e:
                assert str(e) == f"{host}:{port} does not offer DescribeQuorum (a Kafka too old for it?)"
            else:
                raise AssertionError("the mock does not serve DescribeQuorum")
