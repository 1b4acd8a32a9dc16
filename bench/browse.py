"""Benchmark: the message browser on a partition of 1,000,000 records.

Prints figures (medians of --runs); asserts nothing about timings. Run from the repository root:

    .venv/bin/python bench/browse.py [--runs 5] [--records 1000000] [--kafka-home DIR | --bootstrap-server H:P | --mock]

The cluster: a one-broker KRaft lab from a Kafka install (--kafka-home, else $KAFKA_HOME), started with `kafkatop up`
on free ports in a temporary state directory and deleted afterwards; or an attached cluster (--bootstrap-server,
a topic of its own is created and left); or, with --mock or no Kafka at all, librdkafka's mock cluster in this
process (it has no time index: a time is found by reading the log by halves, ~20 fetches).

One topic, one partition, --records records of ~110 B (a JSON value, a key, a header), timestamps 1 ms apart
ending a day ago. Then:
  1. seek by time, in the app: the Messages tab of a headless KafkatopApp (App.run_test, 160x45) over the real
     MessageBrowser; `from` set to a random time inside the partition and submitted; timed from the submit until the
     page of 50 records whose first record is the one Kafka's time index names has been drawn (the panel's
     show_page ran, then one refresh). The first seek (a new consumer connecting) is reported apart; the target is
     ≤ 300 ms.
  2. search throughput: MessageBrowser.search over the whole partition for a text no record holds (every record is
     read and matched), beside a plain single consumer reading the same partition to its end with consume() and
     nothing else (kcat -C -e's loop); records/s of each and their ratio.
  3. responsiveness: the same search started from the app's search field; a task that sleeps 10 ms in a loop
     records how late it wakes while the search runs (max and p99: the event loop's lag, target ≤ 100 ms), and how
     many progress reports were drawn.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from confluent_kafka import Consumer, KafkaError, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.kafka.records.browser import MessageBrowser
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.messages import SearchProgress, SearchRequest
from kafkatop.backends.zookeeper.server import free_port
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.messages.pane import MessagesPane

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.* also when run as a file
from bench.common.loop import LoopLag

TOPIC = "bench-browse"
MISSING = "no-record-holds-this"


@contextmanager
def lab(kafka_home: str) -> Iterator[str]:
    """A one-broker KRaft lab on free ports, deleted on the way out."""
    state = tempfile.mkdtemp(prefix="kafkatop-bench-browse-")
    port = free_port()
    base = [sys.executable, "-m", "kafkatop.tui.cli"]
    where = ["--name", "bench", "--state-dir", state]
    subprocess.run([*base, "up", *where, "--brokers", "1", "--base-port", str(port), "--controller-port",
                    str(free_port()), "--kafka-home", kafka_home, "--heap", "1g", "--detach"], check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    try:
        yield f"127.0.0.1:{port}"
    finally:
        subprocess.run([*base, "down", *where, "--delete"], check=False, stdout=subprocess.DEVNULL)


@contextmanager
def mock() -> Iterator[str]:
    with MockCluster(1) as cluster:
        cluster.create_topic(TOPIC, 1, 1)
        yield cluster.bootstrap_servers


def fill(bootstrap: str, records: int, real: bool) -> tuple[int, int]:
    """The topic and its records; returns the first and last timestamps."""
    if real:
        admin = AdminClient({"bootstrap.servers": bootstrap})
        futures = admin.create_topics([NewTopic(TOPIC, 1, 1)], request_timeout=30)
        futures[TOPIC].result(timeout=60)
    last = (int(time.time()) - 86_400) * 1000
    first = last - (records - 1)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 50, "batch.size": 1_000_000,
                         "queue.buffering.max.messages": 1_000_000, "compression.type": "lz4"})  # fmt: skip
    began = time.monotonic()
    for i in range(records):
        value = json.dumps({"order": i, "customer": f"c-{i % 9973}", "item": "book", "qty": i % 5 + 1}).encode()
        while True:
            try:
                producer.produce(TOPIC, value, key=f"c-{i % 9973}".encode(), partition=0, timestamp=first + i,
                                 headers=[("trace", f"{i:08x}".encode())])  # fmt: skip
                break
            except BufferError:
                producer.poll(0.05)
        if i % 100_000 == 0:
            producer.poll(0)
    assert producer.flush(120) == 0, "records left unsent"
    print(f"filled {records:,} records in {time.monotonic() - began:.1f} s", flush=True)
    return first, last


def plain_read(bootstrap: str) -> float:
    """kcat -C -e's loop: one consumer, assign at the start, consume to the end; records/s."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench-plain", "enable.auto.commit": False,
                         "enable.partition.eof": True, "fetch.wait.max.ms": 100})  # fmt: skip
    began = time.monotonic()
    consumer.assign([KafkaTopicPartition(TOPIC, 0, 0)])
    count = 0
    done = False
    while not done:
        for m in consumer.consume(1000, 0.1):
            err = m.error()
            if err is None:
                count += 1
            elif err.code() == KafkaError._PARTITION_EOF:
                done = True
    elapsed = time.monotonic() - began
    consumer.close()
    return count / elapsed


