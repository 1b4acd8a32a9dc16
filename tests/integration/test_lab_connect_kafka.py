"""Kafka Connect workers in a lab, against a real Apache Kafka: a KRaft lab of 1 controller and 2 brokers with 2
workers. Both serve their REST API as one Connect cluster (a connector created through one is listed by the other,
and runs on one of them), with the install's file connectors on plugin.path; the node pane shows them; a worker is
killed with kill -9 and started again; a third is added; `down` stops the workers before the brokers and leaves no
process.

Set KAFKA_HOME to run it (skipped without); KAFKATOP_TEST_BASE_PORT picks the first of the 13 ports it binds (else a
free block). Every process is stopped by its recorded pid at the end.
"""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import psutil
import pytest

from kafkatop.backends.lab.control import LabControl
from kafkatop.backends.lab.spec import NodeSpec
from kafkatop.backends.model.nodes import NodeState, ProcessRole
from tests.conftest import wait_for
from tests.integration.test_supervisor import Clusters, free_port_block

pytestmark = pytest.mark.kafka

_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def rest(url: str, method: str = "GET", body: dict[str, Any] | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data, {"Content-Type": "application/json"}, method=method)
    with _NO_PROXY.open(request, timeout=10) as answer:
        text = answer.read()
    return json.loads(text) if text else None


def gone_at(pids: dict[str, int], until: threading.Event, seen: dict[str, float]) -> None:
    """When each pid was first seen gone (exited or a zombie), polled every 20 ms until `until` is set."""
    handles = {name: psutil.Process(pid) for name, pid in pids.items()}
    while len(seen) < len(pids):
        for name, handle in handles.items():
            if name not in seen:
                try:
                    if handle.status() == psutil.STATUS_ZOMBIE:
                        seen[name] = time.monotonic()
                except psutil.NoSuchProcess:
                    seen[name] = time.monotonic()
        if until.is_set():
            break  # the pass after `until` was the last
        time.sleep(0.02)


