"""The Configs screen (C) at 80x24 and 120x36, from configs a real Kafka 4.1 described (tests/fixtures/configs.py):
a topic's with two values set on it, a broker's with a sensitive one, and Kafka's refusal of an edit as it answered
it. Fixed data and size, no clock, no network."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest
from textual.widgets import Input

from kafkatop.backends.model.configs import ConfigRefused, ConfigResource, ResourceConfigs
from kafkatop.backends.protocol.configs import decode_incremental_alter_configs
from kafkatop.backends.protocol.wire import response_reader
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.screens.config_table import ConfigTable
from kafkatop.tui.live.screens.configs import ConfigsScreen
from kafkatop.tui.live.sources import Sources
from tests.conftest import pilot_until
from tests.fixtures.configs import payload, recorded_configs
from tests.fixtures.snapshots import TAKEN_AT, RecordedControl, kraft_lab, zk_lab
from tests.snapshots.test_app_snapshots import FROZEN, settled

SIZES = {"80x24": (80, 24), "120x36": (120, 36)}


class RecordedConfigAdmin:
    """A TEST DOUBLE of the ConfigAdmin port: describes what a real Kafka 4.1 described (recorded), and refuses every
    change with the refusal Kafka gave to cleanup.policy=bogus (recorded too)."""

    def describe(
        self, resource: ConfigResource, expect: tuple[Mapping[str, str], Sequence[str]] | None = None
    ) -> ResourceConfigs:
        return recorded_configs(resource)

    def alter(self, resource: ConfigResource, to_set: Mapping[str, str], to_delete: Sequence[str]) -> None:
        version, flexible, raw = payload("alter_refused_v1")
        code, message = decode_incremental_alter_configs(response_reader(raw, flexible=flexible), version)
        assert code == 40
        raise ConfigRefused(f"Kafka refused the change to {resource}: INVALID_CONFIG: {message}. Nothing was changed.")

    def close(self) -> None:
        pass


def lab_app() -> KafkatopApp:
    cluster, nodes, quorum = kraft_lab()
    cluster = replace(cluster, topics=zk_lab()[0].topics[:1])  # purchases: the recorded configs' topic
    sources = Sources(lambda: cluster, RecordedControl(nodes), lambda: quorum, configs=RecordedConfigAdmin())
    return KafkatopApp(sources, FROZEN, clock=lambda: TAKEN_AT)


def configs_of(*keys: str, then: Sequence[str] = (), typed: str = "") -> Callable[[Any], Awaitable[None]]:
    """Keys to the Configs screen, wait for its entries, then more keys (and text typed into the focused field)."""

    async def run(pilot: Any) -> None:
        await settled(pilot)
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        await pilot_until(pilot, lambda: isinstance(pilot.app.screen, ConfigsScreen), "the Configs screen")
        await pilot_until(pilot, lambda: pilot.app.screen.query_one(ConfigTable).row_count > 0, "the entries")
        for key in then:
            await pilot.press(key)
            await pilot.pause()
        if typed:
            await pilot.press(*typed, "enter")
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False  # a blinking cursor would make the screenshot depend on the moment
        await pilot.pause()

    return run


@pytest.mark.parametrize("size", list(SIZES))
def test_a_topics_configs(snap_compare: Any, size: str) -> None:
    assert snap_compare(lab_app(), terminal_size=SIZES[size], run_before=configs_of("1", "C", then=("j", "j")))


@pytest.mark.parametrize("size", list(SIZES))
def test_kafkas_refusal_in_the_screen_keeps_what_was_typed(snap_compare: Any, size: str) -> None:
    # Filtered to cleanup.policy, edited to a value Kafka refuses.
    edit = ("slash", *"cleanup", "enter", "enter", "ctrl+u")
    assert snap_compare(lab_app(), terminal_size=SIZES[size], run_before=configs_of("1", "C", then=edit, typed="bogus"))


@pytest.mark.parametrize("size", list(SIZES))
def test_a_brokers_configs_with_a_sensitive_value_masked(snap_compare: Any, size: str) -> None:
    # Broker 1 from the process table; only the values set on it (o): the sensitive one among them.
    assert snap_compare(lab_app(), terminal_size=SIZES[size], run_before=configs_of("0", "C", then=("o",)))
