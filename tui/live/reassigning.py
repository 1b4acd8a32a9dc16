"""Following a reassignment kafkatop started, in the action worker: each partition's stage read from the polls
(no extra request), every change a step on the timeline, the throttle removed at the end (as --verify does)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.operations import OperationKind, OperationPhase, OperationStep
from kafkatop.backends.model.reassignment import SETTLE_S, ReassignmentStatus, Stage, progress
from kafkatop.backends.ports import Reassignments
from kafkatop.tui.live.feed import Feed

if TYPE_CHECKING:
    from kafkatop.tui.live.screens.reassign import ReassignRequest

FOLLOW_S = 1.0  # how often a running reassignment is looked at


def _csv(ids: tuple[int, ...]) -> str:
    return ",".join(map(str, ids))


def follow_reassignment(
    admin: Reassignments, request: ReassignRequest, feed: Feed, latest: Callable[[], ClusterSnapshot | None]
) -> None:
    """Start it, then follow each partition's stage from the polls until all are done (or it is cancelled):
    every change a step on the timeline; the throttle removed at the end, as --verify does."""
    kind, plan = OperationKind.REASSIGNMENT, request.plan
    topic = plan.changes[0].topic
    throttle = f", throttled to {request.throttle_bytes} B/s" if request.throttle_bytes else ""
    moving = ", ".join(f"{m.name} {_csv(m.current)}→{_csv(m.target)}" for m in plan.changes)
    feed.operation(OperationStep(kind, OperationPhase.STARTED, f"reassign {moving}{throttle}", topic))
    try:
        admin.execute(plan, request.throttle_bytes)
    except KafkatopError as e:
        feed.operation(OperationStep(kind, OperationPhase.FAILED, f"reassignment refused: {e}", topic))
        raise
    seen: dict[str, str] = {}
    started = time.monotonic()
    worker = get_current_worker()
    while not worker.is_cancelled:
        cluster = latest()  # the latest poll's snapshot (immutable): no extra request
        if cluster is not None:
            status = progress(plan, cluster, admin.ongoing({topic: [m.partition for m in plan.changes]}))
            for p in status.partitions:
                settling = p.stage is Stage.NOT_STARTED and time.monotonic() - started < SETTLE_S
                if seen.get(p.move.name) != p.text and p.stage is not Stage.DONE and not settling:
                    step = OperationStep(kind, OperationPhase.PROGRESS, f"{p.move.name}: {p.text}", topic)
                    feed.operation(step)
                seen[p.move.name] = p.text
            if status.ended(time.monotonic() - started):
                _reassigned(admin, request, status, [b.id for b in cluster.brokers], moving, feed)
                return
        time.sleep(FOLLOW_S)


def _reassigned(
    admin: Reassignments, request: ReassignRequest, status: ReassignmentStatus, brokers: list[int], moving: str,
    feed: Feed,
) -> None:  # fmt: skip
    """Nothing moves any more: the throttle removed (as --verify does), and done or cancelled told."""
    topic = request.plan.changes[0].topic
    if request.throttle_bytes:
        admin.clear_throttle([topic], brokers)
    if status.done:
        text, phase = f"reassignment of {topic} done: {moving}", OperationPhase.DONE
    else:
        text = "reassignment cancelled: " + "; ".join(f"{p.move.name} {p.text}" for p in status.partitions)
        phase = OperationPhase.CANCELLED
    feed.operation(OperationStep(OperationKind.REASSIGNMENT, phase, text, topic))
    if not status.done:
        raise KafkatopError(f"the reassignment of {topic} was cancelled before it was done")
