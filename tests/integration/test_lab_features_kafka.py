"""Feature levels of a lab against a real Apache Kafka 4.1: `kafkatop up --no-elr --share-groups` formats the storage
with eligible.leader.replicas.version=0 and share.version=1 (as `kafkatop features` and kafka-features.sh describe
both say); a second `up --elr` of the stopped lab, whose storage is formatted, changes the level with UpdateFeatures
once it serves; and the live poll then reads each partition's ELR, a broker stopped after another leaving the ISR
below min.insync.replicas with the stopped one eligible.

Set KAFKA_HOME to run it. Three combined KRaft nodes on 127.0.0.1 ports 24220-24222 (controllers 24270-24272), heap
256m each, state in pytest's tmp dir; everything is stopped at the end, by recorded pid if need be.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.topics import TopicAdmin
from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.tui.cli.main import main
from tests.conftest import wait_for

pytestmark = pytest.mark.kafka

ELR = "eligible.leader.replicas.version"
SHARE = "share.version"
BOOTSTRAP = "127.0.0.1:24220,127.0.0.1:24221,127.0.0.1:24222"
TOPIC = "eligible"


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[list[str]]:
    state = tmp_path / "state"
    flags = ["--name", "features", "--state-dir", str(state)]
    yield flags
    try:
        LabCluster.open(state / "features", need_install=False).down(timeout_s=10)
    except Exception:  # noqa: BLE001 - teardown must reach the pid sweep below
        pass
    recorded = state / "features" / "cluster.json"
    for node in json.loads(recorded.read_text())["nodes"] if recorded.exists() else ():
        if node.get("pid") and psutil.pid_exists(node["pid"]):
            p = psutil.Process(node["pid"])
            if abs(p.create_time() - node["create_time"]) < 0.05:
                p.kill()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def finalized(text: str) -> dict[str, int]:
    """kafka-features.sh describe's lines: each feature's FinalizedVersionLevel (metadata.version's left out)."""
    found = re.findall(r"Feature: (\S+)\t.*FinalizedVersionLevel: (\d+)\t", text)
    return {name: int(level) for name, level in found}


def kafka_features(kafka_home: Path) -> dict[str, int]:
    done = subprocess.run(
        [str(kafka_home / "bin" / "kafka-features.sh"), "--bootstrap-server", BOOTSTRAP, "describe"],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert done.returncode == 0, done.stderr
    return finalized(done.stdout)


def poll(source: AdminSource) -> ClusterSnapshot | None:
    try:
        return source.poll()
    except SourceUnavailable:
        return None


@pytest.mark.timeout(900)
def test_feature_levels_at_format_and_later_and_the_elr_in_the_poll(
    lab: list[str], kafka_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    up = ["up", "--detach", "--kafka-home", str(kafka_home), "--brokers", "3", "--base-port", "24220",
          "--controller-port", "24270", "--heap", "256m", "--timeout", "240", *lab]  # fmt: skip
    code, out, err = run(capsys, *up, "--no-elr", "--share-groups")
    assert code == 0, out + err
    assert "feature levels set" not in out  # a new lab: set by the format, nothing to change afterwards
    code, out, err = run(capsys, "features", *lab)
    assert code == 0, err
    ours = finalized(out)
    assert (ours[ELR], ours[SHARE]) == (0, 1)
    theirs = kafka_features(kafka_home)
    assert (theirs[ELR], theirs[SHARE]) == (0, 1) and theirs == ours

    # The same lab again, stopped and started with --elr: formatted already, so changed once it serves.
    assert run(capsys, "down", *lab)[0] == 0
    code, out, err = run(capsys, *up, "--elr")
    assert code == 0, out + err
    assert f"feature levels set: {ELR}=1" in out
    assert (kafka_features(kafka_home)[ELR], kafka_features(kafka_home)[SHARE]) == (1, 1)

    # The live poll reads the ELR: broker 3 stopped (the ISRs fall to min.insync.replicas 2), then broker 2 (below
    # it: 2 stays eligible, 3 does not, having left while the ISR was still at min ISR).
    source = AdminSource(KafkaConnection.parse(BOOTSTRAP), timeout_s=2.0)
    try:
        with TopicAdmin(KafkaConnection.parse(BOOTSTRAP)) as topics:
            topics.create_topic(TOPIC, 3, 3, {"min.insync.replicas": "2"})

        def full() -> ClusterSnapshot | None:
            s = poll(source)
            t = s.topic(TOPIC) if s is not None else None
            ok = t is not None and t.min_insync_replicas == 2 and all(len(p.isr) == 3 for p in t.partitions)
            return s if ok else None

        healthy = wait_for(full, timeout_s=60, interval_s=0.5, what=f"{TOPIC} fully replicated, min ISR known")
        assert healthy.features is not None and healthy.features.elr_enabled
        assert all((p.elr, p.last_known_elr) == ((), ()) for p in healthy.partitions)
        cluster = LabCluster.open(Path(lab[3]) / "features")
        cluster.stop("3")
        cluster.stop("2")

        def eligible() -> ClusterSnapshot | None:
            s = poll(source)
            t = s.topic(TOPIC) if s is not None else None
            return s if t is not None and all((p.isr, p.elr) == ((1,), (2,)) for p in t.partitions) else None

        below = wait_for(eligible, timeout_s=60, interval_s=0.5, what=f"{TOPIC}'s ISR 1 with broker 2 eligible")
        assert all(p.under_min_isr(2) for p in below.topic(TOPIC).partitions)  # type: ignore[union-attr]
    finally:
        source.close()
