"""The live view's screen: its layout, the tabs (composed from tabs/__init__.py), where focus rests, the filter bar, and
the keys of keymap.py — the view's own run here, a tab's routed to its keys object (`action_key`). The app (app.py)
feeds it and runs what it asks."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from textual import events, on
from textual.actions import parse
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane, Tabs

from kafkatop.tui.live.action import PROCESSES, Launch
from kafkatop.tui.live.host import Host
from kafkatop.tui.live.keymap import SCREEN_ACTIONS, bindings, by_id, key_rows, misplaced, refused
from kafkatop.tui.live.scenario_desk import ScenarioDesk
from kafkatop.tui.live.screens.help import HelpScreen
from kafkatop.tui.live.tabs import TABS
from kafkatop.tui.live.tabs.messages.record_schema import SchemaWanted
from kafkatop.tui.live.tabs.partitions.pane import PartitionTable
from kafkatop.tui.live.tabs.schemas.keys import SCHEMAS, SchemaKeys
from kafkatop.tui.live.tabs.tab import TabContext
from kafkatop.tui.live.text import DataTable, Input
from kafkatop.tui.live.view_keys import ContextKeys, ProcessKeys, ReplayKeys, ResourceKeys
from kafkatop.tui.live.widgets.banner import Banner
from kafkatop.tui.live.widgets.filter import Filterable, FilterBar
from kafkatop.tui.live.widgets.footer import CoalescingFooter
from kafkatop.tui.live.widgets.line_table import LineTable
from kafkatop.tui.live.widgets.nodes import NodeTable
from kafkatop.tui.live.widgets.pane import LivePane
from kafkatop.tui.live.widgets.replay import ReplayBar
from kafkatop.tui.live.widgets.scenario import ScenarioPane
from kafkatop.tui.live.widgets.status_bar import StatusBar
from kafkatop.tui.live.widgets.tab_markers import TabMarkers
from kafkatop.tui.live.widgets.tables import KeyedTable, MessageLog

# The widgets focus rests on in a tab (see MainScreen.home): tables, whose keys are the app's keys.
HOME_WIDGETS = (DataTable, PartitionTable, LineTable)
WORK_FIELDS = {t.id: t.work_field for t in TABS if t.work_field is not None}  # focused when their tab is shown

SMALL_WIDTH = 120  # below: layouts that stack and columns that drop (80x24 is a default terminal and a tmux split)
SMALL_HEIGHT = 32

# The objects a key's `owner` names (keymap.py): each tab's keys, the process table's, the replay's, the contexts'.
OWNERS: dict[str, Callable[[MainScreen], object]] = {t.id: t.keys for t in TABS if t.keys is not None}
OWNERS |= {"processes": ProcessKeys, "resources": ResourceKeys, "replay": ReplayKeys, "contexts": ContextKeys}
OWNERS["scenario"] = ScenarioDesk  # space and A, shown while a scenario is open and not over (its keys_apply)

# The view's own actions by Textual action (name, parameters): what check_action is asked about.
_BY_ACTION = {parse(a.action)[1:]: a for a in SCREEN_ACTIONS if a.owner is None}


class MainScreen(Screen[None]):
    BINDINGS = bindings("screen")

    def __init__(self, launch: Launch) -> None:
        super().__init__()
        self.launch: Launch = launch
        self.keys_of = {owner: keys(self) for owner, keys in OWNERS.items()}

    @property
    def host(self) -> Host:
        return cast(Host, self.app)

    @property
    def tabs(self) -> TabbedContent:
        return self.query_one(TabbedContent)

    def context(self) -> TabContext:
        app = self.host
        return TabContext(self.launch, app.sources, app.settings, app.present(), app.clock)

    def compose(self) -> ComposeResult:
        app, context = self.host, self.context()
        if app.replay is not None:
            yield ReplayBar(app.replay, id="banner")
        elif app.settings.banner:
            yield Banner(app.settings.banner, id="banner")
        yield StatusBar(app.settings.context, app.settings.colour, app.settings.read_only, app.settings.bell)
        if "control" in context.present:
            yield NodeTable(id="nodes")
        with TabbedContent(id="tabs"):
            for tab in TABS:
                if tab.composed(context):
                    with TabPane(tab.title, id=tab.id):
                        yield from tab.panes(context)
        yield from (ScenarioPane(), FilterBar(), CoalescingFooter())  # the pane hidden until a scenario opens

    def on_mount(self) -> None:
        context, tabs = self.context(), self.tabs
        for tab in TABS:
            if tab.composed(context) and tab.hidden(context):
                tabs.hide_tab(tab.id)  # a key shows it where it has something to say (H, N)
        self.tab_markers = TabMarkers(tabs.query_one(Tabs))  # how many tabs lie beyond each end of the bar
        self._fit(self.app.size.width, self.app.size.height)
        for field in self.query(", ".join(WORK_FIELDS.values())).results(Input):
            field.select_on_focus = False  # show_tab puts the cursor after the topic shown: a letter typed loses none
        self.app.set_focus(self.home())
        self.host.panes_mounted([w for w in self.query("*") if isinstance(w, LivePane)])

    # --- what the palette and the keys ask ----------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        live = by_id(str(parameters[0])) if action == "key" else _BY_ACTION.get((action, parameters))
        return live is None or (
            live.acts(self.launch, self.host.present(), self.host.settings.read_only)
            and live.acts_in(self.place())
            and not (live.priority and isinstance(self.focused, Input))
            and getattr(self.keys_of.get(str(live.owner)), "keys_apply", lambda: True)()
        )

    def action_key(self, action_id: str) -> None:
        """A tab's key: its action run on the keys object of the tab that declares it."""
        live = by_id(action_id)
        _, name, parameters = parse(live.action)
        getattr(self.keys_of[str(live.owner)], f"action_{name}")(*parameters)

    def here(self) -> tuple[Launch, str | None, frozenset[str], bool]:
        return self.launch, self.place(), self.host.present(), self.host.settings.read_only

    def place(self) -> str:
        """Where a key is pressed: the process table while it has focus, else the active tab (action.PROCESSES)."""
        return PROCESSES if isinstance(self.focused, NodeTable) else self.tabs.active

    def run_command(self, action: str) -> None:
        self.call_later(self.run_action, action)

    def on_key(self, event: events.Key) -> None:
        """A replay acts on nothing, a read-only context writes nothing, a key acts where it is shown: a key that
        would act elsewhere says so, and does nothing. A character typed before a field had the focus (Textual
        gives it to the widget focused when the key came: `/ord` typed fast) is the field's."""
        field = self.focused
        if isinstance(field, Input) and event.is_printable and event.character is not None:
            field.insert_text_at_cursor(event.character)
            event.stop()
            return
        said = refused(event.key, self.launch, self.host.settings.read_only_reason, self.place(), self.host.present())
        if said is None and (tabs_key := misplaced(event.key, self.place())) is not None:
            self.action_key(tabs_key.id)  # its tab's keys object says where it acts: "press N, pick …, then Z"
            event.stop()
        elif said is not None:
            self.notify(said, severity="information" if self.launch == "replay" else "warning", timeout=4)
            event.stop()
        elif event.key == "M" and self.app.check_action("grant", ()) is False:
            self.host.action_grant()  # hidden until a refusal names a grant: pressed before, it says why it did nothing
            event.stop()

    # --- tabs and focus: a key acts where it is shown; a field is entered on purpose and left with Escape --------
    def visible_tabs(self) -> list[TabPane]:
        """The tabs on show, in order: the number keys, help and the palette all count these."""
        tabs = self.tabs
        return [pane for pane in tabs.query(TabPane) if pane.id is not None and tabs.get_tab(pane.id).display]

    def tab_titles(self) -> list[str]:
        return [str(self.tabs.get_tab(str(p.id)).label) for p in self.visible_tabs()]

    def tab_ids(self) -> list[str]:
        return [str(p.id) for p in self.visible_tabs()]

    def action_tab(self, index: int) -> None:
        shown = self.visible_tabs()
        if not 1 <= index <= len(shown):
            names = ", ".join(f"{i} {t}" for i, t in enumerate(self.tab_titles(), start=1))
            self.notify(f"no tab {index} here: 1–{len(shown)} are {names}", timeout=4)
            return
        self.show_tab(str(shown[index - 1].id))

    def show_tab(self, tab_id: str) -> None:
        # Focus follows (else it pulls the old tab back) to the work field, where a topic typed is text, not `t`.
        self.app.set_focus(None)
        self.tabs.active = tab_id
        self.app.set_focus(self.query_one(WORK_FIELDS[tab_id]) if tab_id in WORK_FIELDS else self.home())

    def in_tab(self, tab_id: str, key: str, does: str, pick: str = "a row") -> bool:
        """Whether `tab_id` is shown; if not, says how to get there (its keys act on its rows)."""
        if self.tabs.active == tab_id:
            return True
        number = next(i for i, p in enumerate(self.visible_tabs(), start=1) if p.id == tab_id)
        title = self.tab_titles()[number - 1]
        self.notify(f"{key} {does} in {title}: press {number}, pick {pick}, then {key}", severity="warning", timeout=5)
        return False

    def home(self) -> Widget:
        """Where focus rests in the active tab: its table, or else the tab bar (arrow keys switch tabs there); never
        a text field, where q, the numbers and the node keys would be typed instead."""
        pane = self.tabs.active_pane
        if pane is not None:
            for widget in pane.query("*"):
                if isinstance(widget, HOME_WIDGETS) and widget.focusable and widget.display:
                    return widget
        return self.tabs.query_one(Tabs)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        """Small terminals' layouts (app.tcss): `-narrow` stacks, `-short` folds the banner, shortens the processes."""
        self.set_class(width < SMALL_WIDTH, "-narrow")
        self.set_class(height < SMALL_HEIGHT, "-short")
        self.call_after_refresh(self.tab_markers.update)  # the bar laid out at its new width first

    @on(TabbedContent.TabActivated)
    def _tab_shown(self) -> None:
        self.query_one(FilterBar).follow(self.filter_target())

    @on(DataTable.RowHighlighted, "#nodes")
    def _node_highlighted(self) -> None:
        if self.host.shutting_down:
            return  # the table's last highlight, delivered after its screen was taken down
        self.host.select_node(self.query_one(NodeTable).selected_name)

    @on(SchemaWanted)
    def _record_schema(self, wanted: SchemaWanted) -> None:  # `h` in Messages: the Schemas tab's to show
        cast(SchemaKeys, self.keys_of[SCHEMAS]).record_schema(wanted)

    def action_leave_field(self) -> None:
        focused, home, bar = self.focused, self.home(), self.query_one(FilterBar)
        if (isinstance(focused, Filterable) and focused.filter_text) or (focused is not None and focused.parent is bar):
            bar.clear()  # Escape on a filtered table, or in the filter typed: every row again
        elif focused is not home:
            self.app.set_focus(home)

    def action_filter(self) -> None:
        """`/`: the active tab's table, narrowed to the rows holding what is typed."""
        target = self.filter_target()
        if target is None:
            self.notify("/ filters the partitions, the groups and the consumed messages: this tab has none", timeout=4)
            return
        self.query_one(FilterBar).open(target)

    def filter_target(self) -> Filterable | None:
        """What `/` narrows in the active tab: the consumed messages in Consume, else the tab's table."""
        pane = self.tabs.active_pane
        log = next(iter(pane.query(MessageLog)), None) if pane is not None else None
        if log is not None:
            return log
        home = self.home()
        if isinstance(home, PartitionTable) or (isinstance(home, KeyedTable | LineTable) and home.filterable):
            return home
        return None

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.tab_titles(), list(key_rows()), self.host.settings.read_only_reason))

    def action_refresh(self) -> None:
        self.host.poll_now("cluster")
