"""The Configs screen's table: a resource's configs by name, with the value and where it comes from in Kafka's words;
a value set on the resource itself stands out, Kafka's built-in defaults are dimmed, a sensitive value is never shown.

It lives beside its screen, not in widgets/: a widget there opens a screen (groups.py), and the layers stay acyclic.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding

from kafkatop.backends.model.configs import ConfigEntry, ResourceConfigs, is_read_only
from kafkatop.tui.live.text import DataTable

SET_HERE = "bold cyan"  # a value set on this very topic or broker: what an edit changes and a delete removes
DEFAULT = "dim"  # Kafka's built-in default: nothing anyone set
MASKED = "••••••"  # a sensitive value: Kafka never sends it
SOURCE_WIDTH = len("DYNAMIC_DEFAULT_BROKER_CONFIG")


def entry_style(configs: ResourceConfigs, entry: ConfigEntry) -> str:
    if entry.overridden_on(configs.resource):
        return SET_HERE
    return DEFAULT if entry.source.is_default else ""


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def detail(configs: ResourceConfigs, entry: ConfigEntry) -> Text:
    """One line or two about an entry: its type, where its value comes from, what it falls back to, read-only."""
    out = Text()
    out.append(entry.name, style="bold")
    out.append(f" = {MASKED if entry.is_sensitive else entry.shown_value}")
    if entry.type.value != "UNKNOWN":
        out.append(f" · {entry.type.value}", style="dim")
    if entry.overridden_on(configs.resource):
        out.append(f" · set on {configs.resource} ({entry.source.value})", style=SET_HERE)
    else:
        out.append(f" · from {entry.source.value}")
    if is_read_only(configs, entry.name):
        out.append(" · read-only: set in server.properties, then restart the broker", style="yellow")
    if entry.is_sensitive:
        out.append(" · sensitive: never shown", style="yellow")
    behind = entry.synonyms[1:] if entry.synonyms and entry.synonyms[0].source == entry.source else entry.synonyms
    if behind:
        shown = ", ".join(
            f"{s.source.value}:{s.name}={MASKED if entry.is_sensitive else ('null' if s.value is None else s.value)}"
            for s in behind
        )
        out.append(f"\nbehind it: {shown}", style="dim")
    return out


class ConfigTable(DataTable[str | Text]):
    """The entries of one resource, by name; `show` redraws only when what is shown changed."""

    BINDINGS = [  # as every table of the app (widgets/tables.py's VI_KEYS)
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "scroll_top", "First row", show=False),
        Binding("G", "scroll_bottom", "Last row", show=False),
    ]

    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, **kwargs)  # type: ignore[arg-type]
        self.configs: ResourceConfigs | None = None
        self.filter_text = ""
        self.only_set_here = False
        self._shown: tuple[object, ...] | None = None

    def on_mount(self) -> None:
        self.add_columns("name", "value", "source")

    @property
    def selected_name(self) -> str | None:
        if not self.row_count or not self.is_valid_row_index(self.cursor_row):
            return None
        return str(self.ordered_rows[self.cursor_row].key.value)

    @property
    def selected(self) -> ConfigEntry | None:
        name = self.selected_name
        return self.configs.entry(name) if self.configs is not None and name is not None else None

    def shown_entries(self) -> list[ConfigEntry]:
        if self.configs is None:
            return []
        needle = self.filter_text.strip().lower()
        return [
            e for e in self.configs.entries
            if (not needle or needle in e.name.lower()) and (not self.only_set_here or e.overridden_on(
                self.configs.resource))
        ]  # fmt: skip

    def show(self, configs: ResourceConfigs | None = None) -> None:
        if configs is not None:
            self.configs = configs
        if self.configs is None:
            return
        entries = self.shown_entries()
        # Names and values are clipped to what the width leaves beside the source (the detail line shows them whole):
        # a broker's names run to 60 characters, and an 80-column terminal must still show where values come from.
        room = self.size.width - SOURCE_WIDTH - 10 if self.size.width else 200
        name_width = min(max((len(e.name) for e in entries), default=4), max(20, room - 12))
        value_width = max(12, room - name_width)
        shown = (self.configs, tuple(entries), value_width)
        if shown == self._shown:
            return
        self._shown = shown
        keep = self.selected_name
        self.clear()
        for e in entries:
            style = entry_style(self.configs, e)
            value = MASKED if e.is_sensitive else e.shown_value
            self.add_row(
                Text(_clip(e.name, name_width), style=style),
                Text(_clip(value, value_width), style=style),
                Text(e.source.value, style=style),
                key=e.name,
            )
        if keep is not None and keep in self.rows:
            self.move_cursor(row=self.get_row_index(keep))

    def on_resize(self) -> None:
        self.show()
