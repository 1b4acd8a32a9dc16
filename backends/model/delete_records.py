"""kafka-delete-records.sh's offset JSON file and its lines: which partitions lose their records below which offset,
read as the tool reads the file (its errors in its words), and what it prints once Kafka answered. The tool's order
changes from run to run (seen on Kafka 4.1: six partitions came out in four orders in four runs); kafkatop keeps the
file's. Standard library only."""

from __future__ import annotations

import json
from collections.abc import Mapping

from kafkatop.backends.model.errors import BadInput

HIGH_WATERMARK = -1  # "offset": -1 deletes every record of the partition (up to its high watermark)

# The Java exception the tool prints for a partition's error: Errors.exception() with its default message (the
# OFFSET_OUT_OF_RANGE line checked against the tool on Kafka 4.1: tests/integration/test_delete_records_kafka.py).
JAVA_ERRORS = {
    "OFFSET_OUT_OF_RANGE": "org.apache.kafka.common.errors.OffsetOutOfRangeException: The requested offset is not "
    "within the range of offsets maintained by the server.",
    "UNKNOWN_TOPIC_OR_PART": "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not "
    "host this topic-partition.",
    "TOPIC_AUTHORIZATION_FAILED": "org.apache.kafka.common.errors.TopicAuthorizationException: Topic authorization "
    "failed.",
    "POLICY_VIOLATION": "org.apache.kafka.common.errors.PolicyViolationException: Request parameters do not satisfy "
    "the configured policy.",
}


def parse_offset_json(text: str, where: str) -> dict[tuple[str, int], int]:
    """The file's partitions and offsets, in the file's order; BadInput in the tool's words when it does not read."""
    try:
        data = json.loads(text)
    except ValueError:
        raise BadInput(f"{where}: The input string is not a valid JSON") from None
    if not isinstance(data, dict):
        raise BadInput(f"{where}: The input string is not a valid JSON object")
    version = data.get("version", 1)
    if version != 1:
        raise BadInput(f"{where}: Not supported version field value {version}")
    partitions = data.get("partitions")
    if partitions is None:
        raise BadInput(f"{where}: Missing partitions field")
    if not isinstance(partitions, list):
        raise BadInput(f'{where}: partitions is a list, e.g. [{{"topic": "t", "partition": 0, "offset": 5}}]')
    offsets: dict[tuple[str, int], list[int]] = {}
    for entry in partitions:
        topic = entry.get("topic") if isinstance(entry, dict) else None
        partition = entry.get("partition") if isinstance(entry, dict) else None
        offset = entry.get("offset") if isinstance(entry, dict) else None
        if not isinstance(topic, str) or type(partition) is not int or type(offset) is not int:
            raise BadInput(f"{where}: each partition is {{\"topic\": NAME, \"partition\": N, \"offset\": N}}; not "
                           f"{json.dumps(entry)[:80]}")  # fmt: skip
        if offset < HIGH_WATERMARK:
            raise BadInput(f"{where}: offset {offset} of {topic}-{partition}: an offset, or -1 for every record")
        offsets.setdefault((topic, partition), []).append(offset)
    twice = [f"{t}-{p}" for (t, p), given in offsets.items() if len(given) > 1]
    if twice:
        raise BadInput(f"{where}: Offset json file contains duplicate topic partitions: {','.join(twice)}")
    return {tp: given[0] for tp, given in offsets.items()}


def tool_lines(answers: Mapping[tuple[str, int], int | str]) -> list[str]:
    """kafka-delete-records.sh's lines after the request: each partition's new low watermark, or its error, in the
    order of `answers` (the file's)."""
    out = ["Records delete operation completed:"]
    for (topic, partition), answer in answers.items():
        said = f"low_watermark: {answer}" if isinstance(answer, int) else f"error: {answer}"
        out.append(f"partition: {topic}-{partition}\t{said}")
    return out
