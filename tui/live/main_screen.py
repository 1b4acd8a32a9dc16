"""The live view's screen: its layout, its tabs, where focus rests, the filter bar, and the keys of keymap.py — each
routed to the pane whose row it acts on, or to ClusterActions. The app (app.py) feeds it and runs what it asks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, cast

from textual import events, on
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane, Tabs

from kafkatop.backends.model.elections import ElectionType
from kafkatop.backends.model.nodes import NodeAction
from kafkatop.tui.live.actions import ClusterActions
from kafkatop.tui.live.actions import Host as ConnectHost
from kafkatop.tui.live.connect_actions import ConnectActions
from kafkatop.tui.live.keymap import LIVE, SCREEN_ACTIONS, Mode, action_names, bindings
from kafkatop.tui.live.replay import Replay
from kafkatop.tui.live.schema_actions import SchemaKeys
from kafkatop.tui.live.screens.help import HelpScreen
from kafkatop.tui.live.sources import Settings, Sources, Switcher
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.text import DataTable, Input
from kafkatop.tui.live.widgets.banner import Banner
from kafkatop.tui.live.widgets.brokers import BrokerTable
from kafkatop.tui.live.widgets.connect import ConnectPanel
from kafkatop.tui.live.widgets.consumer import ConsumerPanel
from kafkatop.tui.live.widgets.ensemble import EnsemblePane
from kafkatop.tui.live.widgets.filter import Filterable, FilterBar
from kafkatop.tui.live.widgets.footer import CoalescingFooter
from kafkatop.tui.live.widgets.groups import GroupsPanel
from kafkatop.tui.live.widgets.line_table import LineTable
from kafkatop.tui.live.widgets.messages import MessagesPanel
from kafkatop.tui.live.widgets.nodes import NodeLog, NodeTable
from kafkatop.tui.live.widgets.pane import LivePane
from kafkatop.tui.live.widgets.partitions import PartitionsPane, PartitionTable
from kafkatop.tui.live.widgets.producer import ProducerPanel
from kafkatop.tui.live.widgets.replay import ReplayBar
from kafkatop.tui.live.widgets.spark import SparkPanel
from kafkatop.tui.live.widgets.status_bar import StatusBar
from kafkatop.tui.live.widgets.tables import KeyedTable, MessageLog
from kafkatop.tui.live.widgets.timeline import TimelinePane


class Host(Protocol):
    """What the screen needs of the app (app.py): what it was given, and where to send what the user picked."""

    sources: Sources
    settings: Settings
    replay: Replay | None
    switcher: Switcher | None
    clock: Callable[[], float]
    cluster_actions: ClusterActions
    view: LiveView

    @property
    def shutting_down(self) -> bool: ...

    def present(self) -> frozenset[str]: ...

    def poll_now(self, source: str) -> None: ...

    def select_node(self, name: str | None) -> None: ...

    def panes_mounted(self, panes: list[LivePane]) -> None: ...

    def switch_context(self, name: str) -> None: ...


# The widgets focus rests on in a tab (see MainScreen.home): tables, whose keys are the app's keys.
HOME_WIDGETS = (DataTable, PartitionTable, LineTable)
WORK_FIELDS = {"tab-produce": "#produce-topic", "tab-consume": "#consume-topics"}  # focused when their tab is shown

SMALL_WIDTH = 120  # below: layouts that stack and columns that drop (80x24 is a default terminal and a tmux split)
SMALL_HEIGHT = 32

REPLAY_ONLY = action_names(SCREEN_ACTIONS, frozenset({"replay"}))
LIVE_ONLY = action_names(SCREEN_ACTIONS, LIVE)
WRITES = frozenset(a.action.split("(")[0] for a in SCREEN_ACTIONS if a.writes)  # refused in a read-only context


class MainScreen(SchemaKeys):  # a Screen, with the ACLs and Schemas tabs and their keys (acl_/schema_actions.py)
    BINDINGS = bindings("screen")

    def __init__(self, mode: Mode) -> None:
        super().__init__()
        self.mode: Mode = mode

    @property
    def host(self) -> Host:
        return cast(Host, self.app)

    def compose(self) -> ComposeResult:
        app = self.host
        sources, settings = app.sources, app.settings
        if app.replay is not None:
            yield ReplayBar(app.replay, id="banner")
        elif settings.banner:
            yield Banner(settings.banner, id="banner")
        yield StatusBar(settings.context, settings.colour, settings.read_only)
        if "control" in app.present():
            yield NodeTable(id="nodes")
        with TabbedContent(id="tabs"):
            with TabPane("Partitions", id="tab-partitions"):
                yield PartitionsPane()
            with TabPane("Brokers", id="tab-brokers"):
                yield BrokerTable()
            with TabPane("Produce", id="tab-produce"):
                yield ProducerPanel(sources.consoles, settings.refusal, sources.codec, sources.schemas)
            with TabPane("Consume", id="tab-consume"):
                yield ConsumerPanel(sources.consoles, settings.refusal)
            with TabPane("Groups", id="tab-groups"):
                yield GroupsPanel(sources.consoles, settings.refusal, settings.typed_name)
            with TabPane("Log", id="tab-log"):
                yield NodeLog()
            with TabPane("Quorum", id="tab-quorum"):
                yield EnsemblePane()
            with TabPane("Spark", id="tab-spark"):
                yield SparkPanel(sources.spark, clock=app.clock)
            with TabPane("Timeline", id="tab-timeline"):
                yield TimelinePane()
            # Last, so the tabs before keep their numbers; `b` shows it from anywhere (a lab's tenth tab has no digit).
            with TabPane("Messages", id="tab-messages"):
                yield MessagesPanel(sources.browser, clock=app.clock, codec=sources.codec)
            with TabPane("Connect", id="tab-connect"):  # after Messages for the same reason; `N` shows it
                yield ConnectPanel(self.mode, "connect" in app.present())
            yield from self.last_tabs(app.present())  # after Connect: ACLs (`W` shows it), Schemas (`H`)
        yield FilterBar()
        yield CoalescingFooter()

    def on_mount(self) -> None:
        tabs = self.query_one(TabbedContent)
        if "poll_ensemble" not in self.host.present():
            tabs.hide_tab("tab-quorum")  # the demo's mock has no ZooKeeper or quorum
        if "control" not in self.host.present():
            tabs.hide_tab("tab-log")
        if "connect" not in self.host.present() and self.mode not in ("lab", "demo"):
            tabs.hide_tab("tab-connect")  # a lab or the demo says why it has none; an attached cluster or a replay not
        self._fit(self.app.size.width, self.app.size.height)
        for field in self.query(", ".join(WORK_FIELDS.values())).results(Input):
            field.select_on_focus = False  # show_tab puts the cursor after the topic shown: a letter typed loses none
        self.app.set_focus(self.home())
        self.host.panes_mounted([w for w in self.query("*") if isinstance(w, LivePane)])

    def zookeeper_mode(self) -> None:  # the quorum tab shows ZooKeeper's ensemble
        self.query_one(TabbedContent).get_tab("tab-quorum").label = "ZooKeeper"

    # --- what the palette and the keys ask ----------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The replay's keys only in a replay; the keys that act on a cluster only live; in a read-only context no
        key that writes (on_key says why when one is typed); the context switcher where there are contexts."""
        if action in REPLAY_ONLY:
            return self.mode == "replay"
        if action in WRITES and self.host.settings.read_only:
            return False
        if action == "switch_context":
            return "switcher" in self.host.present()
        if action in LIVE_ONLY:
            return self.mode != "replay"
        return True

    def here(self) -> tuple[Mode, str | None, frozenset[str], bool]:
        return self.mode, self.query_one(TabbedContent).active, self.host.present(), self.host.settings.read_only

    def run_command(self, action: str) -> None:
        self.call_later(self.run_action, action)

    def on_key(self, event: events.Key) -> None:
        """A replay acts on nothing, a read-only context writes nothing: a key that would says so, not nothing."""
        refusal = self.host.settings.refusal
        if refusal is not None and self.mode != "replay":
            for a in SCREEN_ACTIONS:
                if a.writes and event.key in a.keys:
                    self.notify(f"{refusal}: {a.shown_keys.replace('`', '')} ({a.label.lower()}) writes to the "
                                "cluster", severity="warning", timeout=4)  # fmt: skip
                    event.stop()
                    return
        if self.mode != "replay":
            return
        for a in SCREEN_ACTIONS:
            if event.key in a.keys and a.action.split("(")[0] in LIVE_ONLY:
                self.notify(f"{a.keys[0]}: {a.label.lower()} acts on a live cluster; a replay only plays back what "
                            "was recorded", timeout=4)  # fmt: skip
                event.stop()
                return

    # --- tabs and focus: keys act from every table; a field is entered on purpose and left with Escape -----------
    def visible_tabs(self) -> list[TabPane]:
        """The tabs on show, in order: the number keys, help and the palette all count these."""
        tabs = self.query_one(TabbedContent)
        return [pane for pane in tabs.query(TabPane) if pane.id is not None and tabs.get_tab(pane.id).display]

    def tab_titles(self) -> list[str]:
        tabs = self.query_one(TabbedContent)
        return [str(tabs.get_tab(str(p.id)).label) for p in self.visible_tabs()]

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
        self.query_one(TabbedContent).active = tab_id
        self.app.set_focus(self.query_one(WORK_FIELDS[tab_id]) if tab_id in WORK_FIELDS else self.home())

    def home(self) -> Widget:
        """Where focus rests in the active tab: its table, or else the tab bar (arrow keys switch tabs there); never
        a text field, where q, the numbers and the node keys would be typed instead."""
        tabs = self.query_one(TabbedContent)
        pane = tabs.active_pane
        if pane is not None:
            for widget in pane.query("*"):
                if isinstance(widget, HOME_WIDGETS) and widget.focusable and widget.display:
                    return widget
        return tabs.query_one(Tabs)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        """Small terminals' layouts (app.tcss): `-narrow` stacks, `-short` folds the banner, shortens the processes."""
        self.set_class(width < SMALL_WIDTH, "-narrow")
        self.set_class(height < SMALL_HEIGHT, "-short")

    @on(TabbedContent.TabActivated)
    def _tab_shown(self) -> None:
        self.query_one(FilterBar).follow(self.filter_target())

    @on(DataTable.RowHighlighted, "#nodes")
    def _node_highlighted(self) -> None:
        if self.host.shutting_down:
            return  # the table's last highlight, delivered after its screen was taken down
        self.host.select_node(self.query_one(NodeTable).selected_name)

    def action_leave_field(self) -> None:
        focused, home = self.focused, self.home()
        if isinstance(focused, Filterable) and focused.filter_text:
            self.query_one(FilterBar).clear()  # Escape on a filtered table: every row again
        elif focused is not home:
            self.app.set_focus(home)

    def action_processes(self) -> None:
        if "control" not in self.host.present():
            self.notify("no process table here: it shows a lab cluster's processes or the demo's brokers", timeout=4)
            return
        self.app.set_focus(self.query_one(NodeTable))

    def action_filter(self) -> None:
        """`/`: the active tab's table, narrowed to the rows holding what is typed."""
        target = self.filter_target()
        if target is None:
            self.notify("/ filters the partitions, the groups and the consumed messages: this tab has none", timeout=4)
            return
        self.query_one(FilterBar).open(target)

    def filter_target(self) -> Filterable | None:
        """What `/` narrows in the active tab: the consumed messages in Consume, else the tab's table."""
        pane = self.query_one(TabbedContent).active_pane
        log = next(iter(pane.query(MessageLog)), None) if pane is not None else None
        if log is not None:
            return log
        home = self.home()
        if isinstance(home, PartitionTable) or (isinstance(home, KeyedTable | LineTable) and home.filterable):
            return home
        return None

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.tab_titles(), self.host.settings.refusal))

    def action_refresh(self) -> None:
        self.host.poll_now("cluster")

    def action_replay(self, what: str) -> None:
        replay = self.host.replay
        if replay is None:
            return
        if what in ("toggle", "step") and replay.state().ended:
            self.notify("The end of the recording: nothing more to play. q quits.", timeout=4)
            return
        {"toggle": replay.toggle, "step": replay.step, "faster": replay.faster, "slower": replay.slower}[what]()
        self.query_one(ReplayBar).refresh_state()

    def action_switch_context(self) -> None:
        """`w`: the contexts; the one picked is opened, this one closed (each keeps its timeline)."""
        from kafkatop.tui.live.screens.contexts import ContextsScreen

        switcher, current = self.host.switcher, self.host.settings.context
        if switcher is None:
            return

        def picked(name: str | None) -> None:
            if name is not None and name != current:
                self.host.switch_context(name)

        self.app.push_screen(ContextsScreen(switcher.choices(), current), picked)

    # --- the keys that act on a row: the row is found here, the action done by ClusterActions --------------------
    def _in(self, tab_id: str, key: str, does: str, pick: str = "a row") -> bool:
        """Whether `tab_id` is shown; if not, says how to get there (its keys act on its rows)."""
        if self.query_one(TabbedContent).active == tab_id:
            return True
        number = next(i for i, p in enumerate(self.visible_tabs(), start=1) if p.id == tab_id)
        title = self.tab_titles()[number - 1]
        self.notify(f"{key} {does} in {title}: press {number}, pick {pick}, then {key}", severity="warning", timeout=5)
        return False

    @property
    def _partitions(self) -> PartitionsPane:
        return self.query_one(PartitionsPane)

    def action_node(self, action: NodeAction) -> None:
        self.host.cluster_actions.node(action, self.query_one(NodeTable).selected_name)

    def action_add_broker(self) -> None:
        self.host.cluster_actions.add_broker()

    def action_create_topic(self) -> None:
        self.host.cluster_actions.create_topic()

    def action_delete_topic(self) -> None:
        if self._in("tab-partitions", "d", "deletes the topic highlighted", "its row"):
            self.host.cluster_actions.delete_topic(self._partitions.selected_topic)

    def action_durability(self) -> None:
        self.host.cluster_actions.durability(self._partitions.selected_topic)

    def action_configs(self) -> None:
        """C: the configs of the broker highlighted in the process table or Brokers, or of the topic in Partitions."""
        focused, tab = self.focused, self.query_one(TabbedContent).active
        self.host.cluster_actions.configs(
            node=focused.selected_name if isinstance(focused, NodeTable) else None,
            broker=self.query_one(BrokerTable).selected_broker if tab == "tab-brokers" else None,
            topic=self._partitions.selected_topic if tab == "tab-partitions" else None,
        )

    def action_elect(self, kind: str) -> None:
        key = "e" if kind == "PREFERRED" else "E"
        if self._in("tab-partitions", key, "elects leaders for the highlighted partition's topic"):
            table = self.query_one(PartitionTable)
            shown = table.shown_partitions if table.filter_text else ()
            self.host.cluster_actions.elect(ElectionType(kind), table.selected_partition, shown)

    def action_delete_group(self, offsets_only: bool) -> None:
        key = "X" if offsets_only else "x"
        if self._in("tab-groups", key, "acts on the group highlighted", "a group"):
            self.host.cluster_actions.delete_group(self.query_one(GroupsPanel).selected_group, offsets_only)

    def action_reassign(self) -> None:
        actions = self.host.cluster_actions
        if actions.reassigning is not None or self._in("tab-partitions", "m", "moves the highlighted topic's replicas"):
            actions.reassign(self._partitions.selected_topic)

    def action_browse(self) -> None:
        """b (and Enter in Partitions): the highlighted partition's newest records in Messages; elsewhere, the tab."""
        selected = None
        if self.query_one(TabbedContent).active == "tab-partitions":
            selected = self.query_one(PartitionTable).selected_partition
        self.show_tab("tab-messages")
        if selected is not None:
            self.query_one(MessagesPanel).open(selected.topic, selected.partition)

    def action_add_partitions(self) -> None:
        if self._in("tab-partitions", "P", "adds partitions to the highlighted topic"):
            self.host.cluster_actions.add_partitions(self._partitions.selected_topic)

    def action_topic_rows(self) -> None:
        """T: the partition table as one row per topic, or every partition."""
        if self._in("tab-partitions", "T", "shows one row per topic"):
            self._partitions.toggle_topic_rows()

    def action_transactions(self) -> None:
        """i: the transactions not ended yet, read again every 2 s (the screen's own worker)."""
        from kafkatop.tui.live.screens.transactions import TransactionsScreen

        reader = self.host.sources.transactions
        if reader is None:
            self.notify("i lists the transactions of a live Kafka cluster: the demo's mock answers no ListTransactions "
                        "and a replay asks nothing; run a lab (or attach to a Kafka 3.0+) to see them",
                        severity="warning", timeout=6)  # fmt: skip
            return
        self.app.push_screen(TransactionsScreen(reader, lambda: self.host.view.cluster.brokers_alive
                                                if self.host.view.cluster else ()))  # fmt: skip

    def action_connect(self, what: str = "tab") -> None:
        """Keymap's Connect section: `N` shows the tab, the others act on its connector (connect_actions.py); three
        names, as a read-only context refuses those that write and a replay those that ask the workers."""
        ConnectActions(cast(ConnectHost, self.app), self, self.query_one(ConnectPanel)).run(what)

    action_connect_tab = action_connect_view = action_connect

    def action_spark_count(self) -> None:
        self.show_tab("tab-spark")
        self.query_one(SparkPanel).action_count()
