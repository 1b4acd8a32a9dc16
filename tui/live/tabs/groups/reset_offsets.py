"""The preview of a consumer-group offset reset, as `kafka-consumer-groups --reset-offsets --dry-run` prints it, and
more: per partition the committed offset and the new one, the log's range, and where an offset asked for was moved
into it ("asked 999999: clamped to the log end"; Kafka's tool does the same, with a warning). Enter or y executes it,
Escape or n cancels; nothing changes before."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button

from kafkatop.backends.model.resets import OffsetMove, ResetPlan
from kafkatop.tui.live.screens.dialog import Dialog
from kafkatop.tui.live.text import DIALOG_NAME, Label, Static, Table, cut


def _plural(n: int, what: str) -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"


def move_note(move: OffsetMove) -> str:
    if move.clamped is not None:
        return f"asked {move.requested}: clamped to the {move.clamped}"
    if not move.found:
        return "no message at or after that time: the log end"
    return "" if move.changes else "already there"


def reset_summary(plan: ResetPlan, done: bool = False) -> str:
    """One line: what the reset moves (or moved), in how many partitions, how many clamped."""
    moved, clamped = len(plan.changed), len(plan.clamped)
    topics = ", ".join(plan.topics)
    text = (
        f"group '{cut(plan.group, DIALOG_NAME)}' {plan.option} on {topics}: "
        f"{_plural(len(plan.moves), 'partition')}, {moved} {'moved' if done else 'to move'}"
    )
    if clamped:
        ends = sorted({m.clamped for m in plan.clamped if m.clamped is not None})
        text += f", {clamped} clamped to the {' or '.join(ends)}"
    return text


def plan_table(plan: ResetPlan) -> Table:
    table = Table(box=None, pad_edge=False, expand=True, header_style="bold")
    table.add_column("topic", overflow="fold", max_width=30)
    table.add_column("part", justify="right")
    table.add_column("current → new", justify="right", no_wrap=True)
    table.add_column("log", justify="right", no_wrap=True)
    table.add_column("", overflow="fold")
    for m in plan.moves:
        current = "-" if m.current is None else str(m.current)
        style = "bold" if m.changes else "dim"
        table.add_row(
            m.topic,
            str(m.partition),
            Text(f"{current} → {m.target}", style=style),
            f"{m.log_start}–{m.log_end}",
            Text(move_note(m), style="yellow" if m.clamped or not m.found else "dim"),
        )
    return table


class ResetPreviewScreen(Dialog[bool]):
    """The reset's plan; dismissed with True to execute it, False to leave the offsets as they are."""

    BINDINGS = [
        Binding("enter", "confirm", "Reset offsets"),
        Binding("y", "confirm", "Reset offsets", show=False),
        Binding("escape", "cancel", "Cancel"),
        Binding("n", "cancel", "Cancel", show=False),
    ]
    AUTO_FOCUS = "#reset-plan-box"  # ↑/↓ scroll a long plan; Enter confirms, Escape cancels

    def __init__(self, plan: ResetPlan, typed: str | None = None) -> None:
        super().__init__(False)
        self.plan = plan
        self.typed = typed  # on a cluster not kafkatop's: its name, typed, confirms the reset

    def compose(self) -> ComposeResult:
        plan = self.plan
        with Vertical(id="reset-dialog"):
            yield Label(f"Reset the offsets of group '{cut(plan.group, DIALOG_NAME)}'?", id="reset-title")
            yield Static(
                Text(f"--reset-offsets {plan.option} --dry-run: nothing changes until you confirm", style="dim"),
                id="reset-option",
            )
            with VerticalScroll(id="reset-plan-box"):
                yield Static(plan_table(plan), id="reset-plan")
            yield Static(self._summary(), id="reset-summary")
            with Horizontal(classes="buttons"):
                yield Button("Reset (Enter/y)", variant="error", id="reset-yes")
                yield Button("Cancel (Esc/n)", id="reset-no", classes="cancel")

    def _summary(self) -> Text:
        text = Text(reset_summary(self.plan))
        if not self.plan.changed:
            text.append(" — nothing would change", style="yellow")
        if self.plan.refused is not None:
            text.append(f"\nKafka will refuse it now: {self.plan.refused}", style="bold red")
        return text

    @on(Button.Pressed, "#reset-yes")
    def action_confirm(self) -> None:
        if self.typed is None:
            self.dismiss(True)
            return
        from kafkatop.tui.live.screens.confirm import ConfirmScreen

        question = f"Reset the offsets of group '{cut(self.plan.group, DIALOG_NAME)}' ({reset_summary(self.plan)})?"
        self.app.push_screen(
            ConfirmScreen(question, yes="Reset", typed=self.typed), lambda yes: self.dismiss(bool(yes))
        )
