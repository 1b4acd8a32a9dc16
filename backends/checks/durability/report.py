"""A durability report as text: what `kafkatop durability` prints and the TUI's dialog shows (pure)."""

from __future__ import annotations

from kafkatop.backends.model.columns import aligned_lines
from kafkatop.backends.model.durability import DELIVERY_TIMEOUT_S, DurabilityReport, DurabilitySettings


# --- printing -------------------------------------------------------------------------------------------------------
def _percent(fraction: float) -> str:
    return f"{fraction * 100:g} %"


def describe_settings(s: DurabilitySettings) -> str:
    parts = [f"{s.records} records", f"acks={s.acks}", f"idempotence {'on' if s.enable_idempotence else 'off'}"]
    if s.transactional:
        parts.append(f"transactions of {s.transaction_records} records, read_committed")
    if s.transactional or s.delivery_timeout_s != DELIVERY_TIMEOUT_S:
        parts.append(f"delivery timeout {s.delivery_timeout_s:g} s")
    if s.retries is not None:
        parts.append(f"retries={s.retries}")
    if s.rate is not None:
        parts.append(f"{s.rate:g}/s")
    if s.kill_at is None:
        parts.append("no fault")
    else:
        parts.append(f"{s.fault} the leader of {s.topic}-{s.partition} at {_percent(s.kill_at)}")
        parts.append("leave it down" if s.restart_at is None else f"start it at {_percent(s.restart_at)}")
    return ", ".join(parts)


def _transactions(report: DurabilityReport) -> list[str]:
    """A transactional run's transactions, their records per partition, and what the aborted ones left in the log."""
    txn = report.transactions
    if txn is None:
        return []
    t = report.totals
    unresolved = f", {txn.unresolved} unresolved (the run stopped before they ended)" if txn.unresolved else ""
    out = [
        f"transactions: {txn.committed} committed, {txn.aborted} aborted{unresolved}; {t.aborted} records in aborted "
        f"transactions, {t.aborted_in_log} of them in the log; {t.uncommitted_read} uncommitted read (must be 0)"
    ]
    rows: list[tuple[str, ...]] = [("PARTITION", "COMMITTED", "ABORTED", "ABORTED-IN-LOG", "UNCOMMITTED-READ")]
    for r in (*report.partitions, t):
        name = "total" if r.partition is None else str(r.partition)
        rows.append((name, *(str(v) for v in (r.committed, r.aborted, r.aborted_in_log, r.uncommitted_read))))
    out += aligned_lines(rows, figures=True)
    if not txn.log_read_complete:
        out.append("the read_uncommitted read did not reach every end: ABORTED-IN-LOG may be short")
    elif t.aborted_in_log:
        out.append(
            f"the {t.aborted_in_log} aborted records are in the log, read_uncommitted reads them; read_committed "
            "skips them, by the abort marker each aborted transaction wrote to its partitions"
        )
    return out


def format_report(report: DurabilityReport) -> str:
    """The report as `kafkatop durability` prints it (and the TUI's dialog shows it)."""
    out: list[str] = []
    s, facts, tl = report.settings, report.facts, report.timeline
    out.append(f"durability check of '{s.topic}' at {report.bootstrap_servers} · run {report.run_id}")
    out.append(f"settings: {describe_settings(s)}")
    min_isr = "unknown" if facts.min_insync_replicas is None else str(facts.min_insync_replicas)
    unclean = {None: "unknown", True: "on", False: "off"}[facts.unclean_leader_election]
    out.append(
        f"topic: {facts.partitions} partitions, RF {facts.replication_factor}, min.insync.replicas {min_isr}, "
        f"unclean leader election {unclean}"
    )
    if s.transactional:
        log_rf, log_min_isr = facts.transaction_log_replication_factor, facts.transaction_log_min_isr
        out.append(
            f"transaction log (__transaction_state): RF {'unknown' if log_rf is None else log_rf}, "
            f"min.isr {'unknown' if log_min_isr is None else log_min_isr}"
        )
    out.append(report.expectation.summary)
    for reason in report.expectation.reasons:
        out.append(f"  {reason}")
    if tl.events:
        out.append("fault:")
        for e in tl.events:
            when = f"{e.at - report.started_at:7.2f} s  {e.records_sent:>7} sent {e.records_done:>7} reported"
            out.append(f"  {when}  {e.what}")
    header = ("PARTITION", "START", "END", "SENT", "ACKED", "FAILED", "READ", "LOST", "DUPLICATED", "OUT-OF-ORDER",
              "UNACKED-PRESENT", "OTHER")  # fmt: skip
    rows: list[tuple[str, ...]] = [header]
    for r in (*report.partitions, report.totals):
        rows.append(
            (
                "total" if r.partition is None else str(r.partition),
                "" if r.start_offset is None else str(r.start_offset),
                "" if r.end_offset is None else str(r.end_offset),
                *(str(v) for v in (r.sent, r.acked, r.failed, r.read, r.lost, r.duplicated, r.out_of_order)),
                str(r.unacked_present),
                str(r.other),
            )
        )
    out += aligned_lines(rows, figures=True)
    out += _transactions(report)
    for r in report.partitions:
        if r.lost_sample:
            more = f" and {r.lost - len(r.lost_sample)} more" if r.lost > len(r.lost_sample) else ""
            out.append(f"lost in {s.topic}-{r.partition}: sequence {', '.join(map(str, r.lost_sample))}{more}")
    for problem in report.problems:
        out.append(f"note: {problem}")
    if tl.happened:
        moved = f"{tl.leader_before} → {tl.leader_after}" if tl.leader_changed else "did not change"
        out.append(f"leader of {s.topic}-{s.partition}: {moved}")
    out.append(f"verdict: {report.verdict_text}")
    return "\n".join(out)
