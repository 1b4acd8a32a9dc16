"""`kafkatop users` against a real Apache Kafka 4.1: one `sasl_ssl` lab for the module (1 broker, 1 controller, on
free ports) with its authorizer; kafkatop's commands by the lab's name are its `admin` (a super user). A user
added with `kafkatop users --add` (its password piped on stdin) logs in with Kafka's own kafka-console-consumer.sh and
reads a record (once kafka-acls.sh lets it); its password is on no process's command line while the command runs, nor
in any output or in the lab's logs; `kafkatop users` prints what `kafka-configs.sh --describe --entity-type users`
prints, line for line, a quota set with kafka-configs.sh included; bad input changes nothing; after `--delete` the
user's login fails. As `client`, who may not Describe the cluster, the listing is refused with the ACL to grant (and
does not abort: librdkafka 2.16 does, on that answer, which is why kafkatop speaks DescribeUserScramCredentials
itself). Set KAFKA_HOME to run; every node is stopped by recorded pid.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from confluent_kafka import Producer

from kafkatop.backends.lab.security import jaas_line, write_private
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.cli.common import client_settings
from kafkatop.tui.cli.parser import build_parser
from tests.integration.test_supervisor import Clusters, free_port_block

pytestmark = pytest.mark.kafka

NAME = "users"
TOPIC = "t"
RECORD = "read-by-alice"
PASSWORD = "Alice-Canary-8843-pw"  # found nowhere but in alice's own 0600 properties file


@dataclass(frozen=True)
class Lab:
    bootstrap: str
    by_name: list[str]  # the flags that name the lab
    client_properties: Path
    admin_properties: Path
    state: Path
    kafka_home: Path
    tmp: Path


@pytest.fixture(scope="module")
def lab(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    root = tmp_path_factory.mktemp("users-lab")
    clusters = Clusters(root)
    try:
        cluster = clusters.make(kafka_home, name=NAME, mode="kraft", brokers=1, controllers=1, heap="256m",
                                security="sasl_ssl", authorizer=True, **_ports())  # fmt: skip
        snap = cluster.up(timeout_s=90)
        assert snap.client_properties is not None and snap.admin_properties is not None
        yield Lab(snap.bootstrap_servers, ["--state-dir", str(root / "state"), "--name", NAME],
                  snap.client_properties, snap.admin_properties, root / "state", kafka_home, root)  # fmt: skip
    finally:
        clusters.cleanup()


def kafkatop(lab: Lab, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kafkatop.tui.cli", "users", *args, *lab.by_name],
        input=stdin, capture_output=True, text=True, timeout=90, check=False,
    )  # fmt: skip


def kafka_tool(lab: Lab, tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(lab.kafka_home / "bin" / tool), "--bootstrap-server", lab.bootstrap, *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def tool_users(lab: Lab) -> str:
    """kafka-configs.sh --describe --entity-type users, as the lab's admin."""
    done = kafka_tool(lab, "kafka-configs.sh", "--command-config", str(lab.admin_properties), "--describe",
                      "--entity-type", "users")  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def consume_as_alice(lab: Lab) -> subprocess.CompletedProcess[str]:
    """Kafka's console consumer, logging in as alice from a 0600 properties file."""
    props = lab.tmp / "alice.properties"
    ca = lab.client_properties.parent / "security" / "ca.pem"
    write_private(props, "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
                  f"sasl.jaas.config={jaas_line('alice', PASSWORD)}\nssl.truststore.type=PEM\n"
                  f"ssl.truststore.location={ca}\n")  # fmt: skip
    return kafka_tool(lab, "kafka-console-consumer.sh", "--consumer.config", str(props), "--topic", TOPIC,
                      "--from-beginning", "--max-messages", "1", "--timeout-ms", "30000")  # fmt: skip


def cmdlines() -> list[bytes]:
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    out.append(f.read())
            except OSError:
                pass  # gone, or not ours to read
    return out


def produce_one(lab: Lab) -> None:
    args = build_parser().parse_args(["users", "--command-config", str(lab.admin_properties), *lab.by_name])
    producer = Producer(KafkaConnection.parse(lab.bootstrap, client_settings(args)).config("users-test"))
    producer.produce(TOPIC, RECORD.encode())
    assert producer.flush(30) == 0


