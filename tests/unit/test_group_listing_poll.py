"""The live poll's ListGroups (backends/kafka/groups/group_list_poll.py): every classic group whatever its protocol
type — a Kafka Connect worker's group — and the KIP-848 ones, as Kafka's tools list them; share groups are the share
poll's. The Groups tab shows a group of another protocol than a consumer's with it: "classic (connect)"."""

from __future__ import annotations

import pytest

from kafkatop.backends.kafka.groups.group_list_poll import listed_of
from kafkatop.backends.kafka.groups.group_listing import GroupListing, gathered
from kafkatop.backends.model.cluster import Broker
from kafkatop.backends.model.groups import ConsumerGroup, GroupState
from kafkatop.backends.protocol.connection import Unsupported
from kafkatop.backends.protocol.consumer_groups import ListedGroup
from kafkatop.tui.live.tabs.groups.pane import group_kind


def test_a_connect_workers_group_is_polled_as_kafka_lists_it() -> None:
    listing = GroupListing(
        (
            ListedGroup("a-connect", "connect", "Stable", "classic"),
            ListedGroup("orders", "consumer", "Empty", "classic"),
            ListedGroup("committed-only", "", "Empty", "classic"),
            ListedGroup("kip848", "consumer", "Stable", "consumer"),
            ListedGroup("shared", "share", "Empty", "share"),
            ListedGroup("old-broker", "connect", None, None),  # ListGroups v3 says no type
        ),
        ("broker 2 (127.0.0.1:19501): connection refused", "broker 2 (127.0.0.1:19501): connection refused"),
    )
    listed = listed_of(listing)
    assert dict(listed.states) == {"a-connect": "Stable", "orders": "Empty", "committed-only": "Empty",
                                   "kip848": "Stable", "old-broker": None}  # fmt: skip
    assert listed.kip848 == {"kip848"}
    assert listed.failures == ("broker 2 (127.0.0.1:19501): connection refused",)


def test_the_groups_tab_names_a_protocol_other_than_a_consumers() -> None:
    def group(protocol: str, kind: str = "classic") -> ConsumerGroup:
        return ConsumerGroup("g", GroupState.STABLE, protocol_type=protocol, group_type=kind)  # type: ignore[arg-type]

    assert group_kind(group("connect")) == "classic (connect)"
    assert group_kind(group("consumer")) == "classic"
    assert group_kind(group("simple")) == "classic"
    assert group_kind(group("consumer", "consumer")) == "consumer"
    assert group_kind(group("share", "share")) == "share"


def test_no_broker_speaking_list_groups_is_a_new_unsupported_that_holds_no_answer() -> None:
    """Before: gathered() raised one of the answers' Unsupported again; its traceback held gathered()'s frame, which
    held it — a cycle that kept the live poll's admin client alive until the garbage collector ran, and each close()
    of the view's admin source waited 2 s for it."""
    asked = [Broker(1, "127.0.0.1", 9092), Broker(2, "127.0.0.1", 9093)]
    answers = [Unsupported("ListGroups v3+ not offered"), Unsupported("ListGroups v3+ not offered")]
    with pytest.raises(Unsupported, match="ListGroups v3\\+ not offered") as raised:
        gathered(asked, answers)
    assert all(raised.value is not a for a in answers)
    assert all(a.__traceback__ is None for a in answers)  # never raised: they hold no frame
