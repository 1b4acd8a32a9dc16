"""Bad input, listed: the command line, kafkatop.toml, --command-config files, Kafka installs that are not, taken
ports, a ZooKeeper that is not Kafka's, and the app's dialogs. Each is refused with a message that says what was
wrong and what to do, exit status 2 (or the dialog stays open with the message), no traceback, and nothing changed:
no state directory, no topic, the typed text kept."""

from __future__ import annotations

import os
import pty
import select
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kazoo.client import KazooClient
from textual.widgets import Input, Select, Static

from kafkatop.backends.demo.cluster import DemoCluster
from kafkatop.backends.demo.node_control import DemoControl
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.kafka.records.consoles import Consoles
from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.kafka_homes import open_install
from kafkatop.backends.lab.spec import ClusterSpec
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.screens.create_topic import CreateTopicScreen
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.groups.reset_offsets import ResetPreviewScreen
from tests.conftest import pilot_until
from tests.fixtures.demo import demo_with_consoles
from tests.fixtures.standin_install import make_standin_install
from tests.integration.test_supervisor import free_port_block

LONG_NAME = "a" * 250
CREATE = ["--partitions", "1", "--replication-factor", "1"]
NOT_TOML = "[cluster\n"


def kafkatop(
    *argv: str, cwd: Path, env: dict[str, str] | None = None, timeout_s: float = 60.0, **kw: Any
) -> subprocess.CompletedProcess[str]:
    """`kafkatop ARGV` in a child process run in `cwd`, its state (XDG_STATE_HOME) under it, no KAFKA_HOME."""
    run_env = {k: v for k, v in os.environ.items() if k not in ("KAFKA_HOME", "XDG_STATE_HOME")}
    run_env["XDG_STATE_HOME"] = str(cwd / "xdg")  # where a lab cluster's state would be written
    run_env.update(env or {})
    kw.setdefault("stdin", subprocess.DEVNULL)
    return subprocess.run(
        [sys.executable, "-m", "kafkatop.tui.cli", *argv],
        cwd=cwd, env=run_env, capture_output="stdout" not in kw, text=True, timeout=timeout_s, **kw,
    )  # fmt: skip


def kafkatop_typed(answer: str, *argv: str, cwd: Path) -> tuple[int, str, str]:
    """kafkatop with a terminal for stdin and stderr, `answer` typed: (exit status, stdout, the terminal's text)."""
    leader, follower = pty.openpty()
    try:
        os.write(leader, f"{answer}\n".encode())
        done = kafkatop(*argv, cwd=cwd, stdin=follower, stdout=subprocess.PIPE, stderr=follower)
        shown = b""
        while select.select([leader], [], [], 0.2)[0]:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(follower)
        os.close(leader)
    return done.returncode, done.stdout, shown.decode(errors="replace")


def assert_refused(result: subprocess.CompletedProcess[str], says: str) -> None:
    out = (result.stdout or "") + result.stderr
    assert result.returncode == 2, out
    assert says in result.stderr, result.stderr
    assert "Traceback" not in out


def refusal_line(result: subprocess.CompletedProcess[str]) -> str:
    """The one line of a refusal (exit 2, nothing on stdout, no traceback) that starts with `kafkatop`."""
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    [line] = [line for line in result.stderr.splitlines() if line.startswith("kafkatop")]
    return line


def listing(root: Path) -> dict[str, float]:
    return {str(p.relative_to(root)): p.stat().st_mtime for p in sorted(root.rglob("*"))}


