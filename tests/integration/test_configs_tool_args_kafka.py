"""kafka-configs.sh's own command lines given as they are to `kafkatop configs`, against a real Kafka 4.1 KRaft node:
the same arguments to both, the same lines out (--entity-type topics|brokers with --entity-name or --entity-default,
--describe [--all], --alter --add-config / --delete-config). Skipped without KAFKA_HOME.

The node listens on ports of this test's own range (30600-30699).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kafkatop.tui.cli.main import main
from tests.integration.test_real_kafka import NODE_ID, KraftNode, create_topic, kafka_tool, ports_in, running_node

pytestmark = pytest.mark.kafka

PORTS = (30600, 30700)


@pytest.fixture(scope="module")
def node(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[KraftNode]:
    root = tmp_path_factory.mktemp("kraft-configs-tool-args")
    with running_node(kafka_home, root, ports=ports_in(*PORTS)) as started:
        create_topic(started, "purchases", 1, {"retention.ms": "86400000"})
        yield started


def tool(node: KraftNode, tmp_path: Path, *args: str) -> str:
    """What `kafka-configs.sh --bootstrap-server … ARGS` prints (it must succeed)."""
    return kafka_tool(node, tmp_path, "kafka-configs.sh", *args)


def kafkatop(node: KraftNode, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """What `kafkatop configs --bootstrap-server … ARGS` prints (it must succeed, with nothing on stderr)."""
    capsys.readouterr()
    status = main(["configs", "--bootstrap-server", node.bootstrap, *args])
    ours, err = capsys.readouterr()
    assert (status, err) == (0, "")
    return ours.rstrip("\n")


def both(node: KraftNode, tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[str, str]:
    """The same ARGS to the tool and to kafkatop: what each printed."""
    return tool(node, tmp_path, *args), kafkatop(node, capsys, *args)


TOPIC = ("--entity-type", "topics", "--entity-name", "purchases")


@pytest.mark.parametrize(
    "args",
    [
        (*TOPIC, "--describe"),
        (*TOPIC, "--describe", "--all"),
        ("--entity-type", "brokers", "--entity-name", str(NODE_ID), "--describe"),
        ("--entity-type", "brokers", "--entity-default", "--describe"),
        ("--describe", "--topic", "purchases"),
    ],
    ids=["topic", "topic-all", "broker", "broker-defaults", "topic-shorthand"],
)
def test_the_tools_describe_lines_given_to_both(
    node: KraftNode, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    theirs, ours = both(node, tmp_path, capsys, *args)
    with capsys.disabled():
        print(f"--- {' '.join(args)}: kafka-configs.sh {len(theirs.splitlines())} lines, kafkatop "
              f"{len(ours.splitlines())}\n" + "\n".join(ours.splitlines()[:3]))  # fmt: skip
    assert theirs.splitlines()[0].startswith(("Dynamic configs for", "All configs for", "Default configs for"))
    assert ours.splitlines() == theirs.splitlines()


def test_the_tools_alter_lines_given_to_both(
    node: KraftNode, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add = ("--alter", "--add-config", "cleanup.policy=[compact,delete],max.message.bytes=2000000")
    delete = ("--alter", "--delete-config", "cleanup.policy,max.message.bytes")
    done = "Completed updating config for topic purchases."
    # The tool sets, then kafkatop sets the same (the same line), and each sees what the other sees.
    assert both(node, tmp_path, capsys, *TOPIC, *add) == (done, done)
    theirs, ours = both(node, tmp_path, capsys, *TOPIC, "--describe")
    assert ours.splitlines() == theirs.splitlines()
    assert "  cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=" \
           "compact,delete, DEFAULT_CONFIG:log.cleanup.policy=delete}" in ours.splitlines()  # fmt: skip
    # A delete of what is not set is refused by both: each deletes after a set of its own.
    assert tool(node, tmp_path, *TOPIC, *delete) == done
    after_theirs = tool(node, tmp_path, *TOPIC, "--describe")
    assert kafkatop(node, capsys, *TOPIC, *add) == done
    assert kafkatop(node, capsys, *TOPIC, *delete) == done
    assert kafkatop(node, capsys, *TOPIC, "--describe").splitlines() == after_theirs.splitlines()
    assert "cleanup.policy" not in after_theirs
    # The brokers' defaults.
    defaults = ("--entity-type", "brokers", "--entity-default")
    assert (
        both(node, tmp_path, capsys, *defaults, "--alter", "--add-config", "log.cleaner.backoff.ms=20000")
        == ("Completed updating default config for brokers in the cluster.",) * 2
    )
    theirs, ours = both(node, tmp_path, capsys, *defaults, "--describe")
    assert ours.splitlines() == theirs.splitlines()
    assert "  log.cleaner.backoff.ms=20000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:" \
           "log.cleaner.backoff.ms=20000}" in ours.splitlines()  # fmt: skip


def test_the_tools_add_config_file_given_to_both(
    node: KraftNode, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "topic.properties"
    file.write_text("# set from a file\nretention.ms=3600000\nmax.message.bytes=3000000\n")
    change = ("--alter", "--add-config-file", str(file))
    reset = ("--alter", "--add-config", "retention.ms=86400000", "--delete-config", "max.message.bytes")
    done = "Completed updating config for topic purchases."
    assert tool(node, tmp_path, *TOPIC, *change) == done
    after_theirs = tool(node, tmp_path, *TOPIC, "--describe")
    assert kafkatop(node, capsys, *TOPIC, *reset) == done
    assert kafkatop(node, capsys, *TOPIC, *change) == done
    after_ours = kafkatop(node, capsys, *TOPIC, "--describe")
    assert after_ours.splitlines() == after_theirs.splitlines()
    assert any(line.startswith("  retention.ms=3600000 ") for line in after_ours.splitlines())
    assert any(line.startswith("  max.message.bytes=3000000 ") for line in after_ours.splitlines())
    kafkatop(node, capsys, *TOPIC, *reset)
