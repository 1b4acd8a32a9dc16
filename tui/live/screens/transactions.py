"""The Transactions screen (`i`): the transactions not ended yet — what kafka-transactions.sh list and describe show,
read again every two seconds: each transactional id's state, producer id and epoch, coordinator, age against its
timeout, and the partitions it wrote to, which read_committed consumers cannot read past until it ends."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message

from kafkatop.backends.model.cluster import Broker
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.transactions import OpenTransactions, TransactionDescription
from kafkatop.backends.ports import TransactionReader
from kafkatop.tui.live.screens.dialog import Dialog
from kafkatop.tui.live.text import DataTable, Label, Static

REFRESH_S = 2.0
COLUMNS = ("transactional id", "state", "producer", "coordinator", "age", "timeout", "partitions")
ABOUT = (
    "A transaction holds back read_committed consumers at the first offset it wrote in each of its partitions (the "
    "last stable offset) until it commits or aborts; its coordinator aborts one that runs past its timeout. One no "
    "coordinator will end is hanging: `kafkatop transactions find-hanging --topic T` finds it, `… abort` ends it."
)


@dataclass
class TransactionsRead(Message):
    read: OpenTransactions


@dataclass
class TransactionsFailed(Message):
    reason: str


def _seconds(ms: int | None) -> str:
    if ms is None:
        return "-"
    s = ms / 1000
    return f"{s:.1f} s" if s < 120 else f"{s / 60:.1f} min"


def row(t: TransactionDescription, now_ms: int) -> tuple[str | Text, ...]:
    age = t.duration_ms(now_ms)
    late = age is not None and age > t.timeout_ms  # past its timeout: the coordinator is aborting it, or cannot
    return (
        t.transactional_id,
        Text(t.state, style="yellow" if t.state == "Ongoing" else "cyan"),
        f"{t.producer_id}/{t.producer_epoch}",
        str(t.coordinator_id),
        Text(_seconds(age), style="bold red" if late else ""),
        _seconds(t.timeout_ms),
        ",".join(str(tp) for tp in sorted(t.partitions, key=lambda tp: (tp.topic, tp.partition))) or "-",
    )


class TransactionsScreen(Dialog[None]):
    BINDINGS = [Binding("escape", "cancel", "Back"), Binding("r", "reload", "Reload")]
    AUTO_FOCUS = "#transactions-table"

    def __init__(self, reader: TransactionReader, brokers: Callable[[], Sequence[Broker]]) -> None:
        super().__init__(None)
        self.reader = reader
        self.brokers = brokers  # the live view's brokers, as last polled: ListTransactions goes to each

    def compose(self) -> ComposeResult:
        with Vertical(id="transactions-dialog"):
            yield Label(Text("Transactions not ended yet", style="bold"), id="transactions-title")
            yield DataTable(id="transactions-table", cursor_type="row", zebra_stripes=True)
            yield Static("reading the transactions …", id="transactions-status")
            yield Static(Text(ABOUT, style="dim"), id="transactions-about")
            yield Label(f"read every {REFRESH_S:g} s · r reload · Esc close", id="transactions-keys")

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*COLUMNS)
        self._read()
        self.set_interval(REFRESH_S, self._read)

    def action_reload(self) -> None:
        self._read()

    @work(thread=True, exclusive=True, group="transactions-read", exit_on_error=False)
    def _read(self) -> None:
        try:
            read = self.reader.open_transactions(self.brokers())
        except KafkatopError as e:
            self.post_message(TransactionsFailed(str(e)))
        except Exception as e:  # noqa: BLE001 - shown in the screen, never a crash
            self.post_message(TransactionsFailed(f"{type(e).__name__}: {e}"))
        else:
            self.post_message(TransactionsRead(read))

    def on_transactions_read(self, message: TransactionsRead) -> None:
        read = message.read
        table = self.query_one(DataTable)
        at = table.cursor_row
        table.clear()
        for t in read.transactions:
            table.add_row(*row(t, read.taken_at_ms), key=t.transactional_id)
        if read.transactions:
            table.move_cursor(row=min(at, len(read.transactions) - 1))
        ended = read.known - len(read.transactions)
        said = f"{len(read.transactions)} not ended, {ended} transactional id{'s' * (ended != 1)} idle or ended"
        self.query_one("#transactions-status", Static).update(Text(said))

    def on_transactions_failed(self, message: TransactionsFailed) -> None:
        self.query_one("#transactions-status", Static).update(Text(message.reason, style="bold red"))
