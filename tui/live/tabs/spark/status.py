"""The Spark panel's state line: what Spark is doing (not started and why, starting with the seconds it has taken,
ready with its master and version, counting with Spark's job, stage and tasks, streaming, failed and what to do,
stopped) and the last count. It renders the SparkStatus the Spark service's client pushes; it never asks."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from rich.text import Text

from kafkatop.backends.model.spark import SparkStatus
from kafkatop.tui.live.text import Static

STEPS = {
    "launching": "starting the Spark service",
    "jvm": "launching Spark's JVM",
    "warm-up": "warm-up job (Python workers)",
}
STYLE = {
    "not started": "dim",
    "starting": "bold yellow",
    "ready": "bold green",
    "counting": "bold cyan",
    "streaming": "bold cyan",
    "failed": "bold red",
    "stopped": "dim",
}


def _seconds(s: float) -> str:
    s = max(0.0, s)
    return f"{s:.0f} s" if s < 120 else f"{s // 60:.0f} min {s % 60:02.0f} s"


def status_text(status: SparkStatus, now: float) -> Text:
    """The state line for `status`, `now` in epoch seconds (elapsed times only; the last count has its own)."""
    phase, elapsed = status.phase, _seconds(now - status.since)
    text = Text.assemble((f"● Spark {phase}", STYLE[phase]))
    if phase == "not started":
        text.append(f" ({status.master}): {status.reason}")
    elif phase == "starting":
        text.append(f" ({status.master}): {STEPS[status.step or 'launching']}… {elapsed}")
    elif phase == "ready":
        text.append(f" · {status.master} · Spark {status.spark_version} · {status.cores} cores")
    elif phase == "counting":
        text.append(f" {status.topic} · {status.master} · ")
        p = status.progress
        if p is None:
            text.append("planning")
        else:
            job = "" if p.job_id is None else f"job {p.job_id}"
            stage = "" if p.stage_id is None else f", stage {p.stage_id}"
            doing = f" ({p.stage})" if p.stage else ""
            text.append(f"{job}{stage}{doing}: {p.done}/{p.total} tasks".lstrip(", :"))
        text.append(f" · {elapsed}")
    elif phase == "streaming":
        batch = "waiting for the first batch" if status.batch_id is None else f"batch {status.batch_id}"
        text.append(f" live counts of {status.topic} · {status.master} · {batch}")
    elif phase == "failed":
        text.append(f": {status.reason} ", "red")
        text.append("· g starts it again")
    if status.streams and phase == "counting":
        text.append(f" · {status.streams} live count{'s' if status.streams > 1 else ''} running", "dim")
    last = status.last_count
    if last is not None:
        at = datetime.fromtimestamp(last.at, UTC)
        text.append(
            f" · last count: {at:%H:%M:%S} UTC, {last.records:,} records of {last.topic} in {last.elapsed_s:.1f} s",
            "dim",
        )
    return text


class SparkStatusLine(Static):
    """Wraps on a narrow terminal rather than cutting; redrawn every second while Spark starts or counts, so the
    elapsed seconds move."""

    def __init__(self, clock: Callable[[], float], *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self._clock = clock
        self.status: SparkStatus | None = None
        self.notice: Text | None = None  # a request's own outcome ("topic x does not exist"), under the state

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)

    def show(self, status: SparkStatus | None = None, notice: Text | None = None) -> None:
        if status is not None:
            self.status = status
        self.notice = notice
        self._draw()

    def _tick(self) -> None:
        if self.status is not None and self.status.busy:
            self._draw()

    def _draw(self) -> None:
        line = Text() if self.status is None else status_text(self.status, self._clock())
        if self.notice is not None:
            line = Text("\n").join([line, self.notice]) if line else self.notice
        self.update(line)
