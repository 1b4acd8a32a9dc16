"""The architecture, checked by tools: the import contracts (import-linter, pyproject.toml), what each layer loads at
run time in a fresh interpreter (lazy imports and imports through another module included), no import cycle, and no
`Any` in the app's messages or in the ports. ARCHITECTURE.md says the rules; these tests keep them."""

from __future__ import annotations

import functools
import importlib
import pkgutil
import subprocess
import sys
import tomllib
import typing
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[2]
ROOTS = ("kafkatop.backends", "kafkatop.spark", "kafkatop.tui")
DATA_LIBRARIES = ("confluent_kafka", "kazoo", "psutil", "pyspark", "pyarrow", "py4j")


def modules_under(package: str) -> list[str]:
    pkg = importlib.import_module(package)
    names = [package]
    for info in pkgutil.walk_packages(pkg.__path__, package + "."):
        if not info.name.endswith("__main__"):  # running it is the command, not an import
            names.append(info.name)
    return sorted(names)


def loaded_after_import(module: str) -> set[str]:
    """The top-level packages in sys.modules after importing `module` in a fresh interpreter."""
    code = f"import sys, {module}\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return set(result.stdout.split())


def test_import_contracts_hold() -> None:
    """pyproject.toml's [tool.importlinter] contracts: layers, pure modules, the live view, no cycles."""
    code = (
        "import sys\n"
        "from importlinter.cli import lint_imports\n"
        f"sys.exit(lint_imports(config_filename={str(ROOT / 'pyproject.toml')!r}, no_cache=True))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


LIVE = [m for m in modules_under("kafkatop.tui") if not m.startswith("kafkatop.tui.cli")]


@pytest.mark.parametrize("module", LIVE)
def test_the_live_view_loads_no_data_library(module: str) -> None:
    """Importing any module of the Textual live view loads none of the data libraries: they belong to the adapters,
    which the composition root (tui/cli) builds."""
    assert loaded_after_import(module) & set(DATA_LIBRARIES) == set()


PURE = [
    *modules_under("kafkatop.backends.model"),
    *modules_under("kafkatop.backends.insight"),
    "kafkatop.backends.ports",
    "kafkatop.backends.check_ports",
    "kafkatop.backends.checks.durability.verdict",
    "kafkatop.backends.checks.durability.report",
    "kafkatop.backends.checks.durability.exactly_once",
    "kafkatop.backends.checks.chaos.verdict",
    "kafkatop.backends.checks.chaos.report",
    "kafkatop.backends.checks.pipeline.verdict",
    "kafkatop.backends.checks.pipeline.report",
]


@pytest.mark.parametrize("module", PURE)
def test_pure_modules_load_only_the_standard_library(module: str) -> None:
    """The model, insight, the ports and the checks' verdicts and reports run on the standard library alone."""
    foreign = {m for m in loaded_after_import(module) - _startup() if m not in sys.stdlib_module_names}
    assert foreign - {"kafkatop"} == set()


@functools.cache
def _startup() -> set[str]:
    """What an interpreter of this environment loads before any import (site hooks, an editable install's finder)."""
    return loaded_after_import("sys")


def test_the_app_process_never_loads_pyspark() -> None:
    """Spark runs in its own process: the command line, the live view and every backend the app's process reaches
    never pull pyspark (and its JVM gateway) in."""
    reached = ["kafkatop.tui.cli.main", "kafkatop.tui.cli.compose", *modules_under("kafkatop.backends")]
    code = "import sys\n" + "".join(f"import {m}\n" for m in reached)
    code += "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j')))\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_entry_point_loads_only_the_parser() -> None:
    """`kafkatop --help` and a mistyped option answer at once: the entry point imports the argument parser and the
    model's errors; each command's modules (labs, adapters, Textual, data libraries) load when that command runs."""
    code = "import sys, kafkatop.tui.cli.main\nprint(' '.join(sorted(m for m in sys.modules if 'kafkatop' in m)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    packages = {"kafkatop", "kafkatop.tui", "kafkatop.tui.cli", "kafkatop.backends", "kafkatop.backends.model"}
    modules = {
        "kafkatop.tui.cli.main",
        "kafkatop.tui.cli.parser",
        "kafkatop.tui.cli.command_table",
        *(
            f"kafkatop.tui.cli.parser_{family}"
            for family in (
                "common",
                "lab",
                "topics",
                "topics_tool",
                "clients",
                "checks",
                "connect",
                "users",
                "acls",
                "tools",
                "streams",
                "lag",
                "audit",
            )
        ),
        "kafkatop.tui.cli.options",
        "kafkatop.tui.cli.values",
        "kafkatop.tui.cli.exits",
        "kafkatop.backends.model.errors",
        "kafkatop.backends.model.formats",  # the format names --key-format/--value-format take (standard library)
        "kafkatop.backends.model.topic_filter",  # `topics --topic REGEX`, checked (standard library)
    }
    loaded = {m for m in result.stdout.split() if m.startswith("kafkatop")}
    assert loaded - packages <= modules, sorted(loaded - packages - modules)
    assert loaded_after_import("kafkatop.tui.cli.main") & {"textual", "rich", "psutil", *DATA_LIBRARIES} == set()


def _cycles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), in the direct-import graph."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.find_modules_directly_imported_by(v) & modules:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for m in sorted(modules):
        if m not in index:
            visit(m)
    return found


