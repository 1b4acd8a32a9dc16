"""Finding a Kafka installation on this machine and describing it: layout, version, scripts, stock configs."""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Literal

from kafkatop.backends.model.errors import BadInput, KafkatopError

LabMode = Literal["zk", "kraft"]
LAB_MODES: tuple[LabMode, ...] = ("zk", "kraft")

# The places people unpack Kafka, in the order they are tried; globs catch versioned folders (kafka_2.13-4.1.0).
USUAL_PLACES: tuple[str, ...] = (
    "/opt/kafka",
    "/opt/kafka_*",
    "/usr/local/kafka",
    "/usr/local/kafka_*",
    "~/kafka",
    "~/kafka_*",
    "/opt/confluent*",
    "~/confluent*",
    "/opt/homebrew/opt/kafka/libexec",
    "/usr/local/opt/kafka/libexec",
)

_START = "kafka-server-start"
_JAR_DIRS = ("libs", "share/java/kafka")  # Apache, Confluent Platform
# Build artefacts shipped beside the real jar in some distributions; their names carry no different version.
_NOT_RUNTIME_JARS = ("-sources", "-javadoc", "-scaladoc", "-test", "-test-sources", "-tests")
_BROKER_JAR = re.compile(r"kafka_\d+(?:\.\d+)*-(\d.*)\.jar")
_CLIENTS_JAR = re.compile(r"kafka-clients-(\d.*)\.jar")
_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")
_CONFLUENT_SUFFIX = re.compile(r"-(?:ccs|ce)\b")


class KafkaInstallError(KafkatopError):
    """A Kafka installation is missing, incomplete, or cannot run what was asked of it."""


class KafkaHomeInvalid(KafkaInstallError, BadInput):
    """--kafka-home (or KAFKA_HOME) names a folder that is not a Kafka installation: the input is wrong (exit 2)."""


class ModeUnsupported(KafkaInstallError, BadInput):
    """The installation cannot run the lab mode asked for (--mode zk on Kafka 4): the input is wrong (exit 2)."""


class KafkaNotFound(KafkaInstallError):
    """No Kafka installation anywhere kafkatop looked; `looked` lists each place with why it was passed over."""

    def __init__(self, looked: Sequence[str]) -> None:
        self.looked: tuple[str, ...] = tuple(looked)
        places = "; ".join(self.looked) if self.looked else "nowhere"
        super().__init__(
            f"no Kafka installation found; looked in: {places}. `kafkatop install` downloads Apache Kafka; or point "
            "kafkatop at an installation with --kafka-home DIR or KAFKA_HOME=DIR."
        )


class Layout(StrEnum):
    APACHE = "apache"  # kafka_2.13-X.tgz: bin/*.sh, config/, libs/
    CONFLUENT = "confluent"  # Confluent Platform: bin/* without .sh, etc/kafka/, share/java/kafka/


@dataclass(frozen=True, slots=True, order=True)
class KafkaVersion:
    """The Apache Kafka version of an installation; for Confluent Platform, the AK version it ships."""

    major: int
    minor: int
    patch: int
    text: str  # as found in the jar name: "3.9.0", "0.10.2.0-cp1", "7.5.0-ccs"

    @classmethod
    def parse(cls, text: str) -> KafkaVersion:
        """Parse a jar-name version; Confluent Platform versions (7.5.0-ccs) become the AK version they ship."""
        m = _VERSION.match(text)
        if m is None:
            raise KafkaInstallError(f"cannot read a Kafka version from {text!r}: expected digits like 3.9.0")
        major, minor, patch = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
        if _is_confluent_numbering(text, major):
            major, minor = _confluent_to_apache(major, minor)
        return cls(major, minor, patch, text)

    @property
    def confluent(self) -> str | None:
        """The Confluent Platform version this was mapped from ("7.5.0-ccs"), or None for an AK version."""
        m = _VERSION.match(self.text)
        if m is not None and _is_confluent_numbering(self.text, int(m.group(1))):
            return self.text
        return None

    def at_least(self, major: int, minor: int = 0, patch: int = 0) -> bool:
        return (self.major, self.minor, self.patch) >= (major, minor, patch)

    def __str__(self) -> str:
        if self.confluent is not None:
            return f"{self.major}.{self.minor}.{self.patch} (Confluent {self.text})"
        # Keep old four-part versions whole (0.10.2.0), dropping only the distributor's suffix (-cp1).
        m = re.match(r"\d+(?:\.\d+)*", self.text)
        return m.group(0) if m else f"{self.major}.{self.minor}.{self.patch}"


