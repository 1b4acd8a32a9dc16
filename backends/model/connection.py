"""One cluster connection: the bootstrap servers, parsed once, and the client settings given with them (security, from
`--command-config` as Kafka's own tools take it). Every Kafka client kafkatop makes builds its configuration here, and
every message that could quote a setting is redacted here (standard library only)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kafkatop.backends.model.addresses import parse_host_ports

DEFAULT_PORT = 9092
# librdkafka logs (connection refused, broker down, …) go here instead of stderr, which the TUI owns.
LIBRDKAFKA_LOGGER = logging.getLogger("kafkatop.librdkafka")
LIBRDKAFKA_LOGGER.addHandler(logging.NullHandler())
LIBRDKAFKA_LOGGER.propagate = False

_SECRET_WORDS = ("password", "secret", "jaas", "token", "key")


def redact(text: str, config: Mapping[str, Any]) -> str:
    """`text` with the values of secret-looking settings (passwords, keys, JAAS configs) replaced by ***."""
    for k, v in config.items():
        if isinstance(v, str) and v and any(w in k.lower() for w in _SECRET_WORDS):
            text = text.replace(v, "***")
    return text


@dataclass(frozen=True, slots=True)
class KafkaConnection:
    """Where a cluster is and how to talk to it.

    Made once (`parse`), by the command line, and handed to every adapter.
    """

    bootstrap_servers: str  # as given, e.g. "127.0.0.1:9092,127.0.0.1:9093"
    addresses: tuple[tuple[str, int], ...]  # parsed: ((host, port), …)
    # client properties, e.g. security.protocol, sasl.*: never in a repr (a traceback, a log line), they hold passwords
    settings: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    # Where the address came from, for a message that asks to check it: "--bootstrap-server", or "bootstrap-server
    # of context 'staging' in ~/.config/kafkatop/config.toml"; "" when neither (a lab's own, the demo's).
    origin: str = field(default="", compare=False)

    @classmethod
    def parse(
        cls, bootstrap_servers: str, settings: Mapping[str, str] | None = None, *, origin: str = ""
    ) -> KafkaConnection:
        """SourceUnavailable names what cannot be read in `bootstrap_servers`. `bootstrap.servers` in `settings` is
        overridden by `bootstrap_servers`, as --bootstrap-server overrides it in Kafka's tools."""
        text = bootstrap_servers.strip()
        addresses = parse_host_ports(text, DEFAULT_PORT, source="kafka", what="bootstrap server list")
        kept = tuple(sorted((k, v) for k, v in (settings or {}).items() if k != "bootstrap.servers"))
        return cls(text, addresses, kept, origin)

    @property
    def check_address(self) -> str:
        """The sentence that ends a message when no broker answered: what to check, named where it was given."""
        return f"Check that a broker listens there and that {self.origin or 'the address'} is right."

    @property
    def client_settings(self) -> dict[str, str]:
        return dict(self.settings)

    def config(self, client_id: str = "kafkatop") -> dict[str, Any]:
        """A librdkafka configuration: the settings, the bootstrap servers, a client id (unless the settings name
        one), and kafkatop's logger, so librdkafka never writes onto the terminal."""
        config: dict[str, Any] = dict(self.settings)
        config["bootstrap.servers"] = self.bootstrap_servers
        config.setdefault("client.id", client_id)
        config["logger"] = LIBRDKAFKA_LOGGER
        return config

    def redact(self, text: str) -> str:
        """`text` with every secret-looking setting's value replaced by ***."""
        return redact(text, dict(self.settings))

    def __str__(self) -> str:
        return self.bootstrap_servers
