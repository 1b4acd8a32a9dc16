"""A real ZooKeeper server, started from the jars that ship inside pyspark's wheel (or any given classpath).

Binds 127.0.0.1 only. Used by the tests and by lab clusters in ZooKeeper mode.
"""

from __future__ import annotations

import importlib.util
import os
import random
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType

from kafkatop.backends.model.errors import KafkatopError

MAIN_CLASS = "org.apache.zookeeper.server.quorum.QuorumPeerMain"


class ZooKeeperStartError(KafkatopError):
    pass


def find_java() -> str:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").is_file():
        return str(Path(java_home) / "bin" / "java")
    java = shutil.which("java")
    if java is None:
        raise ZooKeeperStartError("java not found: install Java 17 or set JAVA_HOME")
    return java


def pyspark_zookeeper_classpath() -> str:
    """`<site-packages>/pyspark/jars/*` when it holds a ZooKeeper jar; pyspark is located, not imported."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        raise ZooKeeperStartError("pyspark is not installed, and its jars are where ZooKeeper comes from here")
    jars = Path(next(iter(spec.submodule_search_locations))) / "jars"
    if not any(jars.glob("zookeeper-3*.jar")):
        raise ZooKeeperStartError(f"no zookeeper-3.*.jar in {jars}")
    return str(jars / "*")


def four_letter_word(host: str, port: int, word: str, timeout_s: float = 1.0) -> str:
    """ZooKeeper's four-letter admin commands (`ruok`, `srvr`, `mntr`, `cons`) over a plain socket."""
    with socket.create_connection((host, port), timeout=timeout_s) as s:
        s.sendall(word.encode("ascii"))
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", errors="replace")


def free_port(host: str = "127.0.0.1") -> int:
    """A free port below Linux's ephemeral range (32768+). A port from that range can be handed, while its server is
    down, to a reconnecting client as its own source port: the client connects to itself and the restarted server
    cannot bind it again."""
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(20_000, 32_000)
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind((host, port))
            except OSError:
                continue
            return port
    with socket.socket() as s:  # that range is full: let the kernel choose
        s.bind((host, 0))
        return int(s.getsockname()[1])


class ZooKeeperServer:
    """One standalone ZooKeeper process. `start()` returns once it serves requests; `stop()` always reaps it."""

    def __init__(
        self,
        data_dir: str | Path,
        port: int | None = None,
        *,
        host: str = "127.0.0.1",
        classpath: str | None = None,
        heap: str = "-Xmx128m",
    ) -> None:
        self.data_dir = Path(data_dir)
        self.host = host
        self.port = port if port is not None else free_port(host)
        self.classpath = classpath
        self.heap = heap
        self.log_path = self.data_dir / "zookeeper.log"
        self.config_path = self.data_dir / "zoo.cfg"
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def _write_config(self) -> None:
        (self.data_dir / "data").mkdir(parents=True, exist_ok=True)
        self.config_path.write_text(
            "\n".join(
                [
                    "tickTime=2000",
                    f"dataDir={self.data_dir / 'data'}",
                    f"clientPort={self.port}",
                    f"clientPortAddress={self.host}",
                    "maxClientCnxns=0",
                    "admin.enableServer=false",
                    "4lw.commands.whitelist=ruok,srvr,stat,mntr,cons,conf,envi,wchs",
                    "",
                ]
            )
        )
        (self.data_dir / "log4j2.properties").write_text(
            "\n".join(
                [
                    "status = error",
                    "appender.console.type = Console",
                    "appender.console.name = console",
                    "appender.console.layout.type = PatternLayout",
                    "appender.console.layout.pattern = [%d] %p %m (%c)%n",
                    "rootLogger.level = info",
                    "rootLogger.appenderRef.console.ref = console",
                    "",
                ]
            )
        )

    def start(self, timeout_s: float = 30.0) -> None:
        if self._proc is not None and self._proc.poll() is None:
            return
        classpath = self.classpath or pyspark_zookeeper_classpath()
        self._write_config()
        cmd = [
            find_java(),
            self.heap,
            f"-Dlog4j2.configurationFile={self.data_dir / 'log4j2.properties'}",
            "-Dzookeeper.admin.enableServer=false",
            "-cp",
            classpath,
            MAIN_CLASS,
            str(self.config_path),
        ]
        with open(self.log_path, "ab") as log:
            # Own session: a Ctrl-C in the terminal reaches kafkatop, which then stops this server itself.
            self._proc = subprocess.Popen(
                cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
            )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise ZooKeeperStartError(
                    f"ZooKeeper exited with code {self._proc.returncode} during start; last log lines:\n"
                    + self.log_tail()
                )
            try:
                # `ruok` answers imok before the server serves requests; `srvr` reports a Mode only once it does.
                if "Mode:" in four_letter_word(self.host, self.port, "srvr", 0.5):
                    return
            except OSError:
                pass
            time.sleep(0.05)
        self.stop()
        raise ZooKeeperStartError(
            f"ZooKeeper did not answer on {self.address} within {timeout_s:g} s; last log lines:\n" + self.log_tail()
        )

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self, timeout_s: float = 10.0) -> None:
        """SIGTERM, then SIGKILL after `timeout_s`; always waits for the process, so no zombie is left."""
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._proc = None

    def kill(self) -> None:
        """SIGKILL, as `kill -9`: no clean shutdown."""
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        self._proc = None

    def __enter__(self) -> ZooKeeperServer:
        self.start()
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
