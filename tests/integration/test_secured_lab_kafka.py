"""Secured lab clusters against a real Apache Kafka: `--security sasl_ssl`, `ssl` and `sasl_plaintext`, one node each.

Each lab writes its client.properties (Kafka's Java format); kafkatop's commands use it through --command-config, and by
themselves when they target the lab by name; a producer and a consumer made from the same translated settings write
and read. On sasl_ssl: the same file works for Kafka's own kafka-topics.sh, and a wrong password or a truststore of
another CA gives one line that names the cause and never the password. Set KAFKA_HOME to run; free ports on
127.0.0.1; every node is stopped by recorded pid.
"""

from __future__ import annotations

import re
import stat
import subprocess
import threading
import time
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer

from kafkatop.backends.kraft.quorum import QuorumSource
from kafkatop.backends.lab.certs import cert_pem, new_ca
from kafkatop.backends.lab.properties import parse_properties
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.tui.cli.common import client_settings
from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.parser import build_parser
from tests.integration.test_supervisor import Clusters

pytestmark = pytest.mark.kafka

CANARY = "S3cr3t-Canary-7731"
TOPIC = "secured"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def produce_and_consume(bootstrap: str, command_config: Path, count: int = 20) -> list[bytes]:
    args = build_parser().parse_args(
        ["describe", "--bootstrap-server", bootstrap, "--command-config", str(command_config)]
    )
    connection = KafkaConnection.parse(bootstrap, client_settings(args))
    producer = Producer(connection.config("test-producer"))
    for i in range(count):
        producer.produce(TOPIC, f"m{i}".encode(), key=str(i).encode())
    assert producer.flush(30) == 0
    consumer = Consumer(
        {**connection.config("test-consumer"), "group.id": "secured-test", "auto.offset.reset": "earliest"}
    )
    consumer.subscribe([TOPIC])
    got: list[bytes] = []
    try:
        for _ in range(300):
            msg = consumer.poll(0.2)
            if msg is not None and msg.error() is None:
                got.append(msg.value() or b"")
            if len(got) >= count:
                break
    finally:
        consumer.close()
    return got


