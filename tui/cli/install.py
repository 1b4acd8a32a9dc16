"""`kafkatop install [VERSION]`, `kafkatop install --list`, and the offer to install that `kafkatop` and `kafkatop up`
make when no Kafka is found. The download, checks and unpacking are backends/lab/installer.py; this draws the
progress bar and asks."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from kafkatop.backends.lab.download import STALL_S
from kafkatop.backends.lab.java import JavaMissing, check_java
from kafkatop.backends.lab.kafka_homes import (
    KafkaInstall,
    KafkaNotFound,
    LabMode,
    ModeUnsupported,
    find_kafka,
    installs_root,
)
from kafkatop.backends.lab.releases import (
    APACHE_SITES,
    DEFAULT_LINE,
    DEFAULT_SCALA,
    PINNED,
    ZOOKEEPER_LINE,
    Release,
    Site,
    mirror_sites,
    short_digest,
)
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.tui.cli.exits import DONE, Declined, err
from kafkatop.tui.cli.terminal import unescaped
from kafkatop.tui.format import human_duration

if TYPE_CHECKING:
    from kafkatop.backends.lab.installer import Installed, InstallProgress, KafkaInstaller

MIRROR_ENV = "KAFKATOP_KAFKA_MIRROR"
STAGES = {"download": "downloading", "verify": "checking SHA-512", "extract": "unpacking"}


def _home(path: Path) -> str:
    """~/… for paths under HOME: shorter, and what a person would type."""
    home = os.environ.get("HOME")
    if home and str(path).startswith(home.rstrip("/") + "/"):
        return "~" + str(path)[len(home.rstrip("/")) :]
    return str(path)


def _mib(n: float) -> str:
    return f"{n / (1 << 20):.1f} MiB"


class ProgressBar:
    """One line redrawn in place on a terminal: stage, bar, bytes, rate, time left. Elsewhere (a log, a pipe) it
    draws nothing: a download logs one line when it starts and one when it ends."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.live = out.isatty()
        self.stage: str | None = None
        self.samples: deque[tuple[float, int]] = deque()
        self.drawn_at = 0.0
        self.started = time.monotonic()
        self.first = 0
        self.last: InstallProgress | None = None

    def update(self, p: InstallProgress) -> None:
        now = time.monotonic()
        if p.stage != self.stage:
            self.finish()
            self.stage, self.started, self.first = p.stage, now, p.done
            self.samples.clear()
        self.samples.append((now, p.done))
        while len(self.samples) > 2 and now - self.samples[0][0] > 3.0:
            self.samples.popleft()
        whole = p.total is not None and p.done >= p.total
        if self.live and (whole or now - self.drawn_at >= 0.1):
            self.drawn_at = now
            self._draw(p)
        self.last = p

    def _draw(self, p: InstallProgress) -> None:
        width = shutil.get_terminal_size((80, 24)).columns
        label = STAGES[p.stage]
        (t0, d0), (t1, d1) = self.samples[0], self.samples[-1]
        rate = (d1 - d0) / (t1 - t0) if t1 > t0 else 0.0
        figures = _mib(p.done) if p.total is None else f"{_mib(p.done)} / {_mib(p.total)}"
        tail = ""
        if p.stage == "download" and rate > 0:
            tail = f"  {_mib(rate)}/s"
            if p.total is not None and p.done < p.total:
                tail += f"  {human_duration((p.total - p.done) / rate)} left"
        share = p.done / p.total if p.total else 0.0
        text = f"  {label}  {{bar}}  {figures}  {share:4.0%}{tail}"
        room = max(10, width - len(text) + len("{bar}") - 3)
        bar_width = min(30, room - 2)
        filled = int(share * bar_width)
        bar = "[" + "█" * filled + "·" * (bar_width - filled) + "]"
        line = text.replace("{bar}", bar)[: width - 3]  # room for the ^C a terminal echoes after it
        self._write("\r" + line.ljust(width - 3))

    def finish(self) -> None:
        """End the line of the stage drawn so far (the next output starts on a line of its own)."""
        if self.last is not None and self.live and self.stage is not None:
            self._draw(self.last)
            self._write("\n")
        elif self.last is not None and self.stage == "download":
            took = time.monotonic() - self.started
            self._write(f"  downloaded {_mib(self.last.done - self.first)} in {took:.1f} s\n")
        self.stage = None

    def abort(self) -> None:
        """Leave the line drawn as it is (a ^C may sit after it) and go on below it."""
        if self.live and self.stage is not None:
            self._write("\n")
        self.stage = None

    def note(self, text: str) -> None:
        if self.live and self.stage is not None:
            self._write("\r" + " " * (shutil.get_terminal_size((80, 24)).columns - 1) + "\r")
        self._write(f"  {text}\n")
        self.drawn_at = 0.0

    def _write(self, text: str) -> None:
        try:
            self.out.write(text)
            self.out.flush()
        except (OSError, ValueError):
            pass