# --- the command line, kafkatop.toml, --command-config, installs ---------------------------------------------------
# (argv, files written in the working folder first, environment, what stderr must say)
CLI: list[Any] = [
    # empty values
    (["--bootstrap-server", "", "describe"], {}, {}, "argument --bootstrap-server: empty; give HOST:PORT"),
    (["describe", "--bootstrap-server", ""], {}, {}, "argument --bootstrap-server: empty; give HOST:PORT"),
    (["describe", "--topic", ""], {}, {}, "argument --topic: empty; give a topic name"),
    (["up", "--name", ""], {}, {}, "argument --name: empty; give a cluster name"),
    (["status", "--state-dir", " "], {}, {}, "argument --state-dir: empty; give a folder"),
    (["--kafka-home", ""], {}, {}, "argument --kafka-home: empty; give a Kafka install folder"),
    (["create-topic", "", *CREATE], {}, {}, "argument NAME: empty; give a topic name"),
    # addresses
    (
        ["describe", "--bootstrap-server", "127.0.0.1:x"],
        {},
        {},
        "cannot read '127.0.0.1:x' in the bootstrap server list '127.0.0.1:x': give HOST:PORT",
    ),
    (["--bootstrap-server", "127.0.0.1:70000"], {}, {}, "cannot read '127.0.0.1:70000' in the bootstrap server list"),
    (["describe", "--zookeeper", "zk:two"], {}, {}, "cannot read 'zk:two' in the ZooKeeper connect string"),
    (["kill", "2", "--zookeeper", "127.0.0.1:99999/kafka"], {}, {}, "cannot read '127.0.0.1:99999'"),
    # before and after the command
    (
        ["--bootstrap-server", "127.0.0.1:1", "describe", "--bootstrap-server", "127.0.0.1:2"],
        {},
        {},
        "--bootstrap-server given twice with different values: '127.0.0.1:1' before `describe`, '127.0.0.1:2' after",
    ),
    (["--demo", "describe"], {}, {}, "--demo has no meaning for `describe`: leave it out"),
    (
        ["--topic", "t"],
        {},
        {},
        "--topic is an option of acls, add-partitions, chaos, configs, consume, counts, create-topic, describe, "
        "durability, elect-leaders, get-offsets, groups, lag, produce, reassign, share-groups, topics, transactions, "
        "not of the live view: give the command, e.g. `kafkatop topics --topic …`",
    ),
    (
        ["--config", "retention.ms=1", "create-topic", "t", *CREATE],
        {},
        {},
        "--config before `create-topic` is the cluster spec, which `create-topic` does not take",
    ),
    (["create-topic", "a", "--topic", "b", *CREATE], {}, {}, "two topics: 'a' and --topic 'b'; give one"),
    (["create-topic", *CREATE], {}, {}, "--topic is required (or the topic's name after create-topic)"),
    (["durability"], {}, {}, "durability needs --topic NAME"),
    (["durability", "--connect", "--topic", "t"], {}, {}, "--topic: not with --connect"),
    # numbers
    (["--timeout", "-1", "--demo"], {}, {}, "argument --timeout: expected a number of seconds above 0; not '-1'"),
    (["--interval", "0"], {}, {}, "argument --interval: expected a number of seconds above 0; not '0'"),
    (["--interval", "soon"], {}, {}, "argument --interval: expected a number of seconds above 0; not 'soon'"),
    (["up", "--brokers", "0"], {}, {}, "argument --brokers: expected a count, 1 or more; not 0"),
    (["up", "--base-port", "70000"], {}, {}, "argument --base-port: expected a port, from 1 to 65535; not 70000"),
    (["--base-port", "0"], {}, {}, "argument --base-port: expected a port, from 1 to 65535; not 0"),
    (["up", "--zookeeper-port", "abc"], {}, {}, "argument --zookeeper-port: expected a port, from 1 to 65535"),
    (
        ["create-topic", "t", "--partitions", "0", "--replication-factor", "1"],
        {},
        {},
        "argument --partitions: expected a count, 1 or more; not 0",
    ),
    (
        ["create-topic", "t", "--partitions", "99999999999", "--replication-factor", "1"],
        {},
        {},
        "partitions must be at most 2147483647",
    ),
    (
        ["create-topic", "t", "--partitions", "1", "--replication-factor", "40000"],
        {},
        {},
        "replication factor must be between 1 and 32767, not 40000",
    ),
    (["durability", "--topic", "t", "--kill-at", "2"], {}, {}, "argument --kill-at: expected a fraction from 0 to 1"),
    (["chaos", "--topic", "t", "--steps", "51"], {}, {}, "argument --steps: expected a count, from 1 to 50; not 51"),
    (["counts", "--topic", "t", "--top-keys", "-1"], {}, {}, "argument --top-keys: expected a count, 0 or more"),
    (["--replay", "x.jsonl", "--speed", "0"], {}, {}, "argument --speed: expected a number of times as fast above 0"),
    # names and shapes
    (
        ["create-topic", "bad name!", *CREATE],
        {},
        {},
        "Topic name is invalid: 'bad name!' contains one or more characters other than ASCII alphanumerics",
    ),
    (["create-topic", LONG_NAME, *CREATE], {}, {}, "is longer than the max allowed length 249"),
    (
        ["create-topic", "t", *CREATE, "--config", "retention.ms"],
        {},
        {},
        "argument --config: expected KEY=VALUE, e.g. min.insync.replicas=2; not 'retention.ms'",
    ),
    (["up", "-p", "min.insync.replicas"], {}, {}, "argument -p/--broker-property: expected KEY=VALUE"),
    (
        ["counts", "--topic", "t", "--master", "spark:/host"],
        {},
        {},
        "argument --master: expected local[*], local[N], spark://HOST:7077",
    ),
    (["up", "--mode", "raft"], {}, {}, "argument --mode: invalid choice: 'raft'"),
    # no terminal
    (["--demo"], {}, {}, "the live view needs a terminal, and stdout is not one (redirected to a file or a pipe?)"),
    # kafkatop.toml, for up and for the live view
    (["up"], {"kafkatop.toml": NOT_TOML}, {}, "kafkatop.toml: not valid TOML (Expected ']'"),
    ([], {"kafkatop.toml": NOT_TOML}, {}, "kafkatop.toml: not valid TOML"),
    (["up", "--config", "missing.toml"], {}, {}, "missing.toml: cannot read it (No such file or directory)"),
    ([], {"kafkatop.toml": '[cluster]\nnme = "nc"\n'}, {}, "kafkatop.toml: unknown [cluster] key(s) nme; known: "),
    (["up"], {"kafkatop.toml": "[brokers]\nx = 1\n"}, {}, "unknown table(s) brokers; kafkatop reads [cluster]"),
    ([], {"kafkatop.toml": '[cluster]\nbrokers = "3"\n'}, {}, "[cluster] brokers = '3' must be a whole number"),
    ([], {"kafkatop.toml": "[cluster]\nbase_port = 70000\n"}, {}, "broker ports (--base-port) 70000-70002 outside"),
    ([], {"kafkatop.toml": '[cluster]\nname = "two words"\n'}, {}, "cluster name 'two words': use letters, digits"),
    (["up"], {"kafkatop.toml": '[cluster]\nmode = "raft"\n'}, {}, "[cluster] mode = 'raft' must be \"zk\" or"),
    # --command-config
    (
        ["describe", "--bootstrap-server", "127.0.0.1:1", "--command-config", "missing.properties"],
        {},
        {},
        "--command-config missing.properties: file not found",
    ),
    (
        ["describe", "--bootstrap-server", "127.0.0.1:1", "--command-config", "folder"],
        {"folder/x": ""},
        {},
        "--command-config folder: is a directory, not a properties file",
    ),
    (
        ["--command-config", "client.properties", "describe", "--bootstrap-server", "127.0.0.1:1"],
        {"client.properties": "security.protocol=SASL_SSL\nsasl.mechanism\n"},
        {},
        "--command-config client.properties: 'sasl.mechanism' has no value (setting 2): write it as key=value",
    ),
    # Kafka installs that are not
    (
        ["up", "--kafka-home", "empty"],
        {"empty/.keep": ""},
        {},
        "--kafka-home empty is not a Kafka installation: no bin/kafka-server-start.sh",
    ),
    (
        ["up", "--kafka-home", "nolibs"],
        {"nolibs/bin/kafka-server-start.sh": "#!/bin/sh\n"},
        {},
        "--kafka-home nolibs is not a Kafka installation: no kafka_*.jar in libs/",
    ),
    (["--kafka-home", "nowhere"], {}, {}, "--kafka-home nowhere is not a Kafka installation: "),
    (["up"], {"empty/.keep": ""}, {"KAFKA_HOME": "empty"}, "KAFKA_HOME=empty is not a Kafka installation"),
]


