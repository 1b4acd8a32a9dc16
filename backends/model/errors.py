"""The typed failures of kafkatop's backends: each names what was wrong and what to do about it."""

from __future__ import annotations


class KafkatopError(Exception):
    """Base of every error a backend raises on purpose; its message is written for the user."""


class BadInput(KafkatopError):
    """What the user asked for cannot be done as asked (an option, a cluster spec): a command exits with 2."""


class SourceUnavailable(KafkatopError):
    """A data source (Kafka bootstrap, ZooKeeper, …) could not be reached or read at all."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason


class BadAddress(BadInput, SourceUnavailable):
    """An address list as given (bootstrap servers, a ZooKeeper connect string) cannot be read: bad input (exit 2),
    though still a SourceUnavailable for what catches those."""


class NotAKafkaZooKeeper(BadInput, SourceUnavailable):
    """ZooKeeper answered, but holds none of Kafka's znodes under the given chroot: the wrong --zookeeper (exit 2)."""


class PropertiesError(KafkatopError):
    """A Kafka or ZooKeeper properties file is missing, unreadable or malformed."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class MockClusterError(KafkatopError):
    """The librdkafka mock cluster could not be created or refused an operation."""


def unreadable(e: OSError, directory: str) -> str:
    """Why a file could not be read, said of the file: `directory` is what to say when it is a folder."""
    if isinstance(e, FileNotFoundError):
        return "file not found"
    if isinstance(e, IsADirectoryError):
        return directory
    return f"cannot read it ({e.strerror or e})"
