"""Contexts: `[contexts.NAME]` tables read from the user's config.toml and the project's kafkatop.toml (the project's
win), each refusal naming the file and the key, and `--context` (or default-context) filled into the options it
stands for. Every test points XDG_CONFIG_HOME and the working folder at tmp_path: the developer's own files never
leak in."""

from __future__ import annotations

import argparse
import io
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from kafkatop.backends.lab.spec import SpecError, load_spec_file
from kafkatop.backends.model.contexts import COLOURS, ClusterContext, parse_contexts, read_contexts
from kafkatop.backends.model.errors import BadInput
from kafkatop.tui.cli.common import client_settings
from kafkatop.tui.cli.contexts import apply_context, load_contexts, user_file
from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.parser import build_parser
from kafkatop.tui.cli.startup_warnings import kept

LAB_AND_ATTACH = """\
    default-context = "staging"

    [contexts.dev]
    lab = "dev"
    state-dir = "state"
    colour = "Green"
    description = "the lab on this laptop"

    [contexts.staging]
    bootstrap-server = "kafka1:9092,kafka2:9092"
    command-config = "props/client.properties"
    zookeeper = "zk:2181/kafka"
    read-only = true
    color = "#FF8800"
    connect-url = "http://connect:8083"
"""


@dataclass(frozen=True)
class Files:
    user: Path  # $XDG_CONFIG_HOME/kafkatop/config.toml
    project: Path  # ./kafkatop.toml


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Files:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return Files(tmp_path / "xdg" / "kafkatop" / "config.toml", work / "kafkatop.toml")


def write(path: Path, text: str, mode: int = 0o600) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    path.chmod(mode)
    return path


