"""`kafkatop groups --reset-offsets` against a real Apache Kafka, compared with kafka-consumer-groups.sh 4.1 on the same
node line for line: --dry-run with --to-datetime (a zone; none: UTC, as the tool reads it, under another TZ too; an
offset), --shift-by (in and out of the log: the tool's WARN on stderr), --by-duration, --to-current --all-topics,
--all-groups --export and --from-file; rows in the order the tool prints them (its HashMaps'). Then --execute, the
offsets read back with the tool's --describe; and a group with a member: the tool's Error line, line for line, and
kafkatop's exit 1 with what to do. Set KAFKA_HOME to run; KAFKATOP_TEST_PORTS=LOW-HIGH keeps the node's ports in that
range."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition

import tests.integration.test_real_kafka as real_kafka
from kafkatop.tui.cli.main import main
from tests.conftest import wait_for
from tests.integration.test_real_kafka import KraftNode, commit_retrying, create_topic, ports_in, running_node

pytestmark = pytest.mark.kafka

TOPIC = "orders"
STEP_MS = 30 * 60_000  # the records of each partition are half an hour apart, the last half an hour ago
RECORDS = 10
HEADER = "GROUP                          TOPIC                          PARTITION  NEW-OFFSET     "


@pytest.fixture(scope="module")
def kafka(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[KraftNode]:
    """The node, its ports from KAFKATOP_TEST_PORTS where given (machines shared by several test runs)."""
    ports = None
    if spec := os.environ.get("KAFKATOP_TEST_PORTS"):
        low, high = (int(x) for x in spec.split("-"))
        ports = ports_in(low, high + 1)
    with running_node(kafka_home, tmp_path_factory.mktemp("kraft"), ports=ports) as node:
        yield node


@pytest.fixture(scope="module")
def base_ms(kafka: KraftNode) -> int:
    """`orders`: 3 partitions of 10 records, record i of each at base + i * 30 min; group billing committed 4 on
    orders-0 and 6 on orders-1, group audit 7 on orders-2. Returns base (epoch ms)."""
    create_topic(kafka, TOPIC, 3)
    base = (int(time.time() * 1000) // 60_000) * 60_000 - RECORDS * STEP_MS
    producer = Producer({"bootstrap.servers": kafka.bootstrap, "logger": real_kafka.CLIENT_LOGGER})
    for p in range(3):
        for i in range(RECORDS):
            producer.produce(TOPIC, f"r{i}".encode(), partition=p, timestamp=base + i * STEP_MS)
    assert producer.flush(20) == 0
    for group, offsets in (("billing", {0: 4, 1: 6}), ("audit", {2: 7})):
        committer = Consumer({"bootstrap.servers": kafka.bootstrap, "group.id": group, "enable.auto.commit": False,
                              "logger": real_kafka.CLIENT_LOGGER})  # fmt: skip
        wanted = [KafkaTopicPartition(TOPIC, p, o) for p, o in offsets.items()]
        wait_for(lambda c=committer, w=wanted: commit_retrying(c, w), timeout_s=30, interval_s=0.3,  # type: ignore[misc]
                 what=f"group {group}'s commit")  # fmt: skip
        committer.close()
    return base


def tool(node: KraftNode, *args: str) -> tuple[str, str]:
    """kafka-consumer-groups.sh's stdout, and its stderr without log4j's timestamp and logger."""
    done = subprocess.run([str(node.home / "bin" / "kafka-consumer-groups.sh"), "--bootstrap-server", node.bootstrap,
                           *args], capture_output=True, text=True, timeout=90)  # fmt: skip
    stderr = [line.split("] ", 1)[-1].removesuffix(" (org.apache.kafka.tools.consumer.group.ConsumerGroupCommand)")
              for line in done.stderr.splitlines()]  # fmt: skip
    return done.stdout, "\n".join(stderr)


def ours(node: KraftNode, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main(["groups", "--bootstrap-server", node.bootstrap, *args])
    out, err = capsys.readouterr()
    return status, out, err


def table(out: str) -> list[str]:
    """The lines as printed, in the tool's order (rows of its HashMaps: java_order.py)."""
    return out.splitlines()


