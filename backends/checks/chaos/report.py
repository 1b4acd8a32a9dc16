"""A chaos report as text: what `kafkatop chaos` prints (pure)."""

from __future__ import annotations

from kafkatop.backends.model.chaos import ChaosReport
from kafkatop.backends.model.columns import aligned_lines


# --- printing -------------------------------------------------------------------------------------------------------
def format_report(report: ChaosReport) -> str:
    """The report as `kafkatop chaos` prints it."""
    out: list[str] = []
    s = report.settings
    out.append(f"chaos run {report.run_id} on {report.cluster} ({report.bootstrap_servers}) · seed {report.seed}")
    min_isr = "unknown" if report.min_insync_replicas is None else str(report.min_insync_replicas)
    out.append(
        f"topic '{s.topic}': {report.partitions_count} partitions, RF {report.replication_factor}, "
        f"min.insync.replicas {min_isr}; {s.rate:g} records/s; max-down {s.max_down} "
        f"(safe: {report.safe_max_down}: {report.safe_reason})"
    )
    for note in report.notes:
        out.append(f"note: {note}")
    rows: list[tuple[str, ...]] = [
        ("STEP", "ACTION", "NODE", "SETTLED", "POLLS", "LEADER-MOVES", "PRODUCER-ERR", "CONSUMER-ERR")
    ]
    for step in report.steps:
        rows.append(
            (
                str(step.index),
                step.action + (" *" if step.forced else ""),
                step.node,
                "no" if step.settle_s is None else f"{step.settle_s:.1f} s",
                "-" if step.polls_to_converge is None else str(step.polls_to_converge),
                str(step.leader_moves),
                str(step.producer_errors),
                str(step.consumer_errors),
            )
        )
    for line in aligned_lines(rows):
        out.append(line)
    if any(step.forced for step in report.steps):
        out.append("  * a start not among --actions: no other step was possible")
    for step in report.steps:
        if step.note:
            out.append(f"  step {step.index}: {step.note}")
    over, unmeasured = report.steps_over, [st.index for st in report.steps if not st.settled]
    convergence = (
        f"every settled step within 2 polls (at most {report.max_polls})"
        if not over
        else f"step {', '.join(map(str, over))} over 2 polls (at most {report.max_polls})"
    )
    if unmeasured:
        convergence += f"; step {', '.join(map(str, unmeasured))} not measured (did not settle)"
    out.append(f"kafkatop's view: {report.view_polls} polls, {report.view_errors} failed; {convergence}")
    t = report.totals
    out.append(
        f"records: {t.sent} sent, {t.acked} acked, {t.failed} failed, {report.consumed} read by the group; "
        f"{t.lost} lost, {t.duplicated} duplicated, {t.out_of_order} out of order, {t.unacked_present} "
        "unacked but present"
    )
    for r in report.partitions:
        if r.lost_sample:
            out.append(f"  lost in {s.topic}-{r.partition}: sequence {', '.join(map(str, r.lost_sample))}")
    if report.orphans is None:
        out.append(f"orphans: {report.orphans_note}")
    elif not report.orphans:
        out.append(f"orphans: none ({report.orphans_note})")
    else:
        for orphan in report.orphans:
            out.append(f"orphan: {orphan}")
    for problem in report.problems:
        out.append(f"problem: {problem}")
    out.append(f"verdict: {report.verdict_text}")
    return "\n".join(out)
