"""ListConfigResources (API key 74, v0–v1) on Kafka's wire format: the names of the client-metrics resources
(KIP-714), as kafka-client-metrics.sh --list asks them. v0 was ListClientMetricsResources (Kafka 3.7–4.0), which
lists client-metrics resources only; v1 (Kafka 4.1, KIP-1142) takes the resource types to list and says each
resource's type. confluent-kafka has no such call. Flexible from v0 (header v2, response header v1).

Schema: clients/src/main/resources/common/message/ListConfigResources{Request,Response}.json in apache/kafka 4.1.
The decoder is bounded: truncated or foreign bytes raise ProtocolError, never IndexError.
"""

from __future__ import annotations

from kafkatop.backends.protocol.wire import NO_TAGGED_FIELDS, Api, Reader, encode_compact_array

LIST_CONFIG_RESOURCES = Api(74, "ListConfigResources", (0, 1))
CLIENT_METRICS = 16  # ConfigResource.Type.CLIENT_METRICS


def list_config_resources_body(version: int) -> bytes:
    """v1: ResourceTypes [CLIENT_METRICS]; v0: nothing to say (client-metrics resources only)."""
    if version >= 1:
        return encode_compact_array([bytes([CLIENT_METRICS])]) + NO_TAGGED_FIELDS
    return NO_TAGGED_FIELDS


def decode_list_config_resources(r: Reader, version: int) -> tuple[int, list[str]]:
    """(error code, the client-metrics resources' names in the broker's order), after the response header."""
    r.int32()  # throttle time
    code = r.int16()
    names = []
    for _ in range(r.compact_array_length()):
        name = r.compact_string()
        kind = r.int8() if version >= 1 else CLIENT_METRICS
        r.skip_tagged_fields()
        if kind == CLIENT_METRICS:
            names.append(name)
    r.skip_tagged_fields()
    r.end()
    return code, names
