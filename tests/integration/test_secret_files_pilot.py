"""The live view says a secrets file others can read on its screen, where a warning on stderr would be hidden behind
it: `kafkatop --bootstrap-server … --command-config FILE` with a 0644 file that holds a JAAS password, over the
librdkafka mock cluster — a notice with `chmod 600 FILE`, said once, never the password."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.tui.cli.compose import compose_app
from kafkatop.tui.cli.parser import build_parser
from tests.conftest import pilot_until

pytestmark = pytest.mark.timeout(60)

PASSWORD = "jaas-Pw-6d1e"


async def test_the_live_view_shows_a_secrets_file_others_can_read(
    mock_cluster: MockCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    client = tmp_path / "client.properties"
    jaas = f'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="{PASSWORD}";'
    client.write_text(f"security.protocol=PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config={jaas}\n")
    client.chmod(0o644)
    said = f"{client} holds sasl.jaas.config and is readable by group and others (mode 0644): `chmod 600 {client}`"
    args = build_parser().parse_args(["--bootstrap-server", mock_cluster.bootstrap_servers, "--command-config",
                                      str(client), "--state-dir", str(tmp_path / "state")])  # fmt: skip
    with ExitStack() as stack:
        app = compose_app(args, stack, terminal=False)
        assert capsys.readouterr().err == f"kafkatop: {said}\n"  # before the screen is taken, too
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot_until(pilot, lambda: app.view.cluster is not None, "the cluster polled")
            notices = [n.message for n in app._notifications]  # noqa: SLF001 - what the screen shows as notices
            assert notices.count(said) == 1 and not [n for n in notices if PASSWORD in n]