@pytest.mark.parametrize(
    ("argv", "files", "env", "says"), [pytest.param(*case, id=" ".join(case[0])[:60] or "(none)") for case in CLI]
)
def test_bad_command_lines_are_refused_and_change_nothing(
    tmp_path: Path, argv: list[str], files: dict[str, str], env: dict[str, str], says: str
) -> None:
    for name, content in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
        if name.endswith(".sh"):
            path.chmod(0o755)
    before = listing(tmp_path)
    assert_refused(kafkatop(*argv, cwd=tmp_path, env=env), says)
    assert listing(tmp_path) == before  # no state directory (xdg/), no file written or touched


def test_an_unreadable_command_config_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "client.properties"
    secret.write_text("security.protocol=SSL\n")
    secret.chmod(0)
    try:
        if os.access(secret, os.R_OK):
            pytest.skip("running as root: a chmod 000 file is still readable (the directory case covers unreadable)")
        r = kafkatop("describe", "--bootstrap-server", "127.0.0.1:1", "--command-config", str(secret), cwd=tmp_path)
    finally:
        secret.chmod(0o600)
    assert_refused(r, "client.properties: permission denied")


def test_stdin_that_is_not_a_terminal_is_refused(tmp_path: Path) -> None:
    """`kafkatop --demo < /dev/null` in a terminal: q could never arrive, so it is refused before anything starts."""
    leader, follower = pty.openpty()
    try:
        r = kafkatop("--demo", cwd=tmp_path, stdout=follower, stderr=subprocess.PIPE)
    finally:
        os.close(follower)
        os.close(leader)
    assert_refused(r, "the live view reads its keys (q quits) from a terminal, and stdin is not one")


