"""`kafka-configs.sh --describe` and `--alter` of a resource's configs, line for line (Kafka 4.1's ConfigCommand), so
a lab's instructions carry over; and the JSON of `kafkatop configs --json`. Pure: model only."""

from __future__ import annotations

from kafkatop.backends.model.codec import JSON, encode
from kafkatop.backends.model.configs import ConfigEntry, ConfigResource, ResourceConfigs


def shown_entries(configs: ResourceConfigs, all_entries: bool) -> tuple[ConfigEntry, ...]:
    """What kafka-configs lists: every entry with --all, else those set on the resource itself, by name."""
    return configs.entries if all_entries else configs.overrides


def _value(value: str | None) -> str:
    return "null" if value is None else value  # Java prints a null value so: a sensitive one among them


def describe_header(resource: ConfigResource, all_entries: bool) -> str:
    if resource.kind == "broker-defaults":
        return "Default configs for brokers in the cluster are:"
    return f"{'All' if all_entries else 'Dynamic'} configs for {resource.kind} {resource.name} are:"


def format_configs(configs: ResourceConfigs, all_entries: bool = False) -> str:
    """The output of `kafka-configs.sh --describe [--all]` for one resource, without a trailing newline."""
    lines = [describe_header(configs.resource, all_entries)]
    for e in shown_entries(configs, all_entries):
        synonyms = ", ".join(f"{s.source.value}:{s.name}={_value(s.value)}" for s in e.synonyms)
        sensitive = "true" if e.is_sensitive else "false"
        # A sensitive value never reaches the model (Kafka sends null): printed as null, as Kafka's tool does.
        value = None if e.is_sensitive else e.value
        lines.append(f"  {e.name}={_value(value)} sensitive={sensitive} synonyms={{{synonyms}}}")
    return "\n".join(lines)


def altered_line(resource: ConfigResource) -> str:
    """What kafka-configs prints once a change is made."""
    if resource.kind == "broker-defaults":
        return "Completed updating default config for brokers in the cluster."
    return f"Completed updating config for {resource.kind} {resource.name}."


def configs_json(configs: ResourceConfigs, all_entries: bool = False) -> dict[str, JSON]:
    """`kafkatop configs --json`: {"resource": {"kind", "name"}, "entries": [{"name", "value", "source",
    "is_sensitive", "is_read_only", "synonyms": [{"name", "value", "source"}], "type"}]}, the entries the text shows."""
    return {
        "resource": encode(configs.resource, ConfigResource),
        "entries": encode(shown_entries(configs, all_entries), tuple[ConfigEntry, ...]),
    }
