"""Benchmark: time from `kafkatop` to its first frame (issue 45: ≤ 0.5 s; `--help` ≤ 0.3 s and `describe` ≤ 0.5 s,
whole process).

Prints figures; asserts nothing about timings. Run from the repository root:

    .venv/bin/python bench/first_frame.py [--runs 5] [--kafkatop .venv/bin/kafkatop]

Each run spawns the real CLI, `kafkatop --demo` (the built-in demo even where a Kafka install exists), in a
pseudo-terminal of 120×36 (TIOCSWINSZ set on it before the spawn; TERM=xterm-256color; the pty is the child's
stdin, stdout, stderr and controlling terminal), reads everything it writes, and times from the spawn to:
  (a) the first bytes written to the terminal;
  (b) the first frame with the app's content: the tab label "Partitions" has been written;
  (c) the data on screen: "purchases" (a demo topic, in the partition table) has been written.
Then it sends "q" and times until the process has exited (killed, by its pid, if not within 15 s), and checks that
it exited cleanly (exit code 0, no traceback written).

For a floor, the same for `kafkatop --help` (Python start-up and the CLI's imports): first bytes, and exit. And
`kafkatop describe` against librdkafka's mock cluster (started here, in this process: 3 brokers, 10 topics), the
whole process, as a user's shell would wait for it.

Bytecode cached, as an installed kafkatop runs: PYTHONDONTWRITEBYTECODE is dropped from the children's environment
and one warm-up import writes kafkatop's own .pyc files (an editable install has none until then). Then
`-X importtime` of the live view's imports, once: the modules that take longest by themselves, and the totals per
package — where the time before the first frame goes.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import platform
import re
import resource
import select
import statistics
import struct
import subprocess
import sys
import termios
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.* also when run as a file
from bench.common.process import wait_or_kill
from bench.common.stats import stats_line, verdict

TARGET_S = 0.5  # issue 45: the app's frame before anything slow
HELP_TARGET_S, DESCRIBE_TARGET_S = 0.3, 0.5
APP_IMPORTS = "import kafkatop.tui.cli.main, kafkatop.tui.cli.compose, kafkatop.tui.live.app"
COLS, ROWS = 120, 36
CONTENT_MARK = b"Partitions"  # a tab label: the app's own first frame
DATA_MARK = b"purchases"  # a demo topic: the first poll's data, drawn
DATA_TIMEOUT_S = 30.0
EXIT_TIMEOUT_S = 15.0
DEFAULT_KAFKATOP = Path(__file__).resolve().parent.parent / ".venv" / "bin" / "kafkatop"


@dataclass
class Run:
    first_bytes_s: float | None = None
    content_s: float | None = None
    data_s: float | None = None
    quit_to_exit_s: float | None = None
    exit_s: float | None = None  # spawn to exit (--help)
    exit_code: int | None = None
    killed: bool = False
    traceback: bool = False
    output_bytes: int = 0
    child_cpu_s: float = 0.0
    notes: list[str] = field(default_factory=list)


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def child_env() -> dict[str, str]:
    """This environment, with bytecode written and read (PYTHONDONTWRITEBYTECODE dropped), and no Textual or terminal
    size override."""
    drop = ("COLUMNS", "LINES", "PYTHONDONTWRITEBYTECODE")
    return {k: v for k, v in os.environ.items() if not k.startswith("TEXTUAL") and k not in drop}


def warm_up(python: str) -> None:
    """kafkatop's .pyc files written once, as an install's are."""
    subprocess.run([python, "-c", APP_IMPORTS], env=child_env(), check=True, timeout=120)


def import_times(python: str) -> tuple[list[tuple[float, str]], dict[str, float], float]:
    """`-X importtime` of the live view's imports: (self ms, module) longest first, self ms per package, and the
    total (ms) the interpreter reports for them."""
    done = subprocess.run([python, "-X", "importtime", "-c", APP_IMPORTS], env=child_env(), capture_output=True,
                          text=True, check=True, timeout=120)  # fmt: skip
    rows: list[tuple[float, str]] = []
    total = 0.0
    for text in done.stderr.splitlines():
        found = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)", text)
        if found is None:
            continue
        rows.append((int(found.group(1)) / 1000, found.group(4)))
        if not found.group(3):  # a top-level import: its cumulative time counts once
            total += int(found.group(2)) / 1000
    packages: dict[str, float] = {}
    for own, module in rows:
        parts = module.split(".")
        key = ".".join(parts[:3]) if parts[0] == "kafkatop" else parts[0]
        packages[key] = packages.get(key, 0.0) + own
    return sorted(rows, reverse=True), packages, total


def run_describe(kafkatop: str, bootstrap: str) -> Run:
    """`kafkatop describe` of the mock cluster, the whole process."""
    run = Run()
    t0 = time.perf_counter()
    done = subprocess.run([kafkatop, "describe", "--bootstrap-server", bootstrap], env=child_env(),
                          capture_output=True, timeout=60, check=False)  # fmt: skip
    run.exit_s = time.perf_counter() - t0
    run.exit_code = done.returncode
    if done.returncode != 0 or b"Topic: t0\t" not in done.stdout:
        run.notes.append(f"exit {done.returncode}: {done.stderr.decode(errors='replace')[-200:]!r}")
    return run


def set_controlling_tty() -> None:
    # In the child, after setsid (start_new_session): the pty on fd 0 becomes its controlling terminal, as a
    # terminal emulator's shell would have it.
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def spawn(argv: list[str]) -> tuple[subprocess.Popen[bytes], int, float]:
    """Start `argv` on a new pty of COLS×ROWS; returns the process, the pty's master fd and the spawn time."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    env = child_env()
    env["TERM"] = "xterm-256color"
    env.pop("NO_COLOR", None)
    t0 = time.perf_counter()
    try:
        proc = subprocess.Popen(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,
            preexec_fn=set_controlling_tty,  # safe here: this bench runs no threads
            close_fds=True,
        )
    finally:
        os.close(slave)
    return proc, master, t0


