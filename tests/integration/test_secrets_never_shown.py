"""A password given in --command-config is never shown: not on stdout or stderr, not on the app's screen, not in any
file kafkatop writes (the recording, the state directory, Spark's log).

The app runs through the real composition root (`kafkatop --bootstrap-server … --command-config … --record …`) on
the librdkafka mock cluster, driven by Textual's pilot; each headless command runs with the same file. Two files hold
the canary: one whose SASL settings the mock ignores (security.protocol=PLAINTEXT: the app shows the cluster), one
the mock cannot serve (SASL_PLAINTEXT: every request fails, and the failures are shown). Everything said and written
is scanned for the canary.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.tui.cli import compose
from kafkatop.tui.cli.main import main
from kafkatop.tui.live import app as app_module
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.tabs.partitions.pane import PartitionTable
from tests.conftest import pilot_until

CANARY = "S3cr3t-Canary-7731"
TOPIC = "orders"


def command_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, protocol: str) -> Path:
    """The --command-config file of `protocol` holding the canary, in a folder of its own (not scanned); kafkatop's
    state (XDG_STATE_HOME) in tmp_path, where it is."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "config").mkdir()
    path = tmp_path / "config" / f"client-{protocol.lower()}.properties"
    path.write_text(
        f"security.protocol={protocol}\n"
        "sasl.mechanism=PLAIN\n"
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
        f'username="kafkatop" password="{CANARY}";\n'
        f"ssl.key.password={CANARY}\n"
    )
    path.chmod(0o600)  # as a secrets file should be (others reading it would be one more line, said once)
    return path


@pytest.fixture
def mock() -> Iterator[MockCluster]:
    with MockCluster(3) as cluster:
        cluster.create_topic(TOPIC, 3, 3)
        yield cluster


@pytest.fixture(params=["PLAINTEXT", "SASL_PLAINTEXT"])
def protocol(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, protocol: str) -> Path:
    return command_config(tmp_path, monkeypatch, protocol)


def files_with_canary(root: Path, skip: Path) -> list[str]:
    found = []
    for f in root.rglob("*"):
        if f.is_file() and not f.is_symlink() and f.parent != skip.parent:
            if CANARY.encode() in f.read_bytes():
                found.append(str(f))
    return found


class PilotedApp(KafkatopApp):
    """The app the composition root builds, run by Textual's pilot instead of a terminal: it shows every pane (but
    Spark's, which would start a JVM), keeps a screenshot of each, and quits."""

    CSS_PATH = str(Path(app_module.__file__).parent / "app.tcss")  # relative paths resolve beside the subclass
    screens: list[str] = []
    working = True

    def run(self, *args: Any, **kwargs: Any) -> Any:
        asyncio.run(self._drive())
        return None

    async def _drive(self) -> None:
        async with self.run_test(size=(160, 45)) as pilot:
            if PilotedApp.working:
                table = self.query_one(PartitionTable)
                await pilot_until(pilot, lambda: table.row_count == 3, "the mock's partitions on screen")
            else:
                await pilot_until(pilot, lambda: self.view.failure is not None, "a failed poll on screen")
            PilotedApp.screens.append(self.export_screenshot())
            for key in "234567913":
                await pilot.press(key)
                await pilot.pause(0.1)
                PilotedApp.screens.append(self.export_screenshot())
            await pilot.press("q")


def test_the_app_and_its_recording_never_show_the_password(
    mock: MockCluster,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    protocol: str,
    config: Path,
) -> None:
    monkeypatch.setattr(compose, "KafkatopApp", PilotedApp)
    monkeypatch.setattr(compose, "_need_terminal", lambda: None)  # Textual's pilot is the terminal here
    PilotedApp.screens = []
    PilotedApp.working = protocol == "PLAINTEXT"
    recording = tmp_path / "session.jsonl"
    code = main(
        ["--bootstrap-server", mock.bootstrap_servers, "--command-config", str(config), "--record", str(recording),
         "--state-dir", str(tmp_path / "state"), "--interval", "0.3", "--timeout", "1"]
    )  # fmt: skip
    out, err = capfd.readouterr()
    assert code == 0, err
    assert len(PilotedApp.screens) == 10
    if PilotedApp.working:
        assert "orders" in PilotedApp.screens[0]
    assert recording.stat().st_size > 0
    assert CANARY not in out and CANARY not in err
    for n, screen in enumerate(PilotedApp.screens):
        assert CANARY not in screen, f"screen {n} shows the password"
    assert files_with_canary(tmp_path, config) == []


def test_headless_commands_never_show_the_password(
    mock: MockCluster, tmp_path: Path, capfd: pytest.CaptureFixture[str], protocol: str, config: Path
) -> None:
    given = ["--bootstrap-server", mock.bootstrap_servers, "--command-config", str(config)]
    state = ["--state-dir", str(tmp_path / "state")]
    commands = [
        ["describe", *given, *state, "--timeout", "2"],
        ["describe", "--topic", TOPIC, *given, *state, "--timeout", "2"],
        ["create-topic", "new", "--partitions", "1", "--replication-factor", "1", *given, *state, "--timeout", "2"],
        ["durability", "--topic", TOPIC, "--records", "200", "--fault", "none", *given, *state, "--timeout", "3",
         "--delivery-timeout", "5"],
        ["chaos", "--topic", TOPIC, "--steps", "1", *given, *state],
        ["configs", "--topic", TOPIC, "--alter", "retention.ms=1", *given, *state, "--timeout", "2"],
    ]  # fmt: skip
    said = []
    for argv in commands:
        code = main(argv)
        out, err = capfd.readouterr()
        said.append((argv[0], code, out, err))
        assert CANARY not in out, f"{argv[0]} printed the password"
        assert CANARY not in err, f"{argv[0]} printed the password on stderr"
        assert "Traceback" not in err
    codes = {name: code for name, code, _, _ in said}
    if protocol == "PLAINTEXT":
        assert codes["describe"] == 0 and codes["durability"] == 0
    else:
        assert codes["describe"] == 1
        assert all(err.count("\n") == 1 for name, _, _, err in said if name == "describe"), said
    assert files_with_canary(tmp_path, config) == []


@pytest.mark.timeout(300)
def test_spark_counts_never_show_the_password(
    mock: MockCluster, tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a cluster the settings fail against, so the job's error (which could quote its options) is shown too."""
    config = command_config(tmp_path, monkeypatch, "SASL_PLAINTEXT")
    code = main(
        ["counts", "--topic", TOPIC, "--master", "local[1]", "--bootstrap-server", mock.bootstrap_servers,
         "--command-config", str(config), "--state-dir", str(tmp_path / "state"), "--timeout", "60"]
    )  # fmt: skip
    out, err = capfd.readouterr()
    assert code == 1, (out, err)
    assert CANARY not in out and CANARY not in err
    assert any((tmp_path / "state").rglob("*.log")), "Spark's log was written under the state directory"
    assert files_with_canary(tmp_path, config) == []