@pytest.mark.parametrize("security", ["sasl_ssl", "ssl", "sasl_plaintext"])
def test_a_secured_lab_serves_kafkatop_through_its_client_properties(
    clusters: Clusters, kafka_home: Path, security: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    name = f"sec-{security.replace('_', '-')}"
    cluster = clusters.make(kafka_home, name=name, mode="kraft", brokers=1, heap="256m", security=security)
    snap = cluster.up(timeout_s=90)
    assert snap.security == security
    client = snap.client_properties
    assert client is not None and stat.S_IMODE(client.stat().st_mode) == 0o600
    bootstrap = snap.bootstrap_servers
    given = ["--bootstrap-server", bootstrap, "--command-config", str(client)]
    by_name = ["--state-dir", str(clusters.root / "state"), "--name", name]

    code, out, err = run(capsys, "create-topic", TOPIC, "--partitions", "2", "--replication-factor", "1", *given)
    assert (code, out, err) == (0, "Created topic secured.\n", "")
    code, described, err = run(capsys, "describe", "--topic", TOPIC, *given)
    assert code == 0 and err == ""
    line = r"^\tTopic: secured\tPartition: 1\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: \tLastKnownElr: $"
    assert re.search(line, described, re.M), described
    # By name: the lab's own client.properties, with no --command-config.
    assert run(capsys, "describe", "--topic", TOPIC, *by_name) == (0, described, "")
    code, status, _ = run(capsys, "status", *by_name)
    assert f"security {security.upper()}" in status and str(client) in status

    assert sorted(produce_and_consume(bootstrap, client)) == sorted(f"m{i}".encode() for i in range(20))

    # kafkatop's own protocol code (DescribeQuorum here) speaks the brokers' TLS and SASL from the same settings.
    parsed = build_parser().parse_args(["describe", *given])
    quorum = QuorumSource(KafkaConnection.parse(bootstrap, client_settings(parsed)), timeout_s=20).poll()
    assert (quorum.leader_id, quorum.source) == (1, bootstrap)
    code, out, err = run(capsys, "configs", "--topic", TOPIC, "--alter", "retention.ms=3600000", *given)
    assert (code, out, err) == (0, "Completed updating config for topic secured.\n", "")
    code, out, err = run(capsys, "configs", "--topic", TOPIC, *given)
    assert code == 0 and out.startswith("Dynamic configs for topic secured are:\n  retention.ms=3600000 "), out + err
    assert run(capsys, "configs", "--topic", TOPIC, "--delete", "retention.ms", *given)[0] == 0  # as it was

    controller = f"127.0.0.1:{snap.nodes[0].node.controller_port}"
    if security == "ssl":
        # SASL to a PLAINTEXT listener: a TLS-only lab's controllers' listener is one (it has no users to ask for).
        sasl = tmp_path / "sasl-plaintext.properties"
        sasl.write_text(
            "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common."
            f'security.scram.ScramLoginModule required username="client" password="{CANARY}";\n'
        )
        sasl.chmod(0o600)  # a file with a password that others may read is warned about
        code, out, err = run(capsys, "describe", "--bootstrap-server", controller, "--command-config", str(sasl),
                             "--timeout", "3")  # fmt: skip
        assert code == 1 and err.count("\n") == 1 and "this listener takes no SASL" in err, err
        assert CANARY not in out + err
    if security != "sasl_ssl":
        return
    # Kafka's own tool reads the same file, and describes the same partitions (with Kafka 4's Elr fields).
    tool = subprocess.run(
        [str(kafka_home / "bin" / "kafka-topics.sh"), "--bootstrap-server", bootstrap, "--command-config", str(client),
         "--describe", "--topic", TOPIC],
        capture_output=True, text=True, timeout=90, check=False,
    )  # fmt: skip
    assert tool.returncode == 0, tool.stderr
    assert tool.stdout == described

    text = client.read_text()
    said: list[str] = []
    wrong = tmp_path / "wrong-password.properties"
    wrong.write_text(re.sub(r'password="[^"]*"', f'password="{CANARY}"', text))
    wrong.chmod(0o600)  # a file with a password that others may read is warned about
    code, out, err = run(
        capsys, "describe", "--bootstrap-server", bootstrap, "--command-config", str(wrong), "--timeout", "5"
    )
    said.append(out + err)
    assert code == 1 and out == ""
    assert err == (
        f"kafkatop: kafka: cannot talk to {bootstrap}: "
        "authentication failed: wrong user name or password (SASL SCRAM-SHA-512)\n"
    )
    wrong_args = build_parser().parse_args(
        ["describe", "--bootstrap-server", bootstrap, "--command-config", str(wrong)]
    )
    with pytest.raises(SourceUnavailable) as refused:
        QuorumSource(KafkaConnection.parse(bootstrap, client_settings(wrong_args)), timeout_s=10).poll()
    said.append(str(refused.value))
    assert "SASL SCRAM-SHA-512 authentication failed (SASL_AUTHENTICATION_FAILED)" in str(refused.value)

    _, other = new_ca("another lab")
    other_ca = tmp_path / "other-ca.pem"
    other_ca.write_bytes(cert_pem(other))
    untrusted = tmp_path / "untrusted.properties"
    untrusted.write_text(re.sub(r"ssl.truststore.location=.*", f"ssl.truststore.location={other_ca}", text))
    untrusted.chmod(0o600)
    code, out, err = run(
        capsys, "describe", "--bootstrap-server", bootstrap, "--command-config", str(untrusted), "--timeout", "5"
    )
    said.append(out + err)
    assert code == 1 and err.count("\n") == 1
    assert "the broker's TLS certificate is not trusted" in err and "ssl.truststore.location" in err

    plaintext = tmp_path / "plaintext.properties"
    plaintext.write_text("security.protocol=PLAINTEXT\n")
    code, out, err = run(
        capsys, "describe", "--bootstrap-server", bootstrap, "--command-config", str(plaintext), "--timeout", "3"
    )
    said.append(out + err)
    assert code == 1 and err.count("\n") == 1 and "speaks TLS, and security.protocol is PLAINTEXT" in err
    # The controllers' listener takes SASL PLAIN (admin's, controller-admin.properties), not the brokers' SCRAM.
    sasl_plaintext = tmp_path / "sasl-plaintext.properties"
    sasl_plaintext.write_text(
        re.sub(r"security.protocol=.*", "security.protocol=SASL_PLAINTEXT", re.sub(r"ssl\.truststore.*\n", "", text))
    )
    sasl_plaintext.chmod(0o600)
    code, out, err = run(
        capsys, "describe", "--bootstrap-server", controller, "--command-config", str(sasl_plaintext),
        "--timeout", "3",
    )  # fmt: skip
    said.append(out + err)
    assert code == 1 and err.count("\n") == 1 and "SCRAM-SHA-512" in err, err
    for secret in (CANARY, *re.findall(r'password="([^"]*)"', text)):
        assert not any(secret in line for line in said)


def test_no_password_is_on_a_command_line_while_a_secured_lab_starts(clusters: Clusters, kafka_home: Path) -> None:
    """Every process's /proc/PID/cmdline is readable by any local user: while a sasl_ssl lab is formatted and
    started, none of them holds a SCRAM password (the format gets its users through a 0600 argument file)."""
    seen: set[str] = set()
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            for entry in Path("/proc").iterdir():
                if entry.name.isdigit():
                    try:
                        seen.add((entry / "cmdline").read_bytes().decode(errors="replace"))
                    except OSError:
                        pass  # gone meanwhile
            time.sleep(0.005)

    cluster = clusters.make(kafka_home, name="argv", mode="kraft", brokers=1, heap="256m", security="sasl_ssl")
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        cluster.up(timeout_s=90)
    finally:
        done.set()
        sampler.join(10)
    passwords = parse_properties((cluster.state_dir / "security" / "passwords.properties").read_text())
    assert any("StorageTool" in c or "kafka-run-class" in c for c in seen), "the sampler never saw the format run"
    for password in passwords.values():
        assert not [c for c in seen if password in c]
    assert not list((cluster.state_dir / "security").glob(".format-*"))  # the argument files are gone
