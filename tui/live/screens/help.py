"""`?`: what every key does (from the action registry, keymap.py), and what the colours mean."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll

from kafkatop.tui.live.action import LiveAction
from kafkatop.tui.live.screens.dialog import Dialog

INTRO = """\
# kafkatop

**A key acts where it is shown**: a node's keys in the process table (`0`) and Brokers, a topic's in Partitions, a
group's in Groups; elsewhere it says where it belongs and does nothing. A text field takes what is typed: **Escape**
leaves it (back to the tab's table), **Tab** / **shift+Tab** move between fields. Produce and Consume open in their
topic field, so a topic typed there is text, never a key. `ctrl+q` or `q` quits (`q` types a q inside a field).

**Tabs**: {tabs} · `0` the process table
"""

# Said under a section's keys: what a table of keys cannot.
NOTES = {
    "Processes": "(the table at the top; keys act on the highlighted node)",
    "Topics": "`e` and `E` pick one topic or all above their table; `e`, `E` and `m` show the moves before anything "
    "is sent, and the timeline follows them. In Configs, Enter edits and `x` deletes a value set there; Kafka's "
    "refusal is shown and nothing is changed. Above 1,000 partitions the table starts with one row per topic.",
    "Groups": "`Reset…` previews the new offset of every partition (clamped values said as clamped), "
    "as `kafka-consumer-groups --dry-run`; Enter or `y` executes it, Escape or `n` cancels.",
    "Messages": "`from` takes an offset, `-N` (N before the end), `beginning`, `end` or a time (`2026-11-24T10:30`, "
    "`10:30`, `15m ago`). The detail shows key, value (decoded in the topic's formats: JSON, Avro, Protobuf … "
    "pretty-printed, with the schema id and subject; binary as hex), headers, timestamp and its type, leader epoch, "
    "size. A search reads up to 1,000,000 records; Enter or Stop cancels it, Enter on a match opens its page. A path "
    '(`.items[0].sku == "A-1"`, `.total > 10.5`, `.name ~ "ali"`, `key.id == 7`, with `and`, `or`, `not`) '
    "reads the decoded value; `~` is contains, ignoring case, or `~ /regex/`. `read_committed` skips aborted "
    "transactions. It joins no consumer group.",
    "Connect": "Enter on a connector: its tasks, the worker each runs on; Enter on a task: its trace. After a kill -9 "
    "Connect keeps showing the dead worker's tasks RUNNING on it until another worker starts them: the group waits for "
    "the worker's session to time out (10 s), then `scheduled.rebalance.max.delay.ms` for it to come back (a lab: 20 "
    "s; Kafka's default: 5 min) — unless it was the group's leader. The Timeline shows each step.",
    "ACLs": "A PREFIXED resource ends in `*` (Topic:app* covers app-orders); `User:*` and a LITERAL `*` name match "
    "every principal and every resource. A DENY wins over any ALLOW; a super user may do everything whatever the "
    "ACLs say. Without an authorizer Kafka answers no ACL request and every authenticated user may do everything.",
    "Schemas": "The registry is read when the tab is shown and by `r` there (not polled); a version other than the "
    "latest when highlighted. A Protobuf schema registered as a serialized descriptor (base64: what confluent-kafka's "
    "serializer registers) is shown as the .proto it describes.",
    "Spark": "Counts are per partition (records, bytes, offsets, timestamps, top keys), each checked against "
    "high − low watermark. Spark runs in a process of its own, started the first time the tab is shown.",
}

AFTER = """\
**Rows**: yellow = under-replicated (ISR smaller than the replicas) · magenta, `!` by **min isr** = under min ISR
(ISR below min.insync.replicas: acks=all writes are refused) · red = offline (no leader: `Leader: -1`) ·
a struck-through replica sits on a dead broker · `*` = not the preferred leader · a highlighted row just changed
leader or ISR. **elr**, on a cluster with eligible leader replicas (KIP-966, on by default from Kafka 4.1): when the
ISR shrinks below min.insync.replicas, the replicas it loses hold every committed record and stay eligible to lead, so
once the last ISR member dies one of them can still be elected cleanly instead of by an unclean election; `→ clean:`
names the replicas that may still lead cleanly.

**Producer**: type a line, Enter sends it (`key:value` when a key separator is set); paste several lines to send
them all; a refused line stays in the field. Topic fields complete the cluster's topics (`→` accepts, `↓`/`↑` step
through them). **Consumers**: start several in one group to share partitions, or each in its own group to get every
message; stop one to see the rebalance.

