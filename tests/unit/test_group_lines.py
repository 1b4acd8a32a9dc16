"""kafka-consumer-groups.sh's layouts, on lines Kafka 4.1's tool printed for the same groups (a console consumer's
group `g3` with one member on 6 partitions, and `g1`, empty, coordinated by broker 2)."""

from __future__ import annotations

from kafkatop.backends.insight.group_lines import members_lines, offsets_lines, state_lines
from kafkatop.backends.model.cluster import (
    Broker,
    ConsumerGroup,
    GroupMember,
    GroupPartitionOffset,
    GroupState,
    TopicPartition,
)

MEMBER = "console-consumer-c68acb7b-1b06-4f41-9e65-3c904ef64200"
G3 = ConsumerGroup(
    "g3", GroupState.STABLE, assignor="range", coordinator=1,
    members=(GroupMember(MEMBER, "console-consumer", "127.0.0.1", tuple(TopicPartition("t6", p) for p in range(6))),),
    offsets=(GroupPartitionOffset("t6", 0, 29806, 29806, MEMBER),),
)  # fmt: skip
G1 = ConsumerGroup("g1", GroupState.EMPTY, coordinator=2, offsets=(GroupPartitionOffset("t6", 4, 10, 36049),))
BROKERS = tuple(Broker(b, "127.0.0.1", 25999 + b) for b in (1, 2, 3))


def test_offsets() -> None:
    assert offsets_lines(G3) == [
        "",
        "GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             "
        "CONSUMER-ID                                           HOST            CLIENT-ID",
        "g3              t6              0          29806           29806           0               "
        f"{MEMBER} /127.0.0.1      console-consumer",
    ]
    assert offsets_lines(G1)[2] == (
        "g1              t6              4          10              36049           36039           -               -  "
        "             -"
    )


def test_members_and_state() -> None:
    assert members_lines(G3)[1:] == [
        "GROUP           CONSUMER-ID                                           HOST            CLIENT-ID        "
        "#PARTITIONS     ",
        f"g3              {MEMBER} /127.0.0.1      console-consumer 6               ",
    ]
    assert members_lines(G1) == ["", "GROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     "]
    assert state_lines(G1, BROKERS) == [
        "",
        "GROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                #MEMBERS",
        "g1              127.0.0.1:26001  (2)      -                    Empty                0",
    ]