def parse(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(list(argv))


# --- the model ------------------------------------------------------------------------------------------------------
def test_a_lab_and_an_attached_context_are_read_with_paths_relative_to_their_file(files: Files) -> None:
    write(files.project, LAB_AND_ATTACH)
    contexts = read_contexts([files.user, files.project])  # the user's file does not exist: skipped
    assert contexts.files == (files.project,) and contexts.default == "staging" and contexts.warnings == ()
    assert contexts.names() == ("dev", "staging")
    dev, staging = contexts.get("dev"), contexts.get("staging")
    assert (dev.kind, dev.lab, dev.where, dev.bootstrap_server) == ("lab", "dev", "lab 'dev'", None)
    assert dev.state_dir == str((files.project.parent / "state").resolve())
    assert (dev.colour, dev.description, dev.read_only, dev.defined_in) == ("#008000", "the lab on this laptop", False,
                                                                            files.project)  # fmt: skip
    assert (staging.kind, staging.where, staging.lab) == ("attach", "kafka1:9092,kafka2:9092", None)
    assert staging.command_config == str((files.project.parent / "props" / "client.properties").resolve())
    assert (staging.zookeeper, staging.read_only, staging.colour) == ("zk:2181/kafka", True, "#FF8800")
    assert staging.connect_url == ("http://connect:8083",)


def test_the_projects_file_wins_over_the_users_on_a_shared_name(files: Files) -> None:
    write(files.user, """\
        default-context = "mine"
        [contexts.shared]
        bootstrap-server = "user:1"
        [contexts.mine]
        bootstrap-server = "mine:1"
        command-config = "user.properties"
    """)  # fmt: skip
    write(files.project, '[contexts.shared]\nbootstrap-server = "project:1"\nread-only = true\n')
    contexts = read_contexts([files.user, files.project])
    assert contexts.files == (files.user, files.project)
    assert contexts.get("shared").bootstrap_server == "project:1" and contexts.get("shared").read_only
    assert contexts.get("shared").defined_in == files.project
    assert contexts.get("mine").command_config == str(files.user.parent / "user.properties")  # beside its own file
    assert contexts.default == "mine"  # the project names none: the user's stands
    write(files.project, 'default-context = "shared"\n[contexts.shared]\nbootstrap-server = "project:1"\n')
    assert read_contexts([files.user, files.project]).default == "shared"
    # The command line reads the same two files, in the same order.
    args = parse("describe", "--context", "shared")
    assert apply_context(args) is not None and args.bootstrap_server == "project:1"


def test_the_users_file_is_under_xdg_config_home(files: Files) -> None:
    assert user_file() == files.user
    assert user_file({"HOME": "/home/u"}) == Path("/home/u/.config/kafkatop/config.toml")


# (a TOML document, what the refusal must name beside the file)
REFUSED = [
    ('[contexts.a]\nbootstrap-server = "h:1"\nbootstrap = "h:2"\n', ["[contexts.a]", "unknown key(s) bootstrap"]),
    ('[contexts.a]\nbootstrap-server = "h:1"\n"sasl.password" = "hunter2"\n', ["[contexts.a]", "sasl.password",
                                                                               "holds no secret"]),
    ('[contexts.a]\nbootstrap-server = "h:1"\npassword = "hunter2"\n', ["[contexts.a]", "password", "no secret"]),
    ('[contexts.a]\nlab = "x"\nbootstrap-server = "h:1"\n', ["[contexts.a]", "lab", "bootstrap-server"]),
    ('[contexts.a]\ndescription = "nothing else"\n', ["[contexts.a]", "lab", "bootstrap-server"]),
    ('[contexts.a]\nbootstrap-server = "h:1"\ncolour = "blurple"\n', ["[contexts.a]", "colour 'blurple'", "#rrggbb"]),
    ('[contexts.a]\nbootstrap-server = "h:1"\ncolor = "#12345"\n', ["[contexts.a]", "colour '#12345'"]),
    ('[contexts.a]\nbootstrap-server = "h:1"\nread-only = "yes"\n', ["[contexts.a]", "read-only = 'yes'",
                                                                     "true or false"]),
    ('[contexts.a]\nlab = "x"\nzookeeper = "z:1"\n', ["[contexts.a]", "zookeeper"]),
    ('[contexts.a]\nbootstrap-server = ""\n', ["[contexts.a]", "bootstrap-server"]),
    ('[contexts.a]\nbootstrap-server = "h:1"\naudit-topic = "who changed/what"\n', ["[contexts.a]", "audit-topic",
                                                                                 "other than ASCII alphanumerics"]),
    ('[contexts."bad name"]\nbootstrap-server = "h:1"\n', ["bad name", "a context's name"]),
    ("contexts = 3\n", ["contexts must be tables"]),
    ("default-context = 3\n", ["default-context = 3"]),
    ("[contexts\n", ["not valid TOML"]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "says"), REFUSED, ids=[f"case{i}" for i in range(len(REFUSED))])
def test_a_bad_context_is_refused_naming_the_file_and_the_key(files: Files, text: str, says: list[str]) -> None:
    write(files.project, text)
    with pytest.raises(BadInput) as refused:
        read_contexts([files.user, files.project])
    message = str(refused.value)
    assert message.startswith(f"{files.project}:"), message
    for part in says:
        assert part in message, message
    assert "hunter2" not in message  # a secret pasted in is never echoed


@pytest.mark.parametrize(
    ("key", "meant"),
    [("bootstrap-servers", "bootstrap-server"), ("bootstrap_server", "bootstrap-server"), ("readonly", "read-only"),
     ("colur", "colour"), ("command_config", "command-config")],
)  # fmt: skip
def test_a_mistyped_key_is_refused_with_the_key_it_is_most_like(files: Files, key: str, meant: str) -> None:
    write(files.user, f'[contexts.a]\nlab = "x"\n{key} = "y"\n')
    with pytest.raises(BadInput) as refused:
        read_contexts([files.user])
    message = str(refused.value)
    assert f"unknown key(s) {key} (did you mean {meant}?)" in message, message
    assert "known: audit-topic, bootstrap-server, color, colour, command-config" in message, message  # the list


def test_a_key_like_none_known_is_refused_without_a_guess(files: Files) -> None:
    write(files.user, '[contexts.a]\nlab = "x"\nwhatever = 1\n')
    with pytest.raises(BadInput) as refused:
        read_contexts([files.user])
    assert "unknown key(s) whatever; known: " in str(refused.value) and "did you mean" not in str(refused.value)


def test_an_unknown_default_context_is_refused_naming_the_file(files: Files) -> None:
    write(files.project, 'default-context = "nope"\n[contexts.a]\nbootstrap-server = "h:1"\n')
    with pytest.raises(BadInput) as refused:
        read_contexts([files.user, files.project])
    message = str(refused.value)
    assert "default-context = 'nope'" in message and "defined: a" in message, message  # holds today
    assert str(files.project) in message, message


def test_a_bad_contexts_file_ends_a_command_with_2_before_it_connects(
    files: Files, capsys: pytest.CaptureFixture[str]
) -> None:
    write(files.user, '[contexts.a]\nbootstrap-server = "h:1"\ncolour = "blurple"\n')
    assert main(["describe", "--context", "a"]) == 2
    err = capsys.readouterr().err
    assert str(files.user) in err and "colour 'blurple'" in err and "Traceback" not in err


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604])
def test_a_file_others_can_read_that_names_client_properties_is_warned_about(files: Files, mode: int) -> None:
    write(files.project, '[contexts.a]\nbootstrap-server = "h:1"\ncommand-config = "c.properties"\n', mode)
    (warning,) = read_contexts([files.project]).warnings
    assert str(files.project) in warning and f"chmod 600 {files.project}" in warning


