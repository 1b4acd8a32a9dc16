"""Stress run for librdkafka's destroy-on-its-own-thread abort (issue 12): `kafkatop describe` run again and again,
and the app's AdminSource polled, across kill -9 / start cycles of a real 3-node KRaft lab.

Before the fix, `kafkatop describe` run in the seconds after a kill once ended with
`rd_kafka_destroy_app: assert: ... librdkafka owned thread is prohibited` (SIGABRT). This counts such ends.

    KAFKA_HOME=/opt/kafka_2.13-4.1.0 python bench/abort_stress.py [--describes 200] [--polls 50] [--cycles 5]

The lab binds 127.0.0.1 on free ports, lives in a temp dir, and is brought down at the end.
"""

from __future__ import annotations

import argparse
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.topics import TopicAdmin
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.* also when run as a file
from bench.common.lab import kraft_lab

TOPIC = "purchases"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--describes", type=int, default=200)
    ap.add_argument("--polls", type=int, default=50, help="at least this many app polls (more cycles run if needed)")
    ap.add_argument("--cycles", type=int, default=5)
    args = ap.parse_args()

    with kraft_lab("stress") as cluster:
        snap = cluster.up(timeout_s=180)
        bootstrap = snap.bootstrap_servers
        connection = KafkaConnection.parse(bootstrap)
        with TopicAdmin(connection) as topics:
            topics.create_topic(TOPIC, 3, 3)
        time.sleep(3)

        describe_times: list[float] = []
        ends: dict[str, int] = {}
        polls = {"ok": 0, "unavailable": 0}
        poll_times: list[float] = []
        stop_polls = threading.Event()
        per_cycle = max(1, args.describes // args.cycles)

        def poller() -> None:
            source = AdminSource(connection, timeout_s=2.0, include_internal=True)
            try:
                while not stop_polls.is_set():
                    t = time.monotonic()
                    try:
                        source.poll()
                        polls["ok"] += 1
                    except KafkatopError:
                        polls["unavailable"] += 1
                    poll_times.append(time.monotonic() - t)
                    stop_polls.wait(0.5)  # the app polls every second; twice that here
            finally:
                source.close()

        def describe() -> None:
            t = time.monotonic()
            run = subprocess.run(
                [sys.executable, "-m", "kafkatop.tui.cli", "describe", "--topic", TOPIC,
                 "--bootstrap-server", bootstrap, "--timeout", "5"],
                capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            describe_times.append(time.monotonic() - t)
            if run.returncode == -signal.SIGABRT or "prohibited" in run.stderr:
                key = "aborted (SIGABRT)"
            elif run.returncode < 0:
                key = f"killed by {signal.Signals(-run.returncode).name}"
            else:
                key = f"exit {run.returncode}"
            ends[key] = ends.get(key, 0) + 1

        polling = threading.Thread(target=poller, daemon=True)
        polling.start()
        cycle = 0
        while cycle < args.cycles or sum(polls.values()) < args.polls:
            victim = str(cycle % 3 + 1)
            cluster.kill(victim)  # kill -9: the fencing window follows
            for i in range(per_cycle):
                if i == per_cycle // 2:
                    cluster.start(victim)  # describes go on while it starts and rejoins
                describe()
            cycle += 1
            print(f"cycle {cycle}: broker {victim} killed and started; {len(describe_times)} describes and "
                  f"{sum(polls.values())} polls so far, ends {ends}", flush=True)  # fmt: skip
        stop_polls.set()
        polling.join(60)

        print()
        print(f"describes: {len(describe_times)} across {args.cycles} kill -9/start cycles; ends: {ends}")
        print(
            f"  time per describe (process start included): median {statistics.median(describe_times):.2f} s, "
            f"max {max(describe_times):.2f} s"
        )
        print(f"app polls (AdminSource): {sum(polls.values())}; {polls}; median {statistics.median(poll_times):.2f} s")
        aborted = ends.get("aborted (SIGABRT)", 0)
        print(f"aborts: {aborted}")
        return 1 if aborted else 0


if __name__ == "__main__":
    sys.exit(main())
