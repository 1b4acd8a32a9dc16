"""`kafkatop groups --reset-offsets`: kafka-consumer-groups.sh --reset-offsets, headless, line for line — its plan
(--dry-run, the default: the tool's warning on stderr, then its GROUP TOPIC PARTITION NEW-OFFSET table), its
execution (--execute) and its CSV (--export, which --from-file reads back). The plan is the live view's own
(GroupAdmin.plan_reset). A group with members is refused in the tool's words, with what to do; on an attached cluster
--execute at a terminal asks for the cluster's name first, as the live view does; a script (no terminal) is not
asked: --execute is its go-ahead, as it is the tool's."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from kafkatop.backends.kafka.groups.group_offsets import GroupActive, GroupAdmin
from kafkatop.backends.model.consoles import ClientError
from kafkatop.backends.model.resets import FileOffsets, ResetPlan, ResetTarget, in_tool_order, parse_offsets_csv
from kafkatop.backends.model.text import shell_word
from kafkatop.tui.cli.common import confirmed, connection, typed_name
from kafkatop.tui.cli.exits import DONE, FAILED, UsageError, err

# (option's dest, its flag, the plan's target): kafka-consumer-groups.sh's reset specifications.
TARGETS: tuple[tuple[str, str, ResetTarget], ...] = (
    ("to_earliest", "--to-earliest", "earliest"),
    ("to_latest", "--to-latest", "latest"),
    ("to_current", "--to-current", "current"),
    ("to_offset", "--to-offset", "offset"),
    ("shift_by", "--shift-by", "shift"),
    ("to_datetime", "--to-datetime", "timestamp"),
    ("by_duration", "--by-duration", "duration"),
    ("from_file", "--from-file", "file"),
)
# Options that mean something only with --reset-offsets.
RESET_ONLY: tuple[tuple[str, str], ...] = (
    *((dest, flag) for dest, flag, _ in TARGETS),
    ("all_topics", "--all-topics"),
    ("dry_run", "--dry-run"),
    ("execute", "--execute"),
    ("export", "--export"),
)

# Kafka's tool's own words (stderr) when neither --dry-run nor --execute is given.
NO_EXECUTE = (
    "WARN: No action will be performed as the --execute option is missing. In a future major release, the default "
    "behavior of this command will be to prompt the user before executing the reset rather than doing a dry run. You "
    "should add the --dry-run option explicitly if you are scripting this command and want to keep the current "
    "default behavior without prompting."
)
HEADER = ("GROUP", "TOPIC", "PARTITION", "NEW-OFFSET")


def given(args: argparse.Namespace, dest: str) -> bool:
    return getattr(args, dest, None) not in (None, False)


def reset_options_without(args: argparse.Namespace) -> list[str]:
    """The reset options given without --reset-offsets."""
    return [flag for dest, flag in RESET_ONLY if given(args, dest)] if not args.reset_offsets else []


def table_line(cells: Sequence[object]) -> str:
    """One row as the tool prints it: "%-30s %-30s %-10s %-15s" (a longer name pushes the rest along)."""
    group, topic, partition, offset = (str(c) for c in cells)
    return f"{group:<30} {topic:<30} {partition:<10} {offset:<15}"


def table_lines(plans: Sequence[ResetPlan]) -> list[str]:
    """The tool's table: a blank line, its header, a row per partition of the groups it resets (in_tool_order)."""
    rows = [table_line((p.group, m.topic, m.partition, m.target))
            for p in plans if p.refused is None for m in p.moves]  # fmt: skip
    return ["", table_line(HEADER), *rows]


def export_lines(plans: Sequence[ResetPlan], with_group: bool) -> list[str]:
    """--export's CSV: topic,partition,offset; group,topic,partition,offset for several groups (as the tool)."""
    return [
        ",".join(map(str, ((p.group,) if with_group else ()) + (m.topic, m.partition, m.target)))
        for p in plans
        if p.refused is None
        for m in p.moves
    ]


def _target(args: argparse.Namespace) -> tuple[ResetTarget, int | None, str]:
    chosen = [(flag, to, getattr(args, dest)) for dest, flag, to in TARGETS if given(args, dest)]
    if not chosen:
        flags = ", ".join(f for _, f, _ in TARGETS)
        raise UsageError(f"--reset-offsets needs one of the reset specifications: {flags}")
    if len(chosen) > 1:
        raise UsageError(f"{' and '.join(f for f, _, _ in chosen)} together: give one reset specification")
    flag, to, value = chosen[0]
    return to, (value if isinstance(value, int) and not isinstance(value, bool) else None), flag


