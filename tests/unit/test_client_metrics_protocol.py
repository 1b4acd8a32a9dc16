"""Client-metrics resources (KIP-714) on the wire: ListConfigResources' request bytes (v0 and v1), and answers
recorded from a real Kafka 4.1 broker (tests/fixtures/protocol/: ListConfigResources v0 and v1 listing cm1 and cm2,
DescribeConfigs v4 of each) decoded and laid out as kafka-client-metrics.sh printed them on the same broker
(kafka_client_metrics_4_1.txt), line for line; every truncation a ProtocolError. Then the command's bad input
(exit 2, before any connection)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkatop.backends.insight.client_metrics_lines import describe_lines
from kafkatop.backends.model.configs import ConfigResource
from kafkatop.backends.protocol.configs import decode_describe_configs, describe_configs_body
from kafkatop.backends.protocol.list_config_resources import (
    decode_list_config_resources,
    list_config_resources_body,
)
from kafkatop.backends.protocol.wire import ProtocolError, response_reader
from kafkatop.tui.cli.main import main

RECORDED = Path(__file__).parents[1] / "fixtures" / "protocol"


def _bin(name: str) -> bytes:
    return (RECORDED / f"{name}_4_1.bin").read_bytes()


def _tool_output() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for block in (RECORDED / "kafka_client_metrics_4_1.txt").read_text().split("=== ")[1:]:
        options, _, text = block.partition("\n")
        out[options] = text.splitlines()
    return out


def test_the_requests_are_kafkas_layouts() -> None:
    assert list_config_resources_body(1) == b"\x02\x10" + b"\x00"  # ResourceTypes [CLIENT_METRICS (16)]
    assert list_config_resources_body(0) == b"\x00"
    body = describe_configs_body(ConfigResource("client-metrics", "cm1"), 4)
    assert body[:6] == b"\x02\x10\x04cm1"  # one resource: type 16, its name


def test_list_and_describe_recorded_from_kafka_4_1_print_as_the_tool() -> None:
    tool = _tool_output()
    for version in (0, 1):
        code, names = decode_list_config_resources(response_reader(_bin(f"list_config_resources_v{version}")), version)
        assert (code, names) == (0, ["cm1", "cm2"])
        assert names == tool["--list"]
    described = {}
    for name in ("cm1", "cm2"):
        answer = decode_describe_configs(response_reader(_bin(f"describe_configs_client_metrics_{name}_v4")), 4)
        assert answer.error_code == 0
        described[name] = [(e.name, e.value) for e in answer.entries]
    assert described["cm2"] == [("interval.ms", "1000"), ("match", ""), ("metrics", "")]
    assert describe_lines(["cm1", "cm2"], described) == tool["--describe"]
    assert describe_lines(["nope"], described) == [
        "The client metric resource nope doesn't exist and doesn't have dynamic config."
    ]


@pytest.mark.parametrize("version", [0, 1])
def test_every_truncation_of_a_recorded_listing_is_a_protocol_error(version: int) -> None:
    payload = _bin(f"list_config_resources_v{version}")
    for cut in range(4, len(payload)):
        with pytest.raises(ProtocolError):
            decode_list_config_resources(response_reader(payload[:cut]), version)


NOWHERE = "127.0.0.1:1"  # nothing listens: a command that connected would fail with 1, not 2


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        ([], "give exactly one action: --alter, --delete, --describe or --list"),
        (["--list", "--describe"], "give exactly one action"),
        (["--list", "--resource", "r"], "--list lists every resource"),
        (["--describe", "--interval", "5"], "--interval goes with --alter"),
        (["--alter"], "--alter needs one of --resource N or --generate-name"),
        (["--alter", "--resource", "r", "--generate-name"], "--alter needs one of --resource N or --generate-name"),
        (["--alter", "--resource", "r", "--interval", "soon"], "the push interval is a whole number"),
        (["--alter", "--resource", "r", "--match", "bogus=1"], "give k=v with k one of client_id"),
        (["--delete"], "--delete needs --resource N"),
        (["--delete", "--resource", "r"], "--delete asks first, on a terminal; add --yes"),  # no terminal here
    ],
)
def test_bad_input_exits_2_before_any_connection(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["client-metrics", *argv, "--bootstrap-server", NOWHERE]) == 2
    assert said in capsys.readouterr().err
