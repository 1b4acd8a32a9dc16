"""kafka-client-metrics.sh's --describe lines (Kafka 4.1), line for line (pure): each resource's head line and its
configs as `  name=value`, in the broker's order; a resource that is not listed is said as the tool says it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def describe_lines(names: Sequence[str], described: Mapping[str, Sequence[tuple[str, str | None]]]) -> list[str]:
    lines = []
    for name in names:
        entries = described.get(name)
        if entries is None:
            lines.append(f"The client metric resource {name} doesn't exist and doesn't have dynamic config.")
            continue
        lines.append(f"Client metrics configs for {name} are:")
        lines += [f"  {config}={value if value is not None else 'null'}" for config, value in entries]
    return lines
