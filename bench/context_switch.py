"""Benchmark: switching the live view to another context, to that context's first full frame (target ≤ 1 s).

Prints figures; the RESULT line compares the median with the target. Run from the repository root:

    .venv/bin/python bench/context_switch.py [--runs 5] [--first-visits 3] [--key-runs 2] [--settle 1.0]

Two librdkafka mock clusters (3 brokers, one topic of 6 partitions each) are the attached contexts `a` and `b` of a
kafkatop.toml in a temporary directory (the working directory for the run; XDG_CONFIG_HOME and XDG_STATE_HOME point
into it, so no user file is read or written), and --first-visits more (`c1`, …) beside them. The live view is built
as `kafkatop --context a --interval 1` builds it (parser, apply_context, compose_app(terminal=False)) and run
headless (App.run_test, 160×45). Once a's first poll is drawn:
  1. --runs switches a→b, b→a, … alternately, each started by `app.switch_context(name)` and timed until the new
     context's first full frame: the first frame of the new MainScreen drawn once its panes are mounted and the
     app's view holds a cluster snapshot of the target (its brokers' ports are the target's) taken after the
     switch began — a context already seen shows its kept view at once, with the last poll's data, which does not
     count. The RESULT is their median;
  2. first visits (b's, in 1, and one to each `cN`) beside switches to a context already seen (its timeline kept);
  3. --key-runs switches from the keys: `w`, then Enter on the picker's first other context, timed from the Enter;
  4. whether a's Feed and Timeline after a→b→a are the objects it had before (printed, not asserted).
Each switch's steps are stamped by measuring hooks only (the switcher's open, the app's switch_screen and
panes_mounted, the new sources' first cluster poll, the new screen's frames). Between switches the view is left
--settle seconds (the old context's clients close meanwhile, as they would while one looks). Everything is closed at
the end (one ExitStack), and the Python threads, OS threads and child processes left are counted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import psutil

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.tui.cli.compose import compose_app
from kafkatop.tui.cli.contexts import apply_context
from kafkatop.tui.cli.parser import build_parser
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.main_screen import MainScreen

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.* also when run as a file
from bench.common.machine import load
from bench.common.stats import median, stats_line, verdict

TARGET_S = 1.0
SIZE = (160, 45)
SWITCH_TIMEOUT_S = 20.0
COLOURS = ("green", "cyan", "magenta", "yellow", "blue", "purple", "red", "white")  # names Rich can parse


@dataclass
class Switch:
    """One switch, its steps in perf_counter seconds (None: not seen)."""

    src: str
    dst: str
    first_visit: bool
    how: str = "switch_context"
    t0: float = 0.0
    wall0: float = 0.0  # time.time() at t0: a snapshot taken after it is the new context's
    open_start: float | None = None  # the switcher's open(dst), in the worker
    open_end: float | None = None
    screen: float | None = None  # ContextOpened handled: the new MainScreen handed to switch_screen
    mounted: float | None = None  # its panes mounted, the new pollers started
    poll_start: float | None = None  # the new sources' first cluster poll, in its worker
    poll_end: float | None = None
    any_frame: float | None = None  # the new screen's first frame (a kept view: the last poll's data)
    frame: float | None = None  # its first frame with a fresh snapshot of dst: the switch's end
    notes: list[str] = field(default_factory=list)

    @property
    def total_s(self) -> float | None:
        return None if self.frame is None else self.frame - self.t0

    def since(self, t: float | None) -> str:
        return "     -   " if t is None else f"{(t - self.t0) * 1000:6.0f} ms"


class Probe:
    """The measuring hooks on one app: instance attributes only, nothing of the product's classes changed."""

    def __init__(self, app: KafkatopApp, ports: dict[str, frozenset[int]]) -> None:
        self.app = app
        self.ports = ports
        self.current: Switch | None = None
        switcher = app.switcher
        assert switcher is not None, "no switcher: the contexts were not found"
        original_open = switcher.open
        original_switch_screen = app.switch_screen
        original_mounted = app.panes_mounted

        def open_(name: str) -> Any:
            s = self.current
            if s is not None and s.dst == name and s.open_start is None:
                s.open_start = time.perf_counter()
            sources, settings = original_open(name)
            if s is not None and s.dst == name and s.open_end is None:
                s.open_end = time.perf_counter()
            return replace(sources, poll_cluster=self._timed_poll(s, name, sources.poll_cluster)), settings

        def switch_screen(screen: Any) -> Any:
            s = self.current
            if s is not None and s.screen is None and isinstance(screen, MainScreen):
                s.screen = time.perf_counter()
                self._watch_frames(screen, s)
            return original_switch_screen(screen)

        def panes_mounted(panes: Any) -> None:
            s = self.current
            if s is not None and s.screen is not None and s.mounted is None:
                s.mounted = time.perf_counter()
            original_mounted(panes)

        switcher.open = open_  # type: ignore[method-assign]
        app.switch_screen = switch_screen  # type: ignore[method-assign]
        app.panes_mounted = panes_mounted  # type: ignore[method-assign]

    def _timed_poll(self, s: Switch | None, name: str, poll: Any) -> Any:
        def timed() -> ClusterSnapshot:
            start = time.perf_counter()
            snapshot = poll()
            if s is not None and s.dst == name and s.poll_end is None:
                s.poll_start, s.poll_end = start, time.perf_counter()
            return snapshot  # type: ignore[no-any-return]

        return timed

    def fresh(self, s: Switch) -> bool:
        """Whether the app's view holds a snapshot of s.dst taken after the switch began."""
        cluster = self.app.view.cluster
        return (
            cluster is not None
            and cluster.taken_at >= s.wall0
            and frozenset(b.port for b in cluster.brokers) == self.ports[s.dst]
        )

    def _watch_frames(self, screen: MainScreen, s: Switch) -> None:
        original = screen._compositor_refresh

        def timed() -> None:
            original()
            if self.current is not s or self.app.screen is not screen:
                return
            now = time.perf_counter()
            if s.any_frame is None:
                s.any_frame = now
            # A full frame: the new screen's panes mounted (and so drawn from the view), the view fresh.
            if s.frame is None and s.mounted is not None and self.fresh(s):
                s.frame = now

        screen._compositor_refresh = timed  # type: ignore[method-assign]