def _is_confluent_numbering(text: str, major: int) -> bool:
    # CP 3.x/4.x jars carry the AK version with -cpN; from CP 5.0 they carry CP's own number with -ccs/-ce.
    return major >= 5 and _CONFLUENT_SUFFIX.search(text) is not None


def _confluent_to_apache(major: int, minor: int) -> tuple[int, int]:
    """Confluent Platform major.minor -> the Apache Kafka major.minor it is built on."""
    if major == 5:
        return 2, minor  # CP 5.0–5.5 -> AK 2.0–2.5
    if major == 6:
        return 2, 6 + minor  # CP 6.0–6.2 -> AK 2.6–2.8
    return major - 4, minor  # CP 7.m -> AK 3.m, CP 8.m -> AK 4.m


@dataclass(frozen=True, slots=True)
class KafkaInstall:
    """One Kafka installation: where its scripts and stock configs are, and which lab modes it can run."""

    home: Path
    layout: Layout
    version: KafkaVersion
    bin_dir: Path
    config_dir: Path
    script_suffix: str

    def __str__(self) -> str:
        return f"Kafka {self.version} at {self.home}"

    def script(self, name: str) -> Path:
        """`script("kafka-server-start")` -> bin/kafka-server-start.sh (Apache) or bin/kafka-server-start."""
        base = name.removesuffix(".sh")
        path = self.bin_dir / f"{base}{self.script_suffix}"
        if not path.is_file():
            raise KafkaInstallError(
                f"{self} has no {path}: the installation is incomplete; reinstall or unpack it again"
            )
        if not os.access(path, os.X_OK):
            raise KafkaInstallError(f"{path} is not executable; run chmod +x {self.bin_dir}/*")
        return path

    def jars(self, pattern: str) -> list[Path]:
        """The installation's jars matching a glob (`connect-file-*.jar`), sorted, from its libs folder."""
        return sorted(jar for sub in _JAR_DIRS if (self.home / sub).is_dir() for jar in (self.home / sub).glob(pattern))

    @property
    def supported_modes(self) -> tuple[LabMode, ...]:
        """The lab modes this version runs, best (the default) first."""
        if self.version.at_least(4):
            return ("kraft",)  # ZooKeeper support was removed in 4.0
        if self.version.at_least(3, 3):
            return ("zk", "kraft")  # KRaft is production-ready from 3.3; the labs still use ZooKeeper on 3.x
        return ("zk",)

    @property
    def default_mode(self) -> LabMode:
        return self.supported_modes[0]

    def check_mode(self, mode: LabMode) -> None:
        """Raise KafkaInstallError saying what to do when this installation cannot run `mode`."""
        if mode not in LAB_MODES:
            raise ModeUnsupported(f"unknown lab mode {mode!r}; use --mode zk or --mode kraft")
        if mode in self.supported_modes:
            return
        if mode == "zk":
            raise ModeUnsupported(
                f"{self} runs KRaft only: ZooKeeper mode was removed in Kafka 4.0; use --mode kraft, "
                "or point --kafka-home at a Kafka 3.x (`kafkatop install 3.9` downloads the last of them)"
            )
        raise ModeUnsupported(
            f"{self} has no production KRaft (from 3.3); use --mode zk, or point --kafka-home at a Kafka 3.3 or newer"
        )

    def stock_config(self, mode: LabMode, role: str = "combined") -> Path:
        """The installation's own properties file for a node of `role` in a `mode` lab, to copy and adapt.

        Roles: zk mode has "broker" (or "combined", the same file) and "zookeeper"; KRaft mode has "combined",
        "broker" and "controller"; both have "connect" (a Kafka Connect worker: connect-distributed.properties).
        """
        self.check_mode(mode)
        if role == "connect":
            names, folder = {"connect": "connect-distributed.properties"}, self.config_dir
        elif mode == "zk":
            names = {
                "combined": "server.properties",
                "broker": "server.properties",
                "zookeeper": "zookeeper.properties",
            }
            folder = self.config_dir
        else:
            names = {
                "combined": "server.properties",
                "broker": "broker.properties",
                "controller": "controller.properties",
            }
            # 3.x keeps KRaft configs in config/kraft/ (config/server.properties there is the ZooKeeper one);
            # 4.x dropped the subfolder. Prefer the folder when present, so a Confluent layout is read as shipped.
            kraft = self.config_dir / "kraft"
            folder = kraft if kraft.is_dir() or not self.version.at_least(4) else self.config_dir
        if role not in names:
            raise KafkaInstallError(f"a {mode} lab has no {role!r} node; roles are {', '.join(sorted(set(names)))}")
        path = folder / names[role]
        if not path.is_file():
            raise KafkaInstallError(
                f"{self} has no stock {role} config {path}; the installation is incomplete (reinstall or unpack it "
                "again)"
            )
        return path


