"""What `kafkatop up` and `status` print of a lab cluster: its nodes (state, pid, ports, CPU, memory, uptime), its
security (which user each settings file is, the controllers' listener, the Connect workers' basic auth) and the doors
a lab made before kafkatop locked them leaves open."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, TextIO

from kafkatop.backends.lab.doors import open_doors
from kafkatop.backends.lab.processes import ProcessSource
from kafkatop.backends.lab.state import LabSnapshot
from kafkatop.backends.model.columns import aligned_lines
from kafkatop.backends.model.nodes import KafkaProcess
from kafkatop.tui.format import human_duration, human_size


def measure(snap: LabSnapshot) -> dict[int, KafkaProcess]:
    pids = {n.pid for n in snap.nodes if n.pid is not None}
    if not pids:
        return {}
    return {p.pid: p for p in ProcessSource(selector=lambda p: p.pid in pids).poll().processes}


def status_rows(snap: LabSnapshot, measured: dict[int, KafkaProcess]) -> list[dict[str, Any]]:
    rows = []
    now = time.time()
    for n in snap.nodes:
        proc = measured.get(n.pid) if n.pid is not None else None
        rows.append(
            {
                "node": n.name,
                "role": n.node.role.value,
                "id": n.node.node_id,
                "state": n.state.value,
                "pid": n.pid,
                "ports": list(n.node.ports),
                "cpu_percent": round(proc.cpu_percent, 1) if proc else None,
                "rss_bytes": proc.rss_bytes if proc else None,
                "uptime_s": round(now - n.started_at, 1) if n.started_at else None,
                "detail": n.detail,
                "config": str(n.config_path),
                "log": str(n.log_path),
            }
        )
    return rows


def print_status(
    snap: LabSnapshot, out: TextIO | None = None, *, measured: dict[int, KafkaProcess] | None = None
) -> None:
    out = sys.stdout if out is None else out  # the stdout of now, not of import time (a test's capture replaces it)
    measured = measure(snap) if measured is None else measured
    print(
        f"cluster {snap.name} · {'ZooKeeper mode' if snap.mode == 'zk' else 'KRaft'} · Kafka {snap.kafka_version} "
        f"({snap.kafka_home})" + (f" · cluster id {snap.cluster_id}" if snap.cluster_id else ""),
        file=out,
    )
    print(
        f"bootstrap servers {snap.bootstrap_servers}"
        + (f" · zookeeper {snap.zookeeper_connect}" if snap.zookeeper_connect else ""),
        file=out,
    )
    if snap.connect_urls:
        print(
            f"connect {','.join(snap.connect_urls)} (Kafka Connect workers' REST API{connect_auth_text(snap)})",
            file=out,
        )
    print(f"state {snap.state_dir}", file=out)
    print(f"security {security_text(snap)}", file=out)
    if snap.issuer_url is not None:
        print(f"Kafka's tools fetch the issuer's tokens only with: export KAFKA_OPTS={tools_option(snap)}", file=out)
    paths = {n.name: n.config_path for n in snap.nodes}
    doors = open_doors(snap.security, [n.node for n in snap.nodes], lambda node: paths[node.name])
    if doors:
        print(
            f"note: lab {snap.name!r} was made before kafkatop locked these doors, and its nodes' files are kept: "
            f"{'; '.join(doors)}. `kafkatop down --delete` then `up` makes it anew, locked (its data is lost)",
            file=out,
        )
    header = ("NODE", "ROLE", "ID", "STATE", "PID", "PORT", "CPU%", "RSS", "UPTIME")
    table = [header]
    notes = []
    for row in status_rows(snap, measured):
        table.append(
            (
                row["node"],
                row["role"],
                "-" if row["id"] is None else str(row["id"]),
                row["state"],
                "-" if row["pid"] is None else str(row["pid"]),
                "/".join(map(str, row["ports"])),
                "-" if row["cpu_percent"] is None else f"{row['cpu_percent']:.1f}",
                human_size(row["rss_bytes"]),
                human_duration(row["uptime_s"]),
            )
        )
        if row["detail"]:
            notes.append(f"  {row['node']}: {row['detail']}")
    for line in aligned_lines(table):
        print(line, file=out)
    for note in notes:
        print(note, file=out)


def security_text(snap: LabSnapshot) -> str:
    """`PLAINTEXT`, or e.g. `SASL_SSL (SCRAM-SHA-512, TLS by the lab's CA) · client settings …/client.properties`."""
    from kafkatop.backends.lab.security import listener_name, mechanism, uses_sasl, uses_tls

    protocol = listener_name(snap.security)
    if snap.security == "plaintext":
        return protocol
    how = [f"{mechanism(snap.security)} users admin, client"] if uses_sasl(snap.security) else []
    if snap.issuer_url is not None:
        how = [f"OAUTHBEARER clients admin, client of the lab's OIDC issuer {snap.issuer_url} (node issuer)"]
    if uses_tls(snap.security):
        how.append("TLS by the lab's own CA")
    if snap.authorizer:
        how.append("authorizer StandardAuthorizer: no ACL, no access")
    controllers = "PLAINTEXT" if snap.controller_admin_properties is None else "SASL_PLAINTEXT (PLAIN, user admin)"
    return f"{protocol} ({'; '.join(how)}; controllers {controllers} on 127.0.0.1) · {settings_files(snap)}"


def tools_option(snap: LabSnapshot) -> str | None:
    """The KAFKA_OPTS Kafka's own tools need on an OAuth lab (Kafka 4 fetches only URLs a JVM option allows)."""
    from kafkatop.backends.lab.oauth import allowed_urls_option

    return None if snap.issuer_url is None else allowed_urls_option(snap.issuer_url)


def settings_files(snap: LabSnapshot) -> str:
    """Which user each settings file is: `client settings …/client.properties (user client) · admin: …`."""
    if snap.admin_properties is None:
        return f"client settings {snap.client_properties}"
    boss = ", a super user" if snap.authorizer else ""
    files = (
        f"client settings {snap.client_properties} (user client) · admin: {snap.admin_properties} (user admin{boss})"
    )
    if snap.controller_admin_properties is not None:
        files += f" · controllers: {snap.controller_admin_properties} (user admin, for --bootstrap-controller)"
    return files


def connect_auth_text(snap: LabSnapshot) -> str:
    """How to reach a secured lab's workers, whose REST API asks for user admin (connect_auth.py); "" otherwise."""
    if snap.connect_netrc is None or snap.connect_admin_properties is None:
        return ""
    return (
        f"; basic auth, user admin: kafkatop uses {snap.connect_admin_properties}, curl "
        f"--netrc-file {snap.connect_netrc} {snap.connect_urls[0]}/connectors"
    )


def path_text(path: Path | None) -> str | None:
    return None if path is None else str(path)
