"""Feature levels (KIP-584) from ApiVersions v4, decoded from an answer recorded from a real Kafka 4.1 broker, printed
as kafka-features.sh describe printed them on the same broker (tests/fixtures/protocol/; the two were taken a moment
apart, so only the epoch — the metadata log's offset, which moves on — differs)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kafkatop.backends.kafka.cluster.features import levels_of
from kafkatop.backends.model.features import FeatureLevels, format_features, level_text
from kafkatop.backends.protocol.api_versions import ApiVersions, decode_api_versions
from kafkatop.backends.protocol.connection import Unsupported
from kafkatop.backends.protocol.wire import ProtocolError

RECORDED = Path(__file__).parents[1] / "fixtures" / "protocol"


def _recorded() -> ApiVersions:
    return decode_api_versions((RECORDED / "api_versions_v4_kafka_4_1.bin").read_bytes())


def test_the_features_of_a_kafka_4_1_broker_print_as_kafka_features_sh_does() -> None:
    answer = _recorded()
    assert answer.supported_features["eligible.leader.replicas.version"] == (0, 1)  # min 0: sent from v4 on
    assert answer.finalized_features["metadata.version"] == (27, 27)
    levels = levels_of("127.0.0.1:29292", answer)
    theirs = (RECORDED / "kafka_features_describe_4_1.txt").read_text().rstrip("\n")
    at_their_epoch = re.sub(r"Epoch: \d+", f"Epoch: {levels.epoch}", theirs)
    assert format_features(levels) == at_their_epoch
    assert levels.level("eligible.leader.replicas.version") == 1 and levels.level("share.version") == 0


def test_levels_are_named_as_kafka_names_them() -> None:
    assert level_text("metadata.version", 27) == "4.1-IV1"
    assert level_text("metadata.version", 1) == "3.0-IV1"  # Kafka 4's tool says UNKNOWN 1; a 3.x cluster says this
    assert level_text("metadata.version", 99) == "UNKNOWN 99"
    assert level_text("share.version", 1) == "1"


def test_a_broker_with_no_features_is_said_so() -> None:
    with pytest.raises(Unsupported, match="reports no features"):
        levels_of("127.0.0.1:9", ApiVersions(1, 0, {18: (0, 3)}))
    assert format_features(FeatureLevels("b", (), None)) == ""


def test_a_truncated_answer_is_refused() -> None:
    with pytest.raises(ProtocolError):
        decode_api_versions((RECORDED / "api_versions_v4_kafka_4_1.bin").read_bytes()[:-5])
