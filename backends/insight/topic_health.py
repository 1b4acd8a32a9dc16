"""kafka-topics.sh --describe's health filters (Kafka 4.1's TopicCommand.DescribeOptions): which topic lines and
which partition lines it prints with --under-replicated-partitions, --under-min-isr-partitions,
--at-min-isr-partitions, --unavailable-partitions and --topics-with-overrides. Pure: model only."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from kafkatop.backends.model.cluster import Partition

DEFAULT_MIN_ISR = 1  # min.insync.replicas when neither the topic nor the brokers set it


@dataclass(frozen=True, slots=True)
class HealthFilter:
    """The filters given; none: every line, as a plain --describe."""

    under_replicated: bool = False
    under_min_isr: bool = False
    at_min_isr: bool = False
    unavailable: bool = False
    with_overrides: bool = False

    @property
    def topic_lines(self) -> bool:
        """The tool prints a topic's line only when no partition filter is given (describeConfigs)."""
        return not (self.under_replicated or self.under_min_isr or self.at_min_isr or self.unavailable)

    def shows_topic(self, configs: Mapping[str, str]) -> bool:
        """`configs`: what follows "Configs:" (every entry not at its default, as the tool's ConfigEntry.isDefault)."""
        return self.topic_lines and (not self.with_overrides or bool(configs))

    def shows_partition(self, p: Partition, configs: Mapping[str, str], live: Collection[int]) -> bool:
        """`live`: the brokers in the cluster's metadata now (the tool's describeCluster)."""
        if self.with_overrides:  # topic lines only
            return False
        if self.topic_lines:
            return True
        min_isr = _min_isr(configs)
        return (
            (self.under_replicated and len(p.replicas) - len(p.isr) > 0)
            or (self.unavailable and (p.offline or p.leader not in live))
            or (self.under_min_isr and (p.offline or len(p.isr) < min_isr))
            or (self.at_min_isr and len(p.isr) == min_isr)
        )


def _min_isr(configs: Mapping[str, str]) -> int:
    # The topic's value, or the brokers' when set there (both are non-default entries); else Kafka's default.
    try:
        return int(configs.get("min.insync.replicas", DEFAULT_MIN_ISR))
    except ValueError:
        return DEFAULT_MIN_ISR
