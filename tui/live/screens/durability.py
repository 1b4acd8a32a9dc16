"""The durability check from the TUI (`v`): the settings, the run's progress, and its report — the same check and
the same report as `kafkatop durability`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Checkbox

from kafkatop.backends.check_ports import DurabilityRun, DurabilityRunFactory
from kafkatop.backends.checks.durability.report import format_report
from kafkatop.backends.model.consoles import Acks
from kafkatop.backends.model.durability import DurabilityProgress, DurabilityReport, DurabilitySettings, Fault
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.tui.live.screens.dialog import Dialog
from kafkatop.tui.live.text import Input, Label, Select, Static


@dataclass
class DurabilityProgressed(Message):
    progress: DurabilityProgress

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, DurabilityProgressed)


@dataclass
class DurabilityReported(Message):
    report: DurabilityReport | None
    error: str | None = None


def _fraction(text: str, what: str) -> float | None:
    text = text.strip()
    if not text or text.lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{what}: {text!r} is not a fraction such as 0.3 (or none)") from None


class DurabilityScreen(Dialog[None]):
    BINDINGS = [Binding("escape", "close", "Close")]

    def __init__(self, make_check: DurabilityRunFactory, topic: str | None, can_restart: bool = True) -> None:
        super().__init__(None)
        self.make_check = make_check
        self.topic = topic or ""
        self.can_restart = can_restart
        self.check: DurabilityRun | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="durability-dialog"):
            yield Label(
                "Durability check: write sequenced records while a leader fails, read them back", id="dur-title"
            )
            # Compact fields (one line each): the dialog fits a terminal of 80x24 with room for its report.
            with Horizontal(classes="row"):
                yield Input(self.topic, placeholder="topic (replicated)", id="dur-topic", compact=True)
                yield Label("records")
                yield Input("10000", id="dur-records", classes="number", compact=True)
                yield Label("acks")
                yield Select(
                    [("all", "all"), ("1", "1"), ("0", "0")], value="all", allow_blank=False, id="dur-acks",
                    compact=True,
                )  # fmt: skip
                yield Checkbox("idempotent", True, id="dur-idempotence", compact=True)
            with Horizontal(classes="row"):
                yield Label("fault")
                yield Select(
                    [("kill -9", "kill"), ("stop", "stop"), ("none", "none")], value="kill", allow_blank=False,
                    id="dur-fault", compact=True,
                )  # fmt: skip
                yield Label("at")
                yield Input("0.3", id="dur-kill-at", classes="number", compact=True)
                yield Label("start again at")
                yield Input("0.7" if self.can_restart else "none", id="dur-restart-at", classes="number", compact=True)
                yield Label("partition")
                yield Input("0", id="dur-partition", classes="number", compact=True)
            yield Static("", id="dur-progress")
            with VerticalScroll(id="dur-report-box"):
                yield Static("", id="dur-report")
            with Horizontal(classes="buttons"):
                yield Button("Run", variant="primary", id="dur-run")
                yield Button("Close", id="dur-close")

    def _settings(self) -> DurabilitySettings:
        def value(widget_id: str) -> str:
            return self.query_one(widget_id, Input).value

        records, partition = value("#dur-records").strip(), value("#dur-partition").strip()
        if not records.isdigit() or not partition.isdigit():
            raise ValueError("records and partition: whole numbers, e.g. 10000 and 0")
        fault = str(self.query_one("#dur-fault", Select).value)
        acks = str(self.query_one("#dur-acks", Select).value)
        if acks not in get_args(Acks) or fault not in (*get_args(Fault), "none"):
            raise ValueError(f"acks {acks!r} or fault {fault!r}: pick one from the lists")
        return DurabilitySettings(
            topic=value("#dur-topic").strip(),
            records=int(records),
            acks=acks,  # type: ignore[arg-type]  # checked against Acks above
            enable_idempotence=self.query_one("#dur-idempotence", Checkbox).value,
            fault="kill" if fault == "none" else fault,  # type: ignore[arg-type]  # checked against Fault above
            kill_at=None if fault == "none" else _fraction(value("#dur-kill-at"), "at"),
            restart_at=None if fault == "none" else _fraction(value("#dur-restart-at"), "start again at"),
            partition=int(partition),
        )

    @on(Button.Pressed, "#dur-run")
    def _run_pressed(self) -> None:
        if self.check is not None:
            return
        try:
            settings = self._settings()
        except (ValueError, KafkatopError) as e:
            self._show_progress(str(e), error=True)
            return
        self.query_one("#dur-report", Static).update("")
        self.query_one("#dur-run", Button).disabled = True
        self.check = self.make_check(settings, self._progressed_from_thread)
        self._run(self.check)

    def _progressed_from_thread(self, progress: DurabilityProgress) -> None:
        self.post_message(DurabilityProgressed(progress))

    @work(thread=True, group="durability", exit_on_error=False)
    def _run(self, check: DurabilityRun) -> None:
        try:
            report = check.run()
        except Exception as e:  # noqa: BLE001 — told in the dialog; the app keeps running
            self.post_message(DurabilityReported(None, str(e) if isinstance(e, KafkatopError) else repr(e)))
        else:
            self.post_message(DurabilityReported(report))

    def _show_progress(self, text: str, error: bool = False) -> None:
        self.query_one("#dur-progress", Static).update(Text(text, style="bold red" if error else ""))

    @on(DurabilityProgressed)
    def _progressed(self, message: DurabilityProgressed) -> None:
        p = message.progress
        note = f" · {p.note}" if p.note else ""
        self._show_progress(
            f"{p.step}: {p.sent:,}/{p.records:,} sent, {p.acked:,} acked, {p.failed:,} failed, {p.read:,} read{note}"
        )

    @on(DurabilityReported)
    def _reported(self, message: DurabilityReported) -> None:
        self.check = None
        self.query_one("#dur-run", Button).disabled = False
        if message.report is None:
            self._show_progress(message.error or "the check failed", error=True)
            return
        verdict = message.report.verdict
        self._show_progress(message.report.verdict_text, error=verdict != "as expected")
        self.query_one("#dur-report", Static).update(Text(format_report(message.report)))

    @on(Button.Pressed, "#dur-close")
    def action_close(self) -> None:
        if self.check is not None:
            self.check.cancel()  # it starts a broker it took down again before it returns
            self._show_progress("cancelling: starting again what the check took down…")
            return
        self.action_cancel()
