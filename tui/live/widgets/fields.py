"""What the console panels (producer.py, consumer.py, groups.py) share: their logs' bounds and how a failure or a
field's value is put to the user (a failure: `failure_text` in pane.py)."""

from __future__ import annotations

from kafkatop.backends.model.errors import KafkatopError

# Messages written per drain (10 a second); the rest are counted, not drawn. 200 lines a second is more than anyone
# reads, and the log's wrapping of each line was most of the UI's work at 100,000 msg/s (bench/consumer_console.py).
LINES_PER_BATCH = 20
LOG_LINES = 300  # scrollback per console; each line holds render caches the garbage collector walks


def no_topic_text(topic: str) -> str:
    """A topic the cluster does not have, and the key that creates one (the app's `c`)."""
    return f"no topic '{topic}': press c to create it"


def choice(value: object, allowed: tuple[str, ...], what: str) -> str:
    """A Select's value, checked against what the model accepts (a Select only offers those)."""
    text = str(value)
    if text not in allowed:
        raise KafkatopError(f"{what}: {text!r} is not one of {', '.join(allowed)}")
    return text
