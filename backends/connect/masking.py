"""The workers' answers with every secret hidden, before anything else reads them (pure: no I/O).

Connect answers a connector's config as it was given: `GET /connectors?expand=info`, `GET /connectors/NAME` and the
answer to a create hold its passwords in the clear. The client (client.py) passes every such answer through here, so
that the snapshot, its REST answer (`Connector.raw`), the Connect tab, `kafkatop connect … --json` and a recording
never hold one: a value is HIDDEN when its plugin declares the setting a PASSWORD (`GET /connector-plugins/CLASS/
config`, asked once per plugin: `PasswordKeys`), or its name names a secret (backends/model/secrets.py), or, while the
plugin's definitions are not known, unless it is one of Connect's own settings, which hold none. A secret found so is
also taken out of the connector's traces, where a failing task may quote it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kafkatop.backends.model.secrets import HIDDEN, is_reference, names_a_secret

PASSWORD = "PASSWORD"  # a setting's type in the plugins' definitions (ConfigDef.Type.PASSWORD)
# Connect's own settings of every connector (ConnectorConfig, SinkConnectorConfig, SourceConnectorConfig): none is a
# secret, and the views read some of them (the topics). The rest are hidden while a plugin's definitions are unknown.
CONNECT_SETTINGS = frozenset({
    "name", "connector.class", "connector.plugin.version", "tasks.max", "tasks.max.enforce", "key.converter",
    "value.converter", "header.converter", "config.action.reload", "transforms", "predicates", "errors.retry.timeout",
    "errors.retry.delay.max.ms", "errors.tolerance", "errors.log.enable", "errors.log.include.messages", "topics",
    "topics.regex", "topic", "errors.deadletterqueue.topic.name", "errors.deadletterqueue.topic.replication.factor",
    "errors.deadletterqueue.context.headers.enable", "exactly.once.support", "transaction.boundary",
    "offsets.storage.topic", "topic.creation.groups",
})  # fmt: skip
# Said beside an answer that shows one.
HIDDEN_NOTE = (f"values shown as {HIDDEN} are hidden by kafkatop as secrets: settings their plugin declares a "
               "PASSWORD, or whose name says they are one (and, while a plugin's settings cannot be read, all but "
               "Connect's own); the workers keep them as given")  # fmt: skip
SHORTEST_SCRUBBED = 4  # a secret this long or longer is taken out of traces too; a shorter one would take out words


@dataclass(frozen=True, slots=True)
class PasswordKeys:
    """The settings a plugin declares PASSWORD, or `known=False` when its definitions could not be read."""

    names: frozenset[str] = frozenset()
    known: bool = True

    def declares(self, key: str) -> bool:
        """Whether `key` is one of them, alone or under a prefix (`source.cluster.ssl.key.password`,
        `producer.override.sasl.jaas.config`: MirrorMaker's and the client overrides' own)."""
        if key in self.names:
            return True
        parts = key.split(".")
        return any(".".join(parts[i:]) in self.names for i in range(1, len(parts)))


UNKNOWN = PasswordKeys(known=False)


def password_keys_of(body: object) -> PasswordKeys:
    """`GET /connector-plugins/CLASS/config`: [{"name", "type", …}], as the names whose type is PASSWORD."""
    return PasswordKeys(_password_names(body)) if isinstance(body, list) else UNKNOWN


def _password_names(definitions: Iterable[object]) -> frozenset[str]:
    return frozenset(str(d.get("name")) for d in definitions if isinstance(d, Mapping) and d.get("type") == PASSWORD)


def is_hidden(key: str, value: object, passwords: PasswordKeys) -> bool:
    """Whether the value of `key` is hidden: never an empty one, nor a config provider's reference."""
    if value is None or value == "" or (isinstance(value, str) and is_reference(value)):
        return False
    if names_a_secret(key) or passwords.declares(key):
        return True
    return not passwords.known and key not in CONNECT_SETTINGS


def masked_config(config: Mapping[str, Any], passwords: PasswordKeys) -> dict[str, Any]:
    """The config, its order kept, every secret's value HIDDEN."""
    return {k: HIDDEN if is_hidden(str(k), v, passwords) else v for k, v in config.items()}


def secrets_in(config: Mapping[str, Any], passwords: PasswordKeys) -> tuple[str, ...]:
    """The values hidden from `config`, longest first (one that holds another is taken out whole)."""
    found = {str(v) for k, v in config.items() if is_hidden(str(k), v, passwords) and str(v) != HIDDEN}
    return tuple(sorted(found, key=len, reverse=True))


