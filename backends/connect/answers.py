"""The workers' JSON answers as the model's values (pure: no I/O). Each parser takes what `json.loads` made of an
answer and refuses, with ConnectError, one that is not shaped as Kafka Connect 4.x answers (recorded in
tests/fixtures/connect/); a field a version leaves out is read as absent, never a crash."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafkatop.backends.model.connect import (
    ConnectError,
    Connector,
    ConnectorOffset,
    ConnectorPlugin,
    ConnectorType,
    ConnectTask,
    ConnectWorker,
    FieldProblem,
    Validation,
)


def _not_connect(what: str, worker: str) -> ConnectError:
    return ConnectError(f"{worker} answered {what} with something that is not Kafka Connect's answer")


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def worker_of(url: str, body: object) -> ConnectWorker:
    """`GET /`: {"version", "commit", "kafka_cluster_id"}."""
    root = _mapping(body)
    if not isinstance(root.get("version"), str):
        return ConnectWorker(url, problem="answered, but not as a Kafka Connect worker (no version at /)")
    return ConnectWorker(
        url, version=root["version"], commit=_text(root.get("commit")) or None,
        kafka_cluster_id=_text(root.get("kafka_cluster_id")) or None,
    )  # fmt: skip


def connectors_of(body: object, worker: str = "the worker") -> tuple[Connector, ...]:
    """`GET /connectors?expand=status&expand=info`: {name: {"status": …, "info": …}}, sorted by name."""
    if not isinstance(body, Mapping):
        raise _not_connect("/connectors", worker)
    return tuple(connector_of(str(name), _mapping(entry)) for name, entry in sorted(body.items()))


def connector_of(name: str, entry: Mapping[str, Any]) -> Connector:
    """One connector from its expanded entry: {"status": GET …/status, "info": GET /connectors/NAME}. Either may be
    missing (a connector just created has no status yet); its type from either, its class from the config."""
    status, info = _mapping(entry.get("status")), _mapping(entry.get("info"))
    config = _mapping(info.get("config"))
    connector = _mapping(status.get("connector"))
    kind = _text(status.get("type")) or _text(info.get("type"))
    return Connector(
        name=name,
        type=_type(kind),
        class_name=_text(config.get("connector.class")),
        state=_text(connector.get("state")) or "UNASSIGNED",
        worker_id=_text(connector.get("worker_id")),
        tasks=tasks_of(name, status),
        config=tuple(sorted((str(k), "" if v is None else str(v)) for k, v in config.items())),
        trace=_text(connector.get("trace")) or None,
        raw=entry,
    )


def tasks_of(name: str, status: Mapping[str, Any]) -> tuple[ConnectTask, ...]:
    """`GET /connectors/NAME/status`'s tasks, by id."""
    tasks = []
    for t in status.get("tasks") or ():
        task = _mapping(t)
        ident = task.get("id")
        if not isinstance(ident, int):
            continue
        tasks.append(ConnectTask(name, ident, _text(task.get("state")) or "UNASSIGNED", _text(task.get("worker_id")),
                                 _text(task.get("trace")) or None))  # fmt: skip
    return tuple(sorted(tasks, key=lambda t: t.task))


def status_of(body: object, info: object = None, worker: str = "the worker") -> Connector:
    """`GET /connectors/NAME/status` (and `GET /connectors/NAME` for its class and config, when asked) as one
    Connector."""
    status = _mapping(body)
    if not isinstance(status.get("name"), str):
        raise _not_connect("a connector's status", worker)
    return connector_of(status["name"], {"status": status, "info": _mapping(info)})


def _type(kind: str) -> ConnectorType:
    return "source" if kind == "source" else "sink" if kind == "sink" else "unknown"


def plugins_of(body: object, worker: str = "the worker") -> tuple[ConnectorPlugin, ...]:
    """`GET /connector-plugins[?connectorsOnly=false]`: [{"class", "type", "version"}], as listed."""
    if not isinstance(body, list):
        raise _not_connect("/connector-plugins", worker)
    plugins = (_mapping(p) for p in body)
    return tuple(ConnectorPlugin(_text(p.get("class")), _text(p.get("type")), _text(p.get("version"))) for p in plugins)


def validation_of(body: object, worker: str = "the worker") -> Validation:
    """`PUT /connector-plugins/CLASS/config/validate`: error_count, and each config whose value has errors."""
    answer = _mapping(body)
    count = answer.get("error_count")
    if not isinstance(count, int):
        raise _not_connect("a validation", worker)
    problems = []
    for c in answer.get("configs") or ():
        value = _mapping(_mapping(c).get("value"))
        errors = tuple(str(e) for e in value.get("errors") or ())
        if errors:
            problems.append(FieldProblem(_text(value.get("name")), errors))
    return Validation(_text(answer.get("name")), count, tuple(problems), raw=answer)


def offsets_of(body: object, worker: str = "the worker") -> tuple[ConnectorOffset, ...]:
    """`GET /connectors/NAME/offsets` (KIP-875): {"offsets": [{"partition": {…}, "offset": {…} | null}]}."""
    answer = _mapping(body)
    if not isinstance(answer.get("offsets"), list):
        raise _not_connect("a connector's offsets", worker)
    entries = (_mapping(o) for o in answer["offsets"])
    return tuple(
        ConnectorOffset(_mapping(o.get("partition")), _mapping(o["offset"]) if o.get("offset") is not None else None)
        for o in entries
    )
