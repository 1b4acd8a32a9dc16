"""The topic field's completion: the last name typed is completed from the cluster's topics."""

from __future__ import annotations

import asyncio

from kafkatop.tui.live.widgets.topic_input import TopicSuggester, split_topics


def test_the_last_name_is_completed_from_the_topics() -> None:
    suggester = TopicSuggester()
    suggester.topics = ("orders", "orders-dlq", "purchases")

    def suggest(value: str) -> str | None:
        return asyncio.run(suggester.get_suggestion(value))

    assert suggest("pur") == "purchases"
    assert suggest("ord") == "orders"  # the first in order; typing on narrows it
    assert suggest("orders-") == "orders-dlq"
    assert suggest("orders") == "orders-dlq"  # a complete name still offers the longer one
    assert suggest("purchases") is None
    assert suggest("x") is None
    assert suggest("") is None
    assert suggest("orders, pur") == "orders, purchases"  # several topics: the last one
    assert suggest("orders ") is None
    assert suggest("Pur") is None  # topic names are case-sensitive


def test_several_topics_split_on_commas_and_spaces() -> None:
    assert split_topics(" orders, purchases  billing,,") == ["orders", "purchases", "billing"]
    assert split_topics(" , ") == []