def scrubbed(text: str, secrets: Iterable[str]) -> str:
    """`text` with each secret in it replaced by HIDDEN (one shorter than SHORTEST_SCRUBBED is left)."""
    for secret in secrets:
        if len(secret) >= SHORTEST_SCRUBBED:
            text = text.replace(secret, HIDDEN)
    return text


def masked_info(body: Any, passwords: PasswordKeys) -> Any:
    """`GET /connectors/NAME` or a create's answer ({"name", "config", "tasks", "type"}), its config masked."""
    if not isinstance(body, Mapping) or not isinstance(body.get("config"), Mapping):
        return body
    return {**body, "config": masked_config(body["config"], passwords)}


def masked_entry(entry: Any, passwords: PasswordKeys) -> Any:
    """One connector of `GET /connectors?expand=status&expand=info`: its config masked, its traces scrubbed."""
    if not isinstance(entry, Mapping):
        return entry
    info = entry.get("info")
    config = info.get("config") if isinstance(info, Mapping) else None
    if not isinstance(config, Mapping):
        return entry
    out = {**entry, "info": masked_info(info, passwords)}
    secrets = secrets_in(config, passwords)
    status = entry.get("status")
    if secrets and isinstance(status, Mapping):
        out["status"] = scrubbed_status(status, secrets)
    return out


def has_trace(status: Any) -> bool:
    """Whether a status answer (`GET /connectors/NAME/status`) holds a trace: the connector's, or a task's."""
    if not isinstance(status, Mapping):
        return False
    parts = [status.get("connector"), *(status.get("tasks") or ())]
    return any(isinstance(p, Mapping) and isinstance(p.get("trace"), str) for p in parts)


def scrubbed_status(status: Mapping[str, Any], secrets: tuple[str, ...]) -> dict[str, Any]:
    """A status answer with each secret taken out of its traces."""

    def scrub(part: object) -> object:
        if isinstance(part, Mapping) and isinstance(part.get("trace"), str):
            return {**part, "trace": scrubbed(part["trace"], secrets)}
        return part

    tasks = status.get("tasks")
    out = {**status, "connector": scrub(status.get("connector"))}
    if isinstance(tasks, list):
        out["tasks"] = [scrub(t) for t in tasks]
    return out


def class_of(entry: Any) -> str:
    """The connector.class of an expanded entry's (or an info answer's) config; "" when it has none."""
    info = entry.get("info", entry) if isinstance(entry, Mapping) else None
    config = info.get("config") if isinstance(info, Mapping) else None
    value = config.get("connector.class") if isinstance(config, Mapping) else None
    return value.strip() if isinstance(value, str) else ""


def masked_connectors(body: Mapping[str, Any], passwords_of: Callable[[str], PasswordKeys]) -> dict[str, Any]:
    """`GET /connectors?expand=status&expand=info`, each connector masked by its plugin's PASSWORD settings."""
    return {name: masked_entry(entry, passwords_of(class_of(entry))) for name, entry in body.items()}


def masked_validation(body: Any) -> Any:
    """`PUT /connector-plugins/CLASS/config/validate`: each config's value masked by its definition's type (Connect
    shows a PASSWORD as [hidden] itself) or its name, and the secrets taken out of the errors."""
    if not isinstance(body, Mapping) or not isinstance(body.get("configs"), list):
        return body
    declared = PasswordKeys(_password_names(c.get("definition") for c in body["configs"] if isinstance(c, Mapping)))
    values = {str(v.get("name")): v.get("value") for v in _values(body["configs"])}
    secrets = secrets_in(values, declared)
    return {**body, "configs": [_masked_field(c, declared, secrets) for c in body["configs"]]}


def _values(configs: list[Any]) -> Iterable[Mapping[str, Any]]:
    return (c["value"] for c in configs if isinstance(c, Mapping) and isinstance(c.get("value"), Mapping))


def _masked_field(field: Any, declared: PasswordKeys, secrets: tuple[str, ...]) -> Any:
    value = field.get("value") if isinstance(field, Mapping) else None
    if not isinstance(value, Mapping):
        return field
    name = str(value.get("name"))
    shown = HIDDEN if is_hidden(name, value.get("value"), declared) else value.get("value")
    errors = [scrubbed(e, secrets) if isinstance(e, str) else e for e in value.get("errors") or ()]
    return {**field, "value": {**value, "value": shown, "errors": errors}}


def masked_definitions(body: Any) -> Any:
    """`GET /connector-plugins/CLASS/config`: a PASSWORD setting's default hidden, as Connect hides its value."""
    if not isinstance(body, list):
        return body
    return [
        {**d, "default_value": HIDDEN}
        if isinstance(d, Mapping) and d.get("type") == PASSWORD and d.get("default_value") not in (None, "")
        else d
        for d in body
    ]
