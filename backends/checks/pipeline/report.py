"""A pipeline report as text: what `kafkatop durability --connect` prints (pure)."""

from __future__ import annotations

from kafkatop.backends.model.columns import aligned_lines
from kafkatop.backends.model.pipeline import PipelineReport, PipelineSettings


def describe_settings(s: PipelineSettings) -> str:
    parts = [f"{s.lines} lines at {s.rate:g}/s"]
    if s.kill_at is None:
        parts.append("no fault")
    else:
        signal = "kill -9" if s.fault == "kill" else "stop (SIGTERM)"
        parts.append(f"{signal} the worker running the source task at {s.kill_at * 100:g} %")
        parts.append(
            "start it again once its task runs elsewhere" if s.restart == "after-failover" else "leave it down"
        )
    return ", ".join(parts)


def failover_text(report: PipelineReport) -> str | None:
    if report.settings.kill_at is None:
        return None
    delay = "" if report.rebalance_delay_ms is None else f" ({report.rebalance_delay_ms} ms here)"
    why = (
        f"Connect waits scheduled.rebalance.max.delay.ms{delay} for a lost worker to come back before it gives that "
        "worker's tasks to the others, once the group has noticed it gone (session.timeout.ms, 10 s by default)"
    )
    if report.failover_s is None:
        return f"failover: the source task did not run again before the run ended; {why}"
    return f"failover: the source task ran again {report.failover_s:.1f} s after the fault; {why}"


def format_report(report: PipelineReport) -> str:
    s = report.settings
    out = [
        f"Connect pipeline check · run {report.run_id} · workers {', '.join(report.workers)}",
        f"settings: {describe_settings(s)}",
        f"pipeline: {report.source_file} → FileStreamSource → topic {report.topic} → FileStreamSink → "
        f"{report.sink_file}",
    ]
    if report.events:
        out.append("events:")
        out += [f"  {e.at:7.2f} s  {e.what}" for e in report.events]
    rows: list[tuple[str, ...]] = [("STAGE", "LINES", "DISTINCT", "LOST", "DUPLICATED", "REORDERED", "OTHER")]
    rows.append(("file in", str(report.lines_in), str(report.lines_in), "0", "0", "0", "0"))
    for st in report.stages:
        values = (st.received, st.distinct, st.lost, st.duplicated, st.reordered, st.other)
        rows.append((st.stage, *(str(v) for v in values)))
    out += aligned_lines(rows, figures=True)
    for st in report.stages:
        if st.lost_sample:
            more = f" and {st.lost - len(st.lost_sample)} more" if st.lost > len(st.lost_sample) else ""
            out.append(f"lost before the {st.stage}: line {', '.join(map(str, st.lost_sample))}{more}")
    failover = failover_text(report)
    if failover:
        out.append(failover)
    duplicated = max((st.duplicated for st in report.stages), default=0)
    if duplicated:
        flush = f"{report.offset_flush_ms} ms" if report.offset_flush_ms is not None else "its interval"
        out.append(
            f"duplicates: {duplicated} lines arrived more than once. Connect is at-least-once: a source task commits "
            f"its file position every offset.flush.interval.ms ({flush}) and a sink task its consumer offsets as "
            "often, so a task started again (elsewhere, or after its worker died) re-reads from the last commit and "
            "sends those lines again. Duplicates may appear; a lost line may not"
        )
    for problem in report.problems:
        out.append(f"note: {problem}")
    out.append(f"verdict: {verdict_text(report)}")
    return "\n".join(out)


def verdict_text(report: PipelineReport) -> str:
    duplicated = max((st.duplicated for st in report.stages), default=0)
    reordered = max((st.reordered for st in report.stages), default=0)
    if not report.complete:
        return (
            f"incomplete: the sink had not written every line within {report.settings.timeout_s:g} s "
            f"({report.lost} missing so far)"
        )
    if report.as_expected:
        dup = f"; {duplicated} duplicated (at-least-once)" if duplicated else ", none duplicated"
        return f"as expected: every line arrived in order, 0 lost{dup}"
    return f"NOT as expected: {report.lost} lost, {reordered} reordered"
