"""Per-node properties files of a lab cluster, generated from the Kafka install's own stock config.

The stock file is edited the way the labs edit it by hand — the same lines changed in place (a commented-out
`#listeners=PLAINTEXT://:9092` is uncommented and filled in), every comment kept — so a generated
`broker-2.properties` reads like the lab's `server-2.properties` and diffs cleanly against the stock one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from kafkatop.backends.lab.kafka_homes import LabMode
from kafkatop.backends.lab.properties import parse_properties
from kafkatop.backends.lab.spec import HOST, SECURITY_PROTOCOLS, ClusterSpec, NodeSpec, quorum_voters
from kafkatop.backends.model.nodes import ProcessRole

PROTOCOL_MAP = "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL"
# ZooKeeper's four-letter words used by kafkatop's ZooKeeper pane and by zktop, which the labs use.
FOUR_LETTER_WORDS = "srvr,stat,mntr,cons,ruok,conf,envi,wchs"

# How stock files comment out a setting: `#listeners=PLAINTEXT://:9092` (no space: "# listeners = …" is prose).
_COMMENTED_SETTING = re.compile(r"#([A-Za-z0-9][A-Za-z0-9_.\-]*)=")
_ACTIVE_KEY = re.compile(r"[ \t\f]*([^\s=:#!][^\s=:]*)")


_VALUE_ESCAPES = str.maketrans({"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\f": "\\f"})


def _escape(value: str) -> str:
    """A value as java.util.Properties reads it back whole: a newline in it can never start a line of its own."""
    escaped = value.translate(_VALUE_ESCAPES)
    return "\\" + escaped if escaped.startswith(" ") else escaped


def edit_properties(
    stock_text: str,
    settings: Mapping[str, str | None],
    header: Sequence[str] = (),
    successors: Mapping[str, str] | None = None,
) -> str:
    """Apply `settings` to a properties text: set each key in place (its first active line, else its first
    commented-out line), comment a key out where the value is None, and append keys the stock file never mentions.
    `successors` maps a key to the one it stands in for (`controller.quorum.voters` for
    `controller.quorum.bootstrap.servers`): it goes right below that one, commented out, instead of at the end."""
    successors = successors or {}
    lines = stock_text.splitlines()
    # Physical line ranges of each active setting, so continuation lines go with their key.
    active: dict[str, list[tuple[int, int]]] = {}
    templates: dict[str, int] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip(" \t\f")
        end = i
        if stripped and stripped[0] not in "#!":
            while end < len(lines) and (len(lines[end]) - len(lines[end].rstrip("\\"))) % 2 == 1:
                end += 1
            m = _ACTIVE_KEY.match(line)
            if m:
                active.setdefault(m.group(1), []).append((i, end))
        elif (t := _COMMENTED_SETTING.match(stripped)) is not None:
            templates.setdefault(t.group(1), i)
        i = end + 1

    replacement: dict[int, list[str]] = {}
    dropped: set[int] = set()
    after: dict[int, list[str]] = {}  # lines placed below a given line (a successor below its predecessor)
    appended: list[str] = []
    for key, value in settings.items():
        spans = active.get(key, [])
        for n, (start, end) in enumerate(spans):
            if value is None or n > 0:  # later duplicates would silently win in Java; comment them out too
                replacement[start] = [f"#{lines[k]}" for k in range(start, end + 1)]
            else:
                replacement[start] = [f"{key}={_escape(value)}"]
            dropped.update(range(start + 1, end + 1))
        if spans or value is None:
            continue
        if key in templates:
            replacement[templates[key]] = [f"{key}={_escape(value)}"]
        elif successors.get(key) in active:
            after.setdefault(active[successors[key]][0][0], []).append(f"{key}={_escape(value)}")
        else:
            appended.append(f"{key}={_escape(value)}")

    out = [f"# {h}" if h else "#" for h in header]
    for n, line in enumerate(lines):
        if n in dropped:
            continue
        out.extend(replacement.get(n, [line]))
        out.extend(after.get(n, []))
    if appended:
        if out and out[-1].strip():
            out.append("")
        out.append("# Set by kafkatop (not in the stock file)")
        out.extend(appended)
    return "\n".join(out) + "\n"


def with_protocol(protocol_map: str, listener: str, protocol: str) -> str:
    """A listener.security.protocol.map with `listener`'s entry set to `protocol`, the others as they were."""
    entries = [e.strip() for e in protocol_map.split(",") if e.strip()]
    if f"{listener}:{protocol}" in entries:
        return protocol_map
    kept = [e for e in entries if e.split(":", 1)[0].strip() != listener]
    return ",".join([f"{listener}:{protocol}", *kept])


