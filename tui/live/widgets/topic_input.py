"""A field for a topic name (or several) picked from the cluster's topics: typing completes a name (→ or End takes
the completion), ↓ and ↑ go through the topics, and the placeholder names them. A name not in the list can still be
typed; the console that reads it says how to create it.

An Input with a suggester rather than a Select: the list follows the cluster (topics created or deleted while the
field is shown), a cluster of hundreds of topics is searched by typing rather than scrolled, and the consumer's field
takes several names."""

from __future__ import annotations

import re
from collections.abc import Sequence

from textual.binding import Binding
from textual.suggester import Suggester

from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.tui.live.text import Input

_SEPARATORS = re.compile(r"[,\s]+")
PLACEHOLDER_TOPICS = 3  # topics named in the placeholder; the rest are counted


def split_topics(text: str) -> list[str]:
    """The names in a field of several ("orders, purchases" or "orders purchases")."""
    return [t for t in _SEPARATORS.split(text) if t]


class TopicSuggester(Suggester):
    """Completes the last name in the field from the cluster's topics."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.topics: tuple[str, ...] = ()

    async def get_suggestion(self, value: str) -> str | None:
        head, last = _last_name(value)
        if not last:
            return None
        match = next((t for t in self.topics if t.startswith(last) and t != last), None)
        return None if match is None else head + match


def _last_name(value: str) -> tuple[str, str]:
    """(everything before the last name, the last name) of the field's text."""
    found = re.search(r"[^,\s]*$", value)
    start = found.start() if found else len(value)
    return value[:start], value[start:]


class TopicInput(Input):
    """A topic field; `several` lets it hold a list, whose last name is the one completed and picked."""

    BINDINGS = [
        Binding("down", "pick(1)", "Next topic", show=False),
        Binding("up", "pick(-1)", "Previous topic", show=False),
    ]

    def __init__(self, what: str = "topic", *, several: bool = False, id: str | None = None) -> None:
        self._suggester = TopicSuggester()
        super().__init__(placeholder=what, suggester=self._suggester, id=id)
        self.what = what
        self.several = several

    @property
    def topics(self) -> tuple[str, ...]:
        return self._suggester.topics

    def follow(self, cluster: ClusterSnapshot) -> None:
        """The topics of the cluster's last poll (internal ones are not offered)."""
        self.set_topics([t.name for t in cluster.topics if not t.internal])

    def set_topics(self, topics: Sequence[str]) -> None:
        """The cluster's topics, as its last poll listed them."""
        names = tuple(sorted(topics))
        if names == self._suggester.topics:
            return
        self._suggester.topics = names
        shown = ", ".join(names[:PLACEHOLDER_TOPICS]) + (f", +{len(names) - PLACEHOLDER_TOPICS}" if len(
            names) > PLACEHOLDER_TOPICS else "")  # fmt: skip
        self.placeholder = f"{self.what} (↓: {shown})" if names else f"{self.what} (no topics yet: c creates one)"

    def action_pick(self, step: int) -> None:
        """The next (or previous) topic in place of the last name typed."""
        topics = self._suggester.topics
        if not topics:
            return
        head, last = _last_name(self.value) if self.several else ("", self.value.strip())
        if last in topics:
            name = topics[(topics.index(last) + step) % len(topics)]
        else:
            name = next((t for t in topics if t.startswith(last)), topics[0 if step > 0 else -1])
        self.value = head + name
        self.cursor_position = len(self.value)