def sites_for(mirror: str | None) -> tuple[Site, ...]:
    """--mirror, else $KAFKATOP_KAFKA_MIRROR, else Apache's download site then its archive."""
    given = mirror if mirror is not None else os.environ.get(MIRROR_ENV, "").strip() or None
    return APACHE_SITES if given is None else mirror_sites(given)


def make_installer(args: argparse.Namespace, bar: ProgressBar) -> KafkaInstaller:
    from kafkatop.backends.lab.installer import KafkaInstaller

    # `install --timeout` is the download's stall timeout; the live view's and up's --timeout mean something else.
    stall_s = args.timeout if getattr(args, "command", None) == "install" else STALL_S
    return KafkaInstaller(
        sites_for(getattr(args, "mirror", None)),
        stall_s=stall_s,
        on_progress=bar.update,
        on_note=bar.note,
    )


def run_install(args: argparse.Namespace, version: str | None, line: str = DEFAULT_LINE) -> Installed:
    """Resolve, check Java, download, verify, unpack; progress on stderr, the outcome on stdout."""
    bar = ProgressBar(unescaped(sys.stderr))  # a line redrawn in place: kafkatop's own \r
    installer = make_installer(args, bar)
    scala = getattr(args, "scala", None) or DEFAULT_SCALA
    release = installer.resolve(version, scala, line)
    if not (installer.data_root / release.name).is_dir():
        java = check_java(release.java_needed, f"{release}")  # before the download, not after it
        if (installer.cache / release.filename).is_file():
            where = f"the download kept in {_home(installer.cache)}"
        else:
            where = installer.sites[0].name  # the next sites are tried only on a 404, each said in a note
        print(f"installing {release} from {where} ({java})", flush=True)
    try:
        done = installer.install(release)
    except KeyboardInterrupt:
        bar.abort()
        part = installer.cache / f"{release.filename}.part"
        if part.is_file():
            err(f"{_mib(part.stat().st_size)} of {release.filename} kept: the same command resumes the download")
        raise
    except BaseException:
        bar.abort()
        raise
    bar.finish()
    _report(done)
    return done


def _report(done: Installed) -> None:
    home = _home(done.install.home)
    if done.how == "present":
        print(f"Kafka {done.release.version} is already installed at {home}")
        return
    print(f"installed Kafka {done.install.version} at {home}")
    if done.how == "cached":
        print(f"  from the cached download (SHA-512 {short_digest(done.digest or '')}, checked again)")
    else:
        print(f"  from {done.archive_url}")
        print(f"  SHA-512 {short_digest(done.digest or '')} matches {done.checksum_url}")


def cmd_install(args: argparse.Namespace) -> int:
    if args.list:
        if args.version:
            err("--list shows what is installed; leave out the VERSION")
            return 2
        return _list(args)
    done = run_install(args, args.version)
    if done.how != "present":
        print("next: `kafkatop` starts a lab cluster from it (or `kafkatop up --detach`)")
    return DONE


