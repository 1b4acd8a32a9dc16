"""The options many commands share: which lab cluster (--name, --state-dir, --config), which cluster to ask
(--bootstrap-server, --command-config), --timeout and --json (standard library only, so `kafkatop --help` answers at
once)."""

from __future__ import annotations

from kafkatop.tui.cli.options import Parser
from kafkatop.tui.cli.values import SECONDS, host_ports, text

NAME_HELP = "lab cluster name: its state is in STATE_DIR/NAME"
STATE_HELP = "where lab clusters keep configs, data and logs, one folder per name"
STATE_SHOWN = "$XDG_STATE_HOME/kafkatop or ~/.local/state/kafkatop"


def lab_options(p: Parser, spec_file: bool = True) -> None:
    p.option("--name", type=text("a cluster name"), help=NAME_HELP, shown="lab, or [cluster] name in kafkatop.toml")
    p.option("--state-dir", metavar="DIR", type=text("a folder"), help=STATE_HELP, shown=STATE_SHOWN)
    if spec_file:
        p.option("--config", metavar="FILE", type=text("a file"), help="cluster spec", shown="./kafkatop.toml if any")


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


def allow_remote_listeners(p: Parser) -> None:
    p.option("--allow-remote-listeners", action="store_true", help="let a listeners= broker setting bind beyond "
             "127.0.0.1 (a lab is reachable from this machine only unless this is given)")  # fmt: skip


def timeout_option(p: Parser, default: float, what: str) -> None:
    p.option("--timeout", type=SECONDS, default=default, metavar="SECONDS", help=what, shown=f"{default:g}")


def json_option(p: Parser, what: str = "the result as JSON (shape: README, `--json`)") -> None:
    p.option("--json", action="store_true", help=what)