**Timeline**: every kill, stop, start and failure as an incident, step by step with the time between steps
(process gone, broker deregistered or fenced, controller and leaders moving, ISRs shrinking and growing back, client
errors, recovered), and the latest kill -9 beside the latest controlled shutdown. The partition table's **isr
history** and **msg/s** columns and the groups' **lag history** show the last polls as sparklines.
"""

SECTIONS = ("Processes", "Topics", "Groups", "Messages", "Connect", "ACLs", "Schemas", "Tables", "Spark", "Replay",
            "View")  # fmt: skip


def help_text(tabs: str, rows: list[tuple[LiveAction, str, str]], read_only_reason: str | None = None) -> str:
    """The help, its keys from the action registry (`rows`: keymap.key_rows()): a section's table, then what it needs
    said. In a
    read-only context (`read_only_reason`) the keys that write say they are refused here."""
    parts = [INTRO.format(tabs=tabs)]
    if read_only_reason is not None:
        parts.append(f"**{read_only_reason}**: the keys marked *refused here* write to the cluster and do nothing.\n")
    for section in SECTIONS:
        mine = [(keys, f"*refused here* — {text}" if read_only_reason is not None and a.writes else text)
                for a, keys, text in rows if a.section == section]  # fmt: skip
        if not mine:
            continue
        note = NOTES.get(section, "")
        head = f"**{section}** {note}" if note.startswith("(") else f"**{section}**"
        table = "\n".join(["| key | action |", "|---|---|", *(f"| {k} | {t} |" for k, t in mine)])
        tail = "" if note.startswith("(") or not note else f"\n\n{note}"
        parts.append(f"{head}\n\n{table}{tail}\n")
    parts.append(AFTER)
    return "\n".join(parts)


# The tabs a lab shows past the ninth, and their keys.
BEYOND_NINE = {"Messages": "b", "Connect": "N", "ACLs": "W", "Schemas": "H"}


def tab_key(number: int, title: str) -> str:
    """The key of the tab shown `number`th: its digit, or past nine the tab's own key (Messages b, Connect N, ACLs
    W, Schemas H)."""
    return str(number) if number <= 9 else BEYOND_NINE.get(title, "ctrl+p")


class HelpScreen(Dialog[None]):
    BINDINGS = [Binding("escape,q,question_mark", "cancel", "Close")]

    def __init__(
        self, tabs: list[str], rows: list[tuple[LiveAction, str, str]], read_only_reason: str | None = None
    ) -> None:
        """`tabs`: the titles of the tabs on show, in order (the number keys count these); `rows`: the keys, as
        keymap.key_rows() says them; `read_only_reason`: why the keys that write do nothing here (a read-only
        context)."""
        super().__init__(None)
        self.tabs, self.rows = tabs, rows
        self.read_only_reason = read_only_reason

    def compose(self) -> ComposeResult:
        # Imported when the help is first asked for: Markdown brings markdown-it, pygments and Textual's Tree, ~60 ms
        # that would otherwise come before the first frame (bench/first_frame.py's import table).
        from textual.widgets import Markdown

        with VerticalScroll(id="help"):
            tabs = " · ".join(f"`{tab_key(i, t)}` {t}" for i, t in enumerate(self.tabs, start=1))
            yield Markdown(help_text(tabs, self.rows, self.read_only_reason))