def _jar_version(folder: Path, pattern: re.Pattern[str]) -> KafkaVersion | None:
    versions: list[KafkaVersion] = []
    for jar in folder.glob("*.jar") if folder.is_dir() else ():
        m = pattern.fullmatch(jar.name)
        if m is None or m.group(1).endswith(_NOT_RUNTIME_JARS):
            continue
        versions.append(KafkaVersion.parse(m.group(1)))
    # One broker jar is normal; should there be several (a half-done upgrade), the newest is what bin/ runs first.
    return max(versions) if versions else None


def _version_or_reason(home: Path) -> KafkaVersion | str:
    for pattern in (_BROKER_JAR, _CLIENTS_JAR):
        for sub in _JAR_DIRS:
            found = _jar_version(home / sub, pattern)
            if found is not None:
                return found
    return "no kafka_*.jar in libs/ or share/java/kafka/"


def detect_version(home: Path) -> KafkaVersion:
    """The Kafka version of an installation, from its broker jar's name (kafka-clients-*.jar as a fallback)."""
    found = _version_or_reason(home)
    if isinstance(found, str):
        raise KafkaInstallError(f"cannot tell the Kafka version of {home}: {found}")
    return found


def _install_or_reason(given: Path) -> KafkaInstall | str:
    """Validate one folder as a Kafka installation; return why not as a short reason instead of raising."""
    if not given.exists():
        return "does not exist"
    if not given.is_dir():
        return "not a folder"
    home = given
    if home.name == "bin" and ((home / f"{_START}.sh").is_file() or (home / _START).is_file()):
        home = home.parent  # given the bin/ folder itself
    # A Homebrew keg (Cellar/kafka/X, opt/kafka) has wrapper scripts in bin/; the real install is its libexec/.
    if not (home / "libs").is_dir() and (home / "libexec" / "bin" / f"{_START}.sh").is_file():
        home = home / "libexec"
    bin_dir = home / "bin"
    if (bin_dir / f"{_START}.sh").is_file():
        layout, suffix, config_dir = Layout.APACHE, ".sh", home / "config"
    elif (bin_dir / _START).is_file():
        layout, suffix, config_dir = Layout.CONFLUENT, "", home / "etc" / "kafka"
    else:
        return f"no bin/{_START}.sh (Apache Kafka) or bin/{_START} (Confluent Platform)"
    start = bin_dir / f"{_START}{suffix}"
    if not os.access(start, os.X_OK):
        return f"{start.relative_to(home)} is not executable (chmod +x {bin_dir}/*)"
    version = _version_or_reason(home)
    if isinstance(version, str):
        return version
    return KafkaInstall(home, layout, version, bin_dir, config_dir, suffix)


def open_install(home: str | Path) -> KafkaInstall:
    """Open one folder as a Kafka installation (its home, its bin/, or a Homebrew keg); errors say what is missing."""
    path = Path(home).expanduser()
    return _opened(path, str(path), "point it at the folder holding bin/ and libs/ (Apache Kafka) or bin/ and "
                   "share/java/kafka/ (Confluent Platform)")  # fmt: skip


def _opened(path: Path, named: str, fix: str) -> KafkaInstall:
    found = _install_or_reason(path)
    if isinstance(found, str):
        raise KafkaHomeInvalid(f"{named} is not a Kafka installation: {found}; {fix}")
    return found


