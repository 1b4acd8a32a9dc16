"""What the console panels (producer.py, consumer.py, groups.py) share: their logs' bounds and how a failure or a
field's value is put to the user (a failure: `failure_text` in pane.py)."""

from __future__ import annotations

from kafkatop.backends.model.errors import KafkatopError

LINES_PER_BATCH = 60  # messages written per drain; the rest are counted, not drawn
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