def test_no_import_cycle_between_modules() -> None:
    """Not even between two modules of one package (import-linter's acyclic contract looks at sibling packages)."""
    graph = grimp.build_graph(*ROOTS)
    modules = {m for m in graph.modules if m.startswith(ROOTS)}
    assert _cycles(graph, modules) == []


def _mentions_any(hint: object) -> bool:
    if hint is typing.Any:
        return True
    return any(_mentions_any(arg) for arg in typing.get_args(hint))


def test_messages_and_ports_carry_no_any() -> None:
    """Every message the live view posts, and every port, is typed with the model's own types."""
    from textual.message import Message

    for module in LIVE:
        importlib.import_module(module)
    messages = [
        cls
        for cls in _subclasses(Message)
        if cls.__module__.startswith("kafkatop.") and "__dataclass_fields__" in vars(cls)
    ]
    assert len(messages) >= 8, "the live view's messages were not found"
    offenders = {
        f"{cls.__module__}.{cls.__qualname__}.{name}"
        for cls in messages
        for name, hint in typing.get_type_hints(cls).items()
        if name in cls.__dataclass_fields__ and _mentions_any(hint)
    }
    for ports in map(importlib.import_module, ("kafkatop.backends.ports", "kafkatop.backends.check_ports")):
        for name, obj in vars(ports).items():
            if isinstance(obj, type) and obj.__module__ == ports.__name__:
                for attr, member in vars(obj).items():
                    if callable(member) and not attr.startswith("_"):
                        hints = typing.get_type_hints(member, vars(ports))
                        offenders |= {f"ports.{name}.{attr}.{h}" for h, v in hints.items() if _mentions_any(v)}
    assert offenders == set()


def _subclasses(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out.append(sub)
        out.extend(_subclasses(sub))
    return out


def test_every_package_is_installed() -> None:
    """pyproject.toml lists every package of the tree: a wheel built from it leaves none out."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    tops = {"backends": "kafkatop.backends", "spark": "kafkatop.spark", "tui": "kafkatop.tui"}
    found = set()
    for top, name in tops.items():
        for init in (ROOT / top).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / top).parts
            found.add(".".join((name, *rel)))
    assert listed == found


def test_the_app_and_the_main_screen_derive_from_textual_alone() -> None:
    """No kafkatop class between App/Screen and the app/main screen: what they do is in objects they own, not parents
    that call their child."""
    from kafkatop.tui.live.app import KafkatopApp
    from kafkatop.tui.live.main_screen import MainScreen

    for cls in (KafkatopApp, MainScreen):
        ours = [c.__qualname__ for c in cls.__mro__ if c.__module__.startswith("kafkatop.")]
        assert ours == [cls.__qualname__], f"{cls.__qualname__} derives from {ours[1:]}"
