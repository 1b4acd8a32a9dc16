"""`L` in Connect: the plugins Kafka Connect's workers have (`GET /connector-plugins?connectorsOnly=false`) —
connectors, converters, transformations, predicates — each with its type and version. A connector's `connector.class`
names one of the connectors (or its short alias: FileStreamSource)."""

from __future__ import annotations

from dataclasses import dataclass

from rich import box
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message

from kafkatop.backends.model.connect import ConnectorPlugin
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.text import printable
from kafkatop.backends.ports import ConnectCluster
from kafkatop.tui.live.screens.dialog import Dialog
from kafkatop.tui.live.text import Label, Static, Table

ORDER = ("source", "sink", "converter", "header_converter", "transformation", "predicate")


@dataclass
class PluginsRead(Message):
    plugins: tuple[ConnectorPlugin, ...]
    error: str | None = None  # why they could not be read


def plugins_table(plugins: tuple[ConnectorPlugin, ...], width: int = 0) -> Table:
    """The plugins, sorted by type; in `width` columns (0: any) a class name too long for its column breaks after a
    dot (org.apache.kafka.connect.file. / FileStreamSinkConnector), never inside a word."""
    table = Table(box=box.SIMPLE_HEAD, expand=True, pad_edge=False)
    for column in ("plugin", "type", "version"):
        table.add_column(column, no_wrap=column != "plugin", overflow="fold" if column == "plugin" else "ellipsis")
    rest = max((len(p.type) for p in plugins), default=4) + max((len(p.version) for p in plugins), default=7) + 4
    room = width - rest if width else 0
    for p in sorted(plugins, key=lambda p: (ORDER.index(p.type) if p.type in ORDER else len(ORDER), p.class_name)):
        name = Text(at_dots(printable(p.class_name), room)) if room > 0 else p.class_name  # its lines, made here
        table.add_row(name, Text(p.type, style="bold" if p.type in ("source", "sink") else ""), p.version)
    return table


def at_dots(name: str, width: int) -> str:
    """`name` in lines of at most `width`, broken after dots (a part longer than a line is folded by the table)."""
    lines = [""]
    for part in name.replace(".", ".\0").split("\0"):
        if lines[-1] and len(lines[-1]) + len(part) > width:
            lines.append("")
        lines[-1] += part
    return "\n".join(lines)


class ConnectPluginsScreen(Dialog[None]):
    BINDINGS = [Binding("escape,q", "cancel", "Close")]
    AUTO_FOCUS = "#connect-plugins-list"

    def __init__(self, connect: ConnectCluster) -> None:
        super().__init__(None)
        self.connect = connect
        self.plugins: tuple[ConnectorPlugin, ...] = ()

    def compose(self) -> ComposeResult:
        with Vertical(id="connect-plugins"):
            yield Label(Text("Kafka Connect's plugins", style="bold"))
            with VerticalScroll(id="connect-plugins-list"):
                yield Static("asking a worker …", id="connect-plugins-table")
            yield Static("", id="connect-plugins-status")
            yield Label("↑/↓ PgUp/PgDn scroll · Escape close", classes="keys")

    def on_mount(self) -> None:
        self._read()

    def on_resize(self) -> None:
        if self.plugins:
            self._draw()  # the names broken at their dots again, for the new width

    def _draw(self) -> None:
        width = self.query_one("#connect-plugins-list").size.width - 1  # its scroll bar
        self.query_one("#connect-plugins-table", Static).update(plugins_table(self.plugins, width))

    @work(thread=True, exclusive=True, group="connect-plugins", exit_on_error=False)
    def _read(self) -> None:
        try:
            self.post_message(PluginsRead(self.connect.plugins()))
        except KafkatopError as e:
            self.post_message(PluginsRead((), str(e)))
        except Exception as e:  # noqa: BLE001 - shown in the screen, never a crash
            self.post_message(PluginsRead((), f"{type(e).__name__}: {e}"))

    def on_plugins_read(self, message: PluginsRead) -> None:
        if message.error:
            self.query_one("#connect-plugins-table", Static).update(Text(message.error, style="bold red"))
            return
        self.plugins = message.plugins
        self._draw()
        connectors = sum(1 for p in message.plugins if p.type in ("source", "sink"))
        said = f"{len(message.plugins)} plugin(s), {connectors} of them connectors"
        self.query_one("#connect-plugins-status", Static).update(Text(said, style="dim"))