def test_a_0600_file_or_one_naming_no_client_properties_is_not_warned_about(files: Files) -> None:
    write(files.project, '[contexts.a]\nbootstrap-server = "h:1"\ncommand-config = "c.properties"\n', 0o600)
    assert read_contexts([files.project]).warnings == ()
    write(files.project, '[contexts.a]\nbootstrap-server = "h:1"\n', 0o644)
    assert read_contexts([files.project]).warnings == ()


def test_the_command_line_says_the_permission_warning_on_stderr(
    files: Files, capsys: pytest.CaptureFixture[str]
) -> None:
    write(files.user, '[contexts.a]\nbootstrap-server = "h:1"\ncommand-config = "c.properties"\n', 0o644)
    load_contexts(parse("describe"))
    assert f"chmod 600 {files.user}" in capsys.readouterr().err


def test_a_kafkatop_toml_with_contexts_still_loads_as_a_lab_spec(files: Files) -> None:
    write(files.project, '[cluster]\nbrokers = 2\nmode = "kraft"\n\n[broker]\n"min.insync.replicas" = 2\n\n'
          + textwrap.dedent(LAB_AND_ATTACH))  # fmt: skip
    spec, given = load_spec_file(files.project)
    assert (spec.brokers, spec.mode, given) == (2, "kraft", {"brokers": 2, "mode": "kraft"})
    assert ("min.insync.replicas", "2") in spec.broker_properties
    write(files.project, "[clusters]\nbrokers = 2\n")
    with pytest.raises(SpecError, match=r"unknown table\(s\) clusters; kafkatop reads .*\[contexts.NAME\]"):
        load_spec_file(files.project)


# --- the command line: --context and default-context ----------------------------------------------------------------
def test_an_attached_context_fills_in_its_cluster(files: Files) -> None:
    write(files.project, LAB_AND_ATTACH)
    args = parse("describe", "--context", "staging")
    context = apply_context(args)
    assert context is not None and context.name == "staging"
    assert (args.bootstrap_server, args.zookeeper, args.name) == ("kafka1:9092,kafka2:9092", "zk:2181/kafka", None)
    assert args.command_config == str(files.project.parent / "props" / "client.properties")
    assert (args.context_name, args.context_colour, args.read_only) == ("staging", "#FF8800", True)
    # --command-config, when given, wins (another user's properties on the same cluster).
    args = parse("describe", "--context", "staging", "--command-config", "admin.properties")
    apply_context(args)
    assert args.command_config == "admin.properties"


def test_a_lab_context_fills_in_its_name_and_state_dir(files: Files) -> None:
    write(files.project, LAB_AND_ATTACH)
    args = parse("status", "--context", "dev")
    apply_context(args)
    state = str(files.project.parent / "state")
    assert (args.name, args.state_dir, args.read_only) == ("dev", state, False)
    args = parse("status", "--context", "dev", "--state-dir", "elsewhere")
    with pytest.raises(BadInput, match="leave out --state-dir"):
        apply_context(args)


def test_read_only_comes_from_the_context_or_the_flag(files: Files) -> None:
    write(files.project, LAB_AND_ATTACH)
    args = parse("describe", "--context", "dev", "--read-only")
    apply_context(args)
    assert args.read_only  # a writable context does not undo --read-only
    args = parse("describe", "--context", "dev")
    apply_context(args)
    assert not args.read_only


def test_the_default_context_is_used_when_no_cluster_is_given(files: Files) -> None:
    write(files.project, LAB_AND_ATTACH)
    for argv in (["describe"], []):  # a command, and the live view
        args = parse(*argv)
        context = apply_context(args)
        assert context is not None and context.name == "staging", argv
        assert (args.bootstrap_server, args.read_only, args.context_name) == ("kafka1:9092,kafka2:9092", True,
                                                                              "staging")  # fmt: skip


@pytest.mark.parametrize("flag", [["--bootstrap-server", "other:9092"], ["--name", "other"]])
def test_the_default_context_stays_out_of_the_way_of_a_cluster_flag(files: Files, flag: list[str]) -> None:
    write(files.project, LAB_AND_ATTACH)
    args = parse("describe", *flag)
    assert apply_context(args) is None
    assert args.bootstrap_server == (flag[1] if flag[0] == "--bootstrap-server" else None)
    assert args.name == (flag[1] if flag[0] == "--name" else None)
    assert (args.context_name, args.command_config, args.zookeeper) == (None, None, None) and not args.read_only