def read_some(master: int, timeout_s: float) -> bytes | None:
    """What the child wrote within `timeout_s` (b"" if nothing); None once the child has closed the pty."""
    ready, _, _ = select.select([master], [], [], max(0.0, timeout_s))
    if not ready:
        return b""
    try:
        data = os.read(master, 1 << 16)
    except OSError:  # EIO: every slave fd is closed (Linux)
        return None
    return data or None


def stop(proc: subprocess.Popen[bytes], master: int, run: Run, quit_at: float | None) -> bytes:
    """Wait for the process to exit while draining its output (a full pty would block its writes); kill it by
    its pid if it is still there after EXIT_TIMEOUT_S."""
    out = bytearray()
    deadline = time.perf_counter() + EXIT_TIMEOUT_S
    while proc.poll() is None and time.perf_counter() < deadline:
        data = read_some(master, 0.02)
        if data:
            out += data
    if proc.poll() is None:
        run.killed = True
        run.notes.append(f"still running {EXIT_TIMEOUT_S:.0f} s after q: killed (pid {proc.pid})")
        proc.kill()
    run.exit_code = proc.wait()
    if quit_at is not None and not run.killed:
        run.quit_to_exit_s = time.perf_counter() - quit_at
    while (data := read_some(master, 0.05)) is not None and data:  # whatever is left in the pty
        out += data
    os.close(master)
    return bytes(out)


def run_app(kafkatop: str) -> Run:
    run = Run()
    cpu0 = child_cpu()
    proc, master, t0 = spawn([kafkatop, "--demo"])
    out = bytearray()
    quit_at = None
    try:
        deadline = t0 + DATA_TIMEOUT_S
        while run.data_s is None:
            left = deadline - time.perf_counter()
            if left <= 0:
                run.notes.append(f"no {DATA_MARK.decode()!r} within {DATA_TIMEOUT_S:.0f} s")
                break
            data = read_some(master, min(left, 0.5))
            now = time.perf_counter()
            if data is None:
                run.notes.append("the process closed the terminal before the data was drawn")
                break
            if not data:
                continue
            tail = len(out) - max(len(CONTENT_MARK), len(DATA_MARK))
            out += data
            if run.first_bytes_s is None:
                run.first_bytes_s = now - t0
            if run.content_s is None and CONTENT_MARK in out[max(0, tail) :]:
                run.content_s = now - t0
            if run.content_s is not None and DATA_MARK in out[max(0, tail) :]:
                run.data_s = now - t0
        if proc.poll() is None:
            os.write(master, b"q")
            quit_at = time.perf_counter()
    finally:
        rest = stop(proc, master, run, quit_at)
    out += rest
    run.output_bytes = len(out)
    run.traceback = b"Traceback" in out
    run.child_cpu_s = child_cpu() - cpu0
    if run.exit_code not in (0, None) and not run.killed:
        text = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", bytes(rest)).decode(errors="replace").strip()
        run.notes.append(f"exit code {run.exit_code}: {text[-300:]!r}")
    return run


