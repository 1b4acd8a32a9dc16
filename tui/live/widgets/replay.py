"""The banner of a replay: what is played back, where in it, and the keys that pause, step and change its speed."""

from __future__ import annotations

from datetime import UTC, datetime

from rich.text import Text

from kafkatop.tui.live.replay import Replay
from kafkatop.tui.live.text import Static


def _utc(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


class ReplayBar(Static):
    def __init__(self, replay: Replay, id: str | None = None) -> None:  # noqa: A002 - Textual's own parameter name
        super().__init__(id=id)
        self.replay = replay

    def on_mount(self) -> None:
        self.refresh_state()

    def refresh_state(self) -> None:
        state = self.replay.state()
        header = self.replay.recording.header
        text = Text()
        text.append(" REPLAY ", style="bold reverse")
        text.append(f" {self.replay.name or 'a recording'} · {header.title}")
        at = _utc(state.at if state.at is not None else header.started_at)
        where = "the end" if state.ended else ("paused" if state.paused else f"playing {state.speed:g}×")
        text.append(f"\n{at} · {state.delivered}/{state.total} · {where}", style="bold")
        text.append(" · p play/pause · n step · +/- speed", style="dim")
        self.update(text)