def _internal_topic_settings(
    stock: Mapping[str, str], stock_text: str, brokers: int, share_groups: bool = False
) -> dict[str, str | None]:
    """Replication of Kafka's internal topics that fits the cluster: RF 3 when there are 3 brokers, else all of them.
    With the stock RF 1, losing one broker would lose consumer offsets — the opposite of what a lab shows."""
    rf = min(3, brokers)
    min_isr = min(2, rf)
    settings: dict[str, str | None] = {
        "offsets.topic.replication.factor": str(rf),
        "transaction.state.log.replication.factor": str(rf),
        "transaction.state.log.min.isr": str(min_isr),
    }
    # Share groups (Kafka 4.x) have their own internal topic (__share_group_state, RF 3 and min ISR 2 by default, which
    # fewer than 3 brokers cannot hold); set it where the install knows it, or where share groups are asked for.
    if share_groups or "share.coordinator.state.topic.replication.factor" in stock or "share.coordinator" in stock_text:
        settings["share.coordinator.state.topic.replication.factor"] = str(rf)
        settings["share.coordinator.state.topic.min.isr"] = str(min_isr)
    return settings


def node_properties(
    stock_text: str,
    *,
    spec: ClusterSpec,
    mode: LabMode,
    node: NodeSpec,
    nodes: tuple[NodeSpec, ...],
    log_dir: Path,
    stock_path: Path | str,
    security_settings: Mapping[str, str | None] | None = None,
    controller_protocol: str = "PLAINTEXT",
) -> str:
    """The properties file of one broker, combined node or controller. On a secured lab (`spec.security`) the
    brokers' listener is named after its protocol (SASL_SSL://127.0.0.1:9092), and `security_settings` (TLS stores,
    SASL) are set; the controllers' listener, on 127.0.0.1, takes `controller_protocol` (SASL_PLAINTEXT on a SASL
    lab, its mechanism and users among `security_settings`)."""
    stock = parse_properties(stock_text)
    brokers = sum(1 for n in nodes if n.is_broker)
    settings: dict[str, str | None] = {}
    listener = SECURITY_PROTOCOLS.get(spec.security, "PLAINTEXT")
    plaintext = f"{listener}://{HOST}:{node.port}"
    if mode == "zk":
        zookeeper = next(n for n in nodes if n.role is ProcessRole.ZOOKEEPER)
        settings |= {
            "broker.id": str(node.node_id),
            "listeners": plaintext,
            "advertised.listeners": plaintext,
            "log.dirs": str(log_dir),
            "zookeeper.connect": f"{HOST}:{zookeeper.port}",
        }
    else:
        if node.role is ProcessRole.CONTROLLER:
            roles, listeners, advertised = "controller", f"CONTROLLER://{HOST}:{node.port}", None
        elif node.role is ProcessRole.COMBINED:
            controller = f"CONTROLLER://{HOST}:{node.controller_port}"
            roles, listeners, advertised = "broker,controller", f"{plaintext},{controller}", f"{plaintext},{controller}"
        else:
            roles, listeners, advertised = "broker", plaintext, plaintext
        settings |= {
            "process.roles": roles,
            "node.id": str(node.node_id),
            # A static quorum: storage formats without --standalone/--initial-controllers and every node knows
            # every voter from its file, as the labs' hand-written configs would.
            "controller.quorum.voters": quorum_voters(nodes),
            "controller.quorum.bootstrap.servers": None,
            "listeners": listeners,
            "advertised.listeners": advertised if advertised is not None else listeners,
            "controller.listener.names": "CONTROLLER",
            "listener.security.protocol.map": stock.get("listener.security.protocol.map", PROTOCOL_MAP),
            "log.dirs": str(log_dir),
        }
        if node.is_broker:
            settings["inter.broker.listener.name"] = listener
        protocol_map = settings["listener.security.protocol.map"] or ""
        if "CONTROLLER:" not in protocol_map or f"{listener}:" not in protocol_map:
            protocol_map = PROTOCOL_MAP
        settings["listener.security.protocol.map"] = with_protocol(protocol_map, "CONTROLLER", controller_protocol)
    settings |= _internal_topic_settings(stock, stock_text, brokers, spec.share_groups)
    settings |= dict(security_settings or {})
    settings |= dict(spec.broker_properties)
    header = (
        f"kafkatop lab cluster {spec.name!r}: {node.name} ({node.role.value}), generated from {stock_path}.",
        f"Edit freely: kafkatop never rewrites this file. Apply with `kafkatop restart {node.name}`.",
        "",
    )
    return edit_properties(
        stock_text, settings, header, {"controller.quorum.voters": "controller.quorum.bootstrap.servers"}
    )


def zookeeper_properties(
    stock_text: str, *, spec: ClusterSpec, node: NodeSpec, data_dir: Path, stock_path: Path | str
) -> str:
    settings: dict[str, str | None] = {
        "dataDir": str(data_dir),
        "clientPort": str(node.port),
        "clientPortAddress": HOST,
        "maxClientCnxns": "0",
        "admin.enableServer": "false",  # else Jetty opens 8080 on every interface
        "4lw.commands.whitelist": FOUR_LETTER_WORDS,
    }
    header = (
        f"kafkatop lab cluster {spec.name!r}: ZooKeeper, generated from {stock_path}.",
        "Edit freely: kafkatop never rewrites this file. Apply with `kafkatop restart zookeeper`.",
        "",
    )
    return edit_properties(stock_text, settings, header)
