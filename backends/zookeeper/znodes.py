"""Kafka's own ZooKeeper znodes (ZooKeeper-mode clusters, Kafka ≤ 3.x): their paths and JSON, parsed.

Each parser takes the znode's bytes and returns plain values, or raises MalformedZnode saying what was wrong, so
one bad znode becomes a Problem beside the rest of the cluster instead of failing the whole view.
"""

from __future__ import annotations

import json
from typing import Any

from kafkatop.backends.model.cluster import Broker
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.json_text import loads
from kafkatop.backends.model.zookeeper import PartitionState

BROKER_IDS = "/brokers/ids"
TOPICS = "/brokers/topics"
CONTROLLER = "/controller"
CONTROLLER_EPOCH = "/controller_epoch"
CLUSTER_ID = "/cluster/id"


def broker_path(broker_id: int) -> str:
    return f"{BROKER_IDS}/{broker_id}"


def topic_path(topic: str) -> str:
    return f"{TOPICS}/{topic}"


def partition_state_path(topic: str, partition: int) -> str:
    return f"{TOPICS}/{topic}/partitions/{partition}/state"


class MalformedZnode(KafkatopError):
    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"ZooKeeper {path}: {reason}")
        self.path = path
        self.reason = reason


def _json_object(path: str, data: bytes | None) -> dict[str, Any]:
    if data is None:
        raise MalformedZnode(path, "no data")
    try:
        value = loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise MalformedZnode(path, "data is not UTF-8 text") from None
    except json.JSONDecodeError as e:
        raise MalformedZnode(path, f"not valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    if not isinstance(value, dict):
        raise MalformedZnode(path, f"expected a JSON object, found {type(value).__name__}")
    return value


def _int(path: str, obj: dict[str, Any], key: str) -> int:
    v = obj.get(key)
    if isinstance(v, bool) or not isinstance(v, int):
        raise MalformedZnode(path, f"field {key!r} should be an integer, found {v!r}")
    return v


def _int_list(path: str, obj: dict[str, Any], key: str) -> tuple[int, ...]:
    v = obj.get(key)
    if not isinstance(v, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise MalformedZnode(path, f"field {key!r} should be a list of broker ids, found {v!r}")
    return tuple(v)


def parse_broker_registration(broker_id: int, data: bytes | None) -> Broker:
    """`/brokers/ids/N`: `{"endpoints":["PLAINTEXT://host:9092"],"host":…,"port":…,"rack":…,"version":5,…}`.

    `host`/`port` are null when the broker has no PLAINTEXT listener, so the first endpoint is the address.
    """
    path = broker_path(broker_id)
    obj = _json_object(path, data)
    host, port = obj.get("host"), obj.get("port")
    endpoints = obj.get("endpoints") or []
    if (not isinstance(host, str) or not isinstance(port, int) or port < 0) and endpoints:
        first = str(endpoints[0])
        hostport = first.split("://", 1)[-1]
        h, _, p = hostport.rpartition(":")
        if not p.isdigit():
            raise MalformedZnode(path, f"endpoint {first!r} has no port")
        host, port = h.strip("[]"), int(p)
    if not isinstance(host, str) or not isinstance(port, int):
        raise MalformedZnode(path, "no host/port and no endpoints: not a Kafka broker registration")
    rack = obj.get("rack")
    return Broker(broker_id, host, port, rack if isinstance(rack, str) else None, alive=True)


def parse_controller(data: bytes | None) -> int:
    """`/controller`: `{"version":1|2,"brokerid":0,"timestamp":"…"}`."""
    return _int(CONTROLLER, _json_object(CONTROLLER, data), "brokerid")


def parse_controller_epoch(data: bytes | None) -> int:
    """`/controller_epoch`: a bare integer."""
    try:
        return int((data or b"").decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        raise MalformedZnode(CONTROLLER_EPOCH, f"expected an integer, found {data!r}") from None


def parse_cluster_id(data: bytes | None) -> str:
    """`/cluster/id`: `{"version":"1","id":"…"}`."""
    obj = _json_object(CLUSTER_ID, data)
    cid = obj.get("id")
    if not isinstance(cid, str):
        raise MalformedZnode(CLUSTER_ID, f"field 'id' should be a string, found {cid!r}")
    return cid


def parse_topic_assignment(topic: str, data: bytes | None) -> tuple[dict[int, tuple[int, ...]], str | None]:
    """`/brokers/topics/T`: `{"version":3,"partitions":{"0":[1,2,0],…},"topic_id":"…",…}` → replicas, topic id."""
    path = topic_path(topic)
    obj = _json_object(path, data)
    parts = obj.get("partitions")
    if not isinstance(parts, dict):
        raise MalformedZnode(path, f"field 'partitions' should be an object, found {parts!r}")
    out: dict[int, tuple[int, ...]] = {}
    for key in parts:
        if not str(key).isdigit():
            raise MalformedZnode(path, f"partition id {key!r} is not a number")
        out[int(key)] = _int_list(path, parts, key)
    tid = obj.get("topic_id")
    return out, tid if isinstance(tid, str) else None


def parse_partition_state(topic: str, partition: int, data: bytes | None) -> PartitionState:
    """`…/partitions/P/state`: `{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,0]}`."""
    path = partition_state_path(topic, partition)
    obj = _json_object(path, data)
    return PartitionState(
        leader=_int(path, obj, "leader"),
        isr=_int_list(path, obj, "isr"),
        leader_epoch=_int(path, obj, "leader_epoch"),
        controller_epoch=_int(path, obj, "controller_epoch"),
    )
