"""A scenario file (TOML) read into a Scenario (scenario.py). A file that cannot be a scenario is refused with the line
of what is wrong (`ScenarioError`): tomllib names the line of a syntax error; for the rest, the line is found from the
table's position in the text (`_Lines`), since tomllib keeps none.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from typing import Any

from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.scenario import (
    ACTIONS,
    ELECTIONS,
    ISOLATIONS,
    OUTCOMES,
    SIZED,
    TRANSACTION_ENDS,
    WHATS,
    ClusterShape,
    Expectation,
    NodeRef,
    Scenario,
    Step,
    TopicSpec,
)

DEFAULT_WITHIN_S = 30.0
_NAME = re.compile(r"[A-Za-z0-9._-]+")
_PARTITION = re.compile(r"(?P<topic>[A-Za-z0-9._-]+)-(?P<partition>\d+)")
_DURATION = re.compile(r"(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>ms|s|m)?")


class ScenarioError(BadInput):
    """A file that is not a scenario: its path and line, what is wrong and what to write instead."""


def parse_scenario(text: str, source: str) -> Scenario:
    """The scenario in `text` (a TOML file's content); ScenarioError names `source`, the line and the fix."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{source}: not TOML: {e}") from None
    lines = _Lines(text, source)
    _only(doc, {"name", "title", "about", "cluster", "topics", "steps"}, "", lines, 1)
    name = doc.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise lines.error(lines.key(1, "name"), "name = \"kill-the-leader\": letters, digits, '.', '_' or '-'")
    title = _text(doc.get("title", name), "title", lines, lines.key(1, "title"))
    about = _text(doc.get("about"), "about", lines, lines.key(1, "about"))
    cluster = _cluster(doc.get("cluster", {}), lines)
    topics = tuple(_topic(t, i, lines) for i, t in enumerate(_tables(doc.get("topics", []), "topics", lines)))
    names = [t.name for t in topics]
    if len(set(names)) < len(names):
        raise lines.error(lines.table("topics", 0), "a topic is listed twice: name each once")
    raw_steps = _tables(doc.get("steps", []), "steps", lines)
    if not raw_steps:
        raise lines.error(1, "no [[steps]]: a scenario is steps, each an action and what should follow it")
    steps = tuple(_step(s, i, lines, cluster, {t.name: t for t in topics}) for i, s in enumerate(raw_steps))
    return Scenario(name, title or name, about, cluster, topics, steps, source)


# --- the parts ------------------------------------------------------------------------------------------------------
def _cluster(raw: Any, lines: _Lines) -> ClusterShape:
    at = lines.table("cluster", 0)
    if not isinstance(raw, dict):
        raise lines.error(at, '[cluster] is a table: brokers = 3, controllers = 1, mode = "kraft"')
    _only(raw, {"mode", "brokers", "controllers", "connect"}, "[cluster]", lines, at)
    mode = raw.get("mode", "kraft")
    if mode not in ("kraft", "zookeeper"):
        raise lines.error(lines.key(at, "mode"), f'mode is "kraft" or "zookeeper", not {mode!r}')
    brokers = _int(raw.get("brokers", 3), "brokers", 1, 9, lines, lines.key(at, "brokers"))
    controllers = _int(raw.get("controllers", 0), "controllers", 0, 5, lines, lines.key(at, "controllers"))
    if mode == "zookeeper" and controllers:
        raise lines.error(lines.key(at, "controllers"), "a ZooKeeper cluster has no controllers to say: leave it out")
    connect = _int(raw.get("connect", 0), "connect", 0, 5, lines, lines.key(at, "connect"))
    return ClusterShape(mode, brokers, controllers, connect)


def _topic(raw: dict[str, Any], index: int, lines: _Lines) -> TopicSpec:
    at = lines.table("topics", index)
    _only(raw, {"name", "partitions", "replication-factor", "config"}, "[[topics]]", lines, at)
    name = raw.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise lines.error(lines.key(at, "name"), 'each [[topics]] has a name = "purchases"')
    partitions = _int(raw.get("partitions", 1), "partitions", 1, 1000, lines, lines.key(at, "partitions"))
    rf = _int(raw.get("replication-factor", 1), "replication-factor", 1, 9, lines, lines.key(at, "replication-factor"))
    config = raw.get("config", {})
    if not isinstance(config, dict) or not all(isinstance(v, str | int | bool) for v in config.values()):
        raise lines.error(lines.key(at, "config"), 'config = { "min.insync.replicas" = "2" }: names and values')
    shown = {k: (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in config.items()}
    return TopicSpec(name, partitions, rf, shown)


def _step(raw: dict[str, Any], index: int, lines: _Lines, cluster: ClusterShape, topics: dict[str, TopicSpec]) -> Step:
    at = lines.table("steps", index)
    keys = {"action", "node", "topic", "group", "members", "count", "seconds", "say", "expect", "by-key", "retry",
            "partition", "election", "end", "connector", "config"}  # fmt: skip
    _only(raw, keys, "[[steps]]", lines, at)
    action = raw.get("action")
    if action not in ACTIONS:
        raise lines.error(lines.key(at, "action"), f"action is one of {', '.join(ACTIONS)}, not {action!r}")
    node = None
    if action in ("kill", "stop", "start"):
        node = _node(raw.get("node"), lines, lines.key(at, "node"), cluster, topics)
    topic = group = None
    if action in ("produce", "consume", "transaction"):
        topic = _known_topic(raw.get("topic"), topics, lines, lines.key(at, "topic"))
    if action in ("consume", "stop-consumer"):
        group = _name(raw.get("group"), lines, lines.key(at, "group"))
    connector: str | None = None
    config: tuple[tuple[str, str], ...] = ()
    if action == "connector":
        if not cluster.connect:
            raise lines.error(lines.key(at, "action"), "a connector needs Kafka Connect workers: [cluster] connect = 2")
        connector = _name(raw.get("connector"), lines, lines.key(at, "connector"), "connector")
        config = _config(raw.get("config"), lines, lines.key(at, "config"))
    partition = (
        _partition(raw.get("partition"), topics, lines, lines.key(at, "partition")) if action == "elect" else None
    )
    election = raw.get("election", "unclean")
    if election not in ELECTIONS:
        raise lines.error(lines.key(at, "election"), f"election is one of {', '.join(ELECTIONS)}, not {election!r}")
    end = raw.get("end", "commit")
    if end not in TRANSACTION_ENDS or ("end" in raw and action != "transaction"):
        raise lines.error(lines.key(at, "end"), f"end goes with action = \"transaction\" and is one of "
                          f"{', '.join(TRANSACTION_ENDS)}, not {end!r}")  # fmt: skip
    members = _int(raw.get("members", 1), "members", 1, 20, lines, lines.key(at, "members"))
    count = _int(raw.get("count", 100), "count", 1, 1_000_000, lines, lines.key(at, "count"))
    seconds = _seconds(raw.get("seconds", 5), lines, lines.key(at, "seconds"))
    say = _text(raw.get("say"), "say", lines, lines.key(at, "say"))
    by_key = raw.get("by-key", False)
    if not isinstance(by_key, bool) or (by_key and node is None):
        raise lines.error(lines.key(at, "by-key"), "by-key = true (the user does it by key) goes with kill, stop or "
                          "start, and is true or false")  # fmt: skip
    retry = raw.get("retry", True)
    if not isinstance(retry, bool) or (not retry and action != "produce"):
        raise lines.error(lines.key(at, "retry"), "retry = false (each record sent once: a refusal comes back as "
                          "itself) goes with produce, and is true or false")  # fmt: skip
    expects = tuple(
        _expect(e, index, j, lines, topics) for j, e in enumerate(_tables(raw.get("expect", []), "expect", lines, at))
    )
    for e in expects:
        if e.what == "transaction" and action != "transaction":
            raise lines.error(e.line, 'what = "transaction" (how the step\'s transaction ended) goes under an '
                              'action = "transaction" step')  # fmt: skip
    return Step(index + 1, action, node, topic, group, members, count, seconds, say, expects, at, by_key, retry,
                partition, election, end, connector, config)  # fmt: skip


def _expect(raw: dict[str, Any], step: int, index: int, lines: _Lines, topics: dict[str, TopicSpec]) -> Expectation:
    at = lines.table("steps.expect", index, within=lines.table("steps", step))
    keys = {"what", "partition", "topic", "size", "leader", "group", "members", "within", "throughout", "explain",
            "isolation", "count", "outcome", "connector"}  # fmt: skip
    _only(raw, keys, "[[steps.expect]]", lines, at)
    what = raw.get("what")
    if what not in WHATS:
        raise lines.error(lines.key(at, "what"), f"what is one of {', '.join(WHATS)}, not {what!r}")
    partition = topic = size = leader = group = None
    members = 0
    if what == "group":
        group = _name(raw.get("group"), lines, lines.key(at, "group"))
        members = _int(raw.get("members"), "members", 0, 20, lines, lines.key(at, "members"))
    if what in ("isr", "elr", "last-known-elr", "leader"):
        partition = _partition(raw.get("partition"), topics, lines, lines.key(at, "partition"))
    if what in SIZED:
        size = _int(raw.get("size"), "size", 0, topics[partition[0]].replication_factor, lines, lines.key(at, "size"))  # type: ignore[index]
    if what == "leader":
        value = raw.get("leader")
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            leader = str(value)
        elif value in ("none", "changed"):
            leader = str(value)
        else:
            raise lines.error(lines.key(at, "leader"), 'leader = "none", "changed" or a broker id (leader = 2)')
    if what in ("acked-read-back", "acked-lost", "refused", "records"):
        topic = _known_topic(raw.get("topic"), topics, lines, lines.key(at, "topic"))
    isolation = count = outcome = None
    if what == "records":
        isolation = raw.get("isolation", "read_committed")
        if isolation not in ISOLATIONS:
            raise lines.error(lines.key(at, "isolation"), f"isolation is {' or '.join(ISOLATIONS)} (the consumer's "
                              f"isolation.level), not {isolation!r}")  # fmt: skip
        count = _int(raw.get("count"), "count", 0, 1_000_000, lines, lines.key(at, "count"))
    connector = None
    if what == "connector":
        connector = _name(raw.get("connector"), lines, lines.key(at, "connector"), "connector")
        count = _int(raw.get("count", 1), "count", 0, 100, lines, lines.key(at, "count"))
    if what == "transaction":
        outcome = raw.get("outcome")
        if outcome not in OUTCOMES:
            raise lines.error(lines.key(at, "outcome"), f"outcome is one of {', '.join(OUTCOMES)}, not {outcome!r}")
    within = _seconds(raw.get("within", DEFAULT_WITHIN_S), lines, lines.key(at, "within"))
    throughout = raw.get("throughout", False)
    if not isinstance(throughout, bool):
        raise lines.error(lines.key(at, "throughout"), "throughout = true (it must hold all along) or false")
    explain = _text(raw.get("explain"), "explain", lines, lines.key(at, "explain"))
    return Expectation(what, partition, topic, size, leader, group, members, within, throughout, explain, at,
                       isolation=isolation, count=count, outcome=outcome, connector=connector)  # fmt: skip


def _node(value: Any, lines: _Lines, line: int, cluster: ClusterShape, topics: dict[str, TopicSpec]) -> NodeRef:
    if isinstance(value, str) and value.startswith("leader:"):
        return NodeRef(leader_of=_partition(value.removeprefix("leader:"), topics, lines, line))
    if isinstance(value, str) and value.startswith("follower:"):
        return NodeRef(follower_of=_partition(value.removeprefix("follower:"), topics, lines, line))
    if value in ("last-down", "first-down"):
        return NodeRef(down=value)
    if isinstance(value, str) and value.startswith("worker:") and cluster.connect:
        return NodeRef(worker_of=_name(value.removeprefix("worker:"), lines, line, "connector"))
    m = re.fullmatch(r"(broker|connect)-(\d+)", value) if isinstance(value, str) else None
    if m is None:
        raise lines.error(
            line,
            'node = "broker-2", "leader:purchases-0", "follower:purchases-0", "last-down", "first-down", or with '
            f'Connect workers "connect-1" or "worker:CONNECTOR", not {value!r}',
        )
    role, count = ("brokers", cluster.brokers) if m.group(1) == "broker" else ("Connect workers", cluster.connect)
    if not 1 <= int(m.group(2)) <= count:
        listed = f"{m.group(1)}-1 … {m.group(1)}-{count}" if count else "none ([cluster] connect = 2)"
        raise lines.error(line, f"{value} is not in this cluster: {role} are {listed}")
    return NodeRef(name=value)


def _partition(value: Any, topics: dict[str, TopicSpec], lines: _Lines, line: int) -> tuple[str, int]:
    m = _PARTITION.fullmatch(value) if isinstance(value, str) else None
    if m is None:
        raise lines.error(
            line, f'a partition is written topic-N, as kafka-topics.sh names it ("purchases-0"), not {value!r}'
        )
    topic, number = m.group("topic"), int(m.group("partition"))
    spec = topics.get(topic)
    if spec is None:
        raise lines.error(line, f"topic {topic!r} is not in the scenario's [[topics]]: add it there")
    if number >= spec.partitions:
        raise lines.error(line, f"{topic} has {spec.partitions} partition(s): {value} is not one of them")
    return topic, number


def _known_topic(value: Any, topics: dict[str, TopicSpec], lines: _Lines, line: int) -> str:
    if not isinstance(value, str) or value not in topics:
        raise lines.error(
            line, f"topic = one of the scenario's [[topics]] ({', '.join(topics) or 'none yet'}), not {value!r}"
        )
    return value


def _name(value: Any, lines: _Lines, line: int, key: str = "group") -> str:
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        example = {"group": "billing", "connector": "orders-sink"}[key]
        raise lines.error(line, f'{key} = "{example}": a name of letters, digits, ".", "_" or "-", not {value!r}')
    return value


def _config(value: Any, lines: _Lines, line: int) -> tuple[tuple[str, str], ...]:
    if (not isinstance(value, dict) or "connector.class" not in value
            or not all(isinstance(v, str | int | bool) for v in value.values())):  # fmt: skip
        raise lines.error(line, 'config = { "connector.class" = "FileStreamSink", "topics" = "orders", "file" = '
                          '"{dir}/orders.txt" }: names and values, the class among them')  # fmt: skip
    return tuple((k, str(v).lower() if isinstance(v, bool) else str(v)) for k, v in value.items())


def _seconds(value: Any, lines: _Lines, line: int) -> float:
    """A duration as the scenarios write it: 30 (seconds), "30s", "1.5s", "500ms", "2m"."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return float(value)
    m = _DURATION.fullmatch(value.strip()) if isinstance(value, str) else None
    if m is None:
        raise lines.error(line, f'a duration is "30s", "500ms", "2m" or a number of seconds, not {value!r}')
    n = float(m.group("n"))
    return {"ms": n / 1000, "m": n * 60}.get(m.group("unit") or "s", n)


def _int(value: Any, key: str, low: int, high: int, lines: _Lines, line: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise lines.error(line, f"{key} is a whole number from {low} to {high}, not {value!r}")
    return value


def _text(value: Any, key: str, lines: _Lines, line: int) -> str | None:
    if value is not None and not isinstance(value, str):
        raise lines.error(line, f"{key} is text in quotes, not {value!r}")
    return value


def _tables(value: Any, key: str, lines: _Lines, at: int = 1) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise lines.error(at, f"{key} are written as [[{key}]] tables, one per {key.rstrip('s')}")
    return value


def _only(raw: Mapping[str, Any], known: set[str], where: str, lines: _Lines, at: int) -> None:
    for key in raw:
        if key not in known:
            raise lines.error(
                lines.key(at, key), f"{where or 'the file'} has no {key!r}: it takes {', '.join(sorted(known))}"
            )


class _Lines:
    """Where a table or key is in the text (1-based lines): tomllib keeps no positions."""

    def __init__(self, text: str, source: str) -> None:
        self.text = text.splitlines()
        self.source = source

    def error(self, line: int, message: str) -> ScenarioError:
        return ScenarioError(f"{self.source}:{line}: {message}")

    def table(self, name: str, index: int, within: int = 1) -> int:
        """The line of the `index`-th [[name]] (or [name]) header after line `within`; `within` when none. A step's
        expectations are looked for up to the next [[steps]]."""
        found = self._headers(name, within)
        if name == "steps.expect":
            later = self._headers("steps", within + 1)
            found = [n for n in found if not later or n < later[0]]
        return found[index] if index < len(found) else within

    def _headers(self, name: str, within: int) -> list[int]:
        header = re.compile(rf"\s*\[\[?\s*{re.escape(name)}\s*\]\]?\s*(#.*)?$")
        return [i + 1 for i, line in enumerate(self.text) if i + 1 >= within and header.match(line)]

    def key(self, table_line: int, key: str) -> int:
        """The line of `key = …` in the table whose header is at `table_line` (the header's when not found)."""
        pattern = re.compile(rf"\s*(\"{re.escape(key)}\"|{re.escape(key)})\s*=")
        for i in range(table_line - 1 if table_line > 1 else 0, len(self.text)):
            line = self.text[i]
            if i >= table_line and line.lstrip().startswith("["):
                break
            if pattern.match(line):
                return i + 1
        return table_line