def search_rate(browser: MessageBrowser) -> tuple[float, int]:
    result = browser.search(SearchRequest(TOPIC, MISSING), lambda _: None, lambda: False)
    assert result.error is None and result.matches == 0, result
    return result.records_per_s, result.scanned


async def in_app(bootstrap: str, first: int, last: int, runs: int) -> tuple[list[float], float, list[float], int]:
    """Seeks by time and one search in the app: (seek times in ms, first seek ms, lag samples in ms, reports)."""
    connection = KafkaConnection.parse(bootstrap)
    admin = AdminSource(connection, timeout_s=5)
    browser = MessageBrowser(connection)
    app = KafkatopApp(Sources(admin.poll, browser=browser), Settings(poll_interval_s=1.0))
    seeks: list[float] = []
    cold = 0.0
    lags: list[float] = []
    reports = 0
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            while app.snapshot is None or app.snapshot.topic(TOPIC) is None:
                await pilot.pause(0.1)
            panel = app.main_screen.query_one(MessagesPane)
            app.main_screen.show_tab("tab-messages")
            shown = panel.show_page
            drawn: list[float] = []

            def timed_show(page: object) -> None:
                shown(page)  # type: ignore[arg-type]
                drawn.append(time.perf_counter())

            panel.show_page = timed_show  # type: ignore[method-assign]
            rng = random.Random(7)
            for run in range(runs + 1):
                target = rng.randrange(first, last)
                moment = datetime.fromtimestamp(target / 1000).isoformat(timespec="milliseconds")
                began = time.perf_counter()
                panel.open(TOPIC, 0, at=moment)
                while not drawn:
                    await asyncio.sleep(0.002)
                await pilot.pause()  # the refresh that puts the page on screen
                took = (time.perf_counter() - began) * 1000
                drawn.clear()
                page = panel.page
                assert page is not None and page.records, "no page drawn"
                assert page.records[0].timestamp_ms == target, (page.records[0], target)
                if run == 0:
                    cold = took
                else:
                    seeks.append(took)

            # The search, from the search field, while a task measures how late a 10 ms sleep wakes.
            shown_search = panel.show_search
            ended = asyncio.Event()

            def counted(request: SearchRequest, progress: SearchProgress) -> None:
                nonlocal reports
                reports += 1
                shown_search(request, progress)
                if progress.done:
                    ended.set()

            panel.show_search = counted  # type: ignore[method-assign]
            panel.query_one("#search-all").value = True  # type: ignore[attr-defined]
            panel.query_one("#search-text").value = MISSING  # type: ignore[attr-defined]

            probe = LoopLag(0.01)
            probe.start()
            panel._search_or_stop()
            await ended.wait()
            await probe.stop()
            lags.extend(probe.lags_ms)
            await pilot.press("q")
    finally:
        browser.close()
        admin.close()
    return seeks, cold, lags, reports


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--kafka-home", default=os.environ.get("KAFKA_HOME"))
    parser.add_argument("--bootstrap-server")
    parser.add_argument("--mock", action="store_true")
    args = parser.parse_args()
    real = not args.mock and (args.bootstrap_server is not None or bool(args.kafka_home))
    if args.bootstrap_server:
        cluster = contextmanager(lambda: iter([args.bootstrap_server]))()
        where = f"attached cluster {args.bootstrap_server}"
    elif real:
        cluster = lab(args.kafka_home)
        where = f"a one-broker KRaft lab from {Path(args.kafka_home).name}"
    else:
        cluster = mock()
        where = "librdkafka's mock cluster (no time index: times found by halving the log)"
    print(f"browse benchmark: {args.records:,} records, {args.runs} runs, {where}; Python {sys.version.split()[0]}")
    with cluster as bootstrap:
        first, last = fill(bootstrap, args.records, real)
        plain = [plain_read(bootstrap) for _ in range(args.runs)]
        browser = MessageBrowser(KafkaConnection.parse(bootstrap))
        try:
            searched = [search_rate(browser) for _ in range(args.runs)]
        finally:
            browser.close()
        seeks, cold, lags, reports = asyncio.run(in_app(bootstrap, first, last, args.runs))
    rate = statistics.median(r for r, _ in searched)
    base = statistics.median(plain)
    print()
    print(
        f"seek to a time and show the page (app, 50 records): median {statistics.median(seeks):.0f} ms, "
        f"max {max(seeks):.0f} ms over {len(seeks)} seeks; first seek (new consumer) {cold:.0f} ms  "
        "[target ≤ 300 ms]"
    )
    print(f"plain single-consumer read (kcat -C -e's loop): median {base:,.0f} records/s")
    print(
        f"search ({searched[0][1]:,} records, no match): median {rate:,.0f} records/s = {rate / base:.2f}x the plain "
        "read"
    )
    lag = sorted(lags)
    p99 = lag[int(0.99 * (len(lag) - 1))] if lag else 0.0
    print(
        f"event-loop lag during a search from the app: max {max(lag, default=0):.0f} ms, p99 {p99:.0f} ms over "
        f"{len(lag)} samples; {reports} progress reports drawn  [target ≤ 100 ms]"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
