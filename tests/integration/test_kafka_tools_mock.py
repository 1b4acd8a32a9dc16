"""kafkatop's commands that answer as Kafka's own tools do, on the librdkafka mock cluster (tests/conftest.py's
`mock_cluster`, brokers 1, 2, 3): what it cannot answer is said in one line (exit 1), bad input is refused before
anything is sent (exit 2). The comparisons with Kafka's tools are in test_kafka_tools_kafka.py."""

from __future__ import annotations

import re

import pytest
from confluent_kafka import Producer

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.java_order import hash_order, node_hash
from kafkatop.tui.cli.main import main

# kafka-broker-api-versions.sh's line for a node: HOST:PORT (id: N rack: R isFenced: false) -> (
HEAD = re.compile(r"(.+):(\d+) \(id: (\d+) rack: (\S+) isFenced: false\) -> \(")


def kafkatop(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_log_dirs_on_the_mock_says_it_has_no_describe_log_dirs(
    mock_cluster: MockCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = kafkatop(capsys, "log-dirs", "--bootstrap-server", mock_cluster.bootstrap_servers, "--read-only")
    first = mock_cluster.bootstrap_servers.split(",")[0]
    assert (code, out) == (1, "")
    assert err == f"kafkatop: {first} does not offer DescribeLogDirs (a Kafka too old for it?)\n"


def test_log_dirs_refuses_a_broker_not_in_the_cluster(
    mock_cluster: MockCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = kafkatop(capsys, "log-dirs", "--bootstrap-server", mock_cluster.bootstrap_servers,
                              "--broker-list", "2,7,9")  # fmt: skip
    assert (code, out) == (2, "")
    assert (
        err == "kafkatop: no broker 7, 9 in the cluster (its brokers: 1, 2, 3): give ids of --broker-list from those\n"
    )


@pytest.mark.parametrize(
    ("option", "said"),
    [
        (("--broker-list", "1,x"), "argument --broker-list: expected broker ids such as 1,2,3; not '1,x'"),
        (("--top", "-1"), "argument --top: expected a count, 0 or more; not -1"),
    ],
)
def test_log_dirs_bad_input_is_said(capsys: pytest.CaptureFixture[str], option: tuple[str, ...], said: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["log-dirs", "--bootstrap-server", "127.0.0.1:1", *option])
    assert exited.value.code == 2
    _, err = capsys.readouterr()
    assert said in err and "Traceback" not in err


def test_get_offsets_on_the_mock(mock_cluster: MockCluster, capsys: pytest.CaptureFixture[str]) -> None:
    mock_cluster.create_topic("offs", 11, 1)
    producer = Producer({"bootstrap.servers": mock_cluster.bootstrap_servers})
    for i in range(5):
        producer.produce("offs", b"x", partition=10 if i < 3 else 2)
    assert producer.flush(10) == 0
    bootstrap = ("--bootstrap-server", mock_cluster.bootstrap_servers)
    code, out, err = kafkatop(capsys, "get-offsets", *bootstrap, "--topic-partitions", "offs:1-3,offs:10")
    assert (code, out, err) == (0, "offs:1:0\noffs:10:3\noffs:2:2\n", "")
    code, out, err = kafkatop(capsys, "get-offsets", *bootstrap, "--topic", "offs", "--time", "earliest")
    assert code == 0 and out.splitlines()[:3] == ["offs:0:0", "offs:1:0", "offs:10:0"]


@pytest.mark.parametrize(
    ("options", "status", "said"),
    [
        (("--topic", "nothing"), 1, "Could not match any topic-partitions with the specified filters"),
        (("--topic", "offs", "--topic-partitions", "offs:1"), 2,
         "--topic-partitions cannot be used with --topic or --partitions"),
        (("--time", "yesterday"), 2, "Malformed time argument yesterday. Please use -1 or latest / -2 or earliest / "
         "-3 or max-timestamp, or a specified long format timestamp"),
    ],
)  # fmt: skip
def test_get_offsets_refusals(
    mock_cluster: MockCluster, capsys: pytest.CaptureFixture[str], options: tuple[str, ...], status: int, said: str
) -> None:
    code, out, err = kafkatop(capsys, "get-offsets", "--bootstrap-server", mock_cluster.bootstrap_servers, *options)
    assert (code, out, err) == (status, "", f"kafkatop: {said}\n")


def test_metadata_quorum_on_the_mock_says_it_is_no_kraft_cluster(
    mock_cluster: MockCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = kafkatop(capsys, "metadata-quorum", "describe", "--status", "--bootstrap-server",
                              mock_cluster.bootstrap_servers)  # fmt: skip
    assert (code, out) == (1, "")
    first = mock_cluster.bootstrap_servers.split(",")[0]
    assert err.startswith(f"kafkatop: quorum: {first} does not offer DescribeQuorum: a ZooKeeper-mode broker, or "
                          "Kafka older than 3.0; ")  # fmt: skip


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ((), "give one of --status or --replication"),
        (("--status", "--replication"), "give one of --status or --replication"),
        (("--status", "--human-readable"), "--human-readable goes with --replication"),
        (("--status", "--bootstrap-controller", "127.0.0.1:1"),
         "give --bootstrap-server or --bootstrap-controller, not both"),
    ],
)  # fmt: skip
def test_metadata_quorum_refusals(capsys: pytest.CaptureFixture[str], options: tuple[str, ...], said: str) -> None:
    code, out, err = kafkatop(capsys, "metadata-quorum", "describe", "--bootstrap-server", "127.0.0.1:1", *options)
    assert (code, out, err) == (2, "", f"kafkatop: {said}\n")


@pytest.mark.parametrize("action", ["--describe", "--delete", "--alter"])
def test_client_metrics_name_of_the_tool_is_refused_not_ignored(
    capsys: pytest.CaptureFixture[str], action: str
) -> None:
    """kafka-client-metrics.sh's --name is --resource here: with --bootstrap-server, `--describe --name cm1` printed
    every resource (--name, a lab's, went unused); now it says what to type, and nothing is sent."""
    code, out, err = kafkatop(capsys, "client-metrics", "--bootstrap-server", "127.0.0.1:1", action, "--name", "cm 1")
    assert (code, out) == (2, "")
    assert err == (f"kafkatop: --name names a lab cluster in kafkatop (and --bootstrap-server already names the "
                   f"cluster): the tool's --name is --resource here: {action} --resource 'cm 1'\n")  # fmt: skip


@pytest.mark.parametrize(
    ("actions", "said"),
    [
        (("--verify", "--execute"), "--execute and --status (--verify) together: give one"),
        (("--execute", "--cancel"), "--execute and --cancel together: give one"),
        (("--generate", "--execute"), "--generate and --execute together: --generate only prints the plan; drop it"),
    ],
)
def test_reassign_takes_one_action_as_the_tool(
    capsys: pytest.CaptureFixture[str], actions: tuple[str, ...], said: str
) -> None:
    """kafka-reassign-partitions.sh: "Command must include exactly one action"; --verify --execute ran the verify
    and dropped --execute, exit 0. Refused now, before anything is read or sent (the file does not exist)."""
    code, out, err = kafkatop(capsys, "reassign", "--bootstrap-server", "127.0.0.1:1", "--reassignment-json-file",
                              "/nonexistent/plan.json", *actions)  # fmt: skip
    assert (code, out, err) == (2, "", f"kafkatop: {said}\n")


def test_api_versions_on_the_mock(mock_cluster: MockCluster, capsys: pytest.CaptureFixture[str]) -> None:
    mock_cluster.set_broker_rack(2, "r2")
    code, out, err = kafkatop(capsys, "api-versions", "--bootstrap-server", mock_cluster.bootstrap_servers)
    assert (code, err) == (0, "")
    heads = [line for line in out.splitlines() if line.endswith("-> (")]
    assert sorted(h.split(" (", 1)[1] for h in heads) == [
        "id: 1 rack: null isFenced: false) -> (",
        "id: 2 rack: r2 isFenced: false) -> (",
        "id: 3 rack: null isFenced: false) -> (",
    ]
    # In the tool's order: its HashMap<Node>'s (the mock's ports vary, so the order does), ties by id.
    nodes = [
        (int(i), host, int(port), None if rack == "null" else rack)
        for host, port, i, rack in (HEAD.fullmatch(h).groups() for h in heads)
    ]  # type: ignore[union-attr]
    assert nodes == hash_order(sorted(nodes), lambda n: node_hash(*n))
    assert "\tProduce(0): 0 to 10 [usable: 10]," in out.splitlines()  # librdkafka's mock speaks Produce v0–v10


def test_api_versions_lists_the_brokers_metadata_lists(
    mock_cluster: MockCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    """A broker down is not in the metadata, so not listed (as the tool, which asks Metadata too)."""
    mock_cluster.set_broker_down(3)
    try:
        code, out, err = kafkatop(capsys, "api-versions", "--bootstrap-server", mock_cluster.bootstrap_servers,
                                  "--timeout", "3")  # fmt: skip
    finally:
        mock_cluster.set_broker_up(3)
    assert (code, err) == (0, "")
    assert sorted(line.split(" (id: ")[1][0] for line in out.splitlines() if line.endswith("-> (")) == ["1", "2"]


def test_get_offsets_skips_a_partition_that_fails_and_says_why(
    mock_cluster: MockCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    mock_cluster.create_topic("leaderless", 3, 1)
    mock_cluster.set_partition_leader("leaderless", 1, -1)
    code, out, err = kafkatop(capsys, "get-offsets", "--bootstrap-server", mock_cluster.bootstrap_servers,
                              "--topic", "leaderless", "--timeout", "3")  # fmt: skip
    assert (code, out) == (0, "leaderless:0:0\nleaderless:2:0\n")  # as the tool: said, skipped, exit 0
    assert err == (
        "kafkatop: Skip getting offsets for topic-partition leaderless-1 due to error: LEADER_NOT_AVAILABLE: Broker: "
        "Leader not available\n"
    )
