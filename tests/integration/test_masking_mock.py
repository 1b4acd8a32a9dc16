"""A context's mask (backends/model/masking.py) on librdkafka's mock cluster, real records over real sockets: `consume
--json` and its text show no card number, SSN or token, with a `masked` marker per record; the browser's search does
not find a masked value (and finds the mask); its pages and the consumer console show `[masked]`; `show-records =
false` hides every payload. The parsing and the fail-closed rules: tests/unit/test_masking.py."""

from __future__ import annotations

import json
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from confluent_kafka import Producer
from textual.widgets import DataTable

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.kafka.records.browser import MessageBrowser
from kafkatop.backends.kafka.records.consoles import Consoles
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.masking import parse_mask
from kafkatop.backends.model.messages import SearchRequest, Seek
from kafkatop.tui.cli.compose import compose_app
from kafkatop.tui.cli.contexts import apply_context
from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.parser import build_parser
from kafkatop.tui.live.tabs.messages.pane import MessagesPane
from kafkatop.tui.live.tabs.partitions.pane import PartitionTable
from tests.conftest import pilot_until

CARD = "4111111111111111"
RULES = [".card.number", "key.ssn", "headers.authorization", "~ /\\b\\d{16}\\b/"]


@pytest.fixture
def topic(mock_cluster: MockCluster) -> str:
    mock_cluster.create_topic("pay", 1, 1)
    producer = Producer({"bootstrap.servers": mock_cluster.bootstrap_servers})
    for i in range(3):
        value = json.dumps({"card": {"number": CARD, "exp": "12/29"}, "note": f"paid {i} with {CARD}"})
        producer.produce("pay", key=json.dumps({"ssn": "123-45-6789"}), value=value,
                         headers=[("Authorization", b"Bearer s3cr3t"), ("trace", b"t-1")])  # fmt: skip
    producer.produce("pay", key=b"k", value=f"plain text {CARD}".encode())
    assert producer.flush(10) == 0
    return "pay"


def context(tmp_path: Path, bootstrap: str, extra: str) -> None:
    (tmp_path / "kafkatop.toml").write_text(
        f'[contexts.pay]\nbootstrap-server = "{bootstrap}"\nmask = {json.dumps(RULES)}\n{extra}', encoding="utf-8"
    )


def test_consume_shows_no_masked_value(mock_cluster: MockCluster, topic: str, isolated: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    context(isolated, mock_cluster.bootstrap_servers, "")
    assert main(["consume", "--context", "pay", "--topic", topic, "--from-beginning", "--json"]) == 0
    out = capsys.readouterr().out
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == 4 and CARD not in out and "123-45-6789" not in out and "s3cr3t" not in out
    first = lines[0]
    assert json.loads(first["payload"]) == {
        "card": {"number": "[masked]", "exp": "12/29"},
        "note": "paid 0 with [masked]",
    }
    assert json.loads(first["key"]) == {"ssn": "[masked]"}
    assert first["headers"] == ["Authorization", "[masked]", "trace", "t-1"]
    assert first["masked"] == ["key", "value", "headers"]
    # A path into a key or value that is not JSON cannot be followed: the field is masked whole (fail closed).
    assert (lines[3]["key"], lines[3]["payload"], lines[3]["masked"]) == ("[masked]", "[masked]", ["key", "value"])
    assert main(["consume", "--context", "pay", "--topic", topic, "--from-beginning"]) == 0
    text = capsys.readouterr().out
    assert CARD not in text and "[masked]" in text


def test_show_records_false_hides_every_payload(mock_cluster: MockCluster, topic: str, isolated: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    context(isolated, mock_cluster.bootstrap_servers, "show-records = false\n")
    assert main(["consume", "--context", "pay", "--topic", topic, "--from-beginning", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {(r["key"], r["payload"]) for r in lines} == {("[hidden: show-records = false]",) * 2}


def test_the_browser_and_the_console_see_only_the_mask(mock_cluster: MockCluster, topic: str) -> None:
    connection = KafkaConnection.parse(mock_cluster.bootstrap_servers)
    rules = parse_mask(RULES, True, "test")
    browser = MessageBrowser(connection, mask=rules)
    try:
        page = browser.page(topic, 0, Seek.offset(0))
        assert all(CARD.encode() not in (r.value or b"") for r in page.records) and len(page.records) == 4
        unmasked = MessageBrowser(connection).search(SearchRequest(topic, CARD), lambda _: None, lambda: False)
        assert unmasked.matches == 4  # what a context without a mask finds
        found = browser.search(SearchRequest(topic, CARD), lambda _: None, lambda: False)
        assert (found.matches, found.done) == (0, True)  # a masked value is never found
        assert browser.search(SearchRequest(topic, "s3cr3t"), lambda _: None, lambda: False).matches == 0
        assert browser.search(SearchRequest(topic, "[masked]"), lambda _: None, lambda: False).matches == 4
    finally:
        browser.close()
    consoles = Consoles(connection, rules)
    try:
        consoles.start_consumer([topic], None, from_beginning=True)
        deadline, seen = time.monotonic() + 20, []
        while len(seen) < 4 and time.monotonic() < deadline:
            activity = consoles.drain()
            seen += list(activity.received) if activity is not None else []
            time.sleep(0.2)
        assert len(seen) == 4 and all(CARD not in r.value and "[masked]" in r.value for r in seen)
    finally:
        consoles.close()


async def test_the_live_view_shows_and_finds_only_the_mask(mock_cluster: MockCluster, topic: str,
                                                            isolated: Path) -> None:  # fmt: skip
    context(isolated, mock_cluster.bootstrap_servers, "")
    args = build_parser().parse_args(["--context", "pay", "--interval", "0.5"])
    apply_context(args)
    with ExitStack() as stack:
        app = compose_app(args, stack, terminal=False)
        async with app.run_test(size=(160, 45)) as pilot:
            table = app.query_one(PartitionTable)
            await pilot_until(pilot, lambda: table.row_count == 1, "the partition")
            await pilot.press("b")
            panel = app.query_one(MessagesPane)
            await pilot_until(pilot, lambda: panel.page is not None, "the first page")
            assert panel.page is not None and len(panel.page.records) == 4
            rows = app.query_one("#message-table", DataTable)
            shown = " ".join(str(cell) for key in rows.rows for cell in rows.get_row(key))
            assert CARD not in shown and "[masked]" in shown
            await pilot.press("f")
            for key in CARD:
                await pilot.press(key)
            await pilot.press("enter")
            await pilot_until(pilot, lambda: panel.results is not None and panel.results.done, "the search's end")
            assert panel.results is not None and (panel.results.matches, panel.results.scanned) == (0, 4)
            status = str(panel.query_one("#browse-status").render())
            assert "0 matches" in status and status.endswith("· masked: value.card.number, key.ssn, "
                                                              "headers.authorization, ~ /\\b\\d{16}\\b/")  # fmt: skip