def _scope(args: argparse.Namespace, to: ResetTarget) -> dict[str, list[int] | None]:
    """--topic T / T:0,1 (repeatable) as the tool takes them; {} with --all-topics or --from-file."""
    topics = list(args.topic or ())
    if to == "file":
        if topics or args.all_topics:
            raise UsageError("--from-file names its partitions itself: drop --topic/--all-topics")
        return {}
    if topics and args.all_topics:
        raise UsageError("--topic and --all-topics together: give one scope")
    if not topics and not args.all_topics:
        raise UsageError("One of the reset scopes should be defined: --all-topics, --topic. (--topic T, or "
                         "T:0,1 for some partitions; repeatable)")  # fmt: skip
    scope: dict[str, list[int] | None] = {}
    for item in topics:
        name, _, listed = item.partition(":")
        try:
            partitions = [int(p) for p in listed.split(",")] if listed else None
        except ValueError:
            raise UsageError(f"--topic {item!r}: TOPIC or TOPIC:0,1,2 (partition numbers)") from None
        if not name:
            raise UsageError(f"--topic {item!r}: name the topic before its partitions (TOPIC:0,1)")
        scope[name] = partitions
    # The tool plans the partitions named (T:0,1) first, then every partition of each topic named alone.
    return dict(sorted(scope.items(), key=lambda item: item[1] is None))


def _file(args: argparse.Namespace) -> str:
    try:
        return Path(args.from_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"cannot read --from-file {args.from_file!r}: {getattr(e, 'strerror', None) or e}") from None


def _offsets(text: str, group: str) -> FileOffsets:
    try:
        return parse_offsets_csv(text, group)
    except ClientError as e:
        raise UsageError(f"--from-file, group '{group}': {e}") from None


def cmd_reset(args: argparse.Namespace) -> int:
    to, value, flag = _target(args)
    if args.dry_run and args.execute:
        raise UsageError("--dry-run and --execute together: give one (--dry-run, the default, only prints the plan)")
    if args.all_groups and args.group:
        raise UsageError("--group and --all-groups together: give one")
    if not args.all_groups and not args.group:
        raise UsageError("--reset-offsets needs --group G (repeatable) or --all-groups: whose offsets to reset")
    scope = _scope(args, to)
    text = _file(args) if to == "file" else ""
    if not args.dry_run and not args.execute:
        print(NO_EXECUTE, file=sys.stderr)
    with GroupAdmin(connection(args), timeout_s=args.timeout) as admin:
        names = admin.consumer_group_ids() if args.all_groups else list(dict.fromkeys(args.group))
        plans = []
        for group in names:
            offsets = _offsets(text, group) if to == "file" else None
            topics = admin.committed_partitions(group) if args.all_topics else scope
            plans.append(admin.plan_reset(group, topics, to, value, offsets=offsets))
        plans = in_tool_order(plans)
        for plan in plans:
            _said(plan)
        if args.execute and any(p.refused is None for p in plans):
            if not _confirmed(args, [p for p in plans if p.refused is None], flag):
                err("not confirmed: nothing was reset")
                return FAILED
            plans = [_executed(admin, p) for p in plans]
    if args.export:
        print("\n".join([*export_lines(plans, args.all_groups or len(names) > 1), ""]))
    else:
        print("\n".join(table_lines(plans)))
    refused = [p for p in plans if p.refused is not None]
    for plan in refused:
        err(f"{plan.refused}; `kafkatop groups --group {shell_word(plan.group)} --members` shows them")
    return FAILED if refused else DONE


def _said(plan: ResetPlan) -> None:
    """What the tool says of a plan before its table: its refusal (stdout), each clamped offset (stderr, its WARN)
    and each partition with no record at or after the time (stdout, its Warn)."""
    if plan.tool_refusal is not None:
        print(f"\n{plan.tool_refusal}")
        return
    for move in plan.moves:
        if move.clamp_warning is not None:
            print(f"WARN {move.clamp_warning}", file=sys.stderr)
        if not move.found:
            print(f"\nWarn: Partition {move.partition} from topic {move.topic} is empty. Falling back to "
                  "latest known offset.")  # fmt: skip


def _executed(admin: GroupAdmin, plan: ResetPlan) -> ResetPlan:
    """The plan committed; a group that gained members since it was planned is refused, in the tool's words."""
    if plan.refused is not None:
        return plan
    try:
        return admin.execute_reset(plan)
    except GroupActive as e:
        state = admin.refusal(plan.group)[1]
        refused = ResetPlan(plan.group, plan.to, plan.value, plan.moves, refused=str(e), state=state)
        print(f"\n{refused.tool_refusal}")
        return refused


def _confirmed(args: argparse.Namespace, plans: Sequence[ResetPlan], flag: str) -> bool:
    """On an attached cluster, at a terminal (stdin and stdout), the cluster's name typed (as the live view asks it);
    a lab, --yes, or a script (no terminal) go ahead: --execute is their go-ahead, as it is the tool's."""
    typed = typed_name(args)
    if typed is None or args.yes or not (sys.stdin.isatty() and sys.stdout.isatty()):
        return True
    groups = ", ".join(f"'{p.group}'" for p in plans)
    moved = sum(len(p.changed) for p in plans)
    question = (f"reset the offsets of group{'s' if len(plans) > 1 else ''} {groups} ({flag}: "
                f"{moved} partition{'s' if moved != 1 else ''} to move)?")  # fmt: skip
    unasked = "nothing was reset: --execute asks for the cluster's name on a terminal; add --yes to reset at once"
    return confirmed(question, yes=False, unasked=unasked, typed=typed)
