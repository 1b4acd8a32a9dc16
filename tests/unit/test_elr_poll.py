"""The live poll's ELR (KIP-966): DescribeTopicPartitions answers recorded from a real Kafka 4.1 lab (one page of
partitions whose ISR fell below min.insync.replicas 2 with broker 2 stopped, and one after the last ISR member stopped
too), read by the poll's own decoder exactly as the complete one reads them; which topics the poll asks; and the
timeline's words when an ISR shrinks with an ELR."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from kafkatop.backends.insight.timeline.events import isr_event, leader_event
from kafkatop.backends.insight.timeline.model import EventKind
from kafkatop.backends.kafka.admin.elr_poll import NONE, NOT_READ, ElrFound, may_have_elr
from kafkatop.backends.model.cluster import NO_LEADER
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.protocol.describe_topic_partitions import Cursor, decode_elr_page, decode_page
from kafkatop.backends.protocol.wire import ProtocolError

RECORDED = Path(__file__).parents[1] / "fixtures" / "protocol"
ANSWERS = ("page1", "unknown", "elr_4_1", "offline_elr_4_1")


@pytest.mark.parametrize("name", ANSWERS)
def test_the_polls_decoder_reads_what_the_complete_one_reads(name: str) -> None:
    raw = (RECORDED / f"describe_topic_partitions_{name}.bin").read_bytes()
    full, fast = decode_page(raw), decode_elr_page(raw)
    assert fast.elr == {(p.topic, p.partition): (p.elr, p.last_known_elr) for p in full.partitions}
    assert (fast.topic_errors, fast.next_cursor) == (full.topic_errors, full.next_cursor)


def test_eligible_replicas_recorded_from_a_kafka_4_1_lab() -> None:
    below = decode_elr_page((RECORDED / "describe_topic_partitions_elr_4_1.bin").read_bytes())
    assert below.elr == {("elrt", 0): ((2,), ()), ("elrt", 1): ((2,), ())}  # ISR 1, broker 2 stopped: eligible
    assert below.next_cursor == Cursor("elrt", 2)  # two partitions a page were asked
    offline = decode_elr_page((RECORDED / "describe_topic_partitions_offline_elr_4_1.bin").read_bytes())
    assert set(offline.elr.values()) == {((1, 2), (1,))}  # ISR empty: 1 and 2 may still lead, 1 was the last


def test_the_polls_decoder_refuses_bytes_that_lie() -> None:
    good = (RECORDED / "describe_topic_partitions_offline_elr_4_1.bin").read_bytes()
    for bad in (good[:-1], good[:-9], good + b"\x00", good[:9] + b"\x7f" + good[10:]):
        with pytest.raises(ProtocolError):
            decode_elr_page(bad)


def _topic(*partitions: tuple[int, int]) -> dict[int, SimpleNamespace]:
    """librdkafka's PartitionMetadata by id: (leader, ISR size) each."""
    return {i: SimpleNamespace(leader=leader, isrs=list(range(isr))) for i, (leader, isr) in enumerate(partitions)}


def test_only_topics_below_min_isr_are_asked() -> None:
    """Kafka's controller empties ELR and last known ELR whenever a partition's ISR is at or above min ISR."""
    assert not may_have_elr(_topic((1, 3), (2, 2)), 2)
    assert may_have_elr(_topic((1, 3), (2, 1)), 2)  # one partition below
    assert may_have_elr(_topic((NO_LEADER, 0)), 1)  # offline
    assert may_have_elr(_topic((1, 3)), None)  # min.insync.replicas not read yet
    found = ElrFound({("orders", 0): ((2,), ())}, frozenset({"audit"}))
    assert (found.of("orders", 0), found.of("audit", 7), found.of("other", 0)) == (((2,), ()), NONE, NOT_READ)


def test_the_timeline_says_what_an_elr_changes() -> None:
    tp = TopicPartition("orders", 0)
    shrunk = isr_event(tp, (1, 2), (1,), 7, 0.0, "metadata", elr=(2,))
    assert shrunk.kind is EventKind.ISR_SHRUNK
    assert shrunk.text.startswith(
        "orders-0: ISR 1,2→1; ELR 2 (KIP-966): left as the ISR fell below min.insync.replicas"
    )
    assert isr_event(tp, (1, 2, 3), (1, 2), 7, 0.0, "metadata", elr=()).text == "orders-0: ISR 1,2,3→1,2"
    assert isr_event(tp, (1,), (1, 2), 7, 0.0, "metadata", elr=(3,)).text == "orders-0: ISR 1→1,2"  # grown: unsaid
    offline = leader_event(tp, 1, NO_LEADER, (), 8, 0.0, "metadata", elr=(1, 2))
    assert offline.text.endswith("; ELR 1,2: the first of them back is elected cleanly, no unclean election needed")
