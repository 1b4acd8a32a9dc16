"""`kafkatop audit`'s options: the trail of every write kafkatop sent (tui/cli/audit.py)."""

from __future__ import annotations

from kafkatop.tui.cli.options import Parser
from kafkatop.tui.cli.parser_common import json_option
from kafkatop.tui.cli.values import text

AUDIT: dict[str, str] = {
    "help": "who changed what: every write kafkatop sent, from this machine's trail",
    "description": "Lists the audit trail ($XDG_STATE_HOME/kafkatop/audit.jsonl, 0600): one entry per write kafkatop "
    "sent — a command that writes (create-topic, configs --alter, acls --add, …) and each write of the live view "
    "(a kill, a topic created, an offset reset, a record produced) — with its time, context, cluster id, the "
    "principal kafkatop authenticated as, the action and its target, the arguments that matter (never a secret, "
    "never a record's payload) and how it ended (Kafka's error when it failed). Oldest first.",
    "epilog": "Exit codes: 0 done (an empty trail too); 1 the trail cannot be read; 2 bad input (--since).",
}


def add_audit(audit: Parser) -> None:
    audit.option("--context", dest="context_filter", metavar="NAME", type=text("a context's name"),
                 help="only the writes sent to this context", shown="all")  # fmt: skip
    audit.option("--since", metavar="WHEN", type=text("a time"),
                 help="only the writes since then: 30m, 2h, 7d ago, or an ISO date or time (UTC)",
                 shown="all")  # fmt: skip
    audit.option("--action", metavar="ACTION", type=text("an action"),
                 help='only this action ("create-topic", "kill", "acls --add"; "groups" for every groups write)',
                 shown="all")  # fmt: skip
    json_option(audit, "one JSON object per line, as the trail holds them")
