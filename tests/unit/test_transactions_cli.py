"""`kafkatop transactions`'s options: each action takes its own, as kafka-transactions.sh's commands do, and what
cannot be done as asked is refused as bad input (exit 2) before any connection; read-only lets every action but
abort through."""

from __future__ import annotations

import pytest

from kafkatop.tui.cli.command_table import named
from kafkatop.tui.cli.exits import UsageError
from kafkatop.tui.cli.parser import build_parser
from kafkatop.tui.cli.transactions import check_options

REFUSED = [
    (["list", "--topic", "t"], "--topic is not an option of `transactions list` (it is of abort, describe-producers, "
     "find-hanging)"),
    (["describe"], "`transactions describe` needs --transactional-id ID"),
    (["describe", "--transactional-id", "x", "--yes"], "--yes is not an option of `transactions describe`"),
    (["describe-producers", "--topic", "t"], "`transactions describe-producers` needs --topic and --partition"),
    (["find-hanging"], "The `find-hanging` command requires either --topic or --broker-id"),
    (["find-hanging", "--broker-id", "1", "--partition", "0"], "The --partition argument requires --topic"),
    (["abort", "--topic", "t"], "`transactions abort` needs --topic and --partition"),
    (["abort", "--topic", "t", "--partition", "0"], "must be identified either with --start-offset"),
    (["abort", "--topic", "t", "--partition", "0", "--start-offset", "3", "--producer-id", "7"], "not both"),
    (["abort", "--topic", "t", "--partition", "0", "--producer-id", "7", "--coordinator-epoch", "0"],
     "Missing required argument --producer-epoch"),
    (["abort", "--topic", "t", "--partition", "0", "--producer-id", "7", "--producer-epoch", "0"],
     "Missing required argument --coordinator-epoch"),
]  # fmt: skip

ACCEPTED = [
    ["list"],
    ["list", "--duration-filter", "60000", "--transactional-id-pattern", "pay.*"],
    ["describe", "--transactional-id", "pay-1"],
    ["describe-producers", "--topic", "t", "--partition", "0", "--broker-id", "2"],
    ["find-hanging", "--broker-id", "1"],
    ["find-hanging", "--topic", "t", "--partition", "0", "--max-transaction-timeout", "0"],
    ["abort", "--topic", "t", "--partition", "0", "--start-offset", "12"],
    ["abort", "--topic", "t", "--partition", "0", "--producer-id", "7", "--producer-epoch", "1",
     "--coordinator-epoch", "-1", "--yes"],
]  # fmt: skip


@pytest.mark.parametrize(("argv", "says"), REFUSED, ids=[" ".join(a) for a, _ in REFUSED])
def test_what_an_action_cannot_take_is_bad_input(argv: list[str], says: str) -> None:
    args = build_parser().parse_args(["transactions", *argv])
    with pytest.raises(UsageError) as refused:
        check_options(args)
    assert says in str(refused.value)


@pytest.mark.parametrize("argv", ACCEPTED, ids=[" ".join(a) for a in ACCEPTED])
def test_each_actions_own_options_are_taken(argv: list[str]) -> None:
    args = build_parser().parse_args(["transactions", *argv])
    check_options(args)
    assert (named("transactions").writes(args) is not None) == (argv[0] == "abort")


@pytest.mark.parametrize(
    "argv",
    [["frob"], [], ["abort", "--topic", "t", "--partition", "0", "--start-offset", "-1"],
     ["find-hanging", "--topic", "t", "--max-transaction-timeout", "-5"]],
)  # fmt: skip
def test_an_unknown_action_or_a_negative_number_is_refused_by_the_parser(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["transactions", *argv])
    assert exited.value.code == 2


def test_options_may_come_before_the_command() -> None:
    args = build_parser().parse_args(["--transactional-id", "pay-1", "transactions", "describe"])
    assert (args.transactions_command, args.transactional_id, args.max_transaction_timeout) == ("describe", "pay-1", 15)
