"""`kafkatop reassign`: move replicas between brokers and change replication factors, as
kafka-reassign-partitions.sh does (its JSON plans, its --generate, --execute, --verify, --cancel and --list lines),
with a proposal of its own (balanced, rack-aware, the fewest replicas moved) and `--wait` to follow a reassignment to
its end. A proposal is only printed until `--execute` is given: a reassignment copies whole partitions."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from kafkatop.backends.insight.reassign_plan import check_targets, propose
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.reassign import ReassignAdmin
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.reassignment import (
    SETTLE_S,
    PartitionProgress,
    ReassignmentPlan,
    ReassignmentStatus,
    Stage,
    TopicPartitionKey,
    current_json,
    parse_plan_json,
    progress,
    proposed_json,
)
from kafkatop.tui.cli.common import connection
from kafkatop.tui.cli.exits import DONE, FAILED, UsageError, err

WAIT_POLL_S = 1.0


def _ids(text: str, flag: str) -> tuple[int, ...]:
    try:
        ids = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise UsageError(f"{flag} {text!r}: expected broker ids separated by commas, for example 1,2,3") from None
    if len(set(ids)) != len(ids):
        raise UsageError(f"{flag} {text!r}: a broker is listed twice")
    return ids


class _Cluster:
    """The cluster's metadata, read afresh when asked (one Metadata request, no configs)."""

    def __init__(self, cluster: KafkaConnection, timeout_s: float) -> None:
        self.source = AdminSource(cluster, timeout_s=timeout_s, include_internal=True)

    def __call__(self) -> ClusterSnapshot:
        return self.source.poll(topics_only=True)

    def close(self) -> None:
        self.source.close()


def _read_plan(name: str) -> dict[TopicPartitionKey, tuple[int, ...]]:
    try:
        text = Path(name).read_text()
    except OSError as e:
        raise UsageError(f"plan file {name}: cannot read it ({e.strerror}): give a file of "
                         "kafka-reassign-partitions.sh's JSON") from None  # fmt: skip
    return parse_plan_json(text, f"plan file {name}")


def _plan(args: argparse.Namespace, snapshot: ClusterSnapshot) -> ReassignmentPlan:
    if args.plan:
        if args.topic or args.brokers or args.replication_factor:
            raise UsageError("--plan FILE says every partition's replicas: leave out --topic, --brokers and "
                             "--replication-factor")  # fmt: skip
        return check_targets(snapshot, _read_plan(args.plan))
    if not args.topic:
        raise UsageError("reassign what? give --topic NAME (with --brokers and/or --replication-factor), or --plan "
                         "FILE; --list shows what is moving")  # fmt: skip
    if not args.brokers and args.replication_factor is None:
        raise UsageError("--topic alone changes nothing: give --brokers 1,2,3 (where its replicas go) and/or "
                         "--replication-factor N")  # fmt: skip
    brokers = _ids(args.brokers, "--brokers") if args.brokers else None
    return propose(snapshot, args.topic, brokers, args.replication_factor)


def _list(admin: ReassignAdmin) -> int:
    ongoing = admin.ongoing()
    if not ongoing:
        print("No partition reassignments found.")
        return DONE
    print("Current partition reassignments:")
    for (topic, partition), r in sorted(ongoing.items()):
        adding = f" adding: {_csv(r.adding)}." if r.adding else ""
        removing = f" removing: {_csv(r.removing)}." if r.removing else ""
        print(f"{topic}-{partition}: replicas: {_csv(r.replicas)}.{adding}{removing}")
    return DONE


def _csv(ids: tuple[int, ...]) -> str:
    return ",".join(map(str, ids))


def _status_lines(status: ReassignmentStatus) -> list[str]:
    lines = ["Status of partition reassignment:"]
    for p in status.partitions:
        name = p.move.name
        if p.stage is Stage.DONE:
            lines.append(f"Reassignment of partition {name} is completed.")
        elif p.stage is Stage.NOT_STARTED:
            lines.append(f"There is no active reassignment of partition {name}, but replica set is "
                         f"{_csv(p.replicas)} rather than {_csv(p.move.target)}.")  # fmt: skip
        else:
            lines.append(f"Reassignment of partition {name} is still in progress.")
    return lines


def _status(admin: ReassignAdmin, cluster: _Cluster, plan: ReassignmentPlan) -> ReassignmentStatus:
    asked: dict[str, list[int]] = {}
    for m in plan.moves:
        asked.setdefault(m.topic, []).append(m.partition)
    return progress(plan, cluster(), admin.ongoing(asked))


def _verify(admin: ReassignAdmin, cluster: _Cluster, plan: ReassignmentPlan) -> int:
    """As --verify: every partition of the plan (unchanged ones are complete), then, once none is moving, the
    throttle cleared."""
    status = _status(admin, cluster, plan)
    by_key = {p.move.key: p for p in status.partitions}
    every = [by_key.get(m.key) or PartitionProgress(m, Stage.DONE, m.target, m.target) for m in plan.moves]
    print("\n".join(_status_lines(ReassignmentStatus(tuple(every)))))
    if not status.running:  # as Kafka's tool: once nothing of the plan is moving
        print()
        print("\n".join(admin.clear_throttle([m.topic for m in plan.moves], [b.id for b in cluster().brokers])))
    return DONE