def test_an_attached_default_context_leaves_the_lab_commands_to_the_lab(files: Files) -> None:
    write(files.project, LAB_AND_ATTACH)
    args = parse("up")
    assert apply_context(args) is None and args.name is None and not args.read_only


@pytest.mark.parametrize("flag", [["--bootstrap-server", "other:9092"], ["--name", "other"]])
def test_context_beside_a_flag_naming_another_cluster_is_refused(
    files: Files, capsys: pytest.CaptureFixture[str], flag: list[str]
) -> None:
    write(files.project, LAB_AND_ATTACH)
    assert main(["describe", "--context", "staging", *flag]) == 2
    err = capsys.readouterr().err
    assert "--context staging names its cluster (kafka1:9092,kafka2:9092)" in err and f"leave out {flag[0]}" in err


def test_an_attached_context_with_up_is_refused(files: Files, capsys: pytest.CaptureFixture[str]) -> None:
    write(files.project, LAB_AND_ATTACH)
    assert main(["up", "--context", "staging"]) == 2
    err = capsys.readouterr().err
    assert "context 'staging' is an attached cluster" in err and "`up` acts on a lab cluster" in err
    assert "Traceback" not in err


def test_an_unknown_context_lists_the_known_ones(files: Files, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["describe", "--context", "nope"]) == 2  # none defined: says where to define one
    err = capsys.readouterr().err
    assert "no context 'nope': no context is defined" in err and "[contexts.nope]" in err
    write(files.project, LAB_AND_ATTACH)
    assert main(["describe", "--context", "nope"]) == 2
    assert "no context 'nope'; the contexts are dev, staging" in capsys.readouterr().err


def test_config_names_the_project_file(files: Files, tmp_path: Path) -> None:
    elsewhere = write(tmp_path / "other" / "team.toml", '[contexts.team]\nbootstrap-server = "team:1"\n')
    write(files.project, '[contexts.team]\nbootstrap-server = "cwd:1"\n')
    args = parse("--context", "team", "--config", str(elsewhere))  # the live view: --config over ./kafkatop.toml
    apply_context(args)
    assert args.bootstrap_server == "team:1"
    args = parse("describe", "--context", "team")
    apply_context(args)
    assert args.bootstrap_server == "cwd:1"


@pytest.mark.parametrize("name", sorted(COLOURS))
def test_every_colour_name_a_context_may_use_is_one_the_status_bar_can_draw(name: str) -> None:
    from rich.console import Console

    from kafkatop.tui.live.widgets.status_bar import status_text

    context = _context_with_colour(name)
    assert context.colour is not None and context.colour.startswith("#")
    text = status_text(None, None, None, badge=(context.name, context.colour, True))
    Console(file=io.StringIO(), color_system="truecolor").print(text)  # an unknown colour raises MissingStyle here
    assert text.plain.startswith(f" {context.name} ")


def _context_with_colour(name: str) -> ClusterContext:
    found, _ = parse_contexts({"contexts": {"c": {"bootstrap-server": "h:1", "colour": name}}}, Path("/x/k.toml"))
    return found["c"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("answer", "done"), [("staging\n", True), ("yes\n", False), ("Staging\n", False)])
def test_an_act_on_a_cluster_not_kafkatops_asks_for_its_name_typed(
    monkeypatch: pytest.MonkeyPatch, answer: str, done: bool
) -> None:
    from kafkatop.tui.cli.common import confirmed, typed_name

    args = argparse.Namespace(bootstrap_server="k1:9092,k2:9092", context_name="staging")
    assert typed_name(args) == "staging"
    assert typed_name(argparse.Namespace(bootstrap_server="k1:9092,k2:9092")) == "k1:9092"
    assert typed_name(argparse.Namespace(bootstrap_server=None, name="lab")) is None  # a lab: "yes" does
    asked = _Terminal()
    monkeypatch.setattr("sys.stdin", _Terminal(answer))
    monkeypatch.setattr("sys.stderr", asked)
    assert confirmed("elect these out-of-sync leaders?", yes=False, unasked="-", typed=typed_name(args)) is done
    assert "type staging to go ahead" in asked.getvalue()


def test_the_mode_is_read_from_what_the_broker_says_it_takes() -> None:
    from kafkatop.backends.protocol.identity import mode_of

    assert mode_of({18: (0, 3), 3: (0, 12), 4: (0, 7), 55: (0, 1)}) == "zk"  # takes LeaderAndIsr (even migrating)
    assert mode_of({18: (0, 4), 3: (0, 13), 55: (0, 2)}) == "kraft"  # forwards DescribeQuorum, no LeaderAndIsr
    assert mode_of({18: (0, 3), 3: (0, 9)}) == "unknown"  # the librdkafka mock, a stand-in


