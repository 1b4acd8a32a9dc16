"""`kafkatop configs` and the Configs screen against a real Kafka 4.1 KRaft node, compared with `kafka-configs.sh` on
the same node, line for line: a topic and a broker, described and with --all, the broker defaults; alter and delete
as Kafka's own tool then sees them; an unknown config, a read-only one and a value Kafka refuses change nothing; a
sensitive value is never printed. Skipped without KAFKA_HOME.

The node listens on ports of this test's own range (23500-23999), not on a random one of the suite's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafkatop.backends.insight.timeline.model import EventKind
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.configs import ConfigAdmin
from kafkatop.backends.model.configs import ConfigResource
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.cli.main import main
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.screens.config_table import ConfigTable
from kafkatop.tui.live.screens.configs import ConfigsScreen
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.partitions.pane import PartitionTable
from tests.conftest import pilot_until, wait_for
from tests.integration.test_real_kafka import NODE_ID, KraftNode, create_topic, kafka_tool, ports_in, running_node

pytestmark = pytest.mark.kafka

PORTS = (23500, 24000)
SECRET = "hunter2-never-printed"


@pytest.fixture(scope="module")
def node(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[KraftNode]:
    with running_node(kafka_home, tmp_path_factory.mktemp("kraft-configs"), ports=ports_in(*PORTS)) as started:
        create_topic(started, "purchases", 3, {"min.insync.replicas": "1", "retention.ms": "86400000"})
        yield started


@pytest.fixture(scope="module")
def admin(node: KraftNode) -> ConfigAdmin:
    return ConfigAdmin(KafkaConnection.parse(node.bootstrap), timeout_s=10.0)


def kafka_configs(node: KraftNode, tmp_path: Path, *args: str) -> str:
    """What `kafka-configs.sh --bootstrap-server … ARGS` prints (stdout; it must succeed)."""
    return kafka_tool(node, tmp_path, "kafka-configs.sh", *args)


def kafkatop(node: KraftNode, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`kafkatop configs ARGS` in this process: (exit status, stdout, stderr)."""
    capsys.readouterr()
    status = main(["configs", "--bootstrap-server", node.bootstrap, *args])
    out, err = capsys.readouterr()
    return status, out.rstrip("\n"), err.rstrip("\n")


ENTITIES = {
    "topic": (("--entity-type", "topics", "--entity-name", "purchases"), ("--topic", "purchases")),
    "broker": (("--entity-type", "brokers", "--entity-name", str(NODE_ID)), ("--broker", str(NODE_ID))),
    "defaults": (("--entity-type", "brokers", "--entity-default"), ("--broker-defaults",)),
}


