"""`kafkatop topics` (kafka-topics.sh's options and lines) against librdkafka's mock cluster: --list and its filters,
--describe as `kafkatop describe` prints it with the tool's health filters, the tool's error line where Kafka
refuses (the mock serves no CreateTopics, DeleteTopics or CreatePartitions: its refusal is the line), --delete
asking first, and bad input said before anything is sent. The same forms against a real Kafka, compared with
kafka-topics.sh line for line: test_topics_command_kafka.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.tui.cli.main import main
from tests.integration.test_bad_input import kafkatop_typed

pytestmark = pytest.mark.timeout(120)

ERROR = "Error while executing topic command : "


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No kafkatop.toml or config.toml but the test's own."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path


def topics(capsys: pytest.CaptureFixture[str], cluster: MockCluster, *argv: str) -> tuple[int, str, str]:
    status = main(["topics", "--bootstrap-server", cluster.bootstrap_servers, "--timeout", "5", *argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def cluster(mock_cluster: MockCluster) -> MockCluster:
    for name, partitions, replicas in (("orders", 3, 3), ("audit.log", 2, 2), ("__consumer_offsets", 1, 1),
                                       ("Zeta", 1, 1), ("orders-dlq", 1, 1)):  # fmt: skip
        mock_cluster.create_topic(name, partitions, replicas)
    return mock_cluster


# --- --list -----------------------------------------------------------------------------------------------------------
def test_list_is_sorted_one_name_a_line_with_the_tools_filters(
    home: Path, cluster: MockCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    assert topics(capsys, cluster, "--list") == (0, "Zeta\n__consumer_offsets\naudit.log\norders\norders-dlq\n", "")
    status, out, _ = topics(capsys, cluster, "--list", "--exclude-internal")
    assert out.splitlines() == ["Zeta", "audit.log", "orders", "orders-dlq"]
    # A regular expression matched against the whole name; ',' is '|', quotes and spaces dropped (IncludeList).
    assert topics(capsys, cluster, "--list", "--topic", "orders")[1] == "orders\n"
    assert topics(capsys, cluster, "--list", "--topic", "orders.*")[1] == "orders\norders-dlq\n"
    assert topics(capsys, cluster, "--list", "--topic", "'audit.log, Zeta'")[1] == "Zeta\naudit.log\n"
    assert topics(capsys, cluster, "--list", "--topic", "__.*", "--exclude-internal")[1] == "\n"  # the tool's println
    assert topics(capsys, cluster, "--list", "--topic", "nope") == (0, "\n", "")  # --list never errs on none


def test_list_of_a_cluster_without_topics_is_one_empty_line(
    home: Path, mock_cluster: MockCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    assert topics(capsys, mock_cluster, "--list") == (0, "\n", "")


# --- --describe -------------------------------------------------------------------------------------------------------
def test_describe_is_the_describe_commands_lines(
    home: Path, cluster: MockCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    status, ours, _ = topics(capsys, cluster, "--describe")
    assert status == 0
    assert main(["describe", "--bootstrap-server", cluster.bootstrap_servers, "--timeout", "5"]) == 0
    assert ours == capsys.readouterr().out
    assert "Topic: orders\tTopicId: " in ours

    status, some, _ = topics(capsys, cluster, "--describe", "--topic", "orders.*", "--exclude-internal")
    headers = [line.split("\t")[0] for line in some.splitlines() if not line.startswith("\t")]
    assert sorted(headers) == ["Topic: orders", "Topic: orders-dlq"]
    assert [line for line in ours.splitlines() if "orders" in line] == some.splitlines()  # the tool's order, too
    assert "__consumer_offsets" not in topics(capsys, cluster, "--describe", "--exclude-internal")[1]


def test_describe_of_no_such_topic_is_the_tools_error_unless_if_exists(
    home: Path, cluster: MockCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    assert topics(capsys, cluster, "--describe", "--topic", "nope")[:2] == (
        1, f"{ERROR}Topic 'nope' does not exist as expected\n")  # fmt: skip
    assert topics(capsys, cluster, "--describe", "--topic", "nope", "--if-exists")[:2] == (0, "")
    # A name from outside is text: its control characters are shown escaped.
    status, out, _ = topics(capsys, cluster, "--describe", "--topic", "no\x07pe")
    assert (status, out) == (1, f"{ERROR}Topic 'no\\x07pe' does not exist as expected\n")


def test_health_filters_print_only_the_partition_lines_that_match(
    home: Path, cluster: MockCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    for topic, leaders in {"orders": (1, -1, 2), "audit.log": (3, 1), "Zeta": (1,), "orders-dlq": (2,)}.items():
        for partition, leader in enumerate(leaders):  # -1: no leader, unavailable and under min ISR
            cluster.set_partition_leader(topic, partition, leader)
    cluster.set_broker_down(3)  # a leader no longer among the brokers: unavailable too (the tool's liveBrokers)

    def lines(*flags: str) -> list[str]:
        status, out, _ = topics(capsys, cluster, "--describe", "--exclude-internal", *flags)
        assert status == 0
        return out.splitlines()

    unavailable = lines("--unavailable-partitions")
    assert all(line.startswith("\tTopic: ") for line in unavailable), "no topic lines with a partition filter"
    assert [line.split("\t")[1:4] for line in unavailable] == [  # in the tool's order of topics
        ["Topic: orders", "Partition: 1", "Leader: -1"], ["Topic: audit.log", "Partition: 0", "Leader: 3"]]  # fmt: skip
    assert lines("--under-min-isr-partitions") == [line for line in unavailable if "Leader: -1" in line]
    assert lines("--under-replicated-partitions") == []  # the mock keeps every ISR full
    # min.insync.replicas unread (the mock has no DescribeConfigs): Kafka's default, 1; no ISR has exactly one.
    assert [line.split("\t")[1] for line in lines("--at-min-isr-partitions")] == ["Topic: Zeta", "Topic: orders-dlq"]
    assert lines("--topics-with-overrides") == []  # no configs read: none differs from its default


# --- writes -----------------------------------------------------------------------------------------------------------
def test_create_refused_is_the_tools_line_after_its_warning(
    home: Path, cluster: MockCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = topics(capsys, cluster, "--create", "--topic", "new.topic", "--partitions", "2")
    assert status == 1, err
    warning, error = out.splitlines()
    assert warning.startswith("WARNING: Due to limitations in metric names, topics with a period ('.') or underscore")
    assert error.startswith(ERROR) and "not supported by broker" in error  # the mock serves no CreateTopics
    assert "Traceback" not in err
    status, out, _ = topics(capsys, cluster, "--create", "--topic", "plain", "--replica-assignment", "1:2,2:3")
    assert status == 1 and out.startswith(ERROR) and "WARNING" not in out


def test_alter_and_delete_of_no_such_topic(
    home: Path, cluster: MockCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    for action in (["--alter", "--partitions", "4"], ["--delete", "--yes"]):
        assert topics(capsys, cluster, *action, "--topic", "nope")[:2] == (
            1, f"{ERROR}Topic 'nope' does not exist as expected\n")  # fmt: skip
        assert topics(capsys, cluster, *action, "--topic", "nope", "--if-exists") == (0, "", "")
    status, out, _ = topics(capsys, cluster, "--alter", "--topic", "orders", "--partitions", "4")
    assert status == 1 and out.startswith(ERROR) and "not supported by broker" in out


def test_delete_asks_first_and_without_a_terminal_sends_nothing(
    home: Path, cluster: MockCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster.start_request_tracking()
    status, out, err = topics(capsys, cluster, "--delete", "--topic", "orders.*")
    assert (status, out) == (2, "")
    assert "nothing was deleted: --delete asks first, on a terminal; add --yes to delete without asking" in err
    assert "DeleteTopics" not in cluster.request_counts()


def test_delete_at_a_terminal_lists_the_topics_and_wants_the_clusters_name(
    tmp_path: Path, cluster: MockCluster
) -> None:
    bootstrap = cluster.bootstrap_servers
    argv = ("topics", "--delete", "--topic", "orders.*", "--bootstrap-server", bootstrap, "--timeout", "5")
    status, out, shown = kafkatop_typed("yes", *argv, cwd=tmp_path)
    assert "delete 2 topic(s) and all their records: orders, orders-dlq?" in shown
    first = bootstrap.split(",")[0]
    assert f"This cluster is not kafkatop's own: type {first} to go ahead" in shown
    assert (status, out) == (1, "") and "not confirmed: nothing was deleted" in shown  # "yes" is not its name
    status, out, shown = kafkatop_typed(first, *argv, cwd=tmp_path)
    assert status == 1 and out.startswith(ERROR), shown  # confirmed, then the mock refuses DeleteTopics


# --- bad input --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "says"),
    [
        ([], "give exactly one action: --list, --describe, --create, --alter or --delete"),
        (["--list", "--describe"], "give exactly one action"),
        (["--create", "--partitions", "1"], "--create needs --topic"),
        (["--alter", "--topic", "t"], "--alter needs --partitions N"),
        (["--list", "--if-not-exists"], "--if-not-exists does not go with --list (it goes with --create)"),
        (["--describe", "--yes"], "--yes does not go with --describe"),
        (["--list", "--under-replicated-partitions"], "--under-replicated-partitions does not go with --list"),
        (["--describe", "--topic", "a(b"], "--topic 'a(b' is not a regular expression"),
        (["--create", "--topic", "t", "--replica-assignment", "1:x"], "--replica-assignment: partition 0's replicas"),
        (["--create", "--topic", "t", "--replica-assignment", "1:2,3"], "partition 1 has 1 replica(s)"),
        (["--create", "--topic", "t", "--replica-assignment", "1:1"], "partition 0 lists a broker twice"),
        (["--create", "--topic", "t", "--replica-assignment", "1:2", "--partitions", "2"], "leave out --partitions"),
        (["--create", "--topic", "bad name"], "Topic name is invalid: 'bad name' contains one or more characters"),
        (["--create", "--topic", "t", "--config", "retention.ms"], "expected KEY=VALUE"),
    ],
)
def test_bad_input_is_said_before_anything_is_sent(
    home: Path, mock_cluster: MockCluster, capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    mock_cluster.start_request_tracking()
    try:
        status = main(["topics", "--bootstrap-server", mock_cluster.bootstrap_servers, *argv])
    except SystemExit as e:  # argparse's own refusals
        status = int(str(e.code))
    out, err = capsys.readouterr()
    assert status == 2, err
    assert says in err and "Traceback" not in err + out
    assert mock_cluster.requests() == []
