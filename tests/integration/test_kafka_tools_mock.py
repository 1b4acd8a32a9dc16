"""kafkatop's commands that answer as Kafka's own tools do, on the librdkafka mock cluster (tests/conftest.py's
`mock_cluster`, brokers 1, 2, 3): what it cannot answer is said in one line (exit 1), bad input is refused before
anything is sent (exit 2). The comparisons with Kafka's tools are in test_kafka_tools_kafka.py."""

from __future__ import annotations

import pytest

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.tui.cli.main import main


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