def test_a_reader_that_goes_away_ends_the_command_without_a_traceback(files: Files) -> None:
    """`kafkatop … | head -1`: the pipe closed before kafkatop writes is no traceback (exit 1, as a broken pipe)."""
    import subprocess
    import sys

    write(files.project, '[contexts.a]\nbootstrap-server = "127.0.0.1:9"\n')  # refused at once: a quick answer
    proc = subprocess.Popen(
        [sys.executable, "-m", "kafkatop.tui.cli", "contexts", "--json", "--timeout", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=files.project.parent,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before anything is written
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=30) == 1, err
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


# --- contexts hold what they say (issue 38, point 8) ------------------------------------------------------------------
def test_a_context_with_a_registry_config_keeps_its_command_config(files: Files) -> None:
    """The registry's properties are the registry client's; the Kafka client's SASL and TLS stay in command-config."""
    write(files.project.parent / "client.properties", "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
          'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="u" '
          'password="p";\n')  # fmt: skip
    write(files.project.parent / "registry.properties", "basic.auth.user.info=u:p\n")
    write(files.project, """\
        [contexts.secured]
        bootstrap-server = "kafka:9093"
        command-config = "client.properties"
        schema-registry = "https://registry:8081"
        schema-registry-config = "registry.properties"
    """)  # fmt: skip
    context = read_contexts([files.project]).get("secured")
    assert context.command_config == str(files.project.parent / "client.properties")
    assert context.schema_registry is not None
    assert context.schema_registry.properties_file == str(files.project.parent / "registry.properties")
    args = parse("describe", "--context", "secured")
    apply_context(args)
    settings = client_settings(args)  # what every Kafka client of the command is made with
    assert (settings["security.protocol"], settings["sasl.mechanisms"], settings["sasl.username"]) == (
        "SASL_SSL", "SCRAM-SHA-512", "u")  # fmt: skip


READ_ONLY_USERS = '[contexts.ro]\nbootstrap-server = "prod:9092"\nread-only = true\n'


@pytest.mark.parametrize("redefined", ["", "read-only = false\n"], ids=["read-only left out", "read-only = false"])
def test_a_project_file_cannot_make_a_users_read_only_context_writable(
    files: Files, capsys: pytest.CaptureFixture[str], redefined: str
) -> None:
    write(files.user, READ_ONLY_USERS)
    write(files.project, f'[contexts.ro]\nbootstrap-server = "prod:9092"\ncolour = "red"\n{redefined}')
    contexts = read_contexts([files.user, files.project])
    ro = contexts.get("ro")
    assert ro.read_only and ro.colour == "#ff0000" and ro.defined_in == files.project  # the project's, read-only
    (warning,) = ro.warnings
    assert contexts.warnings == (warning,)
    assert str(files.project) in warning and str(files.user) in warning and "stays read-only" in warning, warning
    # The command line refuses a write in it, says why on stderr, and keeps the warning for the live view's screen.
    assert main(["create-topic", "t", "--partitions", "1", "--replication-factor", "1", "--context", "ro"]) == 2
    err = capsys.readouterr().err
    assert "stays read-only" in err and "context 'ro' is read-only: `create-topic`" in err, err
    args = parse("--context", "ro")
    apply_context(args)
    assert args.read_only and kept(args) == (warning,)


def test_a_project_file_may_make_a_context_read_only_and_a_user_file_may_not_undo_it(files: Files) -> None:
    write(files.user, '[contexts.ro]\nbootstrap-server = "prod:9092"\n')
    write(files.project, READ_ONLY_USERS)
    assert read_contexts([files.user, files.project]).get("ro").read_only
    assert read_contexts([files.user, files.project]).warnings == ()
    assert read_contexts([files.project, files.user]).get("ro").read_only  # whichever file comes later


def test_a_files_permission_warning_goes_with_each_of_its_contexts(files: Files) -> None:
    write(files.user, '[contexts.a]\nbootstrap-server = "h:1"\ncommand-config = "c.properties"\n'
          '[contexts.b]\nbootstrap-server = "h:2"\n', 0o644)  # fmt: skip
    contexts = read_contexts([files.user])
    (warning,) = contexts.warnings  # said once on stderr…
    assert contexts.get("a").warnings == contexts.get("b").warnings == (warning,)  # …and with whichever is shown
