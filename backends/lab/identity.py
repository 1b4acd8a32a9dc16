"""Identity before action: what kafkatop checks before it signals a process or writes to a cluster it believes is
its own.

- A lab is its own only while its ports answer with the cluster id recorded when its storage was formatted (or when
  it first served, in ZooKeeper mode): another cluster started on the lab's ports — the lab down, someone else's
  `kafka-server-start.sh` up — is refused, by name.
- A local process is an attached cluster's broker only when the broker's host is this machine and the listener on
  its port answers with that cluster's id and that broker's id; a stranger's broker on the same port number is never
  signalled.
"""

from __future__ import annotations

import functools
import socket
from collections.abc import Mapping

import psutil

from kafkatop.backends.lab.spec import HOST
from kafkatop.backends.lab.state import LabSnapshot, SupervisorError
from kafkatop.backends.model.cluster import Broker
from kafkatop.backends.model.errors import BadInput, KafkatopError
from kafkatop.backends.model.nodes import KafkaProcess
from kafkatop.backends.protocol.identity import Answered, who_answers
from kafkatop.backends.protocol.security import SecurityError
from kafkatop.backends.protocol.wire import ProtocolError

PROBE_TIMEOUT_S = 3.0


class ForeignCluster(SupervisorError, BadInput):
    """Something other than the lab answers on the lab's ports: nothing is done (exit 2)."""


class NotThisCluster(KafkatopError):
    """A local process is not the attached cluster's broker it was taken for: it is not signalled."""


class NoAnswer(NotThisCluster):
    """The process did not say which cluster it serves (not listening yet, gone, or not speaking Kafka): not
    signalled now; asked again later."""


@functools.lru_cache(maxsize=256)
def is_local(host: str) -> bool:
    """`host` names this machine: a loopback name or address, or an address of one of its interfaces. Cached: it is
    asked of every broker at every poll of an attached cluster, and the host's own names may take a DNS lookup."""
    if host in ("localhost", "127.0.0.1", "::1", "0.0.0.0", "::") or host.startswith("127."):
        return True
    if host in (socket.gethostname(), socket.getfqdn()):
        return True
    ours = {a.address for addrs in psutil.net_if_addrs().values() for a in addrs}
    return host in ours


def check_lab_answers(lab: LabSnapshot, settings: Mapping[str, str], timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """ForeignCluster when the first of the lab's broker ports that answers is not the lab; nothing when none answers
    (there is then nothing to act on, and the command says so itself) or when the lab's id is not known yet."""
    if lab.cluster_id is None:
        return
    for node in lab.nodes:
        if not node.node.is_broker:
            continue
        address = f"{HOST}:{node.node.port}"
        try:
            answered = who_answers(HOST, node.node.port, settings, timeout_s)
        except OSError:
            continue  # this node is down: ask the next
        except SecurityError as e:
            raise ForeignCluster(
                f"{address} refuses lab {lab.name!r}'s credentials ({e}): is another cluster on these ports? "
                "pass --bootstrap-server (and --command-config) to act on it"
            ) from None
        except ProtocolError as e:
            raise ForeignCluster(
                f"{address} does not answer as a Kafka broker ({e}): is something else on lab {lab.name!r}'s ports?"
            ) from None
        if answered.cluster_id != lab.cluster_id:
            raise ForeignCluster(
                f"{address} answers as cluster {answered.cluster_id}, not lab {lab.name!r} ({lab.cluster_id}): is "
                "another cluster on these ports? pass --bootstrap-server to act on it"
            )
        return


def lab_cluster_id(lab: LabSnapshot, settings: Mapping[str, str], timeout_s: float = PROBE_TIMEOUT_S) -> str | None:
    """The cluster id a running lab's brokers answer with (a ZooKeeper-mode lab's, made by its first broker)."""
    for node in lab.nodes:
        if node.node.is_broker and node.pid is not None:
            try:
                return who_answers(HOST, node.node.port, settings, timeout_s).cluster_id
            except (OSError, ProtocolError):
                continue
    return None


def check_broker_process(
    process: KafkaProcess,
    broker: Broker,
    cluster_id: str | None,
    settings: Mapping[str, str],
    timeout_s: float = PROBE_TIMEOUT_S,
) -> None:
    """NotThisCluster unless `process` is `broker` of the cluster `cluster_id`: the broker's host is this machine,
    and its port, where `process` listens, answers with that cluster id and gives that port to that broker id."""
    if broker.host is None or broker.port is None or not is_local(broker.host):
        raise NotThisCluster(f"broker {broker.id} ({broker.address}) runs on another host: signal it where it runs")
    if process.node_id is not None and process.node_id != broker.id:
        raise NotThisCluster(
            f"pid {process.pid} on port {broker.port} is node {process.node_id} by its properties, not broker "
            f"{broker.id}: nothing signalled"
        )
    try:
        answered = who_answers(broker.host, broker.port, settings, timeout_s)
    except (OSError, ProtocolError) as e:
        raise NoAnswer(
            f"{broker.address} (pid {process.pid}) did not say which cluster it serves ({e}): nothing signalled"
        ) from None
    if cluster_id is None or answered.cluster_id != cluster_id:
        raise NotThisCluster(_stranger(answered, process, broker, cluster_id))
    if broker.id not in answered.node_ids_on(broker.port):
        raise NotThisCluster(
            f"{answered.address} (pid {process.pid}) is not broker {broker.id} of cluster {cluster_id} "
            f"(its port is node {', '.join(map(str, answered.node_ids_on(broker.port))) or 'none'}'s): "
            "nothing signalled"
        )


def _stranger(answered: Answered, process: KafkaProcess, broker: Broker, cluster_id: str | None) -> str:
    expected = f"cluster {cluster_id}" if cluster_id else "the attached cluster (whose id is not known)"
    return (
        f"{answered.address} (pid {process.pid}) answers as cluster {answered.cluster_id}, not {expected}: it is "
        f"another cluster's broker on the port broker {broker.id} advertises; nothing signalled"
    )
