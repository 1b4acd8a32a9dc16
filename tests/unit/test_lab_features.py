"""A lab's feature levels (`kafkatop up --elr/--no-elr`, `--share-groups`, or elr / share_groups in kafkatop.toml):
the `kafka-storage.sh format --feature NAME=LEVEL` arguments they become, the share coordinator's topic sized to the
lab, a ZooKeeper-mode lab refused, and the UpdateFeatures request that changes a lab formatted before."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkatop.backends.lab.kafka_homes import KafkaInstall, KafkaVersion, Layout
from kafkatop.backends.lab.properties import parse_properties
from kafkatop.backends.lab.security import LabSecurity
from kafkatop.backends.lab.spec import ClusterSpec, SpecError, load_spec_file
from kafkatop.backends.lab.storage import STORAGE_TOOL, format_command
from kafkatop.backends.protocol.update_features import (
    SAFE_DOWNGRADE,
    UPGRADE,
    FeatureUpdate,
    decode_response,
    request_body,
    updates_for,
)
from kafkatop.backends.protocol.wire import ProtocolError
from kafkatop.tui.cli.common import build_spec
from kafkatop.tui.cli.parser import build_parser
from tests.unit.test_lab_config import render

HOME = Path("/opt/kafka_2.13-4.1.0")
INSTALL = KafkaInstall(HOME, Layout.APACHE, KafkaVersion.parse("4.1.0"), HOME / "bin", HOME / "config", ".sh")


def _format(spec: ClusterSpec, tmp_path: Path, security: str = "plaintext") -> tuple[list[str], str | None]:
    lab = LabSecurity(tmp_path, "lab", security)
    return format_command(INSTALL, "CLUSTERID", tmp_path / "b.properties", lab, tmp_path / "args", spec.features)


def test_elr_and_share_groups_become_format_features(tmp_path: Path) -> None:
    cmd, secrets = _format(ClusterSpec(mode="kraft", elr=False, share_groups=True).validate(), tmp_path)
    assert secrets is None
    assert cmd == [
        str(HOME / "bin" / "kafka-storage.sh"), "format", "-t", "CLUSTERID", "-c", str(tmp_path / "b.properties"),
        "--feature", "eligible.leader.replicas.version=0", "--feature", "share.version=1",
    ]  # fmt: skip
    assert _format(ClusterSpec(mode="kraft", elr=True), tmp_path)[0][-2:] == [
        "--feature",
        "eligible.leader.replicas.version=1",
    ]


def test_kafkas_defaults_add_no_feature(tmp_path: Path) -> None:
    """--elr and --no-elr not given: Kafka's default (on from 4.1); share groups not asked: Kafka's (off)."""
    cmd, _ = _format(ClusterSpec(mode="kraft"), tmp_path)
    assert "--feature" not in cmd and ClusterSpec().features == {}


def test_on_a_sasl_lab_the_features_go_in_the_argument_file_with_the_rest(tmp_path: Path) -> None:
    cmd, argfile = _format(ClusterSpec(mode="kraft", share_groups=True), tmp_path, "sasl_plaintext")
    assert cmd == [str(HOME / "bin" / "kafka-run-class.sh"), f"@{tmp_path / 'args'}"]
    assert argfile is not None and argfile.startswith(f'"{STORAGE_TOOL}"\n')
    assert '"--feature"\n"share.version=1"\n' in argfile


def test_up_flags_and_the_toml_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no kafkatop.toml of the repository's read by build_spec
    parse = build_parser().parse_args
    assert build_spec(parse(["up", "--no-elr", "--share-groups"])).features == {
        "eligible.leader.replicas.version": 0,
        "share.version": 1,
    }
    assert build_spec(parse(["up", "--elr"])).features == {"eligible.leader.replicas.version": 1}
    assert build_spec(parse(["up"])).features == {}
    toml = tmp_path / "kafkatop.toml"
    toml.write_text("[cluster]\nelr = false\nshare_groups = true\n")
    assert load_spec_file(toml)[0].features == {"eligible.leader.replicas.version": 0, "share.version": 1}
    assert build_spec(parse(["up", "--elr"])).features == {"eligible.leader.replicas.version": 1, "share.version": 1}
    toml.write_text('[cluster]\nelr = "on"\n')
    with pytest.raises(SpecError, match="elr = 'on' must be true or false"):
        load_spec_file(toml)


def test_a_zookeeper_lab_refuses_feature_levels() -> None:
    with pytest.raises(SpecError, match="--no-elr --share-groups: feature levels are a KRaft thing"):
        ClusterSpec(mode="zk", elr=False, share_groups=True).validate()
    with pytest.raises(SpecError, match="--elr: feature levels"):
        ClusterSpec(mode="zk", elr=True).validate()
    ClusterSpec(mode="zk").validate()


@pytest.mark.parametrize("brokers", [1, 2, 3])
def test_share_groups_get_an_internal_topic_the_lab_can_hold(brokers: int) -> None:
    """__share_group_state: RF 3, min ISR 2 by default, which fewer than 3 brokers cannot hold; set even where the
    install's stock file does not mention it (here Kafka 3.9's KRaft file)."""
    spec = ClusterSpec(mode="kraft", brokers=brokers, share_groups=True).validate()
    props = parse_properties(render("kafka-3.9", "kraft/server.properties", spec, "kraft", "broker-1"))
    rf = min(3, brokers)
    assert props["share.coordinator.state.topic.replication.factor"] == str(rf)
    assert props["share.coordinator.state.topic.min.isr"] == str(min(2, rf))
    plain = parse_properties(
        render("kafka-3.9", "kraft/server.properties", ClusterSpec(mode="kraft"), "kraft", "broker-1")
    )
    assert "share.coordinator.state.topic.replication.factor" not in plain


def test_update_features_request_and_answers() -> None:
    updates = updates_for({"eligible.leader.replicas.version": 0, "share.version": 1, "group.version": 1},
                          {"eligible.leader.replicas.version": 1, "group.version": 1})  # fmt: skip
    assert updates == (
        FeatureUpdate("eligible.leader.replicas.version", 0, SAFE_DOWNGRADE),
        FeatureUpdate("share.version", 1, UPGRADE),
    )
    body = request_body(updates[1:], 30_000)
    # timeoutMs, one update (compact array of 1: 2), "share.version" (13 + 1), level 1, upgrade type 1, no tags,
    # validateOnly false, no tags.
    assert body == b"\x00\x00\x75\x30\x02\x0eshare.version\x00\x01\x01\x00\x00\x00"
    header = b"\x00\x00\x00\x07\x00"  # correlation id, no tagged fields
    v2_ok = header + b"\x00\x00\x00\x00" + b"\x00\x00" + b"\x00" + b"\x00"
    assert decode_response(v2_ok, 2).error_code == 0
    v1_refused = header + b"\x00\x00\x00\x00\x00\x00\x00" + b"\x02\x0eshare.version\x00\x60\x05nope\x00" + b"\x00"
    assert decode_response(v1_refused, 1).results == (("share.version", 96, "nope"),)
    with pytest.raises(ProtocolError):
        decode_response(v1_refused[:-3], 1)
