"""Benchmark: `kafkatop connect list --json` against `curl -s` of the same endpoint on the same workers, wall time.

Prints figures; asserts nothing about timings. Run from the repository root:

    KAFKA_HOME=/opt/kafka_2.13-4.1.0 .venv/bin/python bench/connect_list.py [--runs 5] [--connectors 20] [--base-port P]
    .venv/bin/python bench/connect_list.py --connect-url http://HOST:8083 [--runs 5]   # workers of your own

What it does:
  1. Without --connect-url: a KRaft lab of one node and one Kafka Connect worker from $KAFKA_HOME (kafkatop's own
     supervisor, `up --connect 1`), on a block of free ports (or from --base-port), in a temp dir; --connectors
     FileStreamSource connectors, each reading a file of its own, created and waited for until each and its task are
     RUNNING.
  2. Times --runs of each, alternating, each a new process as a user runs it: `kafkatop connect list --json
     --connect-url URL` (the console script beside this Python) and `curl -s URL/connectors?expand=status&expand=info`.
     Prints their medians and the ratio, and checks that both printed the same JSON (json.loads of each, equal).
  3. For scale, the same request made in this process by ConnectClient.connectors_answer() (no interpreter start, no
     imports): what of kafkatop's time is the request, and what is Python starting.
The lab is brought down at the end, any process it left killed by its recorded pid, the temp dir deleted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.* also when run as a file
from bench.common.lab import free_block, kraft_install, temp_lab
from bench.common.machine import load
from bench.common.stats import stats_line
from kafkatop.backends.connect.client import EXPANDED, ConnectClient
from kafkatop.backends.lab.spec import ClusterSpec

SETTLE_S = 120.0  # every connector and task RUNNING: a worker's first assignments take ~10 s


@contextmanager
def lab_worker(connectors: int, base_port: int | None) -> Iterator[str]:
    """A lab with one worker running `connectors` FileStreamSource connectors: its REST URL."""
    home = os.environ.get("KAFKA_HOME")
    if not home:
        raise SystemExit(
            "set KAFKA_HOME to an Apache Kafka install (e.g. /opt/kafka_2.13-4.1.0), or give --connect-url"
        )
    base = base_port or free_block(20)
    spec = ClusterSpec(name="bench-connect", mode="kraft", brokers=1, controllers=0, connect=1, heap="256m",
                       base_port=base, controller_port=base + 4, connect_port=base + 10)  # fmt: skip
    with temp_lab(kraft_install(Path(home), "connect_list"), spec, "kafkatop-bench-connect-", 30) as cluster:
        t0 = time.monotonic()
        cluster.up(timeout_s=180)
        (url,) = cluster.connect_urls
        print(f"lab up (1 KRaft node, 1 worker at {url}) in {time.monotonic() - t0:.1f} s", flush=True)
        files = Path(tempfile.mkdtemp(prefix="kafkatop-bench-connect-files-"))
        try:
            client = ConnectClient([url], timeout_s=30.0)
            for i in range(connectors):
                source = files / f"in-{i}.txt"
                source.write_text("".join(f"line {n}\n" for n in range(10)), encoding="utf-8")
                client.create(f"source-{i:03d}", {"connector.class": "FileStreamSource", "file": str(source),
                                                  "topic": f"bench-{i:03d}", "tasks.max": "1"})  # fmt: skip
            t0 = time.monotonic()
            while not all_running(client, connectors):
                if time.monotonic() - t0 > SETTLE_S:
                    raise SystemExit(
                        f"connect_list: the {connectors} connectors were not all RUNNING after {SETTLE_S:g} s"
                    )
                time.sleep(0.5)
            print(f"{connectors} connectors and their tasks RUNNING {time.monotonic() - t0:.1f} s after creation")
            client.close()
            yield url
        finally:
            shutil.rmtree(files, ignore_errors=True)


def all_running(client: ConnectClient, count: int) -> bool:
    snapshot = client.poll()
    running = [c for c in snapshot.connectors if c.state == "RUNNING" and c.tasks and c.running == len(c.tasks)]
    return len(running) == count


def timed(argv: list[str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"connect_list: {' '.join(argv)} exited {done.returncode}: {done.stderr.strip()}")
    return elapsed, done.stdout


def kafkatop_command() -> list[str]:
    script = Path(sys.executable).with_name("kafkatop")  # the console script of this environment, as a user runs it
    return [str(script)] if script.is_file() else [sys.executable, "-m", "kafkatop.tui.cli"]


def measure(url: str, runs: int) -> None:
    curl = shutil.which("curl")
    if curl is None:
        raise SystemExit("connect_list: curl is not on PATH")
    ours = [*kafkatop_command(), "connect", "list", "--json", "--connect-url", url]
    theirs = [curl, "-s", "--max-time", "30", f"{url}{EXPANDED}"]
    timed(ours), timed(theirs)  # warm the page cache: neither pays for a cold disk
    kafkatop_s: list[float] = []
    curl_s: list[float] = []
    same = True
    for _ in range(runs):
        t, out = timed(ours)
        kafkatop_s.append(t)
        u, answer = timed(theirs)
        curl_s.append(u)
        same = same and json.loads(out) == json.loads(answer)
    client = ConnectClient([url], timeout_s=30.0)
    in_process: list[float] = []
    for _ in range(runs):
        t0 = time.perf_counter()
        client.connectors_answer()
        in_process.append(time.perf_counter() - t0)
    client.close()
    ms = [t * 1000 for t in kafkatop_s]
    print(f"kafkatop connect list --json   {stats_line(ms)}")
    print(f"curl -s (same endpoint)        {stats_line([t * 1000 for t in curl_s])}")
    print(f"  the request alone, in-process {stats_line([t * 1000 for t in in_process])}")
    ratio = statistics.median(kafkatop_s) / statistics.median(curl_s)
    print(f"same JSON from both: {'yes' if same else 'NO'}")
    print(f"RESULT kafkatop connect list --json / curl, median wall time: {ratio:.1f}x "
          f"({statistics.median(ms):.0f} ms vs {statistics.median(curl_s) * 1000:.0f} ms; Python's start and imports "
          f"are {statistics.median(ms) - statistics.median(in_process) * 1000:.0f} ms of it)")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each (medians compared)")
    parser.add_argument("--connectors", type=int, default=20, help="FileStreamSource connectors on the lab's worker")
    parser.add_argument("--connect-url", help="time these workers' answer instead of starting a lab")
    parser.add_argument("--base-port", type=int, help="the lab's first port (+4 its controller, +10 the worker's "
                        "REST API)", default=None)  # fmt: skip
    args = parser.parse_args()
    print(
        "== kafkatop bench: `kafkatop connect list --json` vs `curl -s` of GET /connectors?expand=status&expand=info =="
    )
    print(f"python {sys.version.split()[0]}, {load()}; {args.runs} runs each, alternating", flush=True)
    if args.connect_url:
        measure(args.connect_url.rstrip("/"), args.runs)
        return 0
    with lab_worker(args.connectors, args.base_port) as url:
        measure(url, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