def run_help(kafkatop: str) -> Run:
    run = Run()
    cpu0 = child_cpu()
    proc, master, t0 = spawn([kafkatop, "--help"])
    out = bytearray()
    while True:
        data = read_some(master, EXIT_TIMEOUT_S)
        if not data:
            break
        if run.first_bytes_s is None:
            run.first_bytes_s = time.perf_counter() - t0
        out += data
    run.killed = wait_or_kill(proc, EXIT_TIMEOUT_S)
    run.exit_code = proc.returncode
    run.exit_s = time.perf_counter() - t0
    os.close(master)
    run.output_bytes = len(out)
    run.child_cpu_s = child_cpu() - cpu0
    if b"usage: kafkatop" not in out:
        run.notes.append("no usage text")
    return run


# What `kafkatop --demo` does before Textual starts (tui/cli/main.py -> tui/cli/compose.py), step by step, in a fresh
# process of the same interpreter: prints one JSON line of seconds.
PHASES = r"""
import json, time
t0 = time.perf_counter()
import kafkatop.tui.cli.main
t1 = time.perf_counter()
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.records.consoles import Consoles
from kafkatop.tui.live.app import KafkatopApp
t2 = time.perf_counter()
from kafkatop.backends.demo.cluster import start_demo_cluster
from kafkatop.backends.demo.node_control import DemoControl
t3 = time.perf_counter()
demo = start_demo_cluster()
t4 = time.perf_counter()
control = DemoControl(demo)
admin = AdminSource(demo.connection, timeout_s=2.0, watch_groups=demo.groups)
consoles = Consoles(demo.connection)
t5 = time.perf_counter()
snap = admin.poll()
t6 = time.perf_counter()
control.close(); demo.close()
t7 = time.perf_counter()
print(json.dumps({"cli import": t1 - t0, "app imports (textual, confluent-kafka, tui)": t2 - t1,
                  "demo import": t3 - t2, "start_demo_cluster()": t4 - t3, "DemoControl + sources": t5 - t4,
                  "first AdminSource.poll() (in a worker, after mount)": t6 - t5, "closing the demo": t7 - t6}))
"""


def phases(python: str) -> dict[str, float]:
    t0 = time.perf_counter()
    out = subprocess.run(
        [python, "-c", PHASES], capture_output=True, text=True, timeout=60, check=True, env=child_env()
    ).stdout
    total = time.perf_counter() - t0
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    result["whole process (spawn to exit)"] = total
    return result


