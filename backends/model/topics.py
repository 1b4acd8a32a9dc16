"""What Kafka accepts as a new topic: names, partitions, replication factor, configs — checked the same way by the
command line and the create-topic dialog, before anything is asked of Kafka (standard library only)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kafkatop.backends.model.errors import KafkatopError

MAX_TOPIC_NAME_LENGTH = 249  # org.apache.kafka.common.internals.Topic.MAX_NAME_LENGTH


MAX_REPLICATION_FACTOR = 32767  # replication factors travel as an int16
MAX_PARTITIONS = 2_147_483_647  # partition counts travel as an int32


_LEGAL_NAME = re.compile(r"[a-zA-Z0-9._-]+")


_CONFIG_EXAMPLE = "--config min.insync.replicas=2"


class TopicError(KafkatopError):
    """A topic action failed; the message is Kafka's own text (or kafka-topics' wording) naming the topic."""

    def __init__(
        self, message: str, *, topic: str | None = None, code: str | None = None, reason: str | None = None
    ) -> None:
        super().__init__(message)
        self.topic = topic
        self.code = code  # Kafka's error code name, e.g. "INVALID_REPLICATION_FACTOR"; None for local checks
        self.reason = reason  # Kafka's own text, without kafkatop's "Cannot … topic 'X': " (kafka-topics' line)


# --- validation (shared by the CLI and the TUI) ---------------------------------------------------------------------
def validate_topic_name(name: str) -> str | None:
    """None when Kafka accepts `name` as a topic name, else Kafka's own message (Topic.validate).

    Names mixing '.' and '_' only draw a warning from kafka-topics (they collide in metric names): not an error.
    """
    if not name:
        reason = "the empty string is not allowed"
    elif name in (".", ".."):
        reason = f"'{name}' is not allowed"
    elif len(name) > MAX_TOPIC_NAME_LENGTH:
        reason = f"the length of '{name}' is longer than the max allowed length {MAX_TOPIC_NAME_LENGTH}"
    elif not _LEGAL_NAME.fullmatch(name):
        reason = f"'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
    else:
        return None
    return f"Topic name is invalid: {reason}"


def parse_config_assignments(items: Sequence[str]) -> dict[str, str]:
    """`--config` items ("name=value"; the value may itself contain '=') as a dict; the last of a name wins."""
    configs: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        # kafka-topics rejects an empty value too ("key=" splits into one part).
        if not sep or not name or not value:
            raise TopicError(f"Invalid topic config {item!r}: expected NAME=VALUE, for example {_CONFIG_EXAMPLE}")
        configs[name] = value
    return configs


def validate_new_topic(
    name: str, partitions: int, replication_factor: int, live_brokers: int | None = None
) -> list[str]:
    """Every problem with creating this topic that can be seen before asking Kafka; empty when none."""
    problems = []
    if (name_problem := validate_topic_name(name)) is not None:
        problems.append(name_problem)
    if partitions < 1:
        problems.append(f"partitions must be at least 1, not {partitions}")
    elif partitions > MAX_PARTITIONS:
        problems.append(f"partitions must be at most {MAX_PARTITIONS} (a count Kafka can carry), not {partitions}")
    if not 1 <= replication_factor <= MAX_REPLICATION_FACTOR:
        problems.append(f"replication factor must be between 1 and {MAX_REPLICATION_FACTOR}, not {replication_factor}")
    elif live_brokers is not None and replication_factor > live_brokers:
        brokers = "broker" if live_brokers == 1 else "brokers"
        problems.append(
            f"replication factor {replication_factor} is larger than the {live_brokers} {brokers} available"
        )
    return problems


# --- the create-topic dialog's fields -------------------------------------------------------------------------------
@dataclass(frozen=True)
class NewTopicRequest:
    name: str
    partitions: int
    replication_factor: int
    configs: dict[str, str]


def _whole(text: str, what: str) -> tuple[int | None, str | None]:
    text = text.strip()
    if not text:
        return None, f"{what}: give a whole number"
    if not text.lstrip("-").isdigit():
        return None, f"{what}: {text!r} is not a whole number"
    return int(text), None


def check_new_topic(
    name: str, partitions: str, replication_factor: str, configs: str, live_brokers: int | None
) -> tuple[NewTopicRequest | None, list[str]]:
    """The request, or every problem found — the same checks as `kafkatop create-topic`."""
    problems: list[str] = []
    p, err = _whole(partitions, "partitions")
    if err:
        problems.append(err)
    r, err = _whole(replication_factor, "replication factor")
    if err:
        problems.append(err)
    problems += validate_new_topic(name.strip(), p if p is not None else 1, r if r is not None else 1, live_brokers)
    parsed: dict[str, str] = {}
    items = [c for c in configs.replace(",", " ").split() if c]
    try:
        parsed = parse_config_assignments(items)
    except KafkatopError as e:
        problems.append(str(e))
    if problems or p is None or r is None:
        return None, problems
    return NewTopicRequest(name.strip(), p, r, parsed), []
