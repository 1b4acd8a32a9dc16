"""Configs where they cannot be had, said so: the librdkafka mock cluster (the demo) serves no DescribeConfigs, an
address where nothing listens, a secured cluster kafkatop's protocol code does not speak. Over real sockets; the
mock's answers are the mock's own."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from kafkatop.backends.demo.cluster import DemoCluster
from kafkatop.backends.demo.consoles import DemoConsoles
from kafkatop.backends.demo.node_control import DemoControl
from kafkatop.backends.demo.source import DemoSource
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.configs import ConfigAdmin
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.configs import ConfigError, ConfigRefused, ConfigResource
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.cli.main import main
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.screens.configs import ConfigsScreen
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.brokers.pane import BrokerTable
from kafkatop.tui.live.tabs.partitions.pane import PartitionTable
from kafkatop.tui.live.widgets.nodes import NodeTable
from tests.conftest import pilot_until
from tests.fixtures.demo import demo_with_consoles

NO_CONFIGS = "does not offer DescribeConfigs: configs need a real Kafka (the librdkafka mock cluster of kafkatop's demo"


def test_the_mock_has_no_describe_configs(mock_cluster: MockCluster) -> None:
    admin = ConfigAdmin(KafkaConnection.parse(mock_cluster.bootstrap_servers), timeout_s=5.0)
    mock_cluster.create_topic("purchases", 3, 3)
    for resource in (ConfigResource.topic("purchases"), ConfigResource.broker(1), ConfigResource.broker_defaults()):
        with pytest.raises(ConfigError) as raised:
            admin.describe(resource)
        assert raised.value.code == "UNSUPPORTED" and NO_CONFIGS in str(raised.value), raised.value
    with pytest.raises(ConfigError, match="does not offer DescribeConfigs"):
        admin.alter(ConfigResource.topic("purchases"), {"retention.ms": "1"}, ())
    # A broker that is not there is said before anything else is asked (the mock serves Metadata).
    with pytest.raises(ConfigRefused, match=r"broker 9 is not in the cluster \(its live brokers: 1, 2, 3\)"):
        admin.describe(ConfigResource.broker(9))


def test_the_command_says_so_and_fails(mock_cluster: MockCluster, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["configs", "--topic", "purchases", "--bootstrap-server", mock_cluster.bootstrap_servers])
    out, err = capsys.readouterr()
    assert status == 1 and out == ""
    assert err.startswith("kafkatop: 127.0.0.1:") and NO_CONFIGS in err and err.count("\n") == 1


def _unused_port() -> int:
    for port in range(23900, 24000):  # this helper's own range
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("no free port in 23900-23999")


def test_nothing_listening_fails_at_once_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    port = _unused_port()
    started = time.monotonic()
    status = main(["configs", "--broker", "1", "--bootstrap-server", f"127.0.0.1:{port}", "--timeout", "3"])
    _, err = capsys.readouterr()
    assert status == 1 and time.monotonic() - started < 3
    assert err == f"kafkatop: cannot talk to Kafka at 127.0.0.1:{port}: connection refused: is the node down, or is " \
        "this the wrong port?\n"  # fmt: skip


def test_a_security_kafkatop_cannot_speak_is_refused_before_any_socket() -> None:
    admin = ConfigAdmin(KafkaConnection.parse("127.0.0.1:1", {"security.protocol": "SASL_SSL",
                                                              "sasl.mechanisms": "GSSAPI"}))  # fmt: skip
    with pytest.raises(ConfigError, match="with SASL mechanism GSSAPI .*: use kafka-configs.sh --command-config FILE"):
        admin.describe(ConfigResource.topic("t"))


def test_bad_input_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    cases = {
        ("--topic", "t", "--broker", "1"): "configs of what? --topic and --broker together: give one of --topic "
        "NAME, --broker ID, --broker-defaults",
        (): "configs of what? no resource: give one of --topic NAME, --broker ID, --broker-defaults",
        ("--topic", "t", "--alter", "retention.ms"): "--alter 'retention.ms': expected NAME=VALUE, for example "
        "--alter retention.ms=3600000,cleanup.policy=[compact,delete]",
        ("--topic", "t", "--all", "--delete", "x"): "--all lists configs; with --alter or --delete leave it out "
        "(then describe with --all)",
    }
    for args, said in cases.items():
        status = main(["configs", "--bootstrap-server", "127.0.0.1:1", *args])
        out, err = capsys.readouterr()
        assert (status, out, err) == (2, "", f"kafkatop: {said}\n")
    with pytest.raises(SystemExit) as raised:
        main(["configs", "--broker", "one"])
    assert raised.value.code == 2
    assert "expected a broker id, 0 or more; not 'one'" in capsys.readouterr().err


# --- the demo's Configs screen ---------------------------------------------------------------------------------
@pytest.fixture
def demo() -> Iterator[tuple[DemoCluster, DemoControl, DemoConsoles]]:
    with demo_with_consoles() as made:
        yield made


async def test_the_demo_screen_says_configs_need_a_real_kafka(demo: Any) -> None:
    cluster, control, consoles = demo
    connection = KafkaConnection.parse(cluster.bootstrap_servers)
    admin = AdminSource(connection, timeout_s=1.0, watch_groups=cluster.groups)
    source = DemoSource(control, admin, consoles.consumer_views, cluster.groups)
    app = KafkatopApp(
        Sources(source.poll, control, None, None, consoles, configs=ConfigAdmin(connection, timeout_s=5.0)),
        Settings(poll_interval_s=0.2),
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot_until(pilot, lambda: app.query_one(PartitionTable).row_count > 0, "the demo's partitions")
        topic = app.query_one(PartitionTable).selected_topic
        await pilot.press("C")
        await pilot_until(pilot, lambda: isinstance(app.screen, ConfigsScreen), "the Configs screen")
        screen = app.screen
        assert isinstance(screen, ConfigsScreen) and screen.resource == ConfigResource.topic(str(topic))

        def status() -> str:
            return str(screen.query_one("#configs-status").render())

        await pilot_until(pilot, lambda: "Configs cannot be read" in status(), "the screen's answer")
        assert NO_CONFIGS in " ".join(status().split())
        await pilot.press("escape")
        await pilot_until(pilot, lambda: not isinstance(app.screen, ConfigsScreen), "the screen closed")

        # A broker: from the process table (0), and from the Brokers tab.
        await pilot_until(pilot, lambda: app.query_one(NodeTable).row_count == 3, "the demo's brokers")
        await pilot.press("0", "j", "C")
        await pilot_until(pilot, lambda: isinstance(app.screen, ConfigsScreen), "the Configs screen of a broker")
        assert app.screen.resource == ConfigResource.broker(2)  # type: ignore[attr-defined]
        await pilot.press("escape")
        await pilot_until(pilot, lambda: not isinstance(app.screen, ConfigsScreen), "the screen closed")
        app.main_screen.action_tab(2)
        await pilot_until(pilot, lambda: app.query_one(BrokerTable).row_count == 3, "the Brokers tab")
        await pilot.press("G", "C")
        await pilot_until(pilot, lambda: isinstance(app.screen, ConfigsScreen), "the Configs screen of broker 3")
        assert app.screen.resource == ConfigResource.broker(3)  # type: ignore[attr-defined]
        await pilot.press("escape")
        # Elsewhere, C says where it acts, and does nothing.
        app.main_screen.action_tab(3)
        await pilot.pause()
        await pilot.press("escape")  # out of the topic field the tab focuses: C is a key again
        await pilot.press("C")
        await pilot.pause()
        assert not isinstance(app.screen, ConfigsScreen)
        said = [str(n.message) for n in app._notifications]
        assert "C (configs) acts in Brokers or Partitions or the process table (0): nothing was done here" in said
