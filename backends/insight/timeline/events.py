"""The timeline's events, one builder per kind of change: the words each step is told in, and what it records
(before, after, leader epoch). Pure: the Timeline decides when a change happened; these say what it was."""

from __future__ import annotations

from collections.abc import Iterable

from kafkatop.backends.insight.timeline.model import EventKind, TimelineEvent
from kafkatop.backends.model.cluster import NO_LEADER
from kafkatop.backends.model.nodes import NodeState, NodeView, ProcessRole
from kafkatop.backends.model.quorum import METADATA_PARTITION, METADATA_TOPIC, QuorumSnapshot
from kafkatop.backends.model.topic_partition import TopicPartition

BROKER_ROLES = (ProcessRole.BROKER, ProcessRole.COMBINED)
METADATA_LOG = TopicPartition(METADATA_TOPIC, METADATA_PARTITION)
_ACTION_WORDS = {
    "kill": "kill -9 {node}",
    "stop": "stop {node} (controlled shutdown)",
    "start": "start {node}",
    "restart": "restart {node} (controlled shutdown, then start)",
}
_GONE_WORDS = {NodeState.KILLED: "killed (kill -9)", NodeState.DOWN: "stopped", NodeState.FAILED: "exited by itself"}


def ids(broker_ids: Iterable[int]) -> str:
    return ",".join(map(str, broker_ids)) or "none"


def leader_text(leader: int | None) -> str:
    return "none" if leader is None or leader == NO_LEADER else str(leader)


def broker_id_of(view: NodeView) -> int | None:
    return view.node_id if view.role in BROKER_ROLES else None


def action_event(action: str, node: str, at: float, broker_id: int | None) -> TimelineEvent:
    what = _ACTION_WORDS[action].format(node=node)
    return TimelineEvent(
        at, EventKind.ACTION, "kafkatop", f"{what} from kafkatop", node=node, broker_id=broker_id, after=action
    )


def process_gone_event(before: NodeView, view: NodeView, at: float, restarted: bool = False) -> TimelineEvent:
    how = "restarted between two polls" if restarted else _GONE_WORDS.get(view.state, view.state.value)
    was = f"was pid {before.pid}" if before.pid is not None else None
    detail = "; ".join(x for x in (was, view.detail if view.state is NodeState.FAILED else None) if x)
    return TimelineEvent(
        at,
        EventKind.PROCESS_GONE,
        "processes",
        f"{view.name} gone: {how}" + (f" ({detail})" if detail else ""),
        node=view.name,
        broker_id=broker_id_of(view),
        before=before.state.value + (f" (pid {before.pid})" if before.pid is not None else ""),
        after="restarted" if restarted else view.state.value,
    )


def process_started_event(view: NodeView, at: float, before: NodeView | None) -> TimelineEvent:
    pid = f" (pid {view.pid})" if view.pid is not None else ""
    return TimelineEvent(
        at,
        EventKind.PROCESS_STARTED,
        "processes",
        f"{view.name} started{pid}",
        node=view.name,
        broker_id=broker_id_of(view),
        before=before.state.value if before is not None else None,
        after=view.state.value + pid,
    )


def controller_event(at: float, old: int | None, new: int | None, epoch: int | None, source: str) -> TimelineEvent:
    with_epoch = f" (controller epoch {epoch})" if epoch is not None else ""
    text = f"controller {leader_text(old)}→{leader_text(new)}{with_epoch}"
    if new is None:
        text = f"no controller (was broker {leader_text(old)}): an election is under way{with_epoch}"
    return TimelineEvent(
        at, EventKind.CONTROLLER_CHANGED, source, text, broker_id=new, before=leader_text(old), after=leader_text(new)
    )


# KIP-966, said where an ELR is seen: what it changes for the next election.
ELR_SHRUNK = (
    "; ELR {elr} (KIP-966): left as the ISR fell below min.insync.replicas, holding every committed record, so may "
    "still be elected cleanly"
)
ELR_OFFLINE = "; ELR {elr}: the first of them back is elected cleanly, no unclean election needed"


def leader_event(
    tp: TopicPartition,
    old: int,
    new: int,
    isr: tuple[int, ...],
    epoch: int | None,
    at: float,
    source: str,
    elr: tuple[int, ...] | None = None,
) -> TimelineEvent:
    with_epoch = f" (leader epoch {epoch})" if epoch is not None else ""
    if new == NO_LEADER:
        kind = EventKind.PARTITION_OFFLINE
        text = f"{tp} offline: no leader (was {leader_text(old)}, ISR {ids(isr)}){with_epoch}"
        text += ELR_OFFLINE.format(elr=ids(elr)) if elr else ""
    else:
        kind = EventKind.LEADER_CHANGED
        was_offline = " (was offline)" if old == NO_LEADER else ""
        text = f"{tp}: leader {leader_text(old)}→{new}{was_offline}{with_epoch}"
    return TimelineEvent(
        at,
        kind,
        source,
        text,
        broker_id=None if new == NO_LEADER else new,
        partition=tp,
        before=leader_text(old),
        after=leader_text(new),
        leader_epoch=epoch,
    )


def isr_event(
    tp: TopicPartition,
    old: tuple[int, ...],
    new: tuple[int, ...],
    epoch: int | None,
    at: float,
    source: str,
    elr: tuple[int, ...] | None = None,
) -> TimelineEvent:
    """`elr`: the partition's eligible leader replicas after the change (KIP-966), said when the ISR shrank."""
    kind = EventKind.ISR_SHRUNK if set(old) - set(new) else EventKind.ISR_EXPANDED
    with_elr = ELR_SHRUNK.format(elr=ids(elr)) if elr and kind is EventKind.ISR_SHRUNK else ""
    return TimelineEvent(
        at,
        kind,
        source,
        f"{tp}: ISR {ids(old)}→{ids(new)}{with_elr}",
        partition=tp,
        before=ids(old),
        after=ids(new),
        leader_epoch=epoch,
    )


def quorum_event(previous: QuorumSnapshot, snapshot: QuorumSnapshot) -> TimelineEvent:
    """A new quorum leader (active controller), or a new election won by the same one."""
    leader = None if snapshot.leader_id < 0 else snapshot.leader_id
    if leader is None:
        text = f"no quorum leader (was {leader_text(previous.leader_id)}): a controller election is under way"
    elif snapshot.leader_id == previous.leader_id:
        text = f"quorum leader {leader} re-elected (epoch {previous.leader_epoch}→{snapshot.leader_epoch})"
    else:
        text = (
            f"quorum leader (active controller) {leader_text(previous.leader_id)}→{leader} "
            f"(epoch {snapshot.leader_epoch})"
        )
    return TimelineEvent(
        snapshot.taken_at,
        EventKind.QUORUM_LEADER_CHANGED,
        "quorum",
        text,
        partition=METADATA_LOG,
        before=leader_text(previous.leader_id),
        after=leader_text(snapshot.leader_id),
        leader_epoch=snapshot.leader_epoch,
    )
