"""Before and around a SparkSession: what makes one impossible, said before Spark says it with a Java stack trace;
the source as a zip for a cluster's executors; and whatever Spark raises, in one line for the user."""

from __future__ import annotations

import os
import re
import shutil
import socket
import zipfile
from pathlib import Path

from kafkatop.backends.model import errors as errors_module
from kafkatop.backends.model import lifetime as lifetime_module
from kafkatop.backends.model import refusals as refusals_module
from kafkatop.backends.model.errors import KafkatopError


class ServiceError(KafkatopError):
    """Worded for the user: the session could not start, or a request failed."""


# ---------------------------------------------------------------------------------------------------------------------
# Preflight: what makes a session impossible, said before Spark says it with a Java stack trace


def find_java() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").is_file():
        return str(Path(home) / "bin" / "java")
    return shutil.which("java")


def check_master(master: str, timeout_s: float = 3.0) -> None:
    """`local`, `local[N]`, `local[*]`, `local[N,F]` or `spark://host:port[,host:port]` whose master answers."""
    if re.fullmatch(r"local(\[(\*|\d+)(,\d+)?\])?", master):
        return
    m = re.fullmatch(r"spark://(.+)", master)
    if not m:
        raise ServiceError(
            f"--master {master!r} is not a Spark master: use local[*] (this machine) or spark://HOST:7077 (a cluster)"
        )
    reasons = []
    for hostport in m.group(1).split(","):
        host, _, port = hostport.rpartition(":")
        if not host or not port.isdigit():
            raise ServiceError(f"--master {master!r}: {hostport!r} is not HOST:PORT")
        try:
            with socket.create_connection((host, int(port)), timeout=timeout_s):
                return
        except OSError as e:
            reasons.append(f"{hostport}: {e.strerror or e}")
    raise ServiceError(
        f"Spark master {master} is not reachable ({'; '.join(reasons)}). Is it running? "
        "Start one with $SPARK_HOME/sbin/start-master.sh, or count on this machine with --master local[*]"
    )


def preflight(master: str) -> None:
    if find_java() is None:
        raise ServiceError(
            "Java not found: Spark needs a Java runtime (17 or 21). "
            "Install a JDK and put java on PATH, or set JAVA_HOME"
        )
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ServiceError(
            "pyarrow is not installed: Spark's Python data sources need it. Install it with `pip install pyarrow`"
        ) from None
    check_master(master)


def is_local(master: str) -> bool:
    return master.startswith("local")


def source_archive(directory: Path) -> Path:
    """kafkatop's data source as a zip for the executors of a Spark cluster (they need confluent-kafka and
    pyarrow installed, not kafkatop)."""
    here = Path(__file__).resolve().parent
    path = directory / "kafkatop_spark_source.zip"
    errors = Path(errors_module.__file__ or "")
    with zipfile.ZipFile(path, "w") as z:
        # The source's three modules and the three modules of kafkatop they import: the errors' base class, the
        # handles' lifetime and librdkafka's words for a refused connection (standard library only).
        # Every package level gets an __init__.py: zipimport has no namespace packages (the installed kafkatop is one).
        for package in ("kafkatop", "kafkatop/spark", "kafkatop/backends", "kafkatop/backends/model"):
            z.writestr(f"{package}/__init__.py", "")
        for module in ("source.py", "source_plan.py", "source_read.py"):
            z.write(here / module, f"kafkatop/spark/{module}")
        z.write(errors, "kafkatop/backends/model/errors.py")
        z.write(Path(lifetime_module.__file__ or ""), "kafkatop/backends/model/lifetime.py")
        z.write(Path(refusals_module.__file__ or ""), "kafkatop/backends/model/refusals.py")
    return path


# ---------------------------------------------------------------------------------------------------------------------
# Errors coming back from Spark


def explain(exc: BaseException) -> str:
    """One line for the user from whatever Spark raised: our own reason when a task or the planner raised it."""
    text = str(exc)
    ours = re.findall(r"KafkaSourceError: (.+)", text)
    if ours:
        return str(ours[-1]).strip()
    if "SparkContext was shut down" in text or "SparkContext has been shutdown" in text:
        return "the Spark session ended (its JVM stopped); the service restarts it on the next request"
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("Traceback", "File ", "at ", "JVM stacktrace")):
            return re.sub(r"\s+SQLSTATE: \w+$", "", line)[:400]
    return type(exc).__name__
