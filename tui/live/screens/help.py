"""`?`: what every key does, and what the colours mean."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

HELP = """\
# kafkatop

**Keys work from every table.** A text field takes what is typed: **Escape** leaves it (back to the tab's table),
**Tab** / **shift+Tab** move between fields. `ctrl+q` or `q` quits (`q` types a q inside a field).

**Tabs**: {tabs} · `0` the process table

**Processes** (the table at the top; keys act on the highlighted node)

| key | action |
|---|---|
| `K` | kill -9 (SIGKILL: no controlled shutdown), after a confirmation naming the node |
| `t` | stop (SIGTERM: controlled shutdown, leaders move first) |
| `s` | start a stopped or killed node |
| `R` | restart |
| `a` | add a broker (lab clusters) |

**Tables**: `↑`/`↓` or `j`/`k` move · `g`/`G` first and last row · `/` filter the rows (topic, partition, group,
key or value; Enter keeps it, Escape clears it) · `o` order them: partitions faults first, most messages first, by
leader; topics and groups by the next column (numbers largest first)

**Topics**: `c` create a topic · `d` delete the topic highlighted in Partitions (a confirmation names it) · `P` add
partitions to it (Kafka validates the new count first) · `e` elect preferred leaders (`E` unclean: says what can be
lost, and asks) for its partitions, the moves shown before anything is sent · pick one topic or all above the table ·
`m` move its replicas: other brokers, another replication factor, from a proposal you can edit row by row; the
timeline follows it (`m` again cancels it) · `v` durability check: sequenced records while the leader of a partition
is killed, then read back (lost, duplicated, out of order) · `C` configs of the topic highlighted in Partitions, or of
the broker highlighted in Brokers or the process table: their sources, Enter edits, `x` deletes a value set there (as
`kafka-configs.sh`; Kafka's refusal is shown, nothing is changed) · `T` one row per topic (partitions,
under-replicated, offline, messages, rate, group lag; above 1,000 partitions the table starts so), Enter on a topic
shows its partitions, `T` again every partition.

**Groups**: `x` delete the highlighted consumer group · `X` delete its committed offsets (each asks first; Kafka
refuses while the group has members, or consumes the topic)

**Messages**: `b` or Enter on a row of Partitions browses that partition (its newest records) · `from` takes an
offset, `-N` (N before the end), `beginning`, `end` or a time (`2026-11-24T10:30`, `10:30`, `15m ago`) · `[` / `]`
previous / next page · `<` / `>` the log start / end · the detail shows key, value (JSON pretty-printed, binary as
hex), headers, timestamp and its type, leader epoch, size · `f` search key, value and headers (a text, or a regex on
the bytes) over this partition or all, up to 1,000,000 records; Enter or Stop cancels; Enter on a match opens its
page · `read_committed` skips aborted transactions. It joins no consumer group.

**Rows**: yellow = under-replicated (ISR smaller than the replicas) · magenta, `!` by **min isr** = under min ISR
(ISR below min.insync.replicas: acks=all writes are refused) · red = offline (no leader: `Leader: -1`) ·
a struck-through replica sits on a dead broker · `*` = not the preferred leader · a highlighted row just changed
leader or ISR.

**Producer**: type a line, Enter sends it (`key:value` when a key separator is set); paste several lines to send
them all; a refused line stays in the field. Topic fields complete the cluster's topics (`→` accepts, `↓`/`↑` step
through them). **Consumers**: start several in one group to share partitions, or each in its own group to get every
message; stop one to see the rebalance. **Groups**: `Reset…` previews the new offset of every partition (clamped
values said as clamped), as `kafka-consumer-groups --dry-run`; Enter or `y` executes it, Escape or `n` cancels.

**Spark**: `g` counts the picked topic per partition with Spark (records, bytes, offsets, timestamps, top keys; each
count checked against high − low watermark) · `l` live counts from a streaming query. Spark runs in a process of its
own, started the first time the tab is shown.

**Timeline**: every kill, stop, start and failure as an incident, step by step with the time between steps
(process gone, broker deregistered or fenced, controller and leaders moving, ISRs shrinking and growing back, client
errors, recovered), and the latest kill -9 beside the latest controlled shutdown. The partition table's **isr
history** and **msg/s** columns and the groups' **lag history** show the last polls as sparklines.

`r` refresh now · `ctrl+p` every command · `q` quit (a lab cluster kafkatop started is stopped unless it was started
with `--detach`).
"""


def tab_key(number: int) -> str:
    """The key of the tab shown `number`th: its digit, or for a tenth (a lab's Messages, the last tab) b."""
    return str(number) if number <= 9 else "b"


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "close", "Close")]

    def __init__(self, tabs: list[str]) -> None:
        """`tabs`: the titles of the tabs on show, in order (the number keys count these)."""
        super().__init__()
        self.tabs = tabs

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            tabs = " · ".join(f"`{tab_key(i)}` {t}" for i, t in enumerate(self.tabs, start=1))
            yield Markdown(HELP.format(tabs=tabs))

    def action_close(self) -> None:
        self.dismiss(None)