def utc(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def test_dry_runs_print_what_the_tool_prints(
    kafka: KraftNode, base_ms: int, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    between = base_ms + 3 * STEP_MS + 10 * 60_000  # 10 minutes after record 3: record 4 is the first at or after
    local = datetime.fromtimestamp(between / 1000).strftime("%Y-%m-%dT%H:%M:%S.000")
    plus2 = utc(between).astimezone(timezone(timedelta(hours=2))).strftime("%Y-%m-%dT%H:%M:%S.000+02:00")
    back = int(time.time() * 1000) - (base_ms + 6 * STEP_MS + 15 * 60_000)  # 15 minutes after record 6, from now
    duration = f"PT{back // 60_000}M"
    export = tmp_path / "plan.csv"
    export.write_text(f"{TOPIC},0,2\n{TOPIC},2,99\n", encoding="utf-8")
    cases = [
        ("--group", "billing", "--to-datetime", utc(between).strftime("%Y-%m-%dT%H:%M:%S.000Z"), "--topic", TOPIC),
        ("--group", "billing", "--to-datetime", local, "--topic", f"{TOPIC}:0,2"),
        ("--group", "billing", "--to-datetime", plus2, "--topic", TOPIC),
        ("--group", "billing", "--to-datetime", "2099-01-01T00:00:00.000Z", "--topic", f"{TOPIC}:1"),  # none after
        ("--group", "billing", "--shift-by", "-3", "--topic", f"{TOPIC}:0,1"),
        ("--group", "billing", "--shift-by", "5", "--topic", f"{TOPIC}:0,1"),  # past the log end: the tool's WARN
        ("--group", "billing", "--by-duration", duration, "--topic", TOPIC),
        ("--group", "billing", "--by-duration", "P1D", "--topic", TOPIC),
        ("--group", "billing", "--to-current", "--all-topics"),
        ("--group", "billing", "--group", "audit", "--to-earliest", "--all-topics", "--export"),
        ("--all-groups", "--to-latest", "--topic", TOPIC, "--export"),
        ("--group", "billing", "--from-file", str(export)),
    ]
    for case in cases:
        args = ("--reset-offsets", *case, "--dry-run")
        kafka_out, kafka_err = tool(kafka, *args)
        status, out, err = ours(kafka, capsys, *args)
        assert status == 0, (case, err)
        print(" ".join(case), "\n", kafka_out)
        assert table(out) == table(kafka_out), case
        assert err.strip() == kafka_err.strip(), case
        assert len(table(out)) > 2 or "--export" in case, case  # a table with rows: the case is a real one


def test_a_time_without_a_zone_is_utc_wherever_both_run(
    kafka: KraftNode, base_ms: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under TZ=Asia/Kolkata (UTC+05:30) the tool reads a --to-datetime without a zone as UTC (it adds a "Z"), so
    does kafkatop: record 4 of each partition, the first at or after 10 minutes past record 3 (UTC)."""
    between = base_ms + 3 * STEP_MS + 10 * 60_000
    args = ("--reset-offsets", "--group", "billing", "--to-datetime", utc(between).strftime("%Y-%m-%dT%H:%M:%S.000"),
            "--topic", TOPIC, "--dry-run")  # fmt: skip
    monkeypatch.setenv("TZ", "Asia/Kolkata")  # the tool's JVM inherits it
    time.tzset()
    try:
        kafka_out, _ = tool(kafka, *args)
        status, out, err = ours(kafka, capsys, *args)
    finally:
        monkeypatch.undo()
        time.tzset()
    assert (status, err) == (0, "")
    assert table(out) == table(kafka_out)
    assert sorted(line.split()[2:] for line in out.splitlines()[2:]) == [[str(p), "4"] for p in range(3)]


def test_execute_commits_what_the_tool_then_reads(
    kafka: KraftNode, base_ms: int, capsys: pytest.CaptureFixture[str]
) -> None:
    when = utc(base_ms + 2 * STEP_MS).strftime("%Y-%m-%dT%H:%M:%S.000Z")  # record 2, exactly
    args = ("--reset-offsets", "--group", "audit", "--to-datetime", when, "--topic", TOPIC)
    planned = tool(kafka, *args, "--dry-run")[0]
    status, out, err = ours(kafka, capsys, *args, "--execute")  # not a terminal: a script is not asked
    assert (status, err) == (0, "")
    assert table(out) == table(planned)
    described = tool(kafka, "--describe", "--group", "audit")[0]
    rows = sorted(line.split()[:4] for line in described.splitlines() if line.startswith("audit "))
    assert rows == [["audit", TOPIC, str(p), "2"] for p in range(3)]


def test_a_group_with_a_member_is_refused_in_the_tools_words(
    kafka: KraftNode, base_ms: int, capsys: pytest.CaptureFixture[str]
) -> None:
    member = Consumer({"bootstrap.servers": kafka.bootstrap, "group.id": "busy", "auto.offset.reset": "earliest",
                       "client.id": "busy-client", "logger": real_kafka.CLIENT_LOGGER})  # fmt: skip
    member.subscribe([TOPIC])
    stop = threading.Event()

    def polling() -> None:
        while not stop.is_set():
            member.poll(0.2)

    thread = threading.Thread(target=polling, daemon=True)
    thread.start()
    try:
        wait_for(lambda: "Stable" in tool(kafka, "--describe", "--group", "busy", "--state")[0], timeout_s=30,
                 interval_s=0.5, what="the busy group, stable")  # fmt: skip
        args = ("--reset-offsets", "--group", "busy", "--to-earliest", "--topic", TOPIC, "--execute")
        kafka_out, _ = tool(kafka, *args)
        status, out, err = ours(kafka, capsys, *args)
        print(kafka_out, out, err)
        refusal = ("Error: Assignments can only be reset if the group 'busy' is inactive, but the current state is "
                   "Stable.")  # fmt: skip
        assert out.splitlines() == kafka_out.splitlines() == ["", refusal, "", HEADER]
        assert status == 1
        assert "stop its consumers first" in err and "kafkatop groups --group busy --members" in err
        # Every group: the busy one refused in the tool's line, the others planned.
        args = ("--reset-offsets", "--all-groups", "--to-earliest", "--topic", TOPIC, "--dry-run")
        kafka_out, _ = tool(kafka, *args)
        status, out, err = ours(kafka, capsys, *args)
        assert table(out) == table(kafka_out)
        assert refusal in out and "billing " in out and "audit " in out
        assert status == 1
    finally:
        stop.set()
        thread.join(5)
        member.close()
