"""The message browser and `kafkatop consume` against librdkafka's mock cluster: pages from every kind of start,
paging both ways, a search (substring, regex, all partitions, a bounded range, cancel), bad input refused with its
reason, a cluster gone away said in words, and every consumer handle freed.

The mock answers ListOffsets by time with -1 for every time (it keeps no time index): the browser then reads the
newest record's timestamp and searches the log by halves, which is what these tests check; ListOffsets by time on
a real Kafka is checked in test_consume_kafka.py. The mock keeps no aborted records either, so read_committed is
checked there too."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest
from confluent_kafka import Producer

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.kafka.records.browser import MessageBrowser
from kafkatop.backends.model import lifetime
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.consoles import ClientError
from kafkatop.backends.model.messages import (
    BEGINNING,
    END,
    BrowseRefused,
    SearchProgress,
    SearchRequest,
    Seek,
    TimestampType,
)
from tests.conftest import wait_for

pytestmark = pytest.mark.timeout(90)

TOPIC = "orders"
PER_PARTITION = 1_000
BASE_MS = 1_795_996_800_000  # records of partition p, offset o: timestamp BASE_MS + 10 * o


def _value(p: int, o: int) -> bytes:
    return json.dumps({"p": p, "o": o, "item": "book" if o % 100 == 7 else "pen"}).encode()


@pytest.fixture(scope="module")
def cluster() -> Iterator[MockCluster]:
    with MockCluster(3) as mock:
        mock.create_topic(TOPIC, 3, 3)
        mock.create_topic("empty", 1, 3)
        producer = Producer({"bootstrap.servers": mock.bootstrap_servers, "linger.ms": 5})
        for p in range(3):
            for o in range(PER_PARTITION):
                producer.produce(TOPIC, _value(p, o), key=f"k{o}".encode(), partition=p, timestamp=BASE_MS + 10 * o,
                                 headers=[("trace", f"t-{p}-{o}".encode())])  # fmt: skip
        assert producer.flush(30) == 0
        del producer
        yield mock


@pytest.fixture
def browser(cluster: MockCluster) -> Iterator[MessageBrowser]:
    browser = MessageBrowser(KafkaConnection.parse(cluster.bootstrap_servers), timeout_s=5.0)
    yield browser
    browser.close()


def test_a_page_from_each_kind_of_start(browser: MessageBrowser) -> None:
    first = browser.page(TOPIC, 1, BEGINNING, size=20)
    assert (first.start, first.low, first.high, first.note) == (0, 0, PER_PARTITION, None)
    assert [r.offset for r in first.records] == list(range(20))
    r = first.records[7]
    assert (r.topic, r.partition, r.key, r.value, r.headers) == (TOPIC, 1, b"k7", _value(1, 7), (("trace", b"t-1-7"),))
    assert (r.timestamp_ms, r.timestamp_type, r.leader_epoch) == (BASE_MS + 70, TimestampType.CREATE_TIME, 0)
    assert r.size == len(b"k7") + len(_value(1, 7)) + len(b"trace") + len(b"t-1-7")
    assert not first.has_previous and first.has_next

    last = browser.page(TOPIC, 1, END, size=20)
    assert [r.offset for r in last.records] == list(range(980, 1000))
    assert last.has_previous and not last.has_next

    assert [r.offset for r in browser.page(TOPIC, 2, Seek.offset(500), size=3).records] == [500, 501, 502]
    assert [r.offset for r in browser.page(TOPIC, 2, Seek.offset(-2)).records] == [998, 999]  # kcat's -o -2
    past = browser.page(TOPIC, 2, Seek.offset(5_000))
    said = "offset 5000 is past the end: the partition ends at 1000"
    assert (past.start, past.records, past.note) == (1000, (), said)
    empty = browser.page("empty", 0, END)
    assert (empty.start, empty.records, empty.has_next, empty.has_previous) == (0, (), False, False)


def test_a_time_finds_the_first_record_at_or_after_it(browser: MessageBrowser) -> None:
    page = browser.page(TOPIC, 0, Seek.timestamp(BASE_MS + 4_321), size=2)
    assert [r.offset for r in page.records] == [433, 434]  # 4330 is the first timestamp at or after 4321
    assert browser.page(TOPIC, 0, Seek.timestamp(BASE_MS - 1), size=1).records[0].offset == 0
    after = browser.page(TOPIC, 0, Seek.timestamp(BASE_MS + 10 * PER_PARTITION))
    assert (after.start, after.records, after.note) == (1000, (), "no record at or after that time: at the end")


def test_pages_follow_each_other_both_ways_without_a_gap(browser: MessageBrowser) -> None:
    page = browser.page(TOPIC, 0, Seek.offset(100), size=30)
    following = browser.next(page, size=30)
    assert [r.offset for r in following.records] == list(range(130, 160))
    back = browser.previous(browser.previous(following, size=30), size=30)
    assert [r.offset for r in back.records] == list(range(70, 100))
    assert browser.previous(browser.page(TOPIC, 0, Seek.offset(10)), size=30).start == 0  # never before the log start


def test_bad_input_is_refused_with_what_to_change(browser: MessageBrowser) -> None:
    with pytest.raises(BrowseRefused, match="no topic 'nope' in the cluster"):
        browser.page("nope", 0, BEGINNING)
    with pytest.raises(BrowseRefused, match=r"partition 3 does not exist: topic 'orders' has 3 partitions \(0–2\)"):
        browser.page(TOPIC, 3, BEGINNING)
    with pytest.raises(BrowseRefused, match="not a regular expression"):
        browser.search(SearchRequest(TOPIC, "([", regex=True), lambda _: None, lambda: False)


def test_a_search_reads_its_range_once_and_keeps_what_matches(browser: MessageBrowser) -> None:
    reports: list[SearchProgress] = []
    found = browser.search(SearchRequest(TOPIC, '"item": "book"', partitions=(1,)), reports.append, lambda: False)
    assert (found.scanned, found.total, found.matches, found.done, found.error) == (1000, 1000, 10, True, None)
    assert [r.offset for r in found.found] == [o for o in range(PER_PARTITION) if o % 100 == 7]
    assert reports[-1] == found
    everywhere = browser.search(SearchRequest(TOPIC, r"^k(\d)\1$", regex=True, fields=("key",)), reports.append,
                                lambda: False)  # fmt: skip
    assert (everywhere.scanned, everywhere.matches) == (3000, 3 * 9)  # k11 … k99 in each partition
    headers = browser.search(SearchRequest(TOPIC, "t-2-999", fields=("headers",)), reports.append, lambda: False)
    assert [(r.partition, r.offset) for r in headers.found] == [(2, 999)]
    bounded = browser.search(SearchRequest(TOPIC, "book", partitions=(0,), start=950, limit=30), reports.append,
                             lambda: False)  # fmt: skip
    assert (bounded.total, bounded.scanned, bounded.matches) == (30, 30, 0)  # 950–979: no o % 100 == 7 after 907


def test_a_search_stops_when_cancelled(browser: MessageBrowser) -> None:
    stop = threading.Event()
    seen: list[SearchProgress] = []

    def progress(p: SearchProgress) -> None:
        seen.append(p)

    stop.set()
    result = browser.search(SearchRequest(TOPIC, "book"), progress, stop.is_set)
    assert result.cancelled and result.done and result.scanned < 3000


def test_a_cluster_gone_away_is_said_in_words(cluster: MockCluster) -> None:
    browser = MessageBrowser(KafkaConnection.parse(cluster.bootstrap_servers), timeout_s=1.5)
    try:
        browser.page(TOPIC, 0, BEGINNING, size=1)  # connected and warm
        for broker in (1, 2, 3):
            cluster.set_broker_down(broker)
        with pytest.raises(ClientError) as failed:
            browser.page(TOPIC, 0, Seek.offset(10))
        said = str(failed.value)
        del failed  # its traceback holds the consumer's frames: close() below must get the last reference
        assert said.startswith("cannot read topic 'orders': ") or said.startswith("nothing read from orders-0"), said
    finally:
        for broker in (1, 2, 3):
            cluster.set_broker_up(broker)
        browser.close()
    # The broker is back: a new browser reads again.
    again = MessageBrowser(KafkaConnection.parse(cluster.bootstrap_servers), timeout_s=10.0)
    try:
        assert again.page(TOPIC, 0, Seek.offset(10), size=1).records[0].offset == 10
    finally:
        again.close()


def test_every_consumer_handle_is_freed(cluster: MockCluster) -> None:
    before, parked = lifetime.kept_count(), lifetime.parked_count()  # process-wide: other tests' handles too
    browser = MessageBrowser(KafkaConnection.parse(cluster.bootstrap_servers))
    browser.page(TOPIC, 0, BEGINNING)
    browser.page(TOPIC, 0, BEGINNING, isolation="read_committed")
    browser.search(SearchRequest(TOPIC, "book", partitions=(0,)), lambda _: None, lambda: False)
    browser.close()
    wait_for(lambda: lifetime.kept_count() == before, timeout_s=10, what="the browser's consumers released")
    assert lifetime.parked_count() == parked


def _consume(cluster: MockCluster, *argv: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "kafkatop.tui.cli", "consume", "--bootstrap-server", cluster.bootstrap_servers, *argv],
        capture_output=True, timeout=60, check=False,
    )  # fmt: skip


def test_the_consume_command_reads_to_the_end_and_exits(cluster: MockCluster) -> None:
    done = _consume(cluster, "--topic", TOPIC, "--partition", "1", "--offset", "995")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [_value(1, o) for o in range(995, 1000)]
    assert done.stderr.decode().strip() == "kafkatop: 5 records read"
    formatted = _consume(cluster, "--topic", TOPIC, "--timestamp", str(BASE_MS + 9_975), "--format", "%p %o %k %T")
    assert sorted(formatted.stdout.decode().splitlines()) == sorted(
        f"{p} {o} k{o} {BASE_MS + 10 * o}" for p in range(3) for o in (998, 999)
    )
    lines = _consume(cluster, "--topic", TOPIC, "--partition", "0", "--max-messages", "2", "--json").stdout
    assert [json.loads(line)["offset"] for line in lines.splitlines()] == [0, 1]
    assert json.loads(lines.splitlines()[0])["headers"] == ["trace", "t-0-0"]
    everything = _consume(cluster, "--topic", TOPIC, "--from-beginning")
    assert len(everything.stdout.splitlines()) == 3 * PER_PARTITION


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--topic", "nope"], "kafkatop: no topic 'nope' in the cluster"),
        (["--topic", TOPIC, "--partition", "9"], "kafkatop: partition 9 does not exist: topic 'orders' has 3"),
        (["--topic", TOPIC, "--timestamp", "yesterday"], "kafkatop: --timestamp 'yesterday' is not a time"),
        (["--topic", TOPIC, "--offset", "3", "--from-beginning"], "kafkatop: --offset and --from-beginning together"),
        (["--topic", TOPIC, "--format", "%q"], "kafkatop: --format: no token %q"),
        (["--topic", TOPIC, "--json", "--format", "%v"], "kafkatop: --json and --format together"),
        (["--topic", TOPIC, "--offset", "abc"], "kafkatop consume: argument --offset: expected an offset (1200, "),
    ],
)
def test_the_consume_command_refuses_bad_input_with_exit_2(cluster: MockCluster, argv: list[str], said: str) -> None:
    done = _consume(cluster, *argv)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode().startswith(said), done.stderr
