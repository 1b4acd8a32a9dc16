"""New partitions for a topic (Kafka's CreatePartitions, `kafka-topics.sh --alter --partitions N`): what Kafka
accepts, in its own words, and what more partitions do to keyed records — checked the same way by the command line
and the dialog (standard library only)."""

from __future__ import annotations

# librdkafka refuses a CreatePartitions count above this before sending it (NewPartitions' new_total_cnt).
MAX_PARTITIONS_PER_REQUEST = 100_000


KEY_WARNING = (
    "keys will map to other partitions: a keyed record goes to hash(key) % partitions, so most keys move to another "
    "partition, and a key's new records no longer follow its old ones (ordering per key breaks)"
)


def partition_count_problem(topic: str, current: int | None, total: int) -> str | None:
    """None when `total` may be asked for; else why not, in Kafka's words where Kafka would refuse it."""
    if total < 1:
        return f"the partition count must be at least 1, not {total}"
    if total > MAX_PARTITIONS_PER_REQUEST:
        return f"{total} partitions: at most {MAX_PARTITIONS_PER_REQUEST} can be asked for at once (librdkafka's limit)"
    if current is None:
        return None
    # ReplicationControlManager.createPartitions' own messages.
    if total == current:
        return f"Topic already has {current} partition(s)."
    if total < current:
        return f"The topic {topic} currently has {current} partition(s); {total} would not be an increase."
    return None


def check_new_total(topic: str, current: int | None, text: str) -> tuple[int | None, str | None]:
    """The add-partitions dialog's field: the new total, or what is wrong with it."""
    text = text.strip()
    if not text:
        return None, "give the new total number of partitions"
    if not text.lstrip("-").isdigit():
        return None, f"{text!r} is not a whole number: give the new total number of partitions"
    total = int(text)
    problem = partition_count_problem(topic, current, total)
    return (None, problem) if problem else (total, None)
