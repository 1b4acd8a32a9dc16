"""A lab with an authorizer, for `-m kafka` tests to share: `kafkatop up --security sasl_ssl --authorizer` of one
broker and one controller on given ports, and Kafka's own console producer and kafka-acls.sh to act as its users.

A module-scoped fixture of a test module, on that module's own ports:

    @pytest.fixture(scope="module")
    def lab(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthorizerLab]:
        with authorizer_lab(tmp_path_factory.mktemp("acls"), kafka_home, base_port=31100, controller_port=31150) as lab:
            yield lab

Its `flags` name the lab to kafkatop's commands (`--name`, `--state-dir`): they then use admin.properties by
themselves. `connect=1` adds a Kafka Connect worker, whose REST API asks for admin. `security="sasl_oauthbearer"` makes
it an OAuth lab, its issuer on base_port + 30; Kafka's tools are then run with the KAFKA_OPTS that allow its URLs.
Every node is stopped on the way out, by recorded pid if a clean stop fails.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psutil

from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.kafka_homes import open_install
from kafkatop.backends.lab.oauth import allowed_urls_option
from kafkatop.backends.lab.spec import ClusterSpec
from kafkatop.backends.lab.state import LabSnapshot
from tests.integration.test_supervisor import free_port_block

TOOL_TIMEOUT_S = 90.0


@dataclass(frozen=True, slots=True)
class AuthorizerLab:
    snapshot: LabSnapshot
    kafka_home: Path
    flags: tuple[str, ...]  # ("--name", NAME, "--state-dir", ROOT): the lab, to kafkatop's commands

    @property
    def bootstrap(self) -> str:
        return self.snapshot.bootstrap_servers

    @property
    def client_properties(self) -> Path:
        """User client's settings: no ACL, no access."""
        assert self.snapshot.client_properties is not None
        return self.snapshot.client_properties

    @property
    def admin_properties(self) -> Path:
        """User admin's settings: a super user."""
        assert self.snapshot.admin_properties is not None
        return self.snapshot.admin_properties

    @property
    def controller(self) -> str:
        """The controller's listener (SASL PLAIN): for --bootstrap-controller."""
        port = next(n.node.port for n in self.snapshot.nodes if n.node.is_controller)
        return f"127.0.0.1:{port}"

    @property
    def controller_admin_properties(self) -> Path:
        """User admin's settings for the controllers' listener."""
        assert self.snapshot.controller_admin_properties is not None
        return self.snapshot.controller_admin_properties

    def tool(self, script: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        """Kafka's `bin/SCRIPT.sh ARGS…` (its output as text), bounded in time."""
        env = dict(os.environ)
        if self.snapshot.issuer_url is not None:  # Kafka 4 fetches tokens only from allowed URLs
            env["KAFKA_OPTS"] = allowed_urls_option(self.snapshot.issuer_url)
        return subprocess.run(
            [str(self.kafka_home / "bin" / f"{script}.sh"), *args],
            input=stdin,
            env=env,
            capture_output=True,
            text=True,
            timeout=TOOL_TIMEOUT_S,
            check=False,
        )

    def produce(self, properties: Path, topic: str, *lines: str) -> subprocess.CompletedProcess[str]:
        """Kafka's console producer as the user of `properties` (client or admin): `lines` to `topic`."""
        return self.tool(
            "kafka-console-producer",
            "--bootstrap-server", self.bootstrap, "--producer.config", str(properties), "--topic", topic,
            stdin="".join(f"{line}\n" for line in lines),
        )  # fmt: skip

    def kafka_acls(self, *args: str) -> subprocess.CompletedProcess[str]:
        """kafka-acls.sh as admin: `kafka_acls("--list")`, `kafka_acls("--add", "--allow-principal", …)`."""
        return self.tool("kafka-acls", "--bootstrap-server", self.bootstrap, "--command-config",
                         str(self.admin_properties), *args)  # fmt: skip


@contextmanager
def authorizer_lab(
    state_root: Path,
    kafka_home: Path,
    *,
    base_port: int | None = None,
    controller_port: int | None = None,
    name: str = "acl",
    timeout_s: float = 120.0,
    connect: int = 0,
    security: str = "sasl_ssl",
) -> Iterator[AuthorizerLab]:
    """A running sasl_ssl lab with StandardAuthorizer (broker 1 on `base_port`, controller 101 on
    `controller_port`, `connect` Connect workers from `base_port` + 20; by default a free block below the ephemeral
    ports), state under `state_root`; stopped on the way out."""
    if base_port is None or controller_port is None:
        base_port = free_port_block(60)
        controller_port = base_port + 50
    spec = ClusterSpec(
        name=name, mode="kraft", brokers=1, controllers=1, base_port=base_port, controller_port=controller_port,
        heap="256m", security=security, authorizer=True, connect=connect, connect_port=base_port + 20,
        issuer_port=base_port + 30 if security == "sasl_oauthbearer" else None,
    )  # fmt: skip
    cluster, _ = LabCluster.create_or_open(state_root, open_install(kafka_home), spec)
    try:
        snapshot = cluster.up(timeout_s=timeout_s)
        yield AuthorizerLab(snapshot, kafka_home, ("--name", name, "--state-dir", str(state_root)))
    finally:
        stop(cluster)


def stop(cluster: LabCluster) -> None:
    try:
        cluster.down(timeout_s=10)
    except Exception:  # noqa: BLE001 - teardown must reach the pid sweep below
        pass
    recorded = cluster.state_dir / "cluster.json"
    for node in json.loads(recorded.read_text())["nodes"] if recorded.exists() else ():
        if node.get("pid") and psutil.pid_exists(node["pid"]):
            p = psutil.Process(node["pid"])
            if abs(p.create_time() - node["create_time"]) < 0.05:
                p.kill()
