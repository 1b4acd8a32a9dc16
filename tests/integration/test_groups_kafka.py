"""`kafkatop groups` against a real Apache Kafka, compared with kafka-consumer-groups.sh on the same node line for line
(--describe in the tool's row order; --list sorted: the tool prints the brokers' answers as they come): --list, and
--describe's offsets, --members and --state for a group with an active member and for an empty one, the stderr line
of a group without members; --delete-offsets refused while the group consumes the topic (GROUP_SUBSCRIBED_TO_TOPIC)
and done for a partition of the empty group; --delete refused for the active group (Kafka's NON_EMPTY_GROUP) and done
for the empty one. Set KAFKA_HOME to run."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest
from confluent_kafka import Consumer, Producer

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.groups.group_admin import GroupTools
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.cli.main import main
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.groups.pane import GroupsPane
from tests.conftest import pilot_until, wait_for
from tests.integration.test_real_kafka import KraftNode, create_topic, polled

pytestmark = pytest.mark.kafka

TOPIC = "purchases"


@pytest.fixture(scope="module")
def groups(kafka: KraftNode) -> Iterator[KraftNode]:
    """`idle`: 15 records read and committed, then left; `busy`: a member polling (heartbeats on librdkafka's thread)
    until the module ends."""
    create_topic(kafka, TOPIC, 3)
    producer = Producer({"bootstrap.servers": kafka.bootstrap})
    for i in range(60):
        producer.produce(TOPIC, f"r{i}".encode(), key=str(i).encode())
    assert producer.flush(20) == 0
    del producer
    idle = Consumer({"bootstrap.servers": kafka.bootstrap, "group.id": "idle", "auto.offset.reset": "earliest",
                     "enable.auto.commit": False})  # fmt: skip
    idle.subscribe([TOPIC])
    read = 0
    for _ in range(200):
        msg = idle.poll(0.2)
        if msg is not None and msg.error() is None:
            read += 1
            if read == 15:
                idle.commit(msg, asynchronous=False)
                break
    idle.close()
    busy = Consumer({"bootstrap.servers": kafka.bootstrap, "group.id": "busy", "auto.offset.reset": "earliest",
                     "client.id": "busy-client"})  # fmt: skip
    busy.subscribe([TOPIC])

    def all_committed() -> bool:  # by auto-commit (every 5 s): the offsets view then stands still
        rows = [line.split() for line in tool(kafka, "--describe", "--group", "busy").split("--stderr--")[0]
                .splitlines() if line.startswith("busy ")]  # fmt: skip
        return len(rows) == 3 and all(r[3] != "-" and r[3] == r[4] for r in rows)

    with polled([busy], "busy-member"):
        wait_for(lambda: "busy-client" in tool(kafka, "--describe", "--group", "busy", "--members"), timeout_s=30,
                 what="the busy group's member")  # fmt: skip
        wait_for(all_committed, timeout_s=60, interval_s=1.0, what="the busy group's commits of all it read")
        yield kafka


def tool(node: KraftNode, *argv: str) -> str:
    done = subprocess.run(
        [str(node.home / "bin" / "kafka-consumer-groups.sh"), "--bootstrap-server", node.bootstrap, *argv],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    return done.stdout + "\n--stderr--\n" + done.stderr.strip()


def groups_tool(node: KraftNode, *argv: str) -> str:
    """kafka-groups.sh: every type of group (Kafka 4)."""
    done = subprocess.run(
        [str(node.home / "bin" / "kafka-groups.sh"), "--bootstrap-server", node.bootstrap, *argv],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    return done.stdout + "\n--stderr--\n" + done.stderr.strip()


def ours(node: KraftNode, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["groups", *argv, "--bootstrap-server", node.bootstrap])
    out, err = capsys.readouterr()
    return code, out + "\n--stderr--\n" + err.strip()


def lines(text: str) -> list[str]:
    out, _, err = text.partition("\n--stderr--\n")
    return sorted(out.splitlines()) + ["--stderr--", *err.splitlines()]


@pytest.mark.parametrize("view", [(), ("--members",), ("--state",)], ids=["offsets", "members", "state"])
@pytest.mark.parametrize("group", ["busy", "idle"])
def test_describe_is_kafka_consumer_groups_line_for_line(
    groups: KraftNode, capsys: pytest.CaptureFixture[str], group: str, view: tuple[str, ...]
) -> None:
    code, text = ours(groups, capsys, "--describe", "--group", group, *view)
    assert code == 0
    assert text.splitlines() == tool(groups, "--describe", "--group", group, *view).splitlines()
    if group == "idle" and not view:
        rows = [line.split() for line in text.partition("\n--stderr--\n")[0].splitlines() if line.startswith("idle ")]
        assert sum(int(r[3]) for r in rows if r[3] != "-") == 15  # what it committed, over 3 partitions
        assert "Consumer group 'idle' has no active members." in text


async def test_the_groups_tab_says_kafka_s_refusals(groups: KraftNode) -> None:
    """`x` and `X` on the active group: asked first, refused by Kafka with its reason, nothing changed."""
    connection = KafkaConnection.parse(groups.bootstrap)
    source = AdminSource(connection, timeout_s=5.0)
    app = KafkatopApp(Sources(source.poll, group_tools=GroupTools(connection)), Settings(poll_interval_s=0.5))
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            panel = app.query_one(GroupsPane)
            await pilot.press("5")
            await pilot_until(pilot, lambda: panel.selected_group is not None, "a group highlighted")
            for _ in range(4):
                if panel.selected_group == "busy":
                    break
                await pilot.press("j")
            assert panel.selected_group == "busy"
            for key, says in (("x", "NON_EMPTY_GROUP"), ("X", "GROUP_SUBSCRIBED_TO_TOPIC")):
                await pilot.press(key)
                await pilot_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation")
                await pilot.press("y")

                def refused(says: str = says) -> bool:
                    return app.last_action is not None and says in (app.last_action.error or "")

                await pilot_until(pilot, refused, says)
    finally:
        source.close()
    assert "busy" in tool(groups, "--list").split("--stderr--")[0].split()


@pytest.fixture(scope="module")
def kip848(groups: KraftNode) -> Iterator[KraftNode]:
    """`billing`: a KIP-848 group of two members and `static`: a classic group with a static member, polling until
    the module ends."""
    members = [
        Consumer({"bootstrap.servers": groups.bootstrap, "group.id": "billing", "group.protocol": "consumer",
                  "client.id": f"billing-{i}", "auto.offset.reset": "earliest"})
        for i in range(2)
    ] + [Consumer({"bootstrap.servers": groups.bootstrap, "group.id": "static", "client.id": "static-1",
                   "group.instance.id": "instance-1", "auto.offset.reset": "earliest"})]  # fmt: skip
    for m in members:
        m.subscribe([TOPIC])

    def stable() -> bool:
        state = tool(groups, "--describe", "--group", "billing", "--state", "--verbose")
        rows = tool(groups, "--describe", "--group", "billing", "--members").count("billing-")
        return rows == 2 and "Stable" in state and "static-1" in tool(groups, "--describe", "--group", "static",
                                                                        "--members")  # fmt: skip

    with polled(members, "kip848-members"):
        wait_for(stable, timeout_s=60, interval_s=0.5, what="billing's two members and static's one, stable")
        yield groups


@pytest.mark.parametrize("view", [("--members", "--verbose"), ("--state", "--verbose"), ("--verbose",), ("--members",)],
                         ids=["members-verbose", "state-verbose", "offsets-verbose", "members"])  # fmt: skip
@pytest.mark.parametrize("group", ["billing", "static"])
def test_kip848_and_static_groups_are_described_as_the_tool_does(
    kip848: KraftNode, capsys: pytest.CaptureFixture[str], group: str, view: tuple[str, ...]
) -> None:
    """Epochs, current and target assignments (KIP-848, from ConsumerGroupDescribe), '-' for a classic group's, and the
    GROUP-INSTANCE-ID column of a static member, as kafka-consumer-groups.sh 4.1 prints them."""
    code, text = ours(kip848, capsys, "--describe", "--group", group, *view)
    assert code == 0
    assert text.splitlines() == tool(kip848, "--describe", "--group", group, *view).splitlines()


def test_list_is_kafka_groups_line_for_line(groups: KraftNode, capsys: pytest.CaptureFixture[str]) -> None:
    """Classic groups (busy, idle) and a KIP-848 one, listed with their types as kafka-groups.sh --list, byte for byte
    (its rows in sorted order: the tool prints them in the order the brokers' answers came), with each filter."""
    member = Consumer({"bootstrap.servers": groups.bootstrap, "group.id": "kip848", "group.protocol": "consumer",
                       "auto.offset.reset": "earliest"})  # fmt: skip
    member.subscribe([TOPIC])
    try:
        wait_for(lambda: member.poll(0.1) is not None or member.assignment(), timeout_s=60, what="kip848 assigned")
        for argv in ((), ("--consumer",), ("--group-type", "consumer"), ("--group-type", "classic"),
                     ("--protocol", "consumer"), ("--share",)):  # fmt: skip
            code, text = ours(groups, capsys, "--list", *argv)
            assert code == 0 and lines(text) == lines(groups_tool(groups, "--list", *argv)), argv
        code, text = ours(groups, capsys, "--list")
        assert "kip848               Consumer             consumer             " in text.splitlines()
    finally:
        member.close()


def test_list_and_delete(groups: KraftNode, capsys: pytest.CaptureFixture[str]) -> None:
    code, text = ours(groups, capsys, "--list")
    assert code == 0 and lines(text) == lines(groups_tool(groups, "--list"))
    assert ours(groups, capsys, "--delete", "--group", "busy") == (1, (
        "Error: Deletion of some consumer groups failed:\n"
        "* Group 'busy' could not be deleted due to: NON_EMPTY_GROUP: The group is not empty.\n"
        "\n--stderr--\n"
    ))  # fmt: skip
    code, text = ours(groups, capsys, "--delete-offsets", "--group", "busy", "--topic", TOPIC)
    assert code == 1 and text.splitlines()[1:4] == [
        "Error: Encountered some partition-level error, see the follow-up details.", "",
        "TOPIC           PARTITION  STATUS         ",
    ]  # fmt: skip
    assert text.count("Error: GROUP_SUBSCRIBED_TO_TOPIC: Deleting offsets of a topic is forbidden while") == 3
    code, text = ours(groups, capsys, "--delete-offsets", "--group", "idle", "--topic", f"{TOPIC}:0")
    assert (code, text.splitlines()[0]) == (0, "Request succeeded for deleting offsets from group idle.")
    assert f"{TOPIC:<15} 0          Successful" in text
    described = tool(groups, "--describe", "--group", "idle").split("--stderr--")[0]
    assert not any(line.split()[:3] == ["idle", TOPIC, "0"] for line in described.splitlines())
    assert ours(groups, capsys, "--delete", "--group", "idle") == (
        0,
        "Deletion of requested consumer groups ('idle') was successful.\n\n--stderr--\n",
    )
    assert "idle" not in tool(groups, "--list").split("--stderr--")[0].split()
    code, text = ours(groups, capsys, "--describe", "--group", "idle")
    assert code == 2 and "no consumer group 'idle' in the cluster" in text
