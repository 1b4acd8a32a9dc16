"""kafka-broker-api-versions.sh's lines (backends/model/api_keys.py): NodeApiVersions.toString(true) of Kafka 4.1 on
a recorded ApiVersions answer of a real 4.1 broker (api_versions_v4_kafka_4_1.bin), and on made-up ranges for the
cases a 4.1 broker never shows (a node too old or too new, an unknown key). The line-for-line comparison with the
tool itself is in tests/integration/test_kafka_tools_kafka.py."""

from __future__ import annotations

from pathlib import Path

from kafkatop.backends.model.api_keys import API_KEYS, api_versions_text, node_text
from kafkatop.backends.protocol.api_versions import decode_api_versions

RECORDED = Path(__file__).parents[1] / "fixtures" / "protocol" / "api_versions_v4_kafka_4_1.bin"


def test_a_41_broker_is_usable_at_its_highest_versions() -> None:
    offered = decode_api_versions(RECORDED.read_bytes()).versions
    lines = api_versions_text(offered).split("\n")
    assert lines[0] == "(" and lines[-1] == ")"
    assert lines[1] == f"\tProduce(0): {offered[0][0]} to {offered[0][1]} [usable: {offered[0][1]}],"
    assert lines[-2].startswith("\t") and not lines[-2].endswith(",")
    keys = [int(line.split("(", 1)[1].split(")")[0]) for line in lines[1:-1]]
    assert keys == sorted(keys) and set(offered) <= set(keys)
    assert not any("unusable" in line for line in lines)


def test_the_cases_a_41_broker_does_not_show() -> None:
    text = api_versions_text({0: (0, 2), 35: (1, 4), 88: (0, 0), 1: (4, 20), 999: (0, 3), 3: (5, 5)})
    lines = text.split("\n")
    assert lines[1:4] == [
        "\tProduce(0): 0 to 2 [unusable: node too old],",  # 4.1 speaks Produce v3+ only
        "\tFetch(1): 4 to 20 [usable: 18],",
        "\tListOffsets(2): UNSUPPORTED,",
    ]
    assert "\tMetadata(3): 5 [usable: 5]," in lines
    assert "\tStreamsGroupHeartbeat(88): 0 [unusable: node too new]," in lines  # v0 is unstable in 4.1
    assert lines[-2] == "\tUNKNOWN(999): 0 to 3"
    assert "\tVote(52): UNSUPPORTED," not in lines  # not a broker's API: not listed when missing
    assert len(lines) == 2 + len({0, 35, 88, 1, 999, 3} | {k for k, v in API_KEYS.items() if v[3]})


def test_node_text() -> None:
    assert node_text(1, "127.0.0.1", 9092, None, False) == "127.0.0.1:9092 (id: 1 rack: null isFenced: false)"
    assert node_text(3, "b3", 9094, "eu-1a", True) == "b3:9094 (id: 3 rack: eu-1a isFenced: true)"
