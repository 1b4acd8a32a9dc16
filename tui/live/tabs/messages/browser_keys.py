"""The message browser's own keys (scope "messages": active while its pane has focus), declared once: the pane binds
them (pane.py) and the Messages tab lists them with its keys (keys.py) for the help, the palette and the README."""

from __future__ import annotations

from functools import partial

from kafkatop.tui.live.action import LiveAction

_BROWSER = partial(LiveAction, section="Messages", scope="messages", needs="browser")

# fmt: off
BROWSER_ACTIONS: tuple[LiveAction, ...] = (
    _BROWSER("page-back", ("left_square_bracket",), "page(-1)", "Previous page",
        help="previous page",
        footer=True),
    _BROWSER("page-on", ("right_square_bracket",), "page(1)", "Next page",
        help="next page",
        footer=True),
    _BROWSER("log-start", ("less_than_sign",), "seek('beginning')", "Beginning",
        help="the partition's log start",
        footer=True),
    _BROWSER("log-end", ("greater_than_sign",), "seek('end')", "End",
        help="the partition's log end",
        footer=True),
    # f and o move to a field: priority keys, so the field has the focus before the next key typed comes (in a
    # field they are text: MessagesPane.check_action).
    _BROWSER("search", ("f",), "find", "Search",
        help="search key, value and headers: a text or a regex, in the bytes and the decoded key and value; or a path "
             "over the decoded value (`.customer.id == 42`, `.name ~ \"ali\"`, `key.id == 7`), as `/` takes too",
        footer=True, priority=True),
    _BROWSER("formats", ("F",), "formats", "Formats",
        help="the topic's key and value formats (auto, string, json, avro, protobuf, json-schema, hex, base64) and "
             "a schema file or registry subject; remembered, read by the browser, nothing written to the cluster",
        needs="codec", asks_first=True),
    # h (its scHema), beside H (the Schemas tab): the record's own, not the subject highlighted there last.
    _BROWSER("record-schema", ("h",), "record_schema", "Its schema",
        help="the highlighted record's schema (its value's, else its key's) in the Schemas tab: the subject and "
             "version the registry named, else its schema id's; also on Enter's record screen"),
    _BROWSER("export", ("y",), "export", "Export",
        help="export the page, or the search's matches, to a file as `kafkatop consume --json` prints them (asks "
             "the path; replaces a file only when asked again)",
        asks_first=True),
    _BROWSER("from", ("o",), "from_field", "From…",
        help="the `from` field: an offset, `-N`, `beginning`, `end` or a time", priority=True),
)
# fmt: on
AT_ONCE = frozenset(a.action for a in BROWSER_ACTIONS if a.priority)  # their Textual actions (no parameters)