def ports_of(bootstrap: str) -> frozenset[int]:
    return frozenset(int(hp.rpartition(":")[2]) for hp in bootstrap.split(","))


def write_contexts(where: Path, clusters: dict[str, MockCluster]) -> Path:
    lines = []
    for i, (name, cluster) in enumerate(clusters.items()):
        lines += [f"[contexts.{name}]", f'bootstrap-server = "{cluster.bootstrap_servers}"',
                  f'colour = "{COLOURS[i % len(COLOURS)]}"', f'description = "mock cluster {name}"', ""]  # fmt: skip
    path = where / "kafkatop.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


async def settle(pilot: Any, app: KafkatopApp, seconds: float) -> None:
    """Leave the view be for `seconds`, then until the old context's clients are closed."""
    await pilot.pause(seconds)
    deadline = time.perf_counter() + SWITCH_TIMEOUT_S
    while any(w.group == "close-context" and not w.is_finished for w in app.workers) and time.perf_counter() < deadline:
        await pilot.pause(0.05)


async def wait_for(pilot: Any, s: Switch) -> None:
    deadline = s.t0 + SWITCH_TIMEOUT_S
    while s.frame is None and time.perf_counter() < deadline:
        await pilot.pause(0.01)
    if s.frame is None:
        s.notes.append(f"no fresh frame of {s.dst} within {SWITCH_TIMEOUT_S:.0f} s (shown: {s.src}?)")


async def switch(pilot: Any, probe: Probe, app: KafkatopApp, s: Switch, keys: bool = False) -> Switch:
    probe.current = s
    if keys:
        await pilot.press("w")
        await pilot.pause()
        names = [c.name for c in app.switcher.choices()] if app.switcher is not None else []
        steps = names.index(s.dst) - names.index(s.src)  # the picker opens on the context shown
        for _ in range(abs(steps)):
            await pilot.press("down" if steps > 0 else "up")
        s.t0, s.wall0 = time.perf_counter(), time.time()
        await pilot.press("enter")
    else:
        s.t0, s.wall0 = time.perf_counter(), time.time()
        app.switch_context(s.dst)
    await wait_for(pilot, s)
    if app.settings.context != s.dst:
        s.notes.append(f"Settings.context is {app.settings.context!r}, not {s.dst!r}")
    return s


