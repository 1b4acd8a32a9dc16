"""Configs without a cluster: the DescribeConfigs / IncrementalAlterConfigs / Metadata codecs on responses a real
Kafka 4.1 gave (tests/fixtures/configs.py), kafka-configs.sh's layout against what kafka-configs.sh printed for the
same cluster, and the checks a change passes before anything is sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafkatop.backends.insight.configs import altered_line, configs_json, format_configs
from kafkatop.backends.model.configs import (
    ConfigEntry,
    ConfigRefused,
    ConfigResource,
    ConfigSource,
    ConfigType,
    ResourceConfigs,
    check_change,
    check_value,
    is_read_only,
    parse_alter,
    parse_delete,
    split_items,
)
from kafkatop.backends.protocol.configs import (
    decode_describe_configs,
    decode_incremental_alter_configs,
    decode_metadata_brokers,
    describe_configs_body,
    incremental_alter_configs_body,
    metadata_brokers_body,
)
from kafkatop.backends.protocol.wire import ProtocolError, Reader, response_reader
from tests.fixtures.configs import BROKER, DEFAULTS, TOPIC, payload, recorded_configs

GOLDEN = Path(__file__).parent.parent / "fixtures" / "configs"


def _decode(name: str) -> tuple[int, Reader]:
    version, flexible, raw = payload(name)
    return version, response_reader(raw, flexible=flexible)


# --- the codecs, on recorded bytes ----------------------------------------------------------------------------------
def test_describe_configs_decodes_every_version_to_the_same_entries() -> None:
    decoded = {}
    for version in (1, 3, 4):
        v, r = _decode(f"describe_topic_v{version}")
        answer = decode_describe_configs(r, v)
        assert answer.error is None
        decoded[version] = answer.entries
    assert len(decoded[4]) == 33  # Kafka 4.1's topic configs
    # v1 and v3 carry the same values, sources and synonyms; v1 has no types.
    strip = [(e.name, e.value, e.source, e.is_sensitive, e.is_read_only, e.synonyms) for e in decoded[4]]
    assert [(e.name, e.value, e.source, e.is_sensitive, e.is_read_only, e.synonyms) for e in decoded[1]] == strip
    assert decoded[3] == decoded[4]
    assert {e.type for e in decoded[1]} == {ConfigType.UNKNOWN}
    entry = next(e for e in decoded[4] if e.name == "min.insync.replicas")
    # The three synonyms confluent-kafka's dict would fold into one (all three are named min.insync.replicas).
    assert [(s.source, s.value) for s in entry.synonyms] == [
        (ConfigSource.DYNAMIC_TOPIC_CONFIG, "2"),
        (ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, "1"),
        (ConfigSource.DEFAULT_CONFIG, "1"),
    ]
    assert (entry.value, entry.source, entry.type) == ("2", ConfigSource.DYNAMIC_TOPIC_CONFIG, ConfigType.INT)


def test_a_sensitive_value_is_none_in_the_model_and_absent_from_the_bytes() -> None:
    configs = recorded_configs(BROKER)
    secret = configs.entry("listener.name.plaintext.ssl.truststore.password")
    assert secret is not None
    assert secret.is_sensitive and secret.value is None and secret.overridden_on(BROKER)
    assert all(s.value is None for s in secret.synonyms)
    assert secret.shown_value == "(sensitive: not shown)"
    assert all(e.value is None for e in configs.entries if e.is_sensitive)


def test_describe_of_an_unknown_topic_carries_kafkas_error() -> None:
    v, r = _decode("describe_unknown_topic_v4")
    answer = decode_describe_configs(r, v)
    assert answer.error_code == 3 and answer.entries == ()
    assert answer.error is not None and answer.error.startswith("UNKNOWN_TOPIC_OR_PARTITION")


def test_incremental_alter_configs_answers_in_both_versions() -> None:
    for version in (0, 1):
        v, r = _decode(f"alter_refused_v{version}")
        code, message = decode_incremental_alter_configs(r, v)
        assert code == 40  # INVALID_CONFIG
        assert message == "Invalid value bogus for configuration cleanup.policy: String must be one of: compact, delete"
        v, r = _decode(f"alter_validated_v{version}")
        assert decode_incremental_alter_configs(r, v) == (0, None)


def test_metadata_lists_the_brokers() -> None:
    for version in (9, 12):
        v, r = _decode(f"metadata_v{version}")
        brokers = decode_metadata_brokers(r, v)
        assert sorted(b.node_id for b in brokers) == [1, 2, 3]
        assert all(b.host == "127.0.0.1" and b.port > 0 for b in brokers)


def test_truncated_bytes_are_a_protocol_error() -> None:
    version, flexible, raw = payload("describe_topic_v4")
    with pytest.raises(ProtocolError):
        decode_describe_configs(response_reader(raw[:-40], flexible=flexible), version)
    with pytest.raises(ProtocolError):
        decode_describe_configs(response_reader(raw + b"\x00", flexible=flexible), version)


def test_request_bodies_name_the_resource() -> None:
    # Kafka's empty name is every broker (the defaults); TOPIC is 2, BROKER is 4.
    assert describe_configs_body(DEFAULTS, 4) == b"\x02\x04\x01\x00\x00\x01\x00\x00"
    assert describe_configs_body(TOPIC, 1) == b"\x00\x00\x00\x01\x02\x00\x09purchases\xff\xff\xff\xff\x01"
    body = incremental_alter_configs_body(BROKER, {"log.cleaner.threads": "2"}, ("x",), False, 0)
    assert body == (
        b"\x00\x00\x00\x01\x04\x00\x011\x00\x00\x00\x02"
        b"\x00\x13log.cleaner.threads\x00\x00\x012"
        b"\x00\x01x\x01\xff\xff"
        b"\x00"
    )
    assert metadata_brokers_body(12) == b"\x01\x00\x00\x00"
    assert metadata_brokers_body(9) == b"\x01\x00\x00\x00\x00"


# --- kafka-configs.sh's layout, against what it printed for the same cluster ---------------------------------------
@pytest.mark.parametrize(
    ("resource", "all_entries", "golden"),
    [
        (TOPIC, False, "kafka-configs-topic.txt"),
        (TOPIC, True, "kafka-configs-topic-all.txt"),
        (BROKER, False, "kafka-configs-broker.txt"),
        (BROKER, True, "kafka-configs-broker-all.txt"),
        (DEFAULTS, False, "kafka-configs-defaults.txt"),
    ],
)
def test_describe_layout_is_kafka_configs_line_for_line(
    resource: ConfigResource, all_entries: bool, golden: str
) -> None:
    expected = (GOLDEN / golden).read_text().rstrip("\n").splitlines()
    assert format_configs(recorded_configs(resource), all_entries).splitlines() == expected


def test_altered_lines_are_kafka_configs_words() -> None:
    assert altered_line(TOPIC) == "Completed updating config for topic purchases."
    assert altered_line(BROKER) == "Completed updating config for broker 1."
    assert altered_line(DEFAULTS) == "Completed updating default config for brokers in the cluster."


def test_json_holds_the_shown_entries_and_no_secret() -> None:
    doc = configs_json(recorded_configs(BROKER))
    assert doc["resource"] == {"kind": "broker", "name": "1"}
    assert doc["entries"] == [
        {
            "name": "listener.name.plaintext.ssl.truststore.password", "value": None, "source": "DYNAMIC_BROKER_CONFIG",
            "is_sensitive": True, "is_read_only": True, "type": "PASSWORD",
            "synonyms": [{"name": "listener.name.plaintext.ssl.truststore.password", "value": None,
                          "source": "DYNAMIC_BROKER_CONFIG"}],
        }
    ]  # fmt: skip
    assert len(configs_json(recorded_configs(TOPIC), True)["entries"]) == 33  # type: ignore[arg-type]
    json.dumps(doc)


# --- a change as typed ----------------------------------------------------------------------------------------------
def test_alter_items_split_outside_brackets() -> None:
    assert split_items("a=1, b=[x,y] ,c=") == ["a=1", "b=[x,y]", "c="]
    assert parse_alter(["retention.ms=1000,cleanup.policy=[compact,delete]", "retention.ms=2000"]) == {
        "retention.ms": "2000",
        "cleanup.policy": "compact,delete",
    }
    assert parse_alter(["follower.replication.throttled.replicas="]) == {"follower.replication.throttled.replicas": ""}
    assert parse_delete(["a,b", "a"]) == ("a", "b")
    with pytest.raises(ConfigRefused, match="expected NAME=VALUE"):
        parse_alter(["retention.ms"])
    with pytest.raises(ConfigRefused, match="the config's name only"):
        parse_delete(["retention.ms=1"])


def test_unknown_names_are_refused_with_the_closest_known() -> None:
    topic = recorded_configs(TOPIC)
    assert check_change(topic, {"min.insync.replica": "2"}, ()) == [
        "unknown topic config name 'min.insync.replica': did you mean min.insync.replicas?"
    ]
    assert check_change(topic, {"zzz": "1"}, ()) == [
        "unknown topic config name 'zzz' (33 names are known; --all lists them)"
    ]
    assert check_change(topic, {}, ("retention.msec",)) == [
        "unknown topic config name 'retention.msec': did you mean retention.ms?"
    ]


def test_read_only_wrong_types_and_deletes_of_what_is_not_set() -> None:
    broker, topic = recorded_configs(BROKER), recorded_configs(TOPIC)
    [read_only] = check_change(broker, {"log.dirs": "/tmp/x"}, ())
    assert read_only.startswith("log.dirs is read-only: Kafka cannot change it while the broker runs")
    assert check_change(topic, {"min.insync.replicas": "abc"}, ()) == [
        "min.insync.replicas is a whole number (INT): 'abc' is not one"
    ]
    assert check_change(topic, {"min.insync.replicas": "2"}, ()) == []
    assert check_change(topic, {}, ("cleanup.policy",)) == [
        "cleanup.policy is not set on topic purchases (its value comes from DEFAULT_CONFIG): nothing to delete"
    ]
    assert check_change(topic, {}, ("retention.ms",)) == []
    assert check_change(topic, {"retention.ms": "1"}, ("retention.ms",)) == [
        "retention.ms is both set and deleted: give it once"
    ]
    assert check_change(topic, {}, ()) == ["nothing to change: give --alter NAME=VALUE and/or --delete NAME"]


def test_a_listeners_own_setting_is_the_broker_configs() -> None:
    broker = recorded_configs(BROKER)
    name = "listener.name.plaintext.ssl.truststore.password"
    # Kafka describes the set one as read-only, and changes it all the same.
    assert broker.entry(name).is_read_only  # type: ignore[union-attr]
    assert check_change(broker, {name: "changed"}, ()) == []
    assert check_change(broker, {}, (name,)) == []
    assert check_change(broker, {"listener.name.plaintext.ssl.truststore.passwd": "x"}, ())[0].startswith(
        "unknown broker config name"
    )


def test_the_broker_defaults_are_checked_against_a_brokers_names() -> None:
    defaults, broker = recorded_configs(DEFAULTS), recorded_configs(BROKER)
    assert check_change(defaults, {"log.cleaner.threads": "2"}, (), known=broker) == []
    assert check_change(defaults, {}, ("log.retention.ms",), known=broker) == []
    assert check_change(defaults, {}, ("log.cleaner.threads",), known=broker) == [
        "log.cleaner.threads is not set on the broker defaults (cluster-wide): nothing to delete"
    ]


@pytest.mark.parametrize(
    ("kind", "value", "problem"),
    [
        (ConfigType.INT, " 12 ", None),
        (ConfigType.INT, "1.5", "x is a whole number (INT): '1.5' is not one"),
        (ConfigType.SHORT, "40000", "x is a SHORT, from -32768 to 32767: 40000 is out of range"),
        (ConfigType.LONG, "-9223372036854775808", None),
        (ConfigType.DOUBLE, "0.5", None),
        (ConfigType.DOUBLE, "half", "x is a number (DOUBLE): 'half' is not one"),
        (ConfigType.BOOLEAN, "TRUE", None),
        (ConfigType.BOOLEAN, "yes", "x is true or false: not 'yes'"),
        (ConfigType.STRING, "anything", None),
        (ConfigType.UNKNOWN, "anything", None),
    ],
)
def test_values_are_checked_by_type(kind: ConfigType, value: str, problem: str | None) -> None:
    entry = ConfigEntry("x", None, ConfigSource.DEFAULT_CONFIG, False, False, (), kind)
    assert check_value(entry, value) == problem


def test_resource_words() -> None:
    assert str(TOPIC) == "topic purchases" and str(BROKER) == "broker 1"
    assert str(DEFAULTS) == "the broker defaults (cluster-wide)" and DEFAULTS.name == ""
    assert ResourceConfigs(TOPIC, ()).overrides == ()


def test_read_only_as_the_screen_shows_it() -> None:
    broker = recorded_configs(BROKER)
    assert is_read_only(broker, "log.dirs") and not is_read_only(broker, "log.cleaner.threads")
    assert not is_read_only(broker, "listener.name.plaintext.ssl.truststore.password")
