"""How a check (durability, chaos, the Connect pipeline) ends: `common.run_check` and `common.report_exit` — its
refusal (exit 2), an interruption (130, with what was undone), else its report as text or JSON (0 held, 1 not)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping

import pytest

from kafkatop.tui.cli.common import run_check


class _Refused(Exception):
    pass


class _Report:
    def __init__(self, held: bool) -> None:
        self.held = held

    def to_dict(self) -> Mapping[str, object]:
        return {"held": self.held}


def _end(run: Callable[[], _Report], as_json: bool = False) -> int:
    return run_check(argparse.Namespace(json=as_json), run, refused=_Refused, interrupted="interrupted: undone",
                     text=lambda r: f"held: {r.held}", held=lambda r: r.held)  # fmt: skip


def test_a_refusal_and_an_interruption(capsys: pytest.CaptureFixture[str]) -> None:
    def refused() -> _Report:
        raise _Refused("RF 1: nothing was sent")

    def interrupted() -> _Report:
        raise KeyboardInterrupt

    assert _end(refused) == 2
    assert capsys.readouterr() == ("", "kafkatop: RF 1: nothing was sent\n")
    assert _end(interrupted) == 130
    assert capsys.readouterr() == ("", "kafkatop: interrupted: undone\n")


@pytest.mark.parametrize("held, code", [(True, 0), (False, 1)])
def test_the_report_as_text_or_json(held: bool, code: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert _end(lambda: _Report(held)) == code
    assert capsys.readouterr().out == f"held: {held}\n"
    assert _end(lambda: _Report(held), as_json=True) == code
    assert capsys.readouterr().out == '{\n  "held": ' + str(held).lower() + "\n}\n"
