"""`kafkatop groups --reset-offsets` against the librdkafka mock cluster: the plan (GroupAdmin.plan_reset, the live
view's own) for each of kafka-consumer-groups.sh's reset specifications, printed in the tool's table (its widths, a
blank line first), CSV (--export) read back by --from-file, --execute committing exactly what was printed, and bad
input refused in words before anything is sent. The mock answers ListOffsets by timestamp with "none", so
--to-datetime and --by-duration land on the log end here (with the tool's Warn line), and OffsetFetch of all a group's
partitions and ListGroups with nothing, so --all-topics and --all-groups are checked only in
test_reset_offsets_kafka.py, which also checks times inside the log against the tool."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Producer

from kafkatop.backends.kafka.groups.group_offsets import GroupAdmin
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.cli.main import main

pytestmark = pytest.mark.timeout(60)

HEADER = "GROUP                          TOPIC                          PARTITION  NEW-OFFSET     "


def row(group: str, topic: str, partition: int, offset: int) -> str:
    return f"{group:<30} {topic:<30} {partition:<10} {offset:<15}"


# The tool prints t's partitions in its HashMap<TopicPartition>'s order: TopicPartition.hashCode() is
# 31 * (31 + partition) + "t".hashCode(), buckets 5, 4, 3 of 16 for t-0, t-1, t-2, so t-2 first.


@pytest.fixture
def cluster(mock_cluster: MockCluster) -> Iterator[tuple[str, GroupAdmin]]:
    """Topic t: 3 partitions of 10 records; group billing committed 4 on t-0 and t-1, nothing on t-2."""
    mock_cluster.create_topic("t", 3, 1)
    producer = Producer({"bootstrap.servers": mock_cluster.bootstrap_servers})
    for p in range(3):
        for i in range(10):
            producer.produce("t", f"r{i}".encode(), partition=p)
    assert producer.flush(15) == 0
    admin = GroupAdmin(KafkaConnection.parse(mock_cluster.bootstrap_servers), timeout_s=5.0)
    admin.reset_offsets("billing", "t", "offset", 4, partitions=[0, 1])
    try:
        yield mock_cluster.bootstrap_servers, admin
    finally:
        admin.close()


def reset(bootstrap: str, *args: str) -> int:
    return main(["groups", "--bootstrap-server", bootstrap, "--group", "billing", "--reset-offsets", *args])


def test_the_plan_is_printed_as_the_tool_prints_it_and_nothing_changes(
    cluster: tuple[str, GroupAdmin], capsys: pytest.CaptureFixture[str]
) -> None:
    bootstrap, admin = cluster
    assert reset(bootstrap, "--to-earliest", "--topic", "t") == 0
    out, err = capsys.readouterr()
    assert out == "\n".join(["", HEADER, row("billing", "t", 2, 0), row("billing", "t", 1, 0),
                             row("billing", "t", 0, 0)]) + "\n"  # fmt: skip
    assert err.startswith("WARN: No action will be performed as the --execute option is missing.")  # the tool's
    assert admin.committed_offsets("billing", "t") == {0: 4, 1: 4, 2: None}

    cases = {
        ("--to-latest", "--topic", "t:2"): [("t", 2, 10)],
        ("--to-current", "--topic", "t"): [("t", 2, 10), ("t", 1, 4), ("t", 0, 4)],  # none committed: the log end
        ("--shift-by", "-3", "--topic", "t:0,1"): [("t", 1, 1), ("t", 0, 1)],
        ("--to-offset", "7", "--topic", "t:0,1"): [("t", 1, 7), ("t", 0, 7)],
    }
    for args, rows in cases.items():
        assert reset(bootstrap, *args, "--dry-run") == 0
        out, err = capsys.readouterr()
        assert out.splitlines() == ["", HEADER, *(row("billing", *r) for r in rows)], args
        assert err == "", args  # --dry-run given: no warning
    assert admin.committed_offsets("billing", "t") == {0: 4, 1: 4, 2: None}


def test_out_of_range_offsets_are_moved_into_the_log_with_the_tools_warning(
    cluster: tuple[str, GroupAdmin], capsys: pytest.CaptureFixture[str]
) -> None:
    bootstrap, _ = cluster
    assert reset(bootstrap, "--to-offset", "99", "--topic", "t:0", "--dry-run") == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[-1] == row("billing", "t", 0, 10)
    assert err == "WARN New offset (99) is higher than latest offset for topic partition t-0. Value will be set to 10\n"
    assert reset(bootstrap, "--shift-by", "-9", "--topic", "t:1", "--dry-run") == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[-1] == row("billing", "t", 1, 0)
    assert "New offset (-5) is lower than earliest offset for topic partition t-1. Value will be set to 0" in err


def test_a_time_with_no_record_after_it_falls_back_to_the_log_end_as_the_tool_says(
    cluster: tuple[str, GroupAdmin], capsys: pytest.CaptureFixture[str]
) -> None:
    bootstrap, _ = cluster
    for spec in (("--by-duration", "PT1H"), ("--to-datetime", "2099-01-01T00:00:00.000Z")):
        assert reset(bootstrap, *spec, "--topic", "t:0,1", "--dry-run") == 0
        assert capsys.readouterr().out.splitlines() == [
            "", "Warn: Partition 1 from topic t is empty. Falling back to latest known offset.",
            "", "Warn: Partition 0 from topic t is empty. Falling back to latest known offset.",
            "", HEADER, row("billing", "t", 1, 10), row("billing", "t", 0, 10),
        ]  # fmt: skip


def test_export_then_from_file_executes_exactly_the_exported_offsets(
    cluster: tuple[str, GroupAdmin], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bootstrap, admin = cluster
    assert reset(bootstrap, "--to-offset", "6", "--topic", "t", "--dry-run", "--export") == 0
    exported = capsys.readouterr().out
    assert exported == "t,2,6\nt,1,6\nt,0,6\n\n"  # the tool's CSV, and its blank line after it
    plan = tmp_path / "offsets.csv"
    plan.write_text(exported.replace("t,2,6", "t,2,3"), encoding="utf-8")
    assert reset(bootstrap, "--from-file", str(plan), "--execute") == 0  # a script: not asked
    out, err = capsys.readouterr()
    assert out.splitlines() == ["", HEADER, row("billing", "t", 2, 3), row("billing", "t", 1, 6),
                                row("billing", "t", 0, 6)]  # fmt: skip
    assert err == ""
    assert admin.committed_offsets("billing", "t") == {0: 6, 1: 6, 2: 3}
    # The view's plan is the command's: the same offsets, partition by partition.
    assert [m.target for m in admin.plan_reset("billing", ["t"], "current").moves] == [6, 6, 3]


def test_a_shift_without_a_committed_offset_is_refused_in_kafkas_words(
    cluster: tuple[str, GroupAdmin], capsys: pytest.CaptureFixture[str]
) -> None:
    bootstrap, admin = cluster
    assert reset(bootstrap, "--shift-by", "1", "--topic", "t", "--execute") == 1
    assert "Cannot shift offset for partition t-2 since there is no current committed offset" in capsys.readouterr().err
    assert admin.committed_offsets("billing", "t") == {0: 4, 1: 4, 2: None}


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("typed", "status", "after"), [("nope", 1, 4), ("ADDRESS", 0, 0)])
def test_execute_on_an_attached_cluster_at_a_terminal_asks_for_its_address(
    cluster: tuple[str, GroupAdmin],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    typed: str,
    status: int,
    after: int,
) -> None:
    bootstrap, admin = cluster
    address = bootstrap.split(",")[0]
    monkeypatch.setattr(sys, "stdin", _Terminal(typed.replace("ADDRESS", address) + "\n"))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert reset(bootstrap, "--to-earliest", "--topic", "t:0", "--execute") == status
    out, err = capsys.readouterr()
    assert f"type {address} to go ahead" in err
    assert admin.committed_offsets("billing", "t")[0] == after
    if status:
        assert "not confirmed: nothing was reset" in err and HEADER not in out


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--topic", "t"], "--reset-offsets needs one of the reset specifications: --to-earliest"),
        (["--to-earliest", "--to-latest", "--topic", "t"], "--to-earliest and --to-latest together"),
        (["--to-earliest"], "One of the reset scopes should be defined: --all-topics, --topic."),
        (["--to-earliest", "--topic", "t", "--all-topics"], "--topic and --all-topics together"),
        (["--to-earliest", "--topic", "t", "--dry-run", "--execute"], "--dry-run and --execute together"),
        (["--by-duration", "1h", "--topic", "t"], "a duration is ISO-8601 PnDTnHnMnS"),
        (["--to-datetime", "yesterday", "--topic", "t"], "a datetime needs YYYY-MM-DDTHH:MM:SS"),
        (["--to-offset", "x", "--topic", "t"], "expected an offset; not 'x'"),
        (["--from-file", "missing.csv"], "cannot read --from-file 'missing.csv'"),
        (["--from-file", "BAD", "--execute"], "line 1: 'orders,x,5' is not topic,partition,offset"),
        (["--from-file", "BAD", "--topic", "t"], "--from-file names its partitions itself"),
        (["--to-earliest", "--topic", ":0"], "name the topic before its partitions"),
    ],
)
def test_bad_input_is_refused_before_anything_is_sent(
    cluster: tuple[str, GroupAdmin],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    said: str,
) -> None:
    bootstrap, admin = cluster
    monkeypatch.chdir(tmp_path)
    (tmp_path / "BAD").write_text("orders,x,5\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exited:  # argparse's refusals exit 2 themselves
        raise SystemExit(reset(bootstrap, *args))
    assert exited.value.code == 2
    assert said in capsys.readouterr().err
    assert admin.committed_offsets("billing", "t") == {0: 4, 1: 4, 2: None}


def test_reset_options_without_reset_offsets_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["groups", "--bootstrap-server", "127.0.0.1:1", "--group", "g", "--to-earliest"]) == 2
    assert "--to-earliest goes with --reset-offsets" in capsys.readouterr().err
    assert main(["groups", "--bootstrap-server", "127.0.0.1:1", "--group", "g", "--reset-offsets", "--to-earliest",
                 "--topic", "t", "--delete"]) == 2  # fmt: skip
    assert "--reset-offsets and --delete together" in capsys.readouterr().err
