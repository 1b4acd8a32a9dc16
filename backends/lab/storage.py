"""Formatting a KRaft lab node's storage (`kafka-storage.sh format`), once per node, all nodes at once; on a SASL lab
with the SCRAM users the quorum starts with, whose passwords never go on a command line."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from kafkatop.backends.lab.kafka_homes import KafkaInstall
from kafkatop.backends.lab.security import LabSecurity, java_argument_file, write_private
from kafkatop.backends.lab.spec import NodeSpec
from kafkatop.backends.lab.state import SupervisorError

# The main class bin/kafka-storage.sh runs (Kafka 3.x and 4.x alike), named when kafkatop runs it through
# kafka-run-class.sh with an argument file.
STORAGE_TOOL = "kafka.tools.StorageTool"


FORMAT_TIMEOUT_S = 120.0


def format_command(
    install: KafkaInstall,
    cluster_id: str,
    config: Path,
    security: LabSecurity,
    argfile: Path,
    features: Mapping[str, int] | None = None,
) -> tuple[list[str], str | None]:
    """`kafka-storage.sh format` of one node, and the text of the 0600 argument file its secrets go in (None when it
    has none). The SCRAM users' passwords reach the JVM through the java launcher's @file, never a command line
    (any local user reads /proc/PID/cmdline): kafka-run-class.sh runs `java … @FILE`, and FILE names StorageTool and
    all its arguments. `features`: levels the cluster starts with (`--feature NAME=LEVEL`, Kafka 3.8+), over the
    defaults of its release."""
    arguments = ["format", "-t", cluster_id, "-c", str(config)]
    for name, level in sorted((features or {}).items()):
        arguments += ["--feature", f"{name}={level}"]
    secrets = security.format_arguments()
    if not secrets:
        return [str(install.script("kafka-storage")), *arguments], None
    return [str(install.script("kafka-run-class")), f"@{argfile}"], java_argument_file(
        [STORAGE_TOOL, *arguments, *secrets]
    )


def format_storage(
    install: KafkaInstall,
    cluster_id: str,
    nodes: Sequence[tuple[NodeSpec, Path, Mapping[str, str]]],
    security: LabSecurity,
    features: Mapping[str, int] | None = None,
) -> None:
    """Format each (node, its properties file, its environment), one JVM per node, in parallel, every one with the
    same `features`; SupervisorError with each failure's last lines (the passwords redacted)."""
    procs: list[tuple[NodeSpec, subprocess.Popen[bytes]]] = []
    argfiles: list[Path] = []
    try:
        for node, config, env in nodes:
            argfile = security.dir / f".format-{node.name}.args"
            cmd, argfile_text = format_command(install, cluster_id, config, security, argfile, features)
            if argfile_text is not None:
                argfiles.append(argfile)
                write_private(argfile, argfile_text)
            proc = subprocess.Popen(
                cmd,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=dict(env),
                start_new_session=True,
            )
            procs.append((node, proc))
        failures = []
        for node, proc in procs:
            try:
                out, _ = proc.communicate(timeout=FORMAT_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, _ = proc.communicate()
            if proc.returncode != 0:
                # Its arguments hold the SCRAM passwords: an error that quotes them must not show them.
                text = security.redact(out.decode("utf-8", errors="replace")).strip().splitlines()[-10:]
                failures.append(f"{node.name}: kafka-storage format exited with {proc.returncode}:\n" + "\n".join(text))
        if failures:
            raise SupervisorError("formatting KRaft storage failed\n" + "\n".join(failures))
    finally:
        for path in argfiles:
            path.unlink(missing_ok=True)
