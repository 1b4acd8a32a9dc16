"""The live view's contexts, from the composition root's side: the cluster it started with, then every context of
kafkatop.toml and ~/.config/kafkatop/config.toml; `open(name)` builds that cluster's sources as `kafkatop --context
NAME` would, `close(name)` closes them. A lab opened (or started) here stays up while the view looks elsewhere, and is
stopped when kafkatop quits, as the lab it started with: only what this kafkatop started, a lab found running (or
read-only) being left as found (compose_lab.py). A context switched to brings its own start-up warnings, kept for the
screen (startup_warnings.py), never said on stderr under it."""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from kafkatop.backends.model.errors import KafkatopError
from kafkatop.tui.cli.contexts import apply_context, load_contexts
from kafkatop.tui.cli.startup_warnings import on_screen
from kafkatop.tui.live.sources import ContextChoice, Settings, Sources

if TYPE_CHECKING:
    from kafkatop.backends.lab.cluster import LabCluster

# The options that name a cluster: cleared before a context's own are filled in.
_CLUSTER_OPTIONS = ("bootstrap_server", "command_config", "zookeeper", "name", "demo", "kafka_home", "read_only",
                    "context", "context_name", "context_file", "context_colour", "context_read_only",
                    "context_lag", "context_mask", "context_audit_topic")  # fmt: skip


# compose.compose_sources: (args, stack, terminal=, lab=) -> (sources, settings, the lab opened or None)
Compose = Callable[..., tuple[Sources, Settings, "LabCluster | None"]]


class ContextSwitcher:
    def __init__(
        self,
        args: argparse.Namespace,
        stack: ExitStack,
        *,
        terminal: bool,
        compose: Compose,
        stop_lab: Callable[[LabCluster, bool], None],
    ) -> None:
        self._args = args
        self._compose, self._stop_lab = compose, stop_lab
        self._terminal = terminal
        self._labs = ExitStack()  # stopped last: after every context's clients are closed
        stack.callback(self._labs.close)
        stack.callback(self._close_all)
        self._open: dict[str, ExitStack] = {}
        self._lab_of: dict[Path, LabCluster] = {}
        self._lock = threading.Lock()
        named: str | None = getattr(args, "context_name", None)
        contexts = () if args.record else load_contexts(args, quiet=True).contexts
        # The cluster it started with: its context, else one more entry named for what the flags chose.
        self.first = named if named is not None else _started_as(args)
        self._choices = tuple(
            ContextChoice(c.name, c.where, c.read_only, c.colour) for c in contexts
        )  # fmt: skip
        if named is None:
            self._choices = (ContextChoice(self.first, "as started", bool(getattr(args, "read_only", False))),
                             *self._choices)  # fmt: skip

    def switches(self) -> bool:
        """Whether there is another context to switch to."""
        return len(self._choices) > 1

    def choices(self) -> tuple[ContextChoice, ...]:
        return self._choices

    def open(self, name: str) -> tuple[Sources, Settings]:
        from kafkatop.tui.cli.common import lab_name, state_root

        args = self._args_of(name)
        key: Path | None = None
        if not args.bootstrap_server and not args.demo:
            key = state_root(args) / lab_name(args)
        session = ExitStack()
        try:
            kept = self._lab_of.get(key) if key else None
            first = self._terminal and name == self.first  # a switch never asks at the terminal: the app is on it
            sources, settings, lab = self._compose(args, session, terminal=first, lab=kept)
        except BaseException:
            session.close()
            raise
        if lab is not None and key is not None:
            if key in self._lab_of:
                sources = replace(sources, startup=None)  # started (or adopted) when first shown
            else:
                self._lab_of[key] = lab
                self._labs.callback(self._stop_lab, lab, args.detach)
        if name == self.first and getattr(self._args, "context_name", None) is None:
            if settings.launch == "demo" and name != "demo":  # no Kafka install: the demo runs instead of a lab
                name = self.first = "demo"
                self._choices = (replace(self._choices[0], name=name), *self._choices[1:])
            settings = _named(settings, name if len(self._choices) > 1 else None)
        with self._lock:
            self._open[name] = session
        if name == self.first:
            on_screen(self._args)  # the view takes the terminal next: opened again later, it says nothing there
        return sources, settings

    def close(self, name: str) -> None:
        with self._lock:
            session = self._open.pop(name, None)
        if session is not None:
            session.close()

    def _close_all(self) -> None:
        for name in list(self._open):
            self.close(name)

    def _args_of(self, name: str) -> argparse.Namespace:
        """The options of `kafkatop --context NAME`: the ones the view started with, the cluster's replaced."""
        if name == self.first:
            return self._args
        ns = argparse.Namespace(**vars(self._args))
        for dest in _CLUSTER_OPTIONS:
            setattr(ns, dest, None)
        ns.demo = ns.read_only = False
        ns.context = name
        on_screen(ns, fresh=True)  # its warnings are kept for the view to show (Settings.warnings), not the first's
        if apply_context(ns, quiet=True) is None:  # stderr is the live view's terminal now
            raise KafkatopError(f"context {name!r} is no longer defined")
        return ns


def _started_as(args: argparse.Namespace) -> str:
    if args.demo:
        return "demo"
    if args.bootstrap_server:
        return str(args.bootstrap_server).split(",")[0]
    from kafkatop.tui.cli.common import lab_name

    try:
        return f"lab {lab_name(args)}"
    except KafkatopError:
        return "lab"


def _named(settings: Settings, name: str | None) -> Settings:
    return replace(settings, context=name) if name is not None and settings.context is None else settings