def test_describe_is_kafka_configs_line_for_line(
    node: KraftNode, admin: ConfigAdmin, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Something set at every level: on the topic (above), on the broker, and for every broker.
    admin.alter(ConfigResource.broker(NODE_ID), {"log.cleaner.threads": "2"}, ())
    admin.alter(ConfigResource.broker_defaults(), {"log.retention.ms": "7200000"}, ())
    admin.describe(ConfigResource.broker(NODE_ID), expect=({"log.cleaner.threads": "2"}, ()))
    admin.describe(ConfigResource.broker_defaults(), expect=({"log.retention.ms": "7200000"}, ()))
    for what, (theirs_args, ours_args) in ENTITIES.items():
        for extra in ((), ("--all",)):
            theirs = kafka_configs(node, tmp_path, *theirs_args, "--describe", *extra)
            status, ours, err = kafkatop(node, capsys, *ours_args, *extra)
            with capsys.disabled():
                print(f"--- {what} {' '.join(extra)}: kafka-configs.sh {len(theirs.splitlines())} lines, "
                      f"kafkatop {len(ours.splitlines())}\n" + "\n".join(ours.splitlines()[:4]))  # fmt: skip
            assert (status, err) == (0, "")
            assert ours.splitlines() == theirs.splitlines()
            if extra or what != "topic":
                continue
            # The synonyms confluent-kafka would fold: all three of min.insync.replicas are there, in Kafka's order.
            assert (
                "  min.insync.replicas=1 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:min.insync.replicas=1, "
                "DYNAMIC_DEFAULT_BROKER_CONFIG:min.insync.replicas=1, DEFAULT_CONFIG:min.insync.replicas=1}"
            ) in ours.splitlines()
    assert len(kafka_configs(node, tmp_path, *ENTITIES["broker"][0], "--describe", "--all").splitlines()) > 300


def test_alter_and_delete_as_kafka_configs_then_sees_them(
    node: KraftNode, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = kafkatop(
        node, capsys, "--topic", "purchases", "--alter", "cleanup.policy=[compact,delete]", "--alter",
        "max.message.bytes=2000000",
    )  # fmt: skip
    assert (status, out, err) == (0, "Completed updating config for topic purchases.", "")
    theirs = kafka_configs(node, tmp_path, *ENTITIES["topic"][0], "--describe").splitlines()
    assert "  cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=" \
           "compact,delete, DEFAULT_CONFIG:log.cleanup.policy=delete}" in theirs  # fmt: skip
    assert any(line.startswith("  max.message.bytes=2000000 ") for line in theirs)

    status, out, err = kafkatop(node, capsys, "--topic", "purchases", "--delete", "cleanup.policy,max.message.bytes")
    assert (status, out, err) == (0, "Completed updating config for topic purchases.", "")
    theirs = kafka_configs(node, tmp_path, *ENTITIES["topic"][0], "--describe").splitlines()
    assert not any(line.startswith(("  cleanup.policy=", "  max.message.bytes=")) for line in theirs)

    # A broker and the defaults, with --json: the configs after the change, as Kafka describes them.
    status, out, err = kafkatop(node, capsys, "--broker", str(NODE_ID), "--alter", "log.cleaner.threads=1", "--json")
    assert status == 0 and err == ""
    doc = json.loads(out)
    [entry] = [e for e in doc["entries"] if e["name"] == "log.cleaner.threads"]
    assert (entry["value"], entry["source"]) == ("1", "DYNAMIC_BROKER_CONFIG")
    status, out, err = kafkatop(node, capsys, "--broker-defaults", "--alter", "log.cleaner.backoff.ms=20000")
    assert (status, out, err) == (0, "Completed updating default config for brokers in the cluster.", "")
    assert "  log.cleaner.backoff.ms=20000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:" \
           "log.cleaner.backoff.ms=20000}" in kafka_configs(node, tmp_path, *ENTITIES["defaults"][0],
                                                             "--describe").splitlines()  # fmt: skip
    assert kafkatop(node, capsys, "--broker-defaults", "--delete", "log.cleaner.backoff.ms")[0] == 0


def _topic_lines(node: KraftNode, capsys: pytest.CaptureFixture[str]) -> list[str]:
    status, out, _ = kafkatop(node, capsys, "--topic", "purchases", "--all")
    assert status == 0
    return out.splitlines()


def test_refusals_change_nothing(node: KraftNode, capsys: pytest.CaptureFixture[str]) -> None:
    before = _topic_lines(node, capsys)
    refusals = {
        # kafkatop's own checks, before anything is sent
        ("--alter", "min.insync.replica=2"): "kafkatop: Cannot change topic purchases: unknown topic config name "
        "'min.insync.replica': did you mean min.insync.replicas?",
        ("--alter", "min.insync.replicas=abc"): "kafkatop: Cannot change topic purchases: min.insync.replicas is a "
        "whole number (INT): 'abc' is not one",
        ("--delete", "segment.bytes"): "kafkatop: Cannot change topic purchases: segment.bytes is not set on topic "
        "purchases (its value comes from DEFAULT_CONFIG): nothing to delete",
        # Kafka's refusals (validate_only), its error name and message; the valid half of a change is not made either
        ("--alter", "cleanup.policy=bogus,retention.ms=1000"): "kafkatop: Kafka refused the change to topic "
        "purchases: INVALID_CONFIG: Invalid value bogus for configuration cleanup.policy: String must be one of: "
        "compact, delete. Nothing was changed.",
        ("--alter", "min.insync.replicas=0"): "kafkatop: Kafka refused the change to topic purchases: INVALID_CONFIG: "
        "Invalid value 0 for configuration min.insync.replicas: Value must be at least 1. Nothing was changed.",
    }
    for args, said in refusals.items():
        status, out, err = kafkatop(node, capsys, "--topic", "purchases", *args)
        print(" ".join(args), "->", err)
        assert (status, out, err) == (2, "", said)
    status, out, err = kafkatop(node, capsys, "--broker", str(NODE_ID), "--alter", "log.dirs=/tmp/elsewhere")
    assert status == 2 and err.startswith("kafkatop: Cannot change broker 1: log.dirs is read-only")
    status, out, err = kafkatop(node, capsys, "--topic", "no-such-topic")
    assert (status, err) == (
        2, "kafkatop: topic 'no-such-topic' does not exist (UNKNOWN_TOPIC_OR_PARTITION): `kafkatop describe` lists the "
        "topics",
    )  # fmt: skip
    status, out, err = kafkatop(node, capsys, "--broker", "7")
    assert (status, err) == (2, "kafkatop: broker 7 is not in the cluster (its live brokers: 1): give one of those ids")
    assert _topic_lines(node, capsys) == before


def test_a_sensitive_value_is_never_printed(
    node: KraftNode, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "listener.name.plaintext.ssl.truststore.password"  # a listener's own setting: Kafka changes it live
    status, out, err = kafkatop(node, capsys, "--broker", str(NODE_ID), "--alter", f"{name}={SECRET}")
    assert (status, out, err) == (0, "Completed updating config for broker 1.", "")
    try:
        line = f"  {name}=null sensitive=true synonyms={{DYNAMIC_BROKER_CONFIG:{name}=null}}"
        # The broker applies a change from the metadata log a moment after it is acknowledged.
        wait_for(lambda: line in kafkatop(node, capsys, "--broker", str(NODE_ID))[1].splitlines(), what="the change")
        printed = [kafkatop(node, capsys, "--broker", str(NODE_ID), *extra) for extra in ((), ("--all",), ("--json",))]
        for status, out, err in printed:
            assert status == 0 and SECRET not in out + err
        assert line in printed[0][1].splitlines()
        assert line in kafka_configs(node, tmp_path, *ENTITIES["broker"][0], "--describe").splitlines()
        [entry] = [e for e in json.loads(printed[2][1])["entries"] if e["name"] == name]
        assert (entry["value"], entry["is_sensitive"]) == (None, True)
    finally:
        assert kafkatop(node, capsys, "--broker", str(NODE_ID), "--delete", name)[0] == 0


# --- the Configs screen ---------------------------------------------------------------------------------------------
async def test_the_configs_screen_edits_and_shows_kafkas_refusal(node: KraftNode, admin: ConfigAdmin) -> None:
    source = AdminSource(KafkaConnection.parse(node.bootstrap), timeout_s=5.0)
    app = KafkatopApp(Sources(source.poll, configs=admin), Settings(poll_interval_s=0.5))
    topic = ConfigResource.topic("purchases")
    async with app.run_test(size=(120, 36)) as pilot:
        table = app.query_one(PartitionTable)
        await pilot_until(pilot, lambda: table.row_count == 3, "the partitions of purchases")
        await pilot.press("C")
        await pilot_until(pilot, lambda: isinstance(app.screen, ConfigsScreen), "the Configs screen")
        screen = app.screen
        assert isinstance(screen, ConfigsScreen)
        configs = screen.query_one(ConfigTable)
        await pilot_until(pilot, lambda: configs.row_count == 33, "the topic's 33 configs")
        await pilot.press("slash", *"min.insync", "enter")
        await pilot_until(pilot, lambda: configs.row_count == 1, "the filtered row")
        await pilot.press("enter")  # edit it
        field = screen.query_one("#configs-value")
        assert screen.focused is field and screen.editing == "min.insync.replicas"

        def status() -> str:
            return str(screen.query_one("#configs-status").render())

        await pilot.press("backspace", "0", "enter")  # Kafka says at least 1
        await pilot_until(pilot, lambda: "INVALID_CONFIG" in status(), "Kafka's refusal in the screen")
        assert "Value must be at least 1. Nothing was changed." in status()
        assert screen.focused is field and field.value == "0"  # what was typed is kept  # type: ignore[attr-defined]
        assert admin.describe(topic).entry("min.insync.replicas").value == "1"  # type: ignore[union-attr]

        await pilot.press("backspace", "2", "enter")
        await pilot_until(pilot, lambda: "min.insync.replicas=2 set on topic purchases" in status(), "the change")
        await pilot_until(pilot, lambda: configs.selected is not None and configs.selected.value == "2", "read back")
        assert admin.describe(topic).entry("min.insync.replicas").value == "2"  # type: ignore[union-attr]

        await pilot.press("x")  # delete it: a confirmation says what it falls back to
        await pilot.pause()
        assert "It falls back to 1 (DYNAMIC_DEFAULT_BROKER_CONFIG" in str(
            app.screen.query_one("#dialog-detail").render()
        )
        await pilot.press("y")
        await pilot_until(pilot, lambda: "deleted from topic purchases" in status(), "the delete")
        wait_for(lambda: not admin.describe(topic).entry("min.insync.replicas").overridden_on(topic),  # type: ignore[union-attr]
                 what="min.insync.replicas back to the broker's")  # fmt: skip
        await pilot.press("escape")  # leave: the table has the focus, so the screen closes
        await pilot_until(pilot, lambda: not isinstance(app.screen, ConfigsScreen), "the screen closed")
        # Both changes are on the timeline, in the screen's words; a refused one is not.
        told = [e.text for e in app.feed.timeline.snapshot().events if e.kind is EventKind.OPERATION]
        assert told == [
            "min.insync.replicas=2 set on topic purchases",
            "min.insync.replicas deleted from topic purchases",
        ]
    # Put back what the other tests of this module started from.
    admin.alter(topic, {"min.insync.replicas": "1"}, ())
    source.close()
