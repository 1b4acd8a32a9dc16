"""`kafkatop share-groups` against a real Apache Kafka 4.1 (KAFKA_HOME), compared with kafka-share-groups.sh on the
same node line for line, with real share consumers (kafka-console-share-consumer.sh, each in its own session):

- before share.version=1: one line saying share groups are off and how to turn them on, exit 1;
- `sg-idle`: a consumer read 10 records and left (Empty); `sg-busy`: a consumer reading until the module ends
  (Stable, one member with all 3 partitions); `sg-gone`: read 5 records and left, for the deletions;
- --list (and --list --state), --describe's offsets, --members and --state (and --verbose) of both groups: the same
  lines, rows sorted for --list (the tool prints them in its coordinators' order). sg-busy's START-OFFSET is masked:
  its consumer acknowledges as it goes, so the two calls may see different values;
- --json's end offsets are the partitions' high watermarks, its lag their difference from the start offset;
- one ShareGroupDescribe and one DescribeShareGroupOffsets for all the groups of a coordinator;
- deleting: refused for the active group (--delete, --delete-offsets) and for a group that is none, as the tool
  refuses them (its Java exception names stand where kafkatop writes Kafka's error names: compared without either);
  done for sg-gone (its offsets of the topic, then the group), the tool then seeing them gone.

Run: KAFKA_HOME=/opt/kafka_2.13-4.1.0 .venv/bin/python -m pytest -q -m kafka \
  tests/integration/test_share_groups_kafka.py
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, ResourceType

from kafkatop.backends.kafka.share_groups.share_groups import ShareGroupReader, describe_share_groups
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.protocol.connection import BrokerConnection
from kafkatop.tui.cli.main import main
from tests.conftest import wait_for
from tests.integration.test_real_kafka import KraftNode, create_topic, node_env, stop_session

pytestmark = pytest.mark.kafka

TOPIC = "queue"
RECORDS = 60
GROUPS = ("sg-idle", "sg-busy", "sg-gone")


@dataclass
class ShareCluster:
    node: KraftNode
    env: dict[str, str]


def run_tool(cluster: ShareCluster, script: str, *argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(cluster.node.home / "bin" / script), "--bootstrap-server", cluster.node.bootstrap, *argv],
        env=cluster.env, capture_output=True, text=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def tool(cluster: ShareCluster, *argv: str) -> tuple[str, str]:
    """kafka-share-groups.sh's stdout and stderr (its log lines, if any, left out)."""
    done = run_tool(cluster, "kafka-share-groups.sh", *argv)
    return done.stdout, "\n".join(line for line in done.stderr.splitlines() if not line.startswith("["))


def ours(cluster: ShareCluster, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["share-groups", *argv, "--bootstrap-server", cluster.node.bootstrap])
    out, err = capsys.readouterr()
    return code, out, err


def share_consume(cluster: ShareCluster, group: str, count: int) -> None:
    """A share consumer that reads `count` records, acknowledges them, and leaves."""
    done = run_tool(cluster, "kafka-console-share-consumer.sh", "--topic", TOPIC, "--group", group,
                    "--max-messages", str(count), "--consumer-property", f"client.id={group}-client")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == count


