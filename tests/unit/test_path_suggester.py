"""The file fields' completion (a connector's config, a schema, an export): as a shell completes a path."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from kafkatop.tui.live.widgets.path_suggester import PathSuggester, complete


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("connector.properties", "connector.json", "orders.avsc", ".hidden"):
        (tmp_path / name).write_text("", encoding="utf-8")
    (tmp_path / "schemas").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_relative_path_completes_from_the_working_directory(folder: Path) -> None:
    assert complete("or") == "orders.avsc"
    assert complete("co") == "connector."  # two names: their common start, as a shell's Tab
    assert complete("connector.p") == "connector.properties"
    assert complete("sch") == "schemas/"  # a folder gets its slash, to go on into it


def test_an_absolute_path_and_the_home_folder(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert complete(f"{folder}/orders.") == f"{folder}/orders.avsc"
    monkeypatch.setenv("HOME", str(folder))
    assert complete("~/ord") == "~/orders.avsc"  # what was typed is kept: only the rest is added


def test_nothing_is_suggested_where_nothing_more_fits(folder: Path) -> None:
    assert complete("orders.avsc") is None  # whole already
    assert complete("zz") is None
    assert complete("missing/x") is None  # no such folder: no suggestion, no error
    assert complete("") is None and complete(".h") == ".hidden"  # hidden names only when asked for
    assert complete("c") == "connector."  # .hidden not offered for a name that does not start with a dot


def test_the_suggester_lists_off_the_event_loop(folder: Path) -> None:
    assert asyncio.run(PathSuggester().get_suggestion("orders")) == "orders.avsc"