def _list(args: argparse.Namespace) -> int:
    from kafkatop.backends.lab.installer import KafkaInstaller

    here = KafkaInstaller()
    print(f"installed by kafkatop in {_home(here.data_root)}:")
    installed = here.installed()
    if not installed:
        print("  none (`kafkatop install` downloads Apache Kafka)")
    for i in installed:
        modes = " and ".join("ZooKeeper" if m == "zk" else "KRaft" for m in i.supported_modes)
        print(f"  {i.home.name:<22} Kafka {i.version}  ({modes} mode)")
    cached = here.cached()
    if cached:
        sizes = ", ".join(f"{c.name} ({_mib(c.stat().st_size)})" for c in cached)
        print(f"downloads kept in {_home(here.cache)}: {sizes}")
    uses: tuple[tuple[LabMode | None, str], ...] = (
        (None, "`kafkatop up` uses"),
        ("zk", "`kafkatop up --mode zk` uses"),
    )
    for mode, label in uses:
        try:
            found = find_kafka(getattr(args, "kafka_home", None), mode=mode)
        except KafkaNotFound:
            print(f"{label}: nothing yet (no Kafka found)")
            continue
        except KafkatopError as e:
            print(f"{label}: {e}")
            continue
        if mode == "zk" and "zk" not in found.supported_modes:
            print(f"{label}: none runs ZooKeeper mode (`kafkatop install {ZOOKEEPER_LINE}` adds Kafka 3.9)")
            continue
        print(f"{label}: Kafka {found.version} at {_home(found.home)}")
    return DONE


# --- the offer, when no Kafka is found ------------------------------------------------------------------------------
def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def _ask(question: str, choices: str) -> str:
    """One key from `choices` (its first is the default on Enter); EOF or Ctrl-C is 'q'."""
    while True:
        try:
            answer = input(question).strip().lower()[:1]
        except (EOFError, KeyboardInterrupt):
            print()
            return "q"
        if not answer:
            return choices[0]
        if answer in choices:
            return answer
        print(f"  type one of {', '.join(choices)}")


def find_or_offer(
    args: argparse.Namespace, mode: LabMode | None, *, demo_instead: bool, interactive: bool | None = None
) -> KafkaInstall | None:
    """The Kafka install to run a lab from. When none is found (or none runs `mode`), offer to download one: asked on
    a terminal, done at once with --yes. None: run the demo instead (only when `demo_instead`, the live view)."""
    explicit = getattr(args, "kafka_home", None)
    try:
        found: KafkaInstall | None = find_kafka(explicit, mode=mode)
    except KafkaNotFound:
        found = None
    if found is not None and (explicit or mode is None or mode in found.supported_modes):
        return found
    return _offer(args, found, mode, demo_instead, _interactive() if interactive is None else interactive)


def _offer(
    args: argparse.Namespace, found: KafkaInstall | None, mode: LabMode | None, demo_instead: bool,
    interactive: bool,
) -> KafkaInstall | None:  # fmt: skip
    line = ZOOKEEPER_LINE if mode == "zk" else DEFAULT_LINE
    what = f"Kafka {line}" if mode == "zk" else "the newest Apache Kafka 4"
    if found is not None:
        why = f"{found} runs KRaft only; ZooKeeper mode (--mode zk) needs Kafka 3.x, and 3.9 is the last of those."
    else:
        why = f"No Kafka installation was found (KAFKA_HOME, PATH, /opt/kafka*, ~/kafka*, {_home(installs_root())})."
    yes = bool(getattr(args, "yes", False))
    if not yes and not interactive:
        if demo_instead:
            err(f"{why.rstrip('.')}: running the built-in demo; `kafkatop install` downloads Kafka")
            return None
        hint = f"`kafkatop install {line}`" if mode == "zk" else "`kafkatop install`"
        raise (ModeUnsupported if found else KafkatopError)(
            f"{why} {hint} downloads it (or add --yes to download and go on); --kafka-home DIR uses one you have"
        )
    print(why)
    try:
        java = check_java(Release(PINNED[line]).java_needed, what)
    except JavaMissing as e:
        print(f"  {e}")
        if demo_instead and not yes and _ask("  [d] the built-in demo meanwhile, [q] quit: ", "dq") == "d":
            return None
        raise
    site = sites_for(getattr(args, "mirror", None))[0].name
    print(
        f"kafkatop can download {what} from {site}, check it against the SHA-512 published beside it and unpack "
        f"it into {_home(installs_root())} ({java} is there to run it)."
    )
    if not yes:
        choices = "ydq" if demo_instead else "yq"
        options = "[Y] download it and start the lab" + (", [d] the built-in demo instead" if demo_instead else "")
        answer = _ask(f"{options}, [q] quit: ", choices)
        if answer == "d":
            return None
        if answer == "q":
            raise Declined("nothing downloaded")
    done = run_install(args, None, line)
    return done.install