# --- a lab cluster's state, installs, ports ------------------------------------------------------------------------
@pytest.fixture
def installs(tmp_path: Path, standin_classes: Path) -> tuple[Path, Path]:
    """A Kafka 3.9 and a Kafka 4.1 install (the JVM stand-in; nothing here starts one)."""
    return (
        make_standin_install(tmp_path / "i3", standin_classes, "3.9.0"),
        make_standin_install(tmp_path / "i4", standin_classes, "4.1.0"),
    )


def test_a_stored_lab_does_not_hide_bad_input(tmp_path: Path, installs: tuple[Path, Path]) -> None:
    kafka3, _ = installs
    state = tmp_path / "state"
    port = free_port_block(12)
    LabCluster.create_or_open(state, open_install(kafka3), ClusterSpec(base_port=port, zookeeper_port=port + 8))
    stored = (state / "lab" / "cluster.json").read_text()
    before = listing(tmp_path)

    r = kafkatop("kill", "broker-9", "--state-dir", str(state), cwd=tmp_path)
    assert_refused(r, "no node 'broker-9' in cluster 'lab'; its nodes are: zookeeper, broker-1, broker-2, broker-3")
    # The live view on the stored lab: a mistyped --kafka-home is refused, not ignored for the recorded install.
    r = kafkatop("--state-dir", str(state), "--kafka-home", str(tmp_path / "kafak"), cwd=tmp_path)
    assert_refused(r, f"--kafka-home {tmp_path / 'kafak'} is not a Kafka installation")
    assert (state / "lab" / "cluster.json").read_text() == stored
    assert listing(tmp_path) == before


def test_what_an_install_cannot_run_is_refused_before_any_state(tmp_path: Path, installs: tuple[Path, Path]) -> None:
    _, kafka4 = installs
    r = kafkatop("up", "--mode", "zk", "--kafka-home", str(kafka4), "--state-dir", "state", cwd=tmp_path)
    assert_refused(r, "runs KRaft only: ZooKeeper mode was removed in Kafka 4.0; use --mode kraft")
    assert not (tmp_path / "state").exists()


def test_a_taken_port_is_refused_before_any_state(tmp_path: Path, installs: tuple[Path, Path]) -> None:
    kafka3, _ = installs
    port = free_port_block(12)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", port + 1))
        holder.listen()
        r = kafkatop(
            "up", "--kafka-home", str(kafka3), "--state-dir", "state", "--base-port", str(port),
            "--zookeeper-port", str(port + 8), cwd=tmp_path,
        )  # fmt: skip
    assert_refused(r, f"port {port + 1} (broker-2) is in use by pid {os.getpid()}")
    assert r.stderr.rstrip().endswith("Stop whatever holds it, or give this lab other ports (--base-port)")
    assert not (tmp_path / "state").exists()