def line(label: str, values: list[float | None]) -> str:
    got = [v * 1000 for v in values if v is not None]
    missing = len(values) - len(got)
    text = stats_line(got) if got else "no value"
    return f"  {label:<52} {text}" + (f"   ({missing} runs without it)" if missing else "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--kafkatop", default=str(DEFAULT_KAFKATOP), help=f"the CLI (default {DEFAULT_KAFKATOP})")
    args = parser.parse_args()
    if not os.access(args.kafkatop, os.X_OK):
        print(f"no executable kafkatop at {args.kafkatop}", file=sys.stderr)
        return 2

    print("== kafkatop bench: from `kafkatop` to the first frame, in a pseudo-terminal ==")
    print(
        f"python {platform.python_version()}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; "
        f"{args.kafkatop} --demo on a {COLS}×{ROWS} pty (TERM=xterm-256color); {args.runs} runs, and as many of "
        "--help; runs alternate"
    )
    python = str(Path(args.kafkatop).resolve().parent / "python")
    warm_up(python)
    print("bytecode: cached (PYTHONDONTWRITEBYTECODE dropped for the children; one warm-up import first)")
    from kafkatop.backends.kafka.mock import MockCluster

    mock = MockCluster(3)
    for i in range(10):
        mock.create_topic(f"t{i}", 3, 1)
    apps: list[Run] = []
    helps: list[Run] = []
    describes: list[Run] = []
    for i in range(args.runs):
        helps.append(run_help(args.kafkatop))
        describes.append(run_describe(args.kafkatop, mock.bootstrap_servers))
        r = run_app(args.kafkatop)
        apps.append(r)

        def ms(v: float | None) -> str:
            return f"{v * 1000:6.0f} ms" if v is not None else "   -    "

        print(
            f"  run {i + 1}: first bytes {ms(r.first_bytes_s)} | 'Partitions' {ms(r.content_s)} | 'purchases' "
            f"{ms(r.data_s)} | q -> exit {ms(r.quit_to_exit_s)}, code {r.exit_code}"
            f"{', KILLED' if r.killed else ''}{', traceback in output' if r.traceback else ''} | "
            f"{r.output_bytes / 1024:.0f} KiB written, child CPU {r.child_cpu_s:.2f} s"
            f"{' | ' + '; '.join(r.notes) if r.notes else ''}",
            flush=True,
        )

    print()
    print(f"kafkatop --demo ({args.runs} runs), from the spawn:")
    print(line("(a) first bytes on the terminal", [r.first_bytes_s for r in apps]))
    print(line("(b) first frame ('Partitions')", [r.content_s for r in apps]))
    print(line("(c) data on screen ('purchases')", [r.data_s for r in apps]))
    print(line("'q' -> process exited", [r.quit_to_exit_s for r in apps]))
    print(f"  child CPU per run (user+sys): median {statistics.median(r.child_cpu_s for r in apps):.2f} s")
    print(f"kafkatop --help ({args.runs} runs), the floor: Python start-up and the CLI's imports:")
    print(line("first bytes", [r.first_bytes_s for r in helps]))
    print(line("process exited", [r.exit_s for r in helps]))
    bad = [h for h in helps if h.exit_code != 0 or h.notes]
    if bad:
        print(f"  {len(bad)} --help runs went wrong: {[(h.exit_code, h.notes) for h in bad]}")
    print(f"kafkatop describe --bootstrap-server MOCK ({args.runs} runs; 3 mock brokers, 10 topics of 3 partitions):")
    print(line("process exited", [r.exit_s for r in describes]))
    bad = [d for d in describes if d.notes]
    if bad:
        print(f"  {len(bad)} describe runs went wrong: {bad[0].notes}")
    mock.close()

    print()
    steps = [phases(python) for _ in range(args.runs)]
    python_start = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        subprocess.run([python, "-c", "pass"], check=True)
        python_start.append(time.perf_counter() - t0)
    print(f"where the time before the first frame goes: the steps of `kafkatop --demo`, timed in a fresh process "
          f"({args.runs} runs, no terminal):")  # fmt: skip
    print(line("python -c pass (spawn to exit)", python_start))
    for key in steps[0]:
        print(line(key, [s[key] for s in steps]))

    rows, packages, total = import_times(python)
    print(f"\n-X importtime of the live view's imports ({APP_IMPORTS!r}), once, bytecode cached: {total:.0f} ms in "
          "all (the interpreter's own count, its overhead included)")  # fmt: skip
    print("  by package, self time:  " + ", ".join(f"{k} {v:.0f} ms" for k, v in
                                                   sorted(packages.items(), key=lambda kv: -kv[1])[:12]))  # fmt: skip
    print("  longest modules, self time:")
    for own, module in rows[:15]:
        print(f"    {own:6.1f} ms  {module}")

    unclean = [r for r in apps if r.killed or r.exit_code != 0 or r.traceback]
    print(
        f"exit after 'q': {len(apps) - len(unclean)} of {len(apps)} runs clean (exit code 0, no traceback)"
        + (f"; NOT clean: {[(r.exit_code, r.killed, r.traceback, r.notes) for r in unclean]}" if unclean else "")
    )
    content = [r.content_s for r in apps if r.content_s is not None]
    if len(content) < len(apps):
        print(f"RESULT: the first frame was not seen in {len(apps) - len(content)} of {len(apps)} runs -> FAIL")
        return 0
    first = statistics.median(content)
    floor = statistics.median(h.exit_s for h in helps if h.exit_s is not None)
    print(
        f"RESULT: time to first frame (b), median of {len(content)} runs {first * 1000:.0f} ms "
        f"(--help floor {floor * 1000:.0f} ms); target ≤ {TARGET_S * 1000:.0f} ms -> "
        f"{verdict(first <= TARGET_S)}"
    )
    print(f"RESULT: kafkatop --help, whole process, median {floor * 1000:.0f} ms; target ≤ {HELP_TARGET_S * 1000:.0f} "
          f"ms -> {verdict(floor <= HELP_TARGET_S)}")  # fmt: skip
    described = [d.exit_s for d in describes if d.exit_s is not None and not d.notes]
    if len(described) < len(describes):
        print(f"RESULT: kafkatop describe went wrong in {len(describes) - len(described)} runs -> FAIL")
    else:
        took = statistics.median(described)
        print(f"RESULT: kafkatop describe, whole process, median {took * 1000:.0f} ms; target ≤ "
              f"{DESCRIBE_TARGET_S * 1000:.0f} ms -> {verdict(took <= DESCRIBE_TARGET_S)}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