def _wait(admin: ReassignAdmin, cluster: _Cluster, plan: ReassignmentPlan, started: float) -> int:
    """Follow each partition through its stages until all are done; each change printed with its time."""
    seen: dict[str, str] = {}
    while True:
        status = _status(admin, cluster, plan)
        settling = time.monotonic() - started < SETTLE_S
        for p in status.partitions:
            if p.stage is Stage.NOT_STARTED and settling:
                continue  # not in the metadata yet
            if seen.get(p.move.name) != p.text:
                seen[p.move.name] = p.text
                err(f"+{time.monotonic() - started:6.1f} s  {p.move.name}: {p.text}")
        if status.done:
            return _verify(admin, cluster, plan)
        if status.ended(time.monotonic() - started):
            err("nothing is moving any more, and not every partition is where the plan puts it (cancelled?)")
            return FAILED
        time.sleep(WAIT_POLL_S)


def cmd_reassign(args: argparse.Namespace) -> int:
    actions = (("--execute", args.execute), ("--list", args.list), ("--status (--verify)", args.status),
               ("--cancel", args.cancel))  # fmt: skip
    chosen = [f for f, v in actions if v]
    if len(chosen) > 1:  # as the tool: "Command must include exactly one action"
        raise UsageError(f"{' and '.join(chosen)} together: give one")
    if args.generate and chosen:
        raise UsageError(f"--generate and {chosen[0]} together: --generate only prints the plan; drop it")
    if args.throttle is not None and not args.execute:
        raise UsageError("--throttle limits a reassignment being started: give it with --execute")
    if args.wait and not (args.execute or args.status):
        raise UsageError("--wait follows a reassignment: give it with --execute or --status")
    cluster_connection = connection(args)
    cluster = _Cluster(cluster_connection, args.timeout)
    admin = ReassignAdmin(cluster_connection, cluster, timeout_s=args.timeout)
    try:
        if args.list:
            return _list(admin)
        if args.cancel:
            return _cancel(args, admin, cluster)
        plan = _plan(args, cluster())
        if args.status:
            return _wait(admin, cluster, plan, time.monotonic()) if args.wait else _verify(admin, cluster, plan)
        if not args.execute:
            return _generate(args, plan)
        return _execute(args, admin, cluster, plan)
    finally:
        cluster.close()


def _generate(args: argparse.Namespace, plan: ReassignmentPlan) -> int:
    if args.json:
        print(json.dumps({"current": json.loads(current_json(plan)), "proposed": json.loads(proposed_json(plan))}))
        return DONE
    print("Current partition replica assignment")
    print(current_json(plan))
    print()
    print("Proposed partition reassignment configuration")
    print(proposed_json(plan))
    changes = plan.changes
    if changes:
        err(f"{len(changes)} of {len(plan.moves)} partition(s) change, {plan.replicas_moved} replica(s) to copy; "
            "nothing was started: add --execute to start it (--throttle B/s limits it, --wait follows it)")  # fmt: skip
    else:
        err("nothing to move: every partition is already where this plan puts it")
    return DONE


def _execute(args: argparse.Namespace, admin: ReassignAdmin, cluster: _Cluster, plan: ReassignmentPlan) -> int:
    every = bool(args.plan)  # a plan file is sent as it is, as Kafka's tool sends it
    if not every and not plan.changes:
        err("nothing to move: every partition is already where this plan puts it; nothing was started")
        return DONE
    shown = plan if every else ReassignmentPlan(plan.changes)
    print("Current partition replica assignment")
    print()
    print(current_json(shown))
    print()
    print("Save this to use as the --reassignment-json-file option during rollback")
    started_at = time.monotonic()
    started = admin.execute(plan, args.throttle, every=every)
    if args.throttle is not None:
        print("Warning: You must run --verify periodically, until the reassignment completes, to ensure the throttle "
              "is removed.")  # fmt: skip
        print(f"The inter-broker throttle limit was set to {args.throttle} B/s")
    print(f"Successfully started partition reassignment{'s' if len(started) != 1 else ''} for {','.join(started)}")
    if args.wait:
        return _wait(admin, cluster, ReassignmentPlan(plan.changes), started_at)
    return DONE


def _cancel(args: argparse.Namespace, admin: ReassignAdmin, cluster: _Cluster) -> int:
    if args.plan:
        keys = list(_read_plan(args.plan))
    else:
        ongoing = admin.ongoing()
        keys = sorted(k for k in ongoing if not args.topic or k[0] == args.topic)
    cancelled = admin.cancel(keys) if keys else ()
    if cancelled:
        print(f"Successfully cancelled partition reassignments for: {','.join(cancelled)}")
    else:
        print("None of the specified partition reassignments are active.")
    topics = sorted({t for t, _ in keys})
    print("\n".join(admin.clear_throttle(topics, [b.id for b in cluster().brokers])))
    return DONE