def test_a_user_added_by_kafkatop_logs_in_with_kafkas_console_consumer_until_deleted(lab: Lab) -> None:
    said: list[str] = []
    created = subprocess.run([sys.executable, "-m", "kafkatop.tui.cli", "create-topic", TOPIC, "--partitions", "1",
                              "--replication-factor", "1", *lab.by_name], capture_output=True, text=True,
                             timeout=60, check=False)  # fmt: skip
    assert created.returncode == 0, created.stderr
    produce_one(lab)

    # --add alice, the password piped: while it runs, no process's command line holds it.
    proc = subprocess.Popen([sys.executable, "-m", "kafkatop.tui.cli", "users", "--add", "alice", *lab.by_name],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    scans = 0
    try:
        assert not any(PASSWORD.encode() in c for c in cmdlines())
        assert proc.stdin is not None
        proc.stdin.write(PASSWORD.encode() + b"\n")
        proc.stdin.close()
        while proc.poll() is None:
            assert not any(PASSWORD.encode() in c for c in cmdlines())
            scans += 1
            time.sleep(0.05)
        assert proc.stdout is not None and proc.stderr is not None
        out, err = proc.stdout.read(), proc.stderr.read()  # a line or two: the pipes never filled
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert scans >= 2, "the command ended before /proc could be read while it ran"
    assert (proc.returncode, out.decode(), err.decode()) == (0, "Completed updating config for user alice.\n", "")
    said += [out.decode(), err.decode()]

    granted = kafka_tool(lab, "kafka-acls.sh", "--command-config", str(lab.admin_properties), "--add",
                         "--allow-principal", "User:alice", "--consumer", "--topic", TOPIC, "--group", "*")  # fmt: skip
    assert granted.returncode == 0, granted.stderr
    consumed = consume_as_alice(lab)
    assert consumed.stdout == f"{RECORD}\n", consumed.stderr
    assert "Processed a total of 1 messages" in consumed.stderr

    # Another user, with the other mechanism and more iterations; then a quota set with Kafka's own tool.
    added = kafkatop(lab, "--add", "bob", "--mechanism", "scram-sha-256", "--iterations", "8192", stdin="bob-pw\n")
    assert added.returncode == 0, added.stderr
    quota = kafka_tool(lab, "kafka-configs.sh", "--command-config", str(lab.admin_properties), "--alter",
                       "--add-config", "producer_byte_rate=1024", "--entity-type", "users",
                       "--entity-name", "alice")  # fmt: skip
    assert quota.returncode == 0, quota.stderr
    listed = kafkatop(lab)
    assert listed.returncode == 0 and listed.stderr == "", listed.stderr
    said += [listed.stdout, listed.stderr]
    assert "SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-512=iterations=4096\n" in listed.stdout
    assert "SCRAM credential configs for user-principal 'bob' are SCRAM-SHA-256=iterations=8192\n" in listed.stdout
    assert "Quota configs for user-principal 'alice' are producer_byte_rate=1024.0\n" in listed.stdout
    assert listed.stdout == tool_users(lab)  # line for line, in the tool's order
    one = kafkatop(lab, "--user", "alice")
    assert one.stdout == (
        "Quota configs for user-principal 'alice' are producer_byte_rate=1024.0\n"
        "SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-512=iterations=4096\n"
    )

    # Bad input: one line, exit 2, nothing changed (the parser's refusals: tests/unit/test_users_cli.py).
    for args, stdin, words in [
        (["--delete", "ghost", "--yes"], None, "no SCRAM user 'ghost' on this cluster"),
        (["--delete", "alice", "--mechanism", "SCRAM-SHA-256", "--yes"], None, "has no SCRAM-SHA-256 credential"),
        (["--delete", "admin", "--yes"], None, "user 'admin' is this lab's own"),
        (["--add", "client"], "x\n", "user 'client' is this lab's own"),
        (["--add", "carol"], "\n", "empty password"),
        (["--delete", "alice"], None, "--delete asks first, on a terminal"),  # no terminal to ask on
    ]:
        done = kafkatop(lab, *args, stdin=stdin)
        assert (done.returncode, done.stdout) == (2, ""), (args, done.stderr)
        assert words in done.stderr and done.stderr.count("\n") == 1, (args, done.stderr)
        said.append(done.stderr)
    assert kafkatop(lab).stdout == listed.stdout

    # As client, who may not Describe or Alter the cluster: refused, with the ACL that lets it; no abort.
    as_client = ["--command-config", str(lab.client_properties)]
    refused_list = kafkatop(lab, *as_client)
    assert (refused_list.returncode, refused_list.stdout) == (1, ""), refused_list.stderr
    assert refused_list.stderr.startswith(
        "kafkatop: cannot describe the SCRAM users: CLUSTER_AUTHORIZATION_FAILED: User:client may not Describe on "
        "Cluster — grant it: kafkatop acls --add --allow-principal User:client --operation Describe --cluster "
    ), refused_list.stderr
    refused_add = kafkatop(lab, "--add", "eve", *as_client, stdin="eve-pw\n")
    assert refused_add.returncode == 1
    assert "User:client may not Alter on Cluster — grant it: kafkatop acls --add --allow-principal User:client " \
        "--operation Alter --cluster" in refused_add.stderr  # fmt: skip
    said += [refused_list.stderr, refused_add.stderr]
    assert kafkatop(lab).stdout == listed.stdout  # eve was not added

    deleted = kafkatop(lab, "--delete", "alice", "--yes")
    assert (deleted.returncode, deleted.stdout) == (0, "Completed updating config for user alice.\n"), deleted.stderr
    assert kafkatop(lab, "--user", "alice").stdout == "Quota configs for user-principal 'alice' are " \
        "producer_byte_rate=1024.0\n"  # fmt: skip
    refused = consume_as_alice(lab)
    assert refused.stdout == ""
    assert "SaslAuthenticationException" in refused.stderr and "invalid credentials" in refused.stderr

    for text in said:
        assert PASSWORD not in text
    logs = [p for p in (lab.state / NAME / "logs").rglob("*") if p.is_file()]
    assert logs and not any(PASSWORD in p.read_text(errors="replace") for p in logs)


def _ports() -> dict[str, int]:
    """A free block below the ephemeral ports (a lab's port inside them can be taken by a client's own socket)."""
    base = free_port_block(12)
    return {"base_port": base, "controller_port": base + 4, "zookeeper_port": base + 8}