@pytest.fixture(scope="module")
def share(kafka: KraftNode, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShareCluster]:
    logs = tmp_path_factory.mktemp("share-tools")
    cluster = ShareCluster(kafka, node_env(logs))
    upgraded = run_tool(cluster, "kafka-features.sh", "upgrade", "--feature", "share.version=1")
    assert upgraded.returncode == 0, upgraded.stdout + upgraded.stderr
    create_topic(kafka, TOPIC, 3)
    admin = AdminClient({"bootstrap.servers": kafka.bootstrap})
    earliest = [ConfigEntry("share.auto.offset.reset", "earliest", incremental_operation=AlterConfigOpType.SET)]
    resources = [ConfigResource(ResourceType.GROUP, g, incremental_configs=earliest) for g in GROUPS]
    for future in admin.incremental_alter_configs(resources).values():
        future.result(timeout=20)
    producer = Producer({"bootstrap.servers": kafka.bootstrap})
    for i in range(RECORDS):
        producer.produce(TOPIC, f"r{i}".encode(), key=str(i).encode())
    assert producer.flush(20) == 0
    share_consume(cluster, "sg-idle", 10)
    share_consume(cluster, "sg-gone", 5)
    out = logs / "busy.out"
    with open(out, "wb") as sink:
        busy = subprocess.Popen(
            [str(kafka.home / "bin" / "kafka-console-share-consumer.sh"), "--bootstrap-server", kafka.bootstrap,
             "--topic", TOPIC, "--group", "sg-busy", "--consumer-property", "client.id=busy-client"],
            env=cluster.env, stdout=sink, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
    try:
        connection = KafkaConnection.parse(kafka.bootstrap)

        def assigned() -> bool:
            group = describe_share_groups(connection, ["sg-busy"], 5.0)["sg-busy"]
            return len({tp for m in group.members for tp in m.assignment}) == 3

        wait_for(assigned, timeout_s=60, interval_s=0.5, what="sg-busy's member with the 3 partitions")
        wait_for(lambda: len(out.read_bytes().splitlines()) >= RECORDS, timeout_s=60, interval_s=0.5,
                 what=f"sg-busy's consumer to read the {RECORDS} records")  # fmt: skip
        yield cluster
    finally:
        stop_session(busy, 15)


def masked(group: str, text: str) -> list[str]:
    """sg-busy's START-OFFSET (the last column of its offset rows) moves while its consumer acknowledges."""
    if group != "sg-busy":
        return text.splitlines()
    return [re.sub(r"^(sg-busy .* )\d+$", r"\1<start>", line) for line in text.splitlines()]


def without_error_names(text: str) -> list[str]:
    """Kafka's error names (ours) and Java's exception classes (the tool's) taken out of an error line."""
    text = re.sub(r"(org\.apache\.kafka\.common\.errors|java\.lang)\.\w+: ", "", text)
    return [re.sub(r"\b[A-Z][A-Z_]{2,}: ", "", line) for line in text.splitlines()]


# --- reading --------------------------------------------------------------------------------------------------------
def test_a_cluster_with_share_version_0_is_one_line(kafka: KraftNode, capsys: pytest.CaptureFixture[str]) -> None:
    """Runs first (file order), before the `share` fixture turns share groups on."""
    code = main(["share-groups", "--list", "--bootstrap-server", kafka.bootstrap])
    err = capsys.readouterr().err
    if "share.version=0" not in err and code == 0:
        pytest.skip("share groups were already on: another test of this module ran first")
    assert code == 1
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "share groups are off" in err and "share.version=0" in err
    assert "kafka-features.sh --bootstrap-server HOST:PORT upgrade --feature share.version=1" in err
    assert "kafkatop up --share-groups" in err


def test_list_is_kafka_share_groups_line_for_line(share: ShareCluster, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = ours(share, capsys, "--list")
    theirs, _ = tool(share, "--list")
    assert (code, err) == (0, "")
    assert out.splitlines() == sorted(theirs.splitlines()) == sorted(GROUPS)
    code, out, _ = ours(share, capsys, "--list", "--state")
    header, *rows = tool(share, "--list", "--state")[0].splitlines()
    assert code == 0 and out.splitlines() == [header, *sorted(rows)]
    assert "sg-busy         Stable" in out and "sg-idle         Empty" in out


@pytest.mark.parametrize(
    "view",
    [(), ("--verbose",), ("--members",), ("--members", "--verbose"), ("--state",), ("--state", "--verbose")],
    ids=["offsets", "offsets-verbose", "members", "members-verbose", "state", "state-verbose"],
)
@pytest.mark.parametrize("group", ["sg-busy", "sg-idle"])
def test_describe_is_kafka_share_groups_line_for_line(
    share: ShareCluster, capsys: pytest.CaptureFixture[str], group: str, view: tuple[str, ...]
) -> None:
    code, out, err = ours(share, capsys, "--describe", "--group", group, *view)
    theirs, their_err = tool(share, "--describe", "--group", group, *view)
    assert code == 0
    assert masked(group, out) == masked(group, theirs)
    note = f"Share group '{group}' has no active members."
    assert (note in err) == (note in their_err) == (group == "sg-idle" and bool(view) and view[0] != "--verbose")
    if group == "sg-idle" and not view:
        starts = [line.split()[3] for line in out.splitlines()[2:]]
        assert sum(int(s) for s in starts if s != "-") >= 10  # acknowledged: at least the 10 it read, over 3


def test_json_adds_each_partitions_end_and_lag(share: ShareCluster, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = ours(share, capsys, "--describe", "--group", "sg-idle", "--json")
    (described,) = json.loads(out)
    consumer = Consumer({"bootstrap.servers": share.node.bootstrap, "group.id": "kafkatop-test-watermarks"})
    try:
        ends = {p: consumer.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=10)[1] for p in range(3)}
    finally:
        consumer.close()
    assert code == 0 and sum(ends.values()) == RECORDS
    theirs = {line.split()[2]: line.split()[3] for line in tool(share, "--describe", "--group", "sg-idle")[0]
              .splitlines()[2:]}  # fmt: skip
    for p in described["offsets"]:
        assert p["end_offset"] == ends[p["partition"]]
        start = p["start_offset"]
        assert theirs[str(p["partition"])] == ("-" if start is None else str(start))
        assert p["lag"] == (None if start is None else ends[p["partition"]] - start)
    assert described["lag"] == sum(p["lag"] for p in described["offsets"] if p["lag"] is not None)
    assert described["state"] == "Empty" and described["members"] == []


def test_one_request_per_coordinator_for_many_groups(share: ShareCluster, monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[int] = []
    request = BrokerConnection.request

    def counted(self: BrokerConnection, api_key: int, *args: object, **kwargs: object) -> bytes:
        sent.append(api_key)
        return request(self, api_key, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(BrokerConnection, "request", counted)
    with ShareGroupReader(KafkaConnection.parse(share.node.bootstrap), timeout_s=15) as reader:
        groups = reader.describe_all(reader.deadline(), end_offsets={})
    assert set(groups) == set(GROUPS) and all(g.error is None for g in groups.values())
    assert sent.count(77) == 1 and sent.count(90) == 1  # ShareGroupDescribe, DescribeShareGroupOffsets: one node
    assert sent.count(10) == 1  # FindCoordinator, every group in one request (v4+)
    assert groups["sg-busy"].members[0].client_id == "busy-client"


# --- deleting -------------------------------------------------------------------------------------------------------
def test_deleting_what_kafka_refuses(share: ShareCluster, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = ours(share, capsys, "--delete", "--group", "sg-busy", "--group", "nosuch", "--yes")
    theirs, _ = tool(share, "--delete", "--group", "sg-busy", "--group", "nosuch")
    assert code == 1
    assert "NON_EMPTY_GROUP: Share group 'sg-busy' is not EMPTY." in out
    ours_lines, their_lines = without_error_names(out), without_error_names(theirs)
    assert ours_lines[:2] == their_lines[:2] == ["", "Error: Deletion of some share groups failed:"]
    assert sorted(ours_lines[2:]) == sorted(their_lines[2:])  # groups: ours as asked, the tool's in its hash order
    code, out, _ = ours(share, capsys, "--delete-offsets", "--group", "sg-busy", "--topic", TOPIC, "--yes")
    theirs, _ = tool(share, "--delete-offsets", "--group", "sg-busy", "--topic", TOPIC)
    assert code == 1 and "Error: NON_EMPTY_GROUP: The group is not empty." in out
    assert without_error_names(out) == without_error_names(theirs)
    code, out, _ = ours(share, capsys, "--delete-offsets", "--group", "sg-gone", "--topic", "nope", "--yes")
    theirs, _ = tool(share, "--delete-offsets", "--group", "sg-gone", "--topic", "nope")
    assert code == 1 and without_error_names(out) == without_error_names(theirs)
    assert "sg-busy" in tool(share, "--list")[0].split()


def test_deleting_an_empty_groups_offsets_then_the_group(
    share: ShareCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    before = tool(share, "--describe", "--group", "sg-gone")[0]
    assert f"sg-gone         {TOPIC}" in before
    code, out, _ = ours(share, capsys, "--delete-offsets", "--group", "sg-gone", "--topic", TOPIC, "--yes")
    assert (code, out.splitlines()) == (0, ["", "TOPIC           STATUS", f"{TOPIC:<15} Successful"])
    after, _ = tool(share, "--describe", "--group", "sg-gone")
    assert TOPIC not in after
    code, out, _ = ours(share, capsys, "--describe", "--group", "sg-gone")
    assert code == 0 and out.splitlines() == after.splitlines()  # the header alone, as the tool prints it
    code, out, _ = ours(share, capsys, "--delete", "--group", "sg-gone", "--yes")
    assert (code, out) == (0, "Deletion of requested share groups ('sg-gone') was successful.\n")
    assert "sg-gone" not in tool(share, "--list")[0].split()
    code, _, err = ours(share, capsys, "--describe", "--group", "sg-gone")
    assert code == 2 and "no share group 'sg-gone' in the cluster" in err


def test_the_tool_and_kafkatop_agree_after_the_deletions(share: ShareCluster) -> None:
    """What is left: the two groups of the reading tests, as both list them."""
    assert sorted(tool(share, "--list")[0].split()) == ["sg-busy", "sg-idle"]


def test_the_live_polls_groups_hold_the_share_groups(share: ShareCluster) -> None:
    """The Groups tab's data: an AdminSource poll shows each share group once, of type share, with its state, its
    members and each partition's start offset (as kafka-share-groups.sh --describe prints it) and lag to the end."""
    from kafkatop.backends.kafka.admin.admin import AdminSource
    from kafkatop.backends.model.cluster import ClusterSnapshot

    source = AdminSource(KafkaConnection.parse(share.node.bootstrap), timeout_s=10.0)

    def with_share_groups() -> ClusterSnapshot | None:
        polled = source.poll()
        return polled if any(g.group_type == "share" for g in polled.groups) else None

    try:
        snapshot = wait_for(with_share_groups, timeout_s=30, what="share groups in a poll")
    finally:
        source.close()
    ids = [g.group_id for g in snapshot.groups]
    assert len(ids) == len(set(ids))  # listed by ListGroups too: shown once
    by_id = {g.group_id: g for g in snapshot.groups}
    idle, busy = by_id["sg-idle"], by_id["sg-busy"]
    assert (idle.group_type, idle.state.value, idle.members) == ("share", "Empty", ())
    assert busy.group_type == "share" and busy.state.value == "Stable"
    assert {tp.partition for m in busy.members for tp in m.assignment} == {0, 1, 2}
    assert busy.members[0].client_id == "busy-client" and busy.group_epoch is not None
    theirs = {line.split()[2]: line.split()[3] for line in tool(share, "--describe", "--group", "sg-idle")[0]
              .splitlines()[2:]}  # fmt: skip
    assert {str(o.partition): "-" if o.committed is None else str(o.committed) for o in idle.offsets} == theirs
    for o in idle.offsets:
        assert o.lag == (None if o.committed is None else o.high_watermark - o.committed)  # type: ignore[operator]
