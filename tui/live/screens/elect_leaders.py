"""`e` / `E` in Partitions: the partitions a leader election would move (leader now → after, and why), and those
Kafka would refuse, before anything is sent. The scope is picked here — the highlighted partition, its topic, the
rows the filter shows, or every topic — and so is the kind: preferred, or unclean, whose moves say what they lose
(an out-of-sync leader's log end offset, read from its broker, against the last high watermark known) and ask once
more. Dismissed with the plan to send, or None.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button

from kafkatop.backends.insight.elections import (
    log_end_wanted,
    loss_brief,
    loss_summary,
    plan_election,
    with_log_ends,
)
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.elections import ElectionPlan, ElectionType
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.screens.dialog import Dialog
from kafkatop.tui.live.text import Label, Static, Table

LogEndReader = Callable[[Mapping[TopicPartition, int]], tuple[dict[TopicPartition, int], list[str]]]


def _partitions(n: int) -> str:
    return f"{n} partition{'' if n == 1 else 's'}"


@dataclass(frozen=True)
class ElectionScopes:
    """What the election may be about, from the partition table: its highlighted row and the rows it shows."""

    partition: TopicPartition | None
    shown: tuple[TopicPartition, ...] = ()  # the rows on show, when a filter narrows them
    scope: str = "topic"  # "partition", "topic", "shown", "all"

    def partitions(self, snapshot: ClusterSnapshot) -> tuple[TopicPartition, ...] | None:
        """The partitions of the current scope; None: every partition of the cluster."""
        if self.scope == "all" or self.partition is None:
            return None
        if self.scope == "partition":
            return (self.partition,)
        if self.scope == "shown":
            return self.shown
        topic = snapshot.topic(self.partition.topic)
        return tuple(TopicPartition(p.topic, p.id) for p in topic.partitions) if topic is not None else ()

    def label(self, snapshot: ClusterSnapshot) -> str:
        if self.scope == "all" or self.partition is None:
            return f"every topic ({_partitions(len(snapshot.partitions))})"
        if self.scope == "partition":
            return f"partition {self.partition}"
        if self.scope == "shown":
            return f"the {len(self.shown)} rows shown"
        return f"topic {self.partition.topic} ({_partitions(len(self.partitions(snapshot) or ()))})"

    def keys(self) -> str:
        offered = [("t", "topic", "this topic"), ("p", "partition", "this partition")]
        if self.shown:
            offered.append(("f", "shown", "the rows shown"))
        offered.append(("a", "all", "every topic"))
        return " · ".join(f"{k} {what}" for k, scope, what in offered if scope != self.scope)


@dataclass
class LogEndsRead(Message):
    log_ends: dict[TopicPartition, int]
    problems: list[str]
    plan: ElectionPlan  # the plan they were read for: a newer one ignores them


def plan_table(plan: ElectionPlan) -> Table | Text:
    if not plan.candidates:
        kind = plan.election_type
        led = "led by its preferred leader" if kind is ElectionType.PREFERRED else "led: none is without a leader"
        return Text(f"Nothing to elect: every partition here is {led}.", style="dim")
    table = Table(box=None, pad_edge=False, expand=True, header_style="bold")
    table.add_column("partition", overflow="fold", max_width=28)
    table.add_column("leader", justify="right", no_wrap=True)
    table.add_column("", overflow="fold", ratio=1)  # the room left goes to the reasons
    for c in plan.candidates:
        new = "none" if c.new_leader is None else str(c.new_leader)
        if c.moves:
            leader = Text(f"{c.leader_text} → {new}", style="bold red" if c.unclean else "bold")
            why = Text(c.reason)
            if c.unclean:
                why.append(f"\n{loss_brief(c)}", style="red")
        else:
            leader = Text(f"{c.leader_text} stays", style="dim")
            why = Text(f"{c.error}: {c.reason}", style="yellow")
        table.add_row(str(c.partition), leader, why)
    return table


def plan_summary(plan: ElectionPlan) -> Text:
    kind = plan.election_type
    text = Text(f"{len(plan.moving)} partition(s) move", style="bold" if plan.moving else "yellow")
    if plan.refused:
        errors = sorted({c.error for c in plan.refused if c.error})
        text.append(f", {len(plan.refused)} Kafka would refuse ({', '.join(errors)})")
    if plan.not_needed:
        led = "led by their preferred leader" if kind is ElectionType.PREFERRED else "with a leader"
        text.append(f", {len(plan.not_needed)} already {led}")
    if not plan.moving:
        text.append(" — nothing to send", style="yellow")
    if plan.unclean_moves:
        text.append(f"\nUnclean: {loss_summary(plan)}", style="bold red")
    return text


class ElectLeadersScreen(Dialog[ElectionPlan | None]):
    BINDINGS = [
        Binding("enter,y", "confirm", "Elect"),
        Binding("escape,n", "cancel", "Cancel"),
        Binding("t", "scope('topic')", "This topic", show=False),
        Binding("p", "scope('partition')", "This partition", show=False),
        Binding("f", "scope('shown')", "Rows shown", show=False),
        Binding("a", "scope('all')", "Every topic", show=False),
        Binding("u", "kind('UNCLEAN')", "Unclean", show=False),
        Binding("e", "kind('PREFERRED')", "Preferred", show=False),
    ]
    AUTO_FOCUS = "#elect-plan-box"  # ↑/↓ scroll a long plan; Enter elects, Escape cancels

    def __init__(
        self,
        snapshot: ClusterSnapshot,
        election_type: ElectionType,
        scopes: ElectionScopes,
        *,
        high_watermarks: Mapping[TopicPartition, int] | None = None,
        read_log_ends: LogEndReader | None = None,
        note: str | None = None,
        typed: str | None = None,
    ) -> None:
        super().__init__(None)
        self.typed = typed  # an unclean election on a cluster not kafkatop's: its name, typed, confirms it
        self.snapshot = snapshot
        self.election_type = election_type
        self.scopes = scopes
        self.high_watermarks = dict(high_watermarks or {})
        self.read_log_ends = read_log_ends
        self.note = note
        self.reading = False
        self.log_end_problems: list[str] = []
        self.plan = self._plan()

    def _plan(self) -> ElectionPlan:
        return plan_election(
            self.snapshot,
            self.election_type,
            self.scopes.partitions(self.snapshot),
            high_watermarks=self.high_watermarks,
        )

    def compose(self) -> ComposeResult:
        with Vertical(id="elect-dialog"):
            yield Label("", id="elect-title")
            if self.note:
                yield Static(Text(self.note, style="italic"), id="elect-note")
            yield Static("", id="elect-scope")
            with VerticalScroll(id="elect-plan-box"):
                yield Static("", id="elect-plan")
            yield Static("", id="elect-summary")
            with Horizontal(classes="buttons"):
                yield Button("Elect (Enter/y)", variant="primary", id="elect-yes")
                yield Button("Cancel (Esc/n)", id="elect-no", classes="cancel")

    def on_mount(self) -> None:
        self._replan()  # an unclean plan starts reading the new leaders' log ends here

    def _show(self) -> None:
        kind = self.election_type
        self.query_one("#elect-title", Label).update(
            f"{'Preferred' if kind is ElectionType.PREFERRED else 'Unclean'} leader election: "
            f"{self.scopes.label(self.snapshot)}"
        )
        other = "u unclean" if kind is ElectionType.PREFERRED else "e preferred"
        self.query_one("#elect-scope", Static).update(
            Text(f"nothing is sent before Enter · scope: {self.scopes.keys()} · {other}", style="dim")
        )
        self.query_one("#elect-plan", Static).update(plan_table(self.plan))
        summary = plan_summary(self.plan)
        if self.reading:
            summary.append("\nreading the out-of-sync replicas' log end offsets …", style="dim")
        for problem in self.log_end_problems:
            summary.append(f"\nlog end offset not read: {problem}", style="dim")
        self.query_one("#elect-summary", Static).update(summary)
        button = self.query_one("#elect-yes", Button)
        button.label = "Elect unclean (Enter/y)" if self.plan.unclean_moves else "Elect (Enter/y)"
        button.variant = "error" if self.plan.unclean_moves else "primary"
        button.disabled = not self.plan.moving
        self.query_one("#elect-dialog").set_class(bool(self.plan.unclean_moves), "-unclean")

    def _replan(self) -> None:
        self.plan = self._plan()
        self.log_end_problems = []
        wanted = log_end_wanted(self.plan)
        self.reading = bool(wanted) and self.read_log_ends is not None
        if self.reading:
            self._read_log_ends(self.plan, wanted)
        self._show()

    @work(thread=True, exclusive=True, group="elect-log-ends", exit_on_error=False)
    def _read_log_ends(self, plan: ElectionPlan, wanted: dict[TopicPartition, int]) -> None:
        assert self.read_log_ends is not None
        try:
            log_ends, problems = self.read_log_ends(wanted)
        except Exception as e:  # noqa: BLE001 - an unread log end is said, never a crash
            log_ends, problems = {}, [str(e)]
        self.post_message(LogEndsRead(log_ends, problems, plan))

    def on_log_ends_read(self, message: LogEndsRead) -> None:
        if message.plan is not self.plan:
            return  # read for a scope or kind left since
        self.plan = with_log_ends(self.plan, message.log_ends)
        self.log_end_problems = message.problems
        self.reading = False
        self._show()

    # --- keys ----------------------------------------------------------------------------------------------------
    def action_scope(self, scope: str) -> None:
        if scope == "shown" and not self.scopes.shown:
            self.notify("f picks the rows a filter (/) shows: no filter is on", timeout=4)
            return
        if scope != "all" and self.scopes.partition is None:
            return
        self.scopes = ElectionScopes(self.scopes.partition, self.scopes.shown, scope)
        self._replan()

    def action_kind(self, kind: str) -> None:
        self.election_type = ElectionType(kind)
        self._replan()

    @on(Button.Pressed, "#elect-yes")
    def action_confirm(self) -> None:
        plan = self.plan
        if not plan.moving:
            self.notify("nothing to elect in this scope: pick another (t, p, a) or cancel", timeout=4)
            return
        if not plan.unclean_moves:
            self.dismiss(plan)
            return
        if self.reading:
            self.notify("still reading what the new leaders hold: a moment", timeout=3)
            return
        lines = [f"{c.partition} → {c.new_leader}: {loss_brief(c)}" for c in plan.unclean_moves]
        more = [f"… and {len(lines) - 3} more"] if len(lines) > 3 else []
        detail = "\n".join(["It loses acknowledged records:", loss_summary(plan), *lines[:3], *more])

        def answered(yes: bool | None) -> None:
            if yes:
                self.dismiss(plan)

        count = len(plan.unclean_moves)
        self.app.push_screen(
            ConfirmScreen(f"Elect {count} out-of-sync leader(s)?", yes="Elect unclean", detail=detail,
                          typed=self.typed),
            answered,
        )  # fmt: skip
