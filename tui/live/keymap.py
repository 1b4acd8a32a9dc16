"""Every action of the live view, once: its keys, its words, where it applies, and whether it writes to the cluster.

The main screen's bindings (and so the footer), the command palette (commands.py), the help screen and README's key
table are all made from this list; a test fails when README's table and this list differ. A new key is one entry
here and, if it does something new, one `action_*` method on the screen (or pane) named in `action`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

from textual.binding import Binding, BindingType

# How the live view was started: a lab cluster kafkatop runs, a cluster it attached to, the demo, a recording.
Mode = Literal["lab", "attach", "demo", "replay"]
LIVE: frozenset[Mode] = frozenset({"lab", "attach", "demo"})
ANY: frozenset[Mode] = LIVE | {"replay"}

# Where a binding lives: the main screen, or a pane's own (active while that pane has focus).
Scope = Literal["app", "screen", "tables", "messages", "spark", "schemas"]

PARTITIONS, GROUPS, CONNECT, ACLS, SCHEMAS = "tab-partitions", "tab-groups", "tab-connect", "tab-acls", "tab-schemas"


@dataclass(frozen=True, slots=True)
class LiveAction:
    id: str
    keys: tuple[str, ...]  # Textual's key names; the first is the one shown
    action: str  # the Textual action run in `scope` ("node('kill')" runs action_node("kill"))
    label: str  # the footer's word, and the binding's description
    help: str  # one line for the help screen and README
    section: str  # the help screen's heading
    palette: str | None = None  # the command palette's title; None: not offered there
    scope: Scope = "screen"
    tabs: frozenset[str] = frozenset()  # the tabs it applies in (the palette offers it only there); empty: every tab
    modes: frozenset[Mode] = LIVE
    needs: str | None = None  # the Sources member it needs; without it, the palette does not offer it
    writes: bool = False  # changes the cluster (a process signalled, a topic, a record, a group, a leader, replicas)
    asks_first: bool = False  # a dialog or a confirmation comes before anything is done
    footer: bool = False

    @property
    def shown_keys(self) -> str:
        """The keys as README and the help screen write them."""
        return " ".join(f"`{_KEY_NAMES.get(k, k)}`" for k in self.keys)

    def applies(self, mode: Mode, tab: str | None, sources: frozenset[str], read_only: bool = False) -> bool:
        """Whether it does something here and now (the palette's test)."""
        return (
            mode in self.modes
            and not (read_only and self.writes)
            and (not self.tabs or tab in self.tabs)
            and (self.needs is None or self.needs in sources or mode == "replay")
        )


_KEY_NAMES = {
    "question_mark": "?",
    "slash": "/",
    "escape": "Escape",
    "enter": "Enter",
    "plus": "+",
    "minus": "-",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "less_than_sign": "<",
    "greater_than_sign": ">",
    "ctrl+c": "ctrl+c",
}

_P, _G, _K, _A = frozenset({PARTITIONS}), frozenset({GROUPS}), frozenset({CONNECT}), frozenset({ACLS})
_S = frozenset({SCHEMAS})

# fmt: off
ACTIONS: tuple[LiveAction, ...] = (
    LiveAction("quit", ("q", "ctrl+c"), "app.quit", "Quit",
        help="quit (a lab cluster kafkatop started is stopped, unless started with `--detach`); in a text "
             "field `q` is typed, `ctrl+q` quits",
        section="View", modes=ANY, footer=True),
    LiveAction("palette", ("ctrl+p",), "command_palette", "Palette",
        help="every command that applies here, and themes",
        section="View", scope="app", modes=ANY),
    LiveAction("help", ("question_mark",), "help", "Help",
        help="this help",
        section="View", palette="Help", modes=ANY, footer=True),
    LiveAction("switch-context", ("w",), "switch_context", "Contexts",
        help="switch to another context (a cluster named in kafkatop.toml or ~/.config/kafkatop/config.toml): "
             "each keeps its timeline; a read-only one refuses every key that writes",
        section="View", palette="Switch to another context (cluster)", needs="switcher", footer=True),
    LiveAction("leave", ("escape",), "leave_field", "Leave field",
        help="out of a text field, back to its tab's table (on a filtered table: every row again)",
        section="View", modes=ANY),
    LiveAction("filter", ("slash",), "filter", "Filter",
        help="filter the table's rows: topic, partition, group, key or value (in Messages the decoded key and "
             "value, or a path: `.customer.id == 42`); Enter keeps it, Escape clears it",
        section="Tables", palette="Filter the table's rows", modes=ANY, footer=True),
    LiveAction("refresh", ("r",), "refresh", "Refresh",
        help="poll the cluster now",
        section="View", palette="Refresh now"),
    # K, not k: k moves up in every table (j/k as in less and vi), and a kill -9 is never one slip away.
    LiveAction("kill", ("K",), "node('kill')", "Kill -9",
        help="kill -9 the highlighted process (SIGKILL: no controlled shutdown), after a confirmation naming "
             "it",
        section="Processes", palette="Kill -9 the highlighted node", needs="control", writes=True, asks_first=True,
        footer=True),
    LiveAction("stop", ("t",), "node('stop')", "Stop",
        help="stop it (SIGTERM: controlled shutdown, leaders move first)",
        section="Processes", palette="Stop the highlighted node", needs="control", writes=True, footer=True),
    LiveAction("start", ("s",), "node('start')", "Start",
        help="start a stopped or killed node",
        section="Processes", palette="Start the highlighted node", needs="control", writes=True, footer=True),
    LiveAction("restart", ("R",), "node('restart')", "Restart",
        help="restart it",
        section="Processes", palette="Restart the highlighted node", needs="control", writes=True, footer=True),
    LiveAction("add-broker", ("a",), "add_broker", "Add broker",
        help="add a broker (lab clusters)",
        section="Processes", palette="Add a broker", modes=frozenset({"lab"}), needs="control", writes=True),
    LiveAction("create-topic", ("c",), "create_topic", "Create topic",
        help="create a topic",
        section="Topics", palette="Create a topic", needs="topic_admin", writes=True, asks_first=True, footer=True),
    LiveAction("delete-topic", ("d",), "delete_topic", "Delete topic",
        help="Partitions: delete the highlighted topic (a confirmation names it)",
        section="Topics", palette="Delete the highlighted topic", tabs=_P, needs="topic_admin", writes=True,
        asks_first=True),
    LiveAction("durability", ("v",), "durability", "Durability check",
        help="durability check: sequenced records while a leader fails, then read back",
        section="Topics", palette="Durability check", needs="durability", writes=True, asks_first=True),
    LiveAction("configs", ("C",), "configs", "Configs",
        help="configs of the topic highlighted in Partitions or the broker highlighted in Brokers or the "
             "process table: set, delete (as kafka-configs)",
        section="Topics", palette="Configs of the highlighted topic or broker", needs="configs"),
    LiveAction("transactions", ("i",), "transactions", "Transactions",
        help="the transactions not ended yet: state, producer, age against the timeout, partitions held back from "
             "read_committed consumers (as kafka-transactions.sh list and describe), read every 2 s",
        section="Topics", palette="Transactions not ended yet", needs="transactions"),
    LiveAction("elect-preferred", ("e",), "elect('PREFERRED')", "Elect leaders",
        help="Partitions: preferred leader election for the topic, the moves shown first",
        section="Topics", palette="Elect preferred leaders", tabs=_P, needs="elections", writes=True,
        asks_first=True),
    LiveAction("elect-unclean", ("E",), "elect('UNCLEAN')", "Unclean election",
        help="Partitions: unclean leader election: says what can be lost, and asks",
        section="Topics", palette="Elect unclean leaders", tabs=_P, needs="elections", writes=True, asks_first=True),
    LiveAction("add-partitions", ("P",), "add_partitions", "Add partitions",
        help="Partitions: add partitions to the topic (Kafka validates the count first)",
        section="Topics", palette="Add partitions to the highlighted topic", tabs=_P, needs="topic_admin",
        writes=True, asks_first=True),
    LiveAction("topic-rows", ("T",), "topic_rows", "Topic rows",
        help="Partitions: one row per topic (Enter shows its partitions), again: every partition",
        section="Topics", palette="One row per topic, or every partition", tabs=_P, modes=ANY),
    LiveAction("reassign", ("m",), "reassign", "Reassign",
        help="Partitions: move the topic's replicas (as kafka-reassign-partitions); again while it runs: "
             "cancel it",
        section="Topics", palette="Move the highlighted topic's replicas", tabs=_P, needs="reassignments",
        writes=True, asks_first=True),
    LiveAction("delete-group", ("x",), "delete_group(False)", "Delete group",
        help="Groups: delete the highlighted group (asks first; Kafka refuses while it has members)",
        section="Groups", palette="Delete the highlighted consumer group", tabs=_G, needs="group_tools", writes=True,
        asks_first=True),
    LiveAction("delete-offsets", ("X",), "delete_group(True)", "Delete group offsets",
        help="Groups: delete its committed offsets (asks first; Kafka refuses while it consumes the topic)",
        section="Groups", palette="Delete the highlighted group's committed offsets", tabs=_G, needs="group_tools",
        writes=True, asks_first=True),
    LiveAction("browse", ("b",), "browse", "Browse messages",
        help="the Messages tab; from Partitions (or Enter on a row) the highlighted partition's newest "
             "records",
        section="Messages", palette="Browse the highlighted partition", tabs=_P, needs="browser"),
    # Kafka Connect: capitals, as the keys of the process table and the topics leave none of the words' letters.
    LiveAction("connect-tab", ("N",), "connect_tab", "Connect",
        help="the Connect tab: connectors, their tasks and the worker each runs on, the workers (Kafka Connect's "
             "REST API, read every 2 s); Enter on a connector: its tasks, on a task: its trace",
        section="Connect", modes=ANY),
    LiveAction("connect-create", ("A",), "connect('create')", "Add connector",
        help="Connect: add a connector from a file (Connect's JSON, or connect-standalone's .properties), validated "
             "first: the worker's errors are shown per field and nothing is created",
        section="Connect", palette="Create a connector from a file", tabs=_K, needs="connect", writes=True,
        asks_first=True),
    LiveAction("connect-pause", ("Z",), "connect('pause')", "Pause connector",
        help="Connect: pause the highlighted connector and its tasks",
        section="Connect", palette="Pause the highlighted connector", tabs=_K, needs="connect", writes=True),
    LiveAction("connect-resume", ("U",), "connect('resume')", "Resume connector",
        help="Connect: resume it (paused or stopped)",
        section="Connect", palette="Resume the highlighted connector", tabs=_K, needs="connect", writes=True),
    LiveAction("connect-stop", ("S",), "connect('stop')", "Stop connector",
        help="Connect: stop it: its tasks shut down, its config stays (its offsets can then be reset)",
        section="Connect", palette="Stop the highlighted connector", tabs=_K, needs="connect", writes=True),
    LiveAction("connect-restart", ("B",), "connect('restart')", "Restart connector",
        help="Connect: restart it, asking first whether with its tasks or only what failed",
        section="Connect", palette="Restart the highlighted connector", tabs=_K, needs="connect", writes=True,
        asks_first=True),
    LiveAction("connect-delete", ("D",), "connect('delete')", "Delete connector",
        help="Connect: delete the highlighted connector (a confirmation names it)",
        section="Connect", palette="Delete the highlighted connector", tabs=_K, needs="connect", writes=True,
        asks_first=True),
    LiveAction("connect-offsets", ("O",), "connect_view('offsets')", "Connector offsets",
        help="Connect: the highlighted connector's offsets (KIP-875); once it is stopped, `x` there resets them "
             "(asks first; refused in a read-only context)",
        section="Connect", palette="The highlighted connector's offsets", tabs=_K, needs="connect"),
    LiveAction("connect-plugins", ("L",), "connect_view('plugins')", "Connect plugins",
        help="Connect: the plugins the workers have (connectors, converters, transformations) and their versions",
        section="Connect", palette="Kafka Connect's plugins", tabs=_K, needs="connect"),
    # ACLs: W (who may do what), Y adds, V removes (reVoke): letters no other key holds, and none a slip away from a
    # key that acts at once (w opens the contexts, v asks before its durability check, y and the others are free).
    LiveAction("acls-tab", ("W",), "acls_tab", "ACLs",
        help="the ACLs tab: every ACL binding by principal (its resources with their pattern type, the operations "
             "allowed or denied, the hosts), the authorizer, its super users and who kafkatop is (read every 3 s); "
             "in the tab, `W` again: by resource",
        section="ACLs", palette="ACLs: by principal, or by resource", modes=ANY),
    LiveAction("acl-add", ("Y",), "acls('add')", "Add ACL",
        help="ACLs: add a binding (principal, allow or deny, operations, resource, pattern type, host; or "
             "kafka-acls.sh's producer or consumer): a field Kafka would refuse says why and nothing is sent",
        section="ACLs", palette="Add an ACL binding", tabs=_A, needs="acls", writes=True, asks_first=True),
    LiveAction("acl-remove", ("V",), "acls('remove')", "Remove ACL",
        help="ACLs: remove the highlighted binding (a confirmation names it)",
        section="ACLs", palette="Remove the highlighted ACL binding", tabs=_A, needs="acls", writes=True,
        asks_first=True),
    # Schemas: H (scHemas) and I (regIster): of the letters no other key holds; I asks first, in a dialog.
    LiveAction("schemas-tab", ("H",), "schemas_tab", "Schemas",
        help="the Schemas tab: a Schema Registry's subjects (versions, the latest, its schema id and type, the "
             "compatibility level), the highlighted subject's versions and the schema itself (Avro and JSON Schema "
             "as JSON, Protobuf as .proto); read when the tab is shown; without a registry, how to give one",
        section="Schemas", palette="Schemas: a Schema Registry's subjects"),
    LiveAction("schema-register", ("I",), "schemas('register')", "Register schema",
        help="Schemas: register a schema under a subject (AVRO, PROTOBUF or JSON; from a file or pasted): Avro and "
             "JSON Schema must parse as JSON before anything is sent; the registry's refusal (incompatible, invalid) "
             "is said in the dialog, the text kept",
        section="Schemas", palette="Register a schema under a subject", tabs=_S, needs="schemas", writes=True,
        asks_first=True),
    # M (perMit): after a refusal of the authorizer's, shown in the footer; an app action, on any tab (grant_key.py).
    LiveAction("grant", ("M",), "app.grant", "Grant refused",
        help="grant what Kafka's authorizer refused last (once a refusal named it): a confirmation lists the ACL "
             "bindings and who adds them (on a lab with an authorizer, User:admin, its super user), then they are "
             "added — exactly what was refused, never Kafka's wildcard `*` (said, with the line to grant it on "
             "purpose)",
        section="ACLs", palette="Grant what the authorizer refused", needs="granting", writes=True, asks_first=True,
        footer=True),
    LiveAction("processes", ("0",), "processes", "Processes",
        help="the process table",
        section="View", palette="Go to the process table", modes=ANY, needs="control"),
    *(LiveAction(f"tab-{i}", (str(i),), f"tab({i})", f"Tab {i}", "", "View", modes=ANY) for i in range(1, 10)),
    LiveAction("replay-toggle", ("p",), "replay('toggle')", "Pause/play",
        help="replay: pause and play",
        section="Replay", palette="Pause or play the replay", modes=frozenset({"replay"}), footer=True),
    LiveAction("replay-step", ("n",), "replay('step')", "Step",
        help="replay: one step",
        section="Replay", palette="Step the replay", modes=frozenset({"replay"}), footer=True),
    LiveAction("replay-faster", ("plus",), "replay('faster')", "Faster",
        help="replay: faster",
        section="Replay", palette="Replay faster", modes=frozenset({"replay"}), footer=True),
    LiveAction("replay-slower", ("minus",), "replay('slower')", "Slower",
        help="replay: slower",
        section="Replay", palette="Replay slower", modes=frozenset({"replay"}), footer=True),
    LiveAction("spark-count", (), "spark_count", "Count",
        help="the Spark tab, counting the picked topic per partition (`g` there)",
        section="Spark", palette="Count the topic with Spark", needs="spark"),
    # The panes' own keys: bound in the pane named by `scope`, active while it has focus.
    LiveAction("rows", ("j", "k", "g", "G"), "", "",
        help="down, up, first, last row (and the arrows, Home, End, PgUp, PgDn)",
        section="Tables", scope="tables", modes=ANY),
    LiveAction("order", ("o",), "order", "Order rows",
        help="order the rows: partitions faults first, most messages first, by leader; topics and groups by "
             "the next column",
        section="Tables", scope="tables", modes=ANY),
    LiveAction("page-back", ("left_square_bracket",), "page(-1)", "Previous page",
        help="previous page",
        section="Messages", scope="messages", needs="browser", footer=True),
    LiveAction("page-on", ("right_square_bracket",), "page(1)", "Next page",
        help="next page",
        section="Messages", scope="messages", needs="browser", footer=True),
    LiveAction("log-start", ("less_than_sign",), "seek('beginning')", "Beginning",
        help="the partition's log start",
        section="Messages", scope="messages", needs="browser", footer=True),
    LiveAction("log-end", ("greater_than_sign",), "seek('end')", "End",
        help="the partition's log end",
        section="Messages", scope="messages", needs="browser", footer=True),
    LiveAction("search", ("f",), "find", "Search",
        help="search key, value and headers: a text or a regex, in the bytes and the decoded key and value; or a path "
             "over the decoded value (`.customer.id == 42`, `.name ~ \"ali\"`, `key.id == 7`), as `/` takes too",
        section="Messages", scope="messages", needs="browser", footer=True),
    LiveAction("formats", ("F",), "formats", "Formats",
        help="the topic's key and value formats (auto, string, json, avro, protobuf, json-schema, hex, base64) and "
             "a schema file or registry subject; remembered, read by the browser, nothing written to the cluster",
        section="Messages", scope="messages", needs="codec", asks_first=True),
    # h (its scHema), beside H (the Schemas tab): the record's own, not the subject highlighted there last.
    LiveAction("record-schema", ("h",), "record_schema", "Its schema",
        help="the highlighted record's schema (its value's, else its key's) in the Schemas tab: the subject and "
             "version the registry named, else its schema id's; also on Enter's record screen",
        section="Messages", scope="messages", needs="browser"),
    LiveAction("export", ("y",), "export", "Export",
        help="export the page, or the search's matches, to a file as `kafkatop consume --json` prints them (asks "
             "the path; replaces a file only when asked again)",
        section="Messages", scope="messages", needs="browser", asks_first=True),
    LiveAction("from", ("o",), "from_field", "From…",
        help="the `from` field: an offset, `-N`, `beginning`, `end` or a time",
        section="Messages", scope="messages", needs="browser"),
    LiveAction("schema-older", ("left_square_bracket",), "version(1)", "Older version",
        help="Schemas: the highlighted subject's older version",
        section="Schemas", scope="schemas", needs="schemas"),
    LiveAction("schema-newer", ("right_square_bracket",), "version(-1)", "Newer version",
        help="Schemas: its newer version",
        section="Schemas", scope="schemas", needs="schemas"),
    LiveAction("schemas-read", ("r",), "read", "Read again",
        help="Schemas: read the registry again",
        section="Schemas", scope="schemas", needs="schemas"),
    LiveAction("count", ("g",), "count", "Count",
        help="count the picked topic per partition with Spark",
        section="Spark", scope="spark", needs="spark", footer=True),
    LiveAction("live-counts", ("l",), "live", "Live counts",
        help="live counts from a streaming query",
        section="Spark", scope="spark", needs="spark", footer=True),
)
# fmt: on

SCREEN_ACTIONS = tuple(a for a in ACTIONS if a.scope == "screen")


def by_id(action_id: str) -> LiveAction:
    return next(a for a in ACTIONS if a.id == action_id)


def bindings(scope: Scope = "screen") -> list[BindingType]:
    """The Textual bindings of `scope`: a key beyond an action's first is a hidden alias (ctrl+c for q)."""
    made: list[BindingType] = []
    for a in ACTIONS:
        if a.scope != scope or not a.keys or not a.action:
            continue
        first, *more = a.keys
        made.append(Binding(first, a.action, a.label, show=a.footer))
        made.extend(Binding(k, a.action, a.label, show=False, system=True) for k in more)
    return made


def action_names(where: Iterable[LiveAction], modes: frozenset[Mode]) -> frozenset[str]:
    """The Textual action names (without parameters) of the actions that apply only in `modes`."""
    return frozenset(a.action.split("(")[0] for a in where if a.modes <= modes)


def key_rows() -> Iterator[tuple[LiveAction, str, str]]:
    """(action, keys, help) of every action that has a key and a line to say: README's table, the help screen."""
    for a in ACTIONS:
        if a.id == "tab-1":
            beyond = "Messages `b`, Connect `N`, ACLs `W`, Schemas `H`"
            yield a, "`1`–`9`", f"the tabs, as numbered in the tab bar (beyond nine: {beyond})"
        elif a.keys and a.help:
            yield a, a.shown_keys, a.help


def readme_table() -> str:
    """README's key table, as it must read."""
    lines = ["| keys | in | what it does | writes to the cluster |", "|---|---|---|---|"]
    lines += [f"| {keys} | {a.section} | {text} | {'yes' if a.writes else ''} |" for a, keys, text in key_rows()]
    return "\n".join(lines)
