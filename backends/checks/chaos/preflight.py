"""Before a chaos run touches anything: the topic (replicated, its end offsets readable), the nodes kafkatop can
act on, and how many brokers may be down at once — or ChaosRefused, saying why."""

from __future__ import annotations

from dataclasses import dataclass

from kafkatop.backends.checks.chaos.context import ChaosContext
from kafkatop.backends.checks.chaos.verdict import check_chaos_topic, safe_max_down, targets_of
from kafkatop.backends.model.chaos import ChaosError, ChaosRefused
from kafkatop.backends.model.cluster import Topic


# --- the run --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Plan:
    """What the preflight found."""

    topic: Topic
    starts: dict[int, int]
    safe: int
    safe_reason: str
    title: str
    kind: str
    notes: tuple[str, ...]


# --- preflight -----------------------------------------------------------------------------------------------
def preflight(run: ChaosContext) -> Plan:
    """The topic and the nodes, or ChaosRefused before anything is touched; SourceUnavailable when the cluster
    does not answer."""
    s = run.settings
    source = run.admin_factory(run.connection)
    try:
        snapshot = source.poll()
        topic = check_chaos_topic(snapshot, s.topic)
        for _ in range(5):  # a partition whose leader has just moved may lack its watermark for a poll
            if all(p.high_watermark is not None for p in topic.partitions):
                break
            run.wait(s.poll_interval_s)
            topic = check_chaos_topic(source.poll(), s.topic)
    finally:
        source.close()
    missing = [p.id for p in topic.partitions if p.high_watermark is None]
    if missing:
        raise ChaosError(f"cannot read the end offsets of {s.topic}-{missing[0]}: check that its leader is up")
    nodes = run.control.poll()
    if nodes.kind == "attach":
        raise ChaosRefused(
            "kafkatop can kill and stop the brokers of a cluster it did not start, but not start them again, "
            "and a chaos run must: run it on a lab cluster (kafkatop up)"
        )
    targets = targets_of(nodes)
    if not targets:
        raise ChaosRefused("kafkatop controls no broker of this cluster: run the chaos on a lab cluster")
    rf = topic.replication_factor
    safe, why = safe_max_down(rf, topic.min_insync_replicas, nodes)
    notes: list[str] = []
    if s.max_down > safe:
        notes.append(
            f"max-down {s.max_down} is above the safe {safe} ({why}): with that many brokers down, acks=all "
            "writes fail (NOT_ENOUGH_REPLICAS) or the KRaft quorum is lost; failed records are counted, and "
            "none acknowledged may be lost"
        )
    if s.max_down >= len(targets):
        notes.append(
            f"max-down {s.max_down} lets every broker be down at once: the cluster is then unavailable, and the "
            "producer's records wait (failing after the delivery timeout)"
        )
    if "start" not in s.actions:
        notes.append("start is not among the actions: a down node is started only when no other step is possible")
    run.check_isr = nodes.kind != "demo"
    if not run.check_isr:
        notes.append("the librdkafka mock reports ISR = replicas: ISRs are compared, but not waited for")
    starts = {p.id: int(p.high_watermark or 0) for p in topic.partitions}
    return Plan(topic, starts, safe, why, nodes.title, nodes.kind, tuple(notes))