async def drive(app: KafkatopApp, ports: dict[str, frozenset[int]], args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"switches": [], "keys": []}
    t0 = time.perf_counter()
    async with app.run_test(size=SIZE) as pilot:
        probe = Probe(app, ports)
        first = Switch("-", "a", True, t0=t0, wall0=0.0)
        while not probe.fresh(first) and time.perf_counter() - t0 < SWITCH_TIMEOUT_S:
            await pilot.pause(0.02)
        out["a_first_poll_s"] = time.perf_counter() - t0 if probe.fresh(first) else None  # seen by the pilot
        await settle(pilot, app, args.settle)
        feed_a, timeline_a = app.feed, app.feed.timeline
        seen = {"a"}
        shown = "a"
        for i in range(args.runs):
            dst = "b" if shown == "a" else "a"
            s = await switch(pilot, probe, app, Switch(shown, dst, dst not in seen))
            out["switches"].append(s)
            seen.add(dst)
            shown = app.settings.context or shown
            if i == 1:  # a→b→a: is a's timeline the one it had?
                out["feed_kept"] = app.feed is feed_a
                out["timeline_kept"] = app.feed.timeline is timeline_a
            await settle(pilot, app, args.settle)
        for n in range(1, args.first_visits + 1):
            s = await switch(pilot, probe, app, Switch(shown, f"c{n}", True, how="first visit"))
            out["switches"].append(s)
            shown = app.settings.context or shown
            await settle(pilot, app, args.settle)
        names = [c.name for c in app.switcher.choices()] if app.switcher is not None else []
        for _ in range(args.key_runs):
            dst = next(n for n in names if n != shown)  # the picker highlights the first other context
            s = await switch(pilot, probe, app, Switch(shown, dst, False, how="keys w, Enter"), keys=True)
            out["keys"].append(s)
            shown = app.settings.context or shown
            await settle(pilot, app, args.settle)
        probe.current = None
        out["kept"] = sorted(str(k) for k in app.contexts._kept)
    return out


def leftovers(threads_before: set[int | None], os_threads_before: int) -> str:
    me = psutil.Process()
    python = [t.name for t in threading.enumerate() if t.ident not in threads_before]
    children = me.children(recursive=True)
    return (
        f"Python threads started and still alive: {len(python)}{' ' + str(python) if python else ''}; OS threads "
        f"{me.num_threads()} (before: {os_threads_before}); child processes: {len(children)}"
        + (f" {[(c.pid, c.name()) for c in children]}" if children else "")
    )


def ms(values: list[float]) -> str:
    return stats_line([v * 1000 for v in values], digits=0) if values else "no value"


def print_switch(s: Switch) -> None:
    total = f"{s.total_s * 1000:6.0f} ms" if s.total_s is not None else "  FAILED "
    print(
        f"  {s.src:>3}→{s.dst:<3} {'first' if s.first_visit else 'seen ':5} {total} | open {s.since(s.open_start)}"
        f"–{s.since(s.open_end)} | screen {s.since(s.screen)} | mounted {s.since(s.mounted)} | poll "
        f"{s.since(s.poll_start)}–{s.since(s.poll_end)} | 1st frame {s.since(s.any_frame)} | fresh frame "
        f"{s.since(s.frame)}{' | ' + '; '.join(s.notes) if s.notes else ''}",
        flush=True,
    )


