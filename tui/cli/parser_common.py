"""The options many commands share: which lab cluster (--name, --state-dir, --config), which cluster to ask
(--bootstrap-server, --command-config), --timeout and --json (standard library only, so `kafkatop --help` answers at
once)."""

from __future__ import annotations

from kafkatop.backends.model.formats import FORMAT_NAMES
from kafkatop.tui.cli.options import Parser
from kafkatop.tui.cli.values import SECONDS, host_ports, text

NAME_HELP = "lab cluster name: its state is in STATE_DIR/NAME"
STATE_HELP = "where lab clusters keep configs, data and logs, one folder per name"
STATE_SHOWN = "$XDG_STATE_HOME/kafkatop or ~/.local/state/kafkatop"


def lab_options(p: Parser, spec_file: bool = True) -> None:
    context_options(p)
    p.option("--name", type=text("a cluster name"), help=NAME_HELP, shown="lab, or [cluster] name in kafkatop.toml")
    p.option("--state-dir", metavar="DIR", type=text("a folder"), help=STATE_HELP, shown=STATE_SHOWN)
    if spec_file:
        p.option("--config", metavar="FILE", type=text("a file"), help="cluster spec", shown="./kafkatop.toml if any")


def cluster_options(p: Parser) -> None:
    """Which cluster a command asks: a lab by name, or an attached one."""
    lab_options(p, spec_file=False)
    client_options(p)


def context_options(p: Parser) -> None:
    p.option("--context", metavar="NAME", type=text("a context's name"), help="a cluster named in kafkatop.toml or "
             "~/.config/kafkatop/config.toml ([contexts.NAME]; `kafkatop contexts` lists them)",
             shown="default-context, if set")  # fmt: skip
    p.option("--read-only", action="store_true", help="refuse every write to the cluster (as a context's "
             "read-only = true): nothing is sent")  # fmt: skip


def client_options(p: Parser) -> None:
    p.option(
        "--bootstrap-server", metavar="HOST:PORT[,…]", type=host_ports, help="an existing cluster",
        shown="the lab cluster",
    )  # fmt: skip
    command_config(p)


def command_config(p: Parser) -> None:
    p.option(
        "--command-config", metavar="FILE", type=text("a file"), shown="none",
        help="client properties (security settings), as Kafka's own tools",
    )  # fmt: skip


def registry_options(p: Parser) -> None:
    p.option("--schema-registry", metavar="URL[,URL…]", type=text("a Schema Registry URL"),
             help="a Schema Registry (Confluent's REST API) for records in its wire format",
             shown="[schema-registry] url in kafkatop.toml, or the context's")  # fmt: skip
    p.option("--schema-registry-config", metavar="FILE", type=text("a file"), shown="none",
             help="the registry client's properties: basic.auth.user.info, ssl.ca.location, … (mode 600)")  # fmt: skip


def format_options(p: Parser, verb: str) -> None:
    """--key-format/--value-format and their schemas, for a command on one --topic (consume reads, produce writes)."""
    registry_options(p)
    names = ", ".join(FORMAT_NAMES)
    writes = verb == "write"
    for which in ("key", "value"):
        auto = (
            "; auto and string send the line's bytes as they are, the others encode it (the schema formats from JSON)"
            if writes
            else "; with --json only this flag decodes (else the bytes are kept)"
        )
        p.option(
            f"--{which}-format",
            metavar="FORMAT",
            choices=FORMAT_NAMES,
            help=f"{verb} the {which}s as: {names}{auto}",
            shown=f"[formats.TOPIC] {which} in kafkatop.toml, else auto",
        )
        p.option(
            f"--{which}-schema",
            metavar="FILE",
            type=text("a schema file"),
            shown="the registry's",
            help=f"the {which}s' schema: .avsc, .proto or a descriptor set, or a JSON Schema .json "
            + (
                f"(with a registry: registered as subject TOPIC-{which}; not with --{which}-subject)"
                if writes
                else "(records without the wire format)"
            ),
        )
        if writes:  # reading needs no subject: a record in the wire format names its schema
            p.option(
                f"--{which}-subject",
                metavar="SUBJECT",
                type=text("a subject"),
                shown="none",
                help=f"encode the {which}s with this registry subject's latest schema (not with --{which}-schema)",
            )
        p.option(f"--{which}-message-type", metavar="NAME", type=text("a Protobuf message name"), shown="the only one",
                 help=f"Protobuf: the {which}s' message (its full name) when the schema has several")  # fmt: skip


def allow_remote_listeners(p: Parser) -> None:
    p.option("--allow-remote-listeners", action="store_true", help="let a listeners= broker setting bind beyond "
             "127.0.0.1 (a lab is reachable from this machine only unless this is given)")  # fmt: skip


def timeout_option(p: Parser, default: float, what: str) -> None:
    p.option("--timeout", type=SECONDS, default=default, metavar="SECONDS", help=what, shown=f"{default:g}")


def control_chars(p: Parser) -> None:
    """Every command's: how text from outside (names, records, error texts) is printed (tui/cli/terminal.py)."""
    p.option("--control-chars", choices=("escape", "raw"), shown="escape at a terminal, raw to a pipe or a file",
             help="print the control characters of names, records and error texts as escapes (\\x1b, \\u202e), "
             "which a terminal shows instead of acting on, or raw, byte for byte")  # fmt: skip


def json_option(p: Parser, what: str = "the result as JSON (shape: README, `--json`)") -> None:
    p.option("--json", action="store_true", help=what)


CONTEXTS: dict[str, str] = {
    "help": "the named clusters (contexts): whether each answers, its cluster id, and whether it is read-only",
    "description": "Lists the [contexts.NAME] tables of ~/.config/kafkatop/config.toml ($XDG_CONFIG_HOME) and of "
    "kafkatop.toml (or --config), the project's over the user's, asking each cluster who it is (one Metadata "
    'request). A context is a lab (lab = "NAME") or an attached cluster (bootstrap-server, command-config, '
    'zookeeper), with read-only = true|false and a colour; default-context = "NAME" names the one used when no '
    "cluster is given. `--context NAME` works with the live view and every command.",
    "epilog": "Exit codes: 0 listed (a context that does not answer is named on stderr); 2 a contexts file that "
    "cannot be read (its line and key said).",
}


def add_contexts(c: Parser) -> None:
    c.option("--config", metavar="FILE", type=text("a file"), help="the project's contexts file",
             shown="./kafkatop.toml if any")  # fmt: skip
    json_option(c, "the contexts as JSON")
    timeout_option(c, 3.0, "per cluster asked")