def test_two_workers_one_connect_cluster_kill_start_and_down(
    clusters: Clusters, kafka_home: Path, tmp_path: Path
) -> None:
    base = int(os.environ.get("KAFKATOP_TEST_BASE_PORT", "0")) or free_port_block(13)
    cluster = clusters.make(
        kafka_home, name="conn", mode="kraft", brokers=2, controllers=1, connect=2, heap="256m",
        base_port=base, controller_port=base + 4, zookeeper_port=base + 8, connect_port=base + 10,
    )  # fmt: skip
    ready: dict[str, float] = {}

    def on_ready(node: NodeSpec, t: float) -> None:
        ready[node.name] = t

    snap = cluster.up(timeout_s=150, on_ready=on_ready)
    assert [(n.name, n.state) for n in snap.nodes] == [
        ("controller-101", NodeState.UP), ("broker-1", NodeState.UP), ("broker-2", NodeState.UP),
        ("connect-1", NodeState.UP), ("connect-2", NodeState.UP),
    ]  # fmt: skip
    # Started after the brokers were ready, not beside them.
    assert min(ready["connect-1"], ready["connect-2"]) > max(ready["broker-1"], ready["broker-2"])
    urls = cluster.connect_urls
    assert urls == (f"http://127.0.0.1:{base + 10}", f"http://127.0.0.1:{base + 11}") == snap.connect_urls
    for url in urls:
        root = rest(f"{url}/")
        assert root["version"] == str(cluster.install.version) and root["kafka_cluster_id"] == cluster.cluster_id
        assert rest(f"{url}/connectors") == []
        plugins = {p["class"] for p in rest(f"{url}/connector-plugins")}
        assert "org.apache.kafka.connect.file.FileStreamSourceConnector" in plugins  # from plugin.path
        assert "org.apache.kafka.connect.mirror.MirrorSourceConnector" in plugins  # from the classpath

    # One Connect cluster: a connector created through the second worker is known to the first, and runs on one.
    source = tmp_path / "in.txt"
    source.write_text("a line\n")
    config = {"connector.class": "FileStreamSource", "file": str(source), "topic": "conn-probe", "tasks.max": "1"}
    rest(f"{urls[1]}/connectors", "POST", {"name": "probe", "config": config})
    assert wait_for(lambda: rest(f"{urls[0]}/connectors") == ["probe"], 30, 0.2, "the connector on worker 1")
    workers = {url.removeprefix("http://") for url in urls}

    def running() -> dict[str, Any] | None:
        try:
            status: dict[str, Any] = rest(f"{urls[0]}/connectors/probe/status")
        except urllib.error.HTTPError as e:
            if e.code == 404:  # listed, its status not written yet
                return None
            raise
        tasks = status["tasks"]
        up = status["connector"]["state"] == "RUNNING" and tasks and tasks[0]["state"] == "RUNNING"
        return status if up else None

    status = wait_for(running, 30, 0.2, "the probe connector and its task running")
    assert status["connector"]["worker_id"] in workers and status["tasks"][0]["worker_id"] in workers
    rest(f"{urls[0]}/connectors/probe", "DELETE")
    assert wait_for(lambda: rest(f"{urls[1]}/connectors") == [], 30, 0.2, "the connector deleted")

    # The node pane: workers with their REST port, pid, CPU, memory, log.
    control = LabControl(cluster)
    views = {v.name: v for v in control.poll().nodes}
    for i, name in enumerate(("connect-1", "connect-2")):
        v = views[name]
        assert (v.role, v.node_id, v.state, v.ports) == (ProcessRole.CONNECT, None, NodeState.UP, (base + 10 + i,))
        assert v.pid == snap.node(name).pid and v.cpu_percent is not None and (v.rss_bytes or 0) > 50 << 20
        assert v.log_tail and v.actions == {"kill", "stop", "restart"}

    killed = snap.node("connect-1").pid
    assert killed is not None
    status_1 = cluster.kill("connect-1")
    assert status_1.state is NodeState.KILLED and status_1.pid is None and not psutil.pid_exists(killed)
    assert control.poll().node("connect-1").state is NodeState.KILLED  # type: ignore[union-attr]
    t = time.monotonic()
    status_1 = cluster.start("connect-1", timeout_s=90)
    restart_s = time.monotonic() - t
    assert status_1.state is NodeState.UP and status_1.pid not in (None, killed)
    assert rest(f"{urls[0]}/")["version"]

    t = time.monotonic()
    added = cluster.add_connect(timeout_s=90)
    add_s = time.monotonic() - t
    assert (added.name, added.state, added.node.port) == ("connect-3", NodeState.UP, base + 12)
    assert (
        cluster.connect_urls[2] == f"http://127.0.0.1:{base + 12}"
        and rest(f"{cluster.connect_urls[2]}/connectors") == []
    )

    pids = {n.name: n.pid for n in cluster.snapshot().nodes if n.pid is not None}
    assert len(pids) == 6
    seen: dict[str, float] = {}
    done = threading.Event()
    watcher = threading.Thread(target=gone_at, args=(pids, done, seen))
    watcher.start()
    t = time.monotonic()
    cluster.down(timeout_s=30)
    down_s = time.monotonic() - t
    done.set()
    watcher.join(5)
    assert set(seen) == set(pids), f"still running after down: {set(pids) - set(seen)}"
    workers_gone = max(seen["connect-1"], seen["connect-2"], seen["connect-3"])
    assert workers_gone < min(seen["broker-1"], seen["broker-2"], seen["controller-101"])  # workers first
    assert all(n.state is NodeState.DOWN for n in cluster.snapshot().nodes)
    state_dir = str(cluster.state_dir)
    left = [p.pid for p in psutil.process_iter(["cmdline"]) if state_dir in " ".join(p.info["cmdline"] or [])]
    assert left == []
    print(
        f"\nbrokers ready {max(ready['broker-1'], ready['broker-2']):.1f} s, workers ready "
        f"{ready['connect-1']:.1f} / {ready['connect-2']:.1f} s after up began; connect-1 start after kill -9 "
        f"{restart_s:.1f} s; add-connect {add_s:.1f} s; down {down_s:.1f} s (workers gone {workers_gone - t:.1f} s in)"
    )