def steps(switches: list[Switch]) -> None:
    """Where a switch's time goes, medians over `switches`."""

    def part(label: str, a: str, b: str) -> None:
        got = [getattr(s, b) - getattr(s, a) for s in switches if getattr(s, a) is not None and getattr(s, b)]
        print(f"    {label:<58} {ms(got)}")

    part("key press -> the switcher's open() starts (worker start)", "t0", "open_start")
    part("open(): the context's sources built (clients, contexts read)", "open_start", "open_end")
    # The first cluster poll runs in the switch's worker, after open() and before the new screen is handed over.
    part("first cluster poll (AdminSource.poll on a new client)", "poll_start", "poll_end")
    part("poll returned -> ContextOpened handled (switch_screen)", "poll_end", "screen")
    part("switch_screen -> the new screen's panes mounted, pollers started", "screen", "mounted")
    part("panes mounted -> the first full frame", "mounted", "frame")
    part("key press -> the new screen's first frame (maybe half-mounted)", "t0", "any_frame")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="switches a→b, b→a, … timed (the RESULT's median)")
    parser.add_argument("--first-visits", type=int, default=3, help="more contexts, each switched to once")
    parser.add_argument("--key-runs", type=int, default=2, help="switches by the keys (w, Enter)")
    parser.add_argument("--settle", type=float, default=1.0, help="seconds the view is left between switches")
    args = parser.parse_args()

    threads_before = {t.ident for t in threading.enumerate()}
    os_threads_before = psutil.Process().num_threads()
    cwd, environ = Path.cwd(), dict(os.environ)
    out: dict[str, Any] = {}
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kafkatop-bench-switch-")))
        os.environ["XDG_CONFIG_HOME"] = str(tmp / "config")
        os.environ["XDG_STATE_HOME"] = str(tmp / "state")
        os.chdir(tmp)
        stack.callback(os.chdir, cwd)
        names = ["a", "b", *(f"c{n}" for n in range(1, args.first_visits + 1))]
        clusters: dict[str, MockCluster] = {}
        for name in names:
            cluster = clusters[name] = stack.enter_context(MockCluster(3))
            cluster.create_topic(f"orders-{name}", 6, 3)
        write_contexts(tmp, clusters)
        ports = {name: ports_of(c.bootstrap_servers) for name, c in clusters.items()}
        cli = build_parser().parse_args(["--context", "a", "--interval", "1"])
        apply_context(cli)
        t0 = time.perf_counter()
        app = compose_app(cli, stack, terminal=False)  # its clients closed before the mock clusters (entered later)
        compose_s = time.perf_counter() - t0
        print("== kafkatop bench: switching the live view's context, to the new context's first full frame ==")
        print(
            f"python {sys.version.split()[0]}, {load()}; {len(names)} librdkafka mock clusters (3 brokers, 6 "
            f"partitions) as attached contexts {', '.join(names)}; headless {SIZE[0]}×{SIZE[1]}, --interval 1, "
            f"settle {args.settle:.1f} s between switches"
        )
        print(f"compose_app (context a's sources) {compose_s * 1000:.0f} ms", flush=True)
        out = asyncio.run(drive(app, ports, args))
        stack.close()
    os.environ.clear()
    os.environ.update(environ)

    switches: list[Switch] = out["switches"]
    alternating = switches[: args.runs]
    first_poll = out.get("a_first_poll_s")
    print(f"context a (the one started with): its first poll on screen {first_poll * 1000:.0f} ms after run_test began"
          if first_poll is not None else "context a: its first poll was NOT drawn")  # fmt: skip
    print("each switch, from the key press (times since it): the switcher's open() in the worker, ContextOpened "
          "(switch_screen), panes mounted, the first cluster poll, the new screen's first frame (possibly not yet "
          "mounted in full), its first frame with the fresh poll (the switch's end):")  # fmt: skip
    for s in switches + out["keys"]:
        print_switch(s)

    print()
    done = [s.total_s for s in alternating if s.total_s is not None]
    first = [s.total_s for s in switches if s.first_visit and s.total_s is not None]
    seen = [s.total_s for s in switches if not s.first_visit and s.total_s is not None]
    keys = [s.total_s for s in out["keys"] if s.total_s is not None]
    print("key press -> the new context's first full frame (wall time):")
    print(f"  {'a↔b alternately (' + str(len(alternating)) + ')':<34} {ms(done)}")
    print(f"  {'first visit (' + str(len(first)) + ')':<34} {ms(first)}")
    print(f"  {'already seen, timeline kept (' + str(len(seen)) + ')':<34} {ms(seen)}")
    print(f"  {'keys: w, Enter (' + str(len(keys)) + ')':<34} {ms(keys)}")
    for label, group in (("first visit", [s for s in switches if s.first_visit]),
                         ("already seen", [s for s in switches if not s.first_visit])):  # fmt: skip
        if group:
            print(f"  where the time goes, {label} (medians):")
            steps(group)
    if "timeline_kept" in out:
        print(
            f"after a→b→a: a's Feed is the one it had: {'yes' if out['feed_kept'] else 'NO'}; a's Timeline is the "
            f"same object: {'yes' if out['timeline_kept'] else 'NO'}; contexts kept aside: {', '.join(out['kept'])}"
        )
    print(f"after the ExitStack closed: {leftovers(threads_before, os_threads_before)}")
    failed = len(alternating) - len(done)
    if failed or not done:
        print(f"RESULT: context switch, {failed} of {len(alternating)} switches never drew the new context -> FAIL")
        return 0
    mid = median(done)
    print(
        f"RESULT: context switch to its first full frame, median of {len(done)} switches {mid * 1000:.0f} ms "
        f"(first visit {median(first) * 1000:.0f} ms, already seen {median(seen) * 1000:.0f} ms); "
        f"target ≤ {TARGET_S * 1000:.0f} ms -> {verdict(mid <= TARGET_S)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