# --- a ZooKeeper that is not Kafka's, a broker that is not there -----------------------------------------------------
def test_a_zookeeper_that_is_not_kafkas_is_refused(tmp_path: Path, zk_chroot: tuple[str, KazooClient]) -> None:
    hosts, _ = zk_chroot  # an empty chroot: no /brokers/ids
    r = kafkatop("describe", "--zookeeper", hosts, "--timeout", "10", cwd=tmp_path)
    assert_refused(r, f"zookeeper: ZooKeeper at {hosts} holds no Kafka znodes (/brokers/ids is missing")
    assert "Is this the ZooKeeper of a Kafka cluster, and is the chroot right?" in r.stderr


def test_a_broker_id_the_attached_cluster_has_not_is_refused(tmp_path: Path, mock_cluster: MockCluster) -> None:
    r = kafkatop("kill", "7", "--bootstrap-server", mock_cluster.bootstrap_servers, cwd=tmp_path)
    assert_refused(r, "broker 7 is not registered in this cluster (live brokers: 1, 2, 3)")


def test_an_option_before_the_command_is_the_one_used(tmp_path: Path, mock_cluster: MockCluster) -> None:
    """The report: `kafkatop --bootstrap-server X describe` dropped X and described the lab on 9092."""
    mock_cluster.create_topic("purchases", 1, 3)
    r = kafkatop("--bootstrap-server", mock_cluster.bootstrap_servers, "--json", "describe", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert '"name": "purchases"' in r.stdout
    assert not (tmp_path / "xdg").exists()  # no lab cluster was looked for


# --- the app's dialogs, on the demo cluster -----------------------------------------------------------------------
class Admins:
    """The topic admin factory of the app: counts how often a dialog got as far as asking Kafka."""

    def __init__(self) -> None:
        self.made = 0

    def __call__(self) -> Any:
        self.made += 1
        raise AssertionError("a refused dialog must not reach Kafka")


@pytest.fixture
def demo() -> Iterator[tuple[DemoCluster, DemoControl, Consoles]]:
    with demo_with_consoles() as made:
        yield made


def demo_app(demo: tuple[DemoCluster, DemoControl, Consoles], admins: Admins) -> KafkatopApp:
    cluster, control, consoles = demo
    admin = AdminSource(KafkaConnection.parse(cluster.bootstrap_servers), timeout_s=1.0, watch_groups=cluster.groups)
    return KafkatopApp(Sources(admin.poll, control, None, admins, consoles), Settings(poll_interval_s=0.2))


def text_of(app: KafkatopApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


# (name, partitions, replication factor, configs, what the dialog says)
DIALOG = [
    ("", "3", "3", "", "Topic name is invalid: the empty string is not allowed"),
    ("bad name!", "3", "3", "", "Topic name is invalid: 'bad name!' contains one or more characters"),
    ("..", "3", "3", "", "Topic name is invalid: '..' is not allowed"),
    (LONG_NAME, "3", "3", "", "is longer than the max allowed length 249"),
    ("t", "0", "3", "", "partitions must be at least 1, not 0"),
    ("t", "-3", "3", "", "partitions must be at least 1, not -3"),
    ("t", "99999999999", "3", "", "partitions must be at most 2147483647"),
    ("t", "three", "3", "", "partitions: 'three' is not a whole number"),
    ("t", "3", "4", "", "replication factor 4 is larger than the 3 brokers available"),
    ("t", "3", "0", "", "replication factor must be between 1 and 32767, not 0"),
    ("t", "3", "", "", "replication factor: give a whole number"),
    ("t", "3", "3", "min.insync.replicas", "Invalid topic config 'min.insync.replicas': expected NAME=VALUE"),
]


@pytest.mark.parametrize(("name", "partitions", "rf", "configs", "says"), DIALOG, ids=[d[4][:40] for d in DIALOG])
async def test_the_create_topic_dialog_keeps_what_was_typed_and_says_what_is_wrong(
    demo: Any, name: str, partitions: str, rf: str, configs: str, says: str
) -> None:
    admins = Admins()
    app = demo_app(demo, admins)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot_until(pilot, lambda: app.snapshot is not None, "first poll")
        topics = {t.name for t in app.snapshot.topics}
        await pilot.press("c")
        await pilot_until(pilot, lambda: isinstance(app.screen, CreateTopicScreen), "the dialog")
        typed = {"#topic-name": name, "#partitions": partitions, "#replication-factor": rf, "#configs": configs}
        for selector, value in typed.items():
            app.screen.query_one(selector, Input).value = value
        app.screen.query_one("#topic-name", Input).focus()
        await pilot.press("enter")
        await pilot_until(pilot, lambda: says in text_of(app, "#dialog-errors"), says)
        assert isinstance(app.screen, CreateTopicScreen)  # still open
        assert {s: app.screen.query_one(s, Input).value for s in typed} == typed  # nothing lost
        assert admins.made == 0 and app.last_action is None
        assert {t.name for t in app.snapshot.topics} == topics  # no topic created


async def test_producer_consumer_and_offset_reset_inputs_are_refused_where_typed(demo: Any) -> None:
    app = demo_app(demo, Admins())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot_until(pilot, lambda: app.snapshot is not None and app.snapshot.groups, "first poll with groups")
        app.main_screen.action_tab(3)  # Produce
        await pilot.pause()
        line = app.query_one("#produce-line", Input)
        line.focus()
        await pilot.press(*"kept", "enter")  # no topic yet
        await pilot_until(pilot, lambda: "topic: pick the topic to send to" in text_of(app, "#produce-status"), "topic")
        assert line.value == "kept"
        app.query_one("#produce-topic", Input).value = "purchases"
        app.query_one("#target-partition", Input).value = "first"
        line.focus()
        await pilot.press("enter")
        await pilot_until(pilot, lambda: "'first' is not a partition number" in text_of(app, "#produce-status"), "p")
        assert line.value == "kept"  # refused here: the line stays
        for count in ("0", "1000001", "many"):
            app.query_one("#test-count", Input).value = count
            app.query_one("#test-count", Input).focus()
            await pilot.press("enter")  # as the button (whose clicks within its 0.2 s press effect are ignored)
            await pilot_until(pilot, lambda c=count: f"count: {c!r} is not a number of messages (1 to 100,000)"
                              in text_of(app, "#produce-status"), f"count {count}")  # fmt: skip

        app.main_screen.action_tab(4)  # Consume
        await pilot.pause()
        app.query_one("#consume-topics", Input).value = " , "
        await pilot.click("#start-consumer")
        await pilot_until(pilot, lambda: "topic(s): pick the topic to consume" in text_of(app, "#consume-status"), "c")

        app.main_screen.action_tab(5)  # Groups
        await pilot_until(pilot, lambda: app.query_one("#groups").row_count > 0, "the groups")
        app.query_one("#reset-to", Select).value = "offset"
        await pilot.pause()
        bad = [("offset", "-5"), ("offset", "next"), ("offset", ""), ("shift", "1.5"), ("timestamp", "yesterday")]
        says = {"offset": "offset needs a whole number, 0 or more", "shift": "shift needs a whole number",
                "timestamp": "a datetime needs YYYY-MM-DDTHH:MM:SS"}  # fmt: skip
        for i, (to, value) in enumerate(bad):
            app.query_one("#reset-to", Select).value = to
            await pilot.pause()
            field = app.query_one("#reset-value", Input)
            field.value = value
            if i == 0:
                await pilot.click("#reset-offsets")
            else:  # Enter in the field does the same (a button ignores clicks during its 0.2 s press effect)
                field.focus()
                await pilot.press("enter")
            await pilot_until(pilot, lambda t=to, v=value: f"value: {says[t]}" in text_of(app, "#group-status")
                              and repr(v) in text_of(app, "#group-status"), f"{to} {value!r}")  # fmt: skip
            assert field.value == value
            assert not isinstance(app.screen, ResetPreviewScreen)  # refused before any preview
        assert app.last_action is None  # nothing was reset
