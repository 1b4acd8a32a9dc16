"""Which Java would run Kafka here, and whether it is new enough: checked before a download, so nobody waits for
130 MB only to learn that the brokers cannot start."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from kafkatop.backends.lab.kafka_homes import KafkaInstallError

# `java -version` prints e.g. openjdk version "17.0.13" 2024-10-15, or java version "1.8.0_392" (Java 8).
_VERSION = re.compile(r'version "(\d+)(?:\.(\d+))?[^"]*"')
INSTALL_HINT = "sudo apt install openjdk-17-jre-headless (or set JAVA_HOME to a JDK 17+)"


class JavaMissing(KafkaInstallError):
    """No Java, or one too old for the Kafka asked for."""


@dataclass(frozen=True, slots=True)
class Java:
    path: str
    major: int

    def __str__(self) -> str:
        return f"Java {self.major} at {self.path}"


def locate_java(environ: dict[str, str] | None = None) -> str | None:
    """The java Kafka's scripts would run: $JAVA_HOME/bin/java, else the first on PATH."""
    env = os.environ if environ is None else environ
    java_home = env.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").is_file():
        return str(Path(java_home) / "bin" / "java")
    return shutil.which("java", path=env.get("PATH"))


def java_major(java: str) -> int:
    """The major version `java -version` reports (1.8 reads as 8)."""
    try:
        done = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise JavaMissing(f"{java} -version did not run: {e}; {INSTALL_HINT}") from None
    m = _VERSION.search(done.stderr + done.stdout)
    if m is None:
        raise JavaMissing(f"cannot read a version from `{java} -version`; {INSTALL_HINT}")
    major = int(m.group(1))
    return int(m.group(2) or 0) if major == 1 else major


def check_java(needed: int, what: str, environ: dict[str, str] | None = None) -> Java:
    """The Java to use, or JavaMissing saying in one line what to install."""
    java = locate_java(environ)
    if java is None:
        raise JavaMissing(f"no Java found (JAVA_HOME, PATH): {what} needs Java {needed} or newer; {INSTALL_HINT}")
    major = java_major(java)
    if major < needed:
        raise JavaMissing(f"{java} is Java {major}: {what} needs Java {needed} or newer; {INSTALL_HINT}")
    return Java(java, major)
