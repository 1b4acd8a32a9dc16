"""The oldest unread records of many topics read for their own times in one read (kafkatop lag, the Groups tab's `u`),
on librdkafka's mock cluster over real sockets: each partition's record at its committed offset, every topic in one
assignment."""

from __future__ import annotations

from confluent_kafka import Producer

from kafkatop.backends.insight.lag.exact import read_times
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.kafka.records.browser import MessageBrowser
from kafkatop.backends.model.connection import KafkaConnection

BASE_MS = 1_700_000_000_000


def test_every_topics_heads_in_one_read(mock_cluster: MockCluster) -> None:
    producer = Producer({"bootstrap.servers": mock_cluster.bootstrap_servers})
    for t in range(3):
        mock_cluster.create_topic(f"h-{t}", 2, 1)
        for p in range(2):
            for o in range(4):  # record o of partition p of topic t written at BASE + t s + p * 100 ms + o ms
                producer.produce(f"h-{t}", b"x", partition=p, timestamp=BASE_MS + t * 1000 + p * 100 + o)
    assert producer.flush(20) == 0
    heads = {f"h-{t}": {p: (1 + p, 4) for p in range(2)} for t in range(3)}  # committed at 1 (p0), 2 (p1)
    heads["h-2"][1] = (4, 4)  # caught up: nothing to read, no time
    browser = MessageBrowser(KafkaConnection.parse(mock_cluster.bootstrap_servers), timeout_s=10)
    try:
        times, failures = read_times(browser.first_timestamps, heads)
    finally:
        browser.close()
    assert failures == []
    expected = {(f"h-{t}", p, 1 + p): (BASE_MS + t * 1000 + p * 100 + 1 + p) / 1000 for t in range(3) for p in range(2)}
    del expected[("h-2", 1, 2)]
    assert times == expected


def test_a_topic_that_cannot_be_read_is_named_and_the_others_still_read(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("there", 1, 1)
    producer = Producer({"bootstrap.servers": mock_cluster.bootstrap_servers})
    producer.produce("there", b"x", partition=0, timestamp=BASE_MS)
    assert producer.flush(20) == 0
    browser = MessageBrowser(KafkaConnection.parse(mock_cluster.bootstrap_servers), timeout_s=2)
    try:
        times, failures = read_times(browser.first_timestamps, {"there": {0: (0, 1)}, "gone": {0: (0, 5)}})
    finally:
        browser.close()
    assert times == {("there", 0, 0): BASE_MS / 1000}
    assert len(failures) == 1 and failures[0].startswith("gone: ")
