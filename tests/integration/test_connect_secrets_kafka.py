"""Secrets of a connector on a real Kafka Connect 4.1 worker (a lab: one KRaft node, one worker, `up --connect 1`):
MirrorMaker 2's MirrorSourceConnector, which Kafka ships, declares `ssl.truststore.certificates` a PASSWORD — a name
that does not say so, which only the plugin's definitions tell (`GET /connector-plugins/CLASS/config`). Created with
it (alone, and under MirrorMaker's `source.cluster.` prefix) and with a `connection.password`, the connector is shown
by `kafkatop connect list --json` with each of the three hidden, and the live view attached to the lab records a
session that holds none of them — while the worker, asked directly, still has them as given.

Set KAFKA_HOME to run it (skipped without); KAFKATOP_TEST_BASE_PORT picks the first of the ports it binds (base, +4
the controller port, +10 the worker's REST port), else a free block. Every process is stopped by its recorded pid."""

from __future__ import annotations

import gzip
import json
import os
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from kafkatop.backends.connect.masking import HIDDEN_NOTE
from kafkatop.tui.cli.compose import compose_app
from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.parser import build_parser
from tests.conftest import pilot_until, wait_for
from tests.integration.test_supervisor import Clusters, free_port_block

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(300)]

_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))
DECLARED = "certs-Pw-5e1f"  # ssl.truststore.certificates: a PASSWORD by the plugin's definitions only
PREFIXED = "prefixed-Pw-a7c3"  # source.cluster.ssl.truststore.certificates: the same, under MirrorMaker's prefix
NAMED = "conn-Pw-90d2"  # connection.password: its name says so
SECRETS = (DECLARED, PREFIXED, NAMED)


def rest(url: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST",
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    with _NO_PROXY.open(request, timeout=30) as answer:
        return json.loads(answer.read())


async def test_a_real_plugins_password_settings_are_hidden_shown_and_recorded(
    clusters: Clusters, kafka_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    base = int(os.environ.get("KAFKATOP_TEST_BASE_PORT", "0")) or free_port_block(12)
    cluster = clusters.make(kafka_home, name="sec", mode="kraft", brokers=1, controllers=0, connect=1, heap="256m",
                            base_port=base, controller_port=base + 4, zookeeper_port=base + 8,
                            connect_port=base + 10)  # fmt: skip
    snap = cluster.up(timeout_s=150)
    (url,) = cluster.connect_urls
    definitions = rest(f"{url}/connector-plugins/MirrorSourceConnector/config")
    assert {"name": "ssl.truststore.certificates", "type": "PASSWORD"}.items() <= next(
        d for d in definitions if d["name"] == "ssl.truststore.certificates"
    ).items()  # what the test stands on: Kafka 4.1's plugin declares it so
    config = {"connector.class": "MirrorSourceConnector", "source.cluster.alias": "a", "target.cluster.alias": "b",
              "source.cluster.bootstrap.servers": snap.bootstrap_servers,
              "target.cluster.bootstrap.servers": snap.bootstrap_servers, "topics": "nothing-here",
              "ssl.truststore.certificates": DECLARED, "source.cluster.ssl.truststore.certificates": PREFIXED,
              "connection.password": NAMED}  # fmt: skip
    rest(f"{url}/connectors", {"name": "mirror", "config": config})
    wait_for(lambda: "mirror" in rest(f"{url}/connectors?expand=status&expand=info"), timeout_s=30,
             what="the connector listed")  # fmt: skip
    assert rest(f"{url}/connectors/mirror/config")["ssl.truststore.certificates"] == DECLARED  # kept as given
    lab = ["--name", "sec", "--state-dir", str(tmp_path / "state")]

    assert main(["connect", "list", "--json", *lab]) == 0
    out, err = capsys.readouterr()
    shown = json.loads(out)["mirror"]["info"]["config"]
    assert [shown[k] for k in ("ssl.truststore.certificates", "source.cluster.ssl.truststore.certificates",
                               "connection.password")] == ["[hidden]"] * 3  # fmt: skip
    assert shown["source.cluster.alias"] == "a" and not [s for s in SECRETS if s in out + err]
    assert HIDDEN_NOTE in err

    record = tmp_path / "lab.jsonl.gz"
    args = build_parser().parse_args([*lab, "--record", str(record), "--interval", "0.5",
                                      "--kafka-home", str(kafka_home)])  # fmt: skip
    with ExitStack() as stack:
        app = compose_app(args, stack, terminal=False)
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot_until(pilot, lambda: app.view.connect is not None and app.view.connect.connector("mirror")
                              is not None, "the connector polled", timeout_s=60)  # fmt: skip
    text = gzip.decompress(record.read_bytes()).decode("utf-8")
    assert [s for s in SECRETS if s in text] == []
    assert '"mirror"' in text and "[hidden]" in text
