"""Kafka Connect workers of a lab cluster: each one's properties file, generated from the install's own
`config/connect-distributed.properties`, and the probe that tells when its REST API serves.

The workers form one Connect cluster (group.id `<lab>-connect`) over the lab's brokers, on 127.0.0.1 only. They find
the install's file connectors through `plugin.path`: since Kafka 3.2, kafka-run-class.sh leaves
`libs/connect-file-*.jar` off the classpath, while MirrorMaker 2's connectors are still on it. On a secured lab their
REST API takes HTTP basic auth (connect_auth.py): only the lab's admin creates connectors, the file connectors too,
which read and write any file the lab's owner may (the lab's own security/ folder included).
"""

from __future__ import annotations

import base64
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path

from kafkatop.backends.lab.configs import edit_properties
from kafkatop.backends.lab.properties import parse_properties
from kafkatop.backends.lab.spec import HOST, ClusterSpec, NodeSpec
from kafkatop.backends.model.json_text import loads

CONNECT_HEAP = "256m"  # a lab worker runs a few file connectors: Kafka's script would give it -Xmx2G
FILE_CONNECTORS = "connect-file-*.jar"
# Kafka's default is 300000 (5 minutes): the connectors and tasks of a worker that left the group (killed, stopped)
# stay assigned to it, so unassigned in fact, that long in case it comes back (KIP-415, incremental cooperative
# rebalancing). A lab kills workers to watch the others take over: 20 s shows the wait without a 5-minute one.
LAB_REBALANCE_DELAY_MS = 20_000
# The internal topics and the stock's names for them, should an install's stock file not name one.
STORAGE_TOPICS = {"offset": "connect-offsets", "config": "connect-configs", "status": "connect-status"}
CLIENT_PREFIXES = ("", "producer.", "consumer.", "admin.")  # the worker itself, and its connectors' clients
PROBE_TIMEOUT_S = 1.0


def storage_replication_factor(spec: ClusterSpec, brokers: int) -> int:
    """The internal topics' replication factor: the lab's default.replication.factor if set, else as the brokers'
    own internal topics (RF 3 with 3 brokers or more, else all of them)."""
    raw = dict(spec.broker_properties).get("default.replication.factor", "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else min(3, brokers)


def worker_properties(
    stock_text: str,
    *,
    spec: ClusterSpec,
    node: NodeSpec,
    nodes: tuple[NodeSpec, ...],
    plugin_jars: Sequence[Path],
    stock_path: Path | str,
    client_settings: Mapping[str, str] | None = None,
    rest_settings: Mapping[str, str] | None = None,
    service_loader: bool = False,
) -> str:
    """The properties file of Connect worker `node`. On a secured lab `client_settings` (the lab's client user:
    security.protocol, SASL, the lab's CA) are given to the worker and to its connectors' producers, consumers and
    admin clients, and `rest_settings` (the basic auth extension) to its REST API; the file is then written 0600 by
    the caller. `service_loader`: the install's plugins declare themselves (Kafka 3.6+, KIP-898), so the worker finds
    them without scanning every jar."""
    stock = parse_properties(stock_text)
    brokers = [n for n in nodes if n.is_broker]
    rf = str(storage_replication_factor(spec, len(brokers)))
    rest = f"http://{HOST}:{node.port}"
    settings: dict[str, str | None] = {
        "bootstrap.servers": ",".join(f"{HOST}:{n.port}" for n in brokers),
        "group.id": f"{spec.name}-connect",
    }
    for kind, default in STORAGE_TOPICS.items():
        settings[f"{kind}.storage.topic"] = stock.get(f"{kind}.storage.topic", default)
        settings[f"{kind}.storage.replication.factor"] = rf
    settings |= {
        "listeners": rest,
        "rest.advertised.host.name": HOST,
        "rest.advertised.port": str(node.port),
        "plugin.path": ",".join(str(jar) for jar in plugin_jars) or None,
        "scheduled.rebalance.max.delay.ms": str(LAB_REBALANCE_DELAY_MS),
    }
    if service_loader:
        settings["plugin.discovery"] = "service_load"
    for key, value in (client_settings or {}).items():
        settings |= {f"{prefix}{key}": value for prefix in CLIENT_PREFIXES}
    settings |= dict(rest_settings or {})
    header = [
        f"kafkatop lab cluster {spec.name!r}: {node.name}, a Kafka Connect worker (REST {rest}), generated from "
        f"{stock_path}.",
        f"Edit freely: kafkatop never rewrites this file. Apply with `kafkatop restart {node.name}`.",
        f"scheduled.rebalance.max.delay.ms={LAB_REBALANCE_DELAY_MS}: Kafka's default, 300000 (5 minutes), would keep a "
        "killed worker's",
        "connectors and tasks unassigned for 5 minutes, waiting for it to come back; a lab shows the takeover sooner.",
        "plugin.path: the install's file connectors (FileStreamSource, FileStreamSink), off the classpath since "
        "Kafka 3.2.",
    ]
    if rest_settings:
        header.append(
            "rest.extension.classes: the REST API takes HTTP basic auth, its users in the file the JVM's JAAS "
            "(KAFKA_OPTS) names."
        )
    if service_loader:
        header += [
            "plugin.discovery=service_load: Kafka's own plugins declare themselves; its default (hybrid_warn) also "
            "scans every jar,",
            "seconds of CPU at each start. A plugin of your own without a ServiceLoader manifest needs hybrid_warn.",
        ]
    header.append("")
    return edit_properties(stock_text, settings, header)


_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # 127.0.0.1 is never reached through a proxy


def rest_version(port: int, timeout_s: float = PROBE_TIMEOUT_S, user_info: str | None = None) -> str | None:
    """The Kafka version a worker's REST API reports at `GET /`, once it serves; None before. A worker answers 404
    (Jetty's HTML) for its first 10-20 s, until it has read its internal topics and joined its group. `user_info`
    (USER:PASSWORD): basic auth, which a secured lab's workers ask of `GET /` too (401 without)."""
    request = urllib.request.Request(f"http://{HOST}:{port}/")
    if user_info is not None:
        request.add_header("Authorization", "Basic " + base64.b64encode(user_info.encode()).decode("ascii"))
    try:
        with _NO_PROXY.open(request, timeout=timeout_s) as answer:
            doc = loads(answer.read(64 * 1024))
    except (OSError, ValueError):  # refused, 404 (HTTPError is an OSError), a timeout, not JSON
        return None
    version = doc.get("version") if isinstance(doc, dict) else None
    return version if isinstance(version, str) else None