def xdg_home(environ: Mapping[str, str], variable: str, fallback: str) -> Path:
    """An XDG base folder: $XDG_DATA_HOME and the like, else its default under HOME (".local/share")."""
    return Path(environ.get(variable) or Path(environ.get("HOME", str(Path.home()))) / fallback)


def installs_root(environ: Mapping[str, str] = os.environ) -> Path:
    """$XDG_DATA_HOME/kafkatop/kafka (~/.local/share/kafkatop/kafka): where `kafkatop install` unpacks releases."""
    return xdg_home(environ, "XDG_DATA_HOME", ".local/share") / "kafkatop" / "kafka"


def _expand(pattern: str, environ: Mapping[str, str]) -> list[Path]:
    if pattern.startswith("~"):
        home = environ.get("HOME")
        pattern = home + pattern[1:] if home and pattern[1:2] in ("", "/") else os.path.expanduser(pattern)
    if glob.has_magic(pattern):
        # Only folders: a kafka_2.13-4.1.0.tgz beside the unpacked folder is not a candidate worth reporting.
        return [Path(p) for p in sorted(glob.glob(pattern)) if Path(p).is_dir()]
    return [Path(pattern)]


def find_kafka(
    explicit: str | Path | None = None,
    *,
    environ: Mapping[str, str] = os.environ,
    usual_places: Sequence[str] | None = None,
    mode: LabMode | None = None,
) -> KafkaInstall:
    """Find the Kafka installation to use: --kafka-home, then KAFKA_HOME, then PATH, then the newest in kafkatop's own
    installs and the usual places — the newest that runs `mode` when one does (--mode zk takes a 3.x over a 4.x).

    An explicit --kafka-home or a set KAFKA_HOME that is not a valid installation is an error at once: silently
    running some other Kafka than the one asked for would be worse than stopping.
    """
    if explicit is not None and str(explicit).strip():
        path = Path(explicit).expanduser()
        return _opened(path, f"--kafka-home {path}", "point --kafka-home at the folder holding bin/ (an Apache Kafka "
                       "or Confluent Platform folder)")  # fmt: skip

    looked: list[str] = []
    env_home = environ.get("KAFKA_HOME", "").strip()
    if env_home:
        fix = "set KAFKA_HOME to an Apache Kafka or Confluent Platform folder, unset it to let kafkatop search, or "
        return _opened(Path(env_home).expanduser(), f"KAFKA_HOME={env_home}", fix + "pass --kafka-home DIR")
    looked.append("KAFKA_HOME (not set)")

    on_path = False
    for entry in environ.get("PATH", "").split(os.pathsep):
        if not entry:
            continue
        for name in (f"{_START}.sh", _START):
            script = Path(entry) / name
            if not (script.is_file() and os.access(script, os.X_OK)):
                continue
            on_path = True
            # Symlinks (/usr/local/bin/kafka-server-start.sh -> /opt/kafka/bin/...) lead to the real home.
            home = script.resolve().parent.parent
            found = _install_or_reason(home)
            if isinstance(found, KafkaInstall):
                return found
            looked.append(f"PATH {script} -> {home} ({found})")
    if not on_path:
        looked.append(f"PATH (no {_START}.sh or {_START})")

    candidates: list[KafkaInstall] = []
    seen: set[Path] = set()
    places = (str(installs_root(environ) / "kafka_*"), *USUAL_PLACES) if usual_places is None else usual_places
    for pattern in places:
        paths = _expand(pattern, environ)
        if not paths:
            looked.append(f"{pattern} (no folder matches)")
        for path in paths:
            found = _install_or_reason(path)
            if isinstance(found, str):
                looked.append(f"{path} ({found})")
                continue
            real = found.home.resolve()
            if real not in seen:  # /opt/kafka is often a symlink to /opt/kafka_2.13-X
                seen.add(real)
                candidates.append(found)
    if candidates:
        runs_mode = [c for c in candidates if mode in c.supported_modes]
        # Newest wins; among equals, the first in the usual-places order.
        return max(runs_mode or candidates, key=lambda c: (c.version.major, c.version.minor, c.version.patch))
    raise KafkaNotFound(looked)
