"""The audit trail (backends/model/audit.py, backends/audit/): an entry as JSON and back, a secret's value and a
payload never kept, --since and the filters, the file 0600 and appended to, rotated, a line that is no entry skipped;
a port's writing methods audited with their result or error, a read through them not; and `kafkatop audit` on the
trail a headless write left (on librdkafka's mock cluster: the real cluster's writes are in test_audit_kafka.py)."""

from __future__ import annotations

import io
import json
import os
import stat
from pathlib import Path

import pytest

from kafkatop.backends.audit import trail as trail_module
from kafkatop.backends.audit.ports import WRITES, AuditedPort
from kafkatop.backends.audit.trail import AuditTrail, read_trail
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.audit import AuditEntry, argument, chosen, since
from kafkatop.backends.model.errors import BadInput, KafkatopError
from kafkatop.tui.cli.main import main

ENTRY = AuditEntry(1_765_000_000.5, "command", "prod", "abc", "User:alice", "configs --alter", "t",
                   (("alter", "retention.ms=1000"),), "ok")  # fmt: skip


def test_an_entry_round_trips_and_reads_as_a_line() -> None:
    back = AuditEntry.from_json(json.loads(json.dumps(ENTRY.to_json())))
    assert back == ENTRY
    assert ENTRY.to_json()["time"] == "2025-12-06T05:46:40.500Z"
    assert ENTRY.line() == ("2025-12-06T05:46:40.500Z  prod  abc  User:alice  configs --alter t  "
                            "alter=retention.ms=1000  → ok")  # fmt: skip


def test_secrets_and_payloads_are_never_kept() -> None:
    assert argument("password", "hunter2") == "[hidden]"
    assert (
        argument("config", {"connection.password": "hunter2", "topic": "t"}) == "connection.password=[hidden], topic=t"
    )
    assert argument("value", b"4111111111111111") == "<16 bytes>"
    assert argument("alter", [None, "a=1"]) == "a=1"
    # `configs --add-config listener.name.x.ssl.key.password=…,retention.ms=1`: the key kept, the secret not
    said = argument("alter", [None, "listener.name.x.ssl.key.password=hunter4,retention.ms=1"])
    assert said == "listener.name.x.ssl.key.password=[hidden],retention.ms=1"
    assert len(argument("x", "y" * 1000)) == 200


def test_since_and_the_filters() -> None:
    assert since("2h", now=10_000.0) == 2_800.0 and since("90s", now=100.0) == 10.0
    assert since("2026-12-07T10:00") == since("2026-12-07T10:00+00:00")
    with pytest.raises(BadInput, match="--since 'soon': a time ago"):
        since("soon")
    other = AuditEntry(ENTRY.at + 60, "live view", None, "abc", "User:alice", "kill", "broker-2", (), "failed", "gone")
    assert chosen([ENTRY, other], action="configs") == [ENTRY]
    assert chosen([ENTRY, other], action="config") == []  # a whole action word, not a prefix of one
    assert chosen([ENTRY, other], context="prod") == [ENTRY]
    assert chosen([ENTRY, other], after=ENTRY.at + 1) == [other]


def test_the_file_is_private_appended_rotated_and_read_past_a_bad_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "state" / "kafkatop" / "audit.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("not json\n")
    os.chmod(path, 0o644)  # made by someone else, readable by all: made private on the first append
    trail = AuditTrail(path)
    trail.append(ENTRY)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_trail(path) == ([ENTRY], 1)
    monkeypatch.setattr(trail_module, "ROTATE_BYTES", path.stat().st_size + 10)
    trail.append(ENTRY)  # past the size: the old file becomes .1
    assert path.with_name("audit.jsonl.1").exists() and read_trail(path) == ([ENTRY, ENTRY], 1)


def test_an_unwritable_trail_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "audit.jsonl").mkdir()
    with pytest.raises(KafkatopError, match=r"cannot write the audit trail .*audit.jsonl: Is a directory"):
        AuditTrail(tmp_path / "audit.jsonl").append(ENTRY)


class Topics:
    """TEST DOUBLE of a TopicAdmin that fails as Kafka would on a second create (the real one: test_audit_kafka)."""

    def __init__(self) -> None:
        self.made: set[str] = set()

    def create_topic(self, name: str, partitions: int, replication_factor: int, config: dict[str, str] | None = None,
                     *, validate_only: bool = False) -> None:  # fmt: skip
        if name in self.made:
            raise KafkatopError(f"cannot create topic {name!r}: TOPIC_ALREADY_EXISTS")
        self.made.add(name)

    def add_partitions(self, name: str, total: int, *, validate_only: bool = False) -> None:
        pass

    note = "kept as it is"


def test_a_ports_writes_are_audited_and_its_reads_pass_through() -> None:
    seen: list[tuple[object, ...]] = []
    port = AuditedPort(Topics(), WRITES["topic_admin"], lambda *said: seen.append(said))
    port.create_topic("t", 3, 1, {"sasl.jaas.config": "secret"})
    with pytest.raises(KafkatopError):
        port.create_topic("t", 3, 1)
    port.add_partitions("t", 6, validate_only=True)  # a dry run: not a write
    assert port.note == "kept as it is"
    assert seen == [
        ("create topic", "t",
         (("partitions", "3"), ("replication_factor", "1"), ("config", "sasl.jaas.config=[hidden]")), "ok", None),
        ("create topic", "t", (("partitions", "3"), ("replication_factor", "1")), "failed",
         "cannot create topic 't': TOPIC_ALREADY_EXISTS"),
    ]  # fmt: skip


def test_a_headless_write_and_a_read_on_the_mock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"one\ntwo\n")))
    with MockCluster(1) as mock:
        mock.create_topic("p", 1, 1)
        assert main(["produce", "--topic", "p", "--bootstrap-server", mock.bootstrap_servers]) == 0
        # the mock takes no CreateTopics from a client: its refusal, exit 1
        main(["create-topic", "t", "--partitions", "2", "--replication-factor", "1", "--bootstrap-server",
              mock.bootstrap_servers])  # fmt: skip
        main(["describe", "--bootstrap-server", mock.bootstrap_servers])  # a read: no entry
    capsys.readouterr()
    assert main(["audit", "--json"]) == 0
    produced, line = capsys.readouterr().out.splitlines()
    assert json.loads(produced)["arguments"]["said"] == "2 records produced"  # its last line: what was done
    entry = json.loads(line)
    assert (entry["action"], entry["target"], entry["result"], entry["principal"]) == (
        "create-topic",
        "t",
        "failed",
        "User:ANONYMOUS",
    )
    assert entry["cluster_id"] and entry["error"] and entry["source"] == "command"
    assert stat.S_IMODE((tmp_path / "kafkatop" / "audit.jsonl").stat().st_mode) == 0o600
    assert main(["audit", "--context", "nope"]) == 0
    assert "no writes to context 'nope'" in capsys.readouterr().out


def test_the_timeline_s_writes_are_actions_a_port_writes() -> None:
    from kafkatop.backends.model.audit import TIMELINE_WRITES

    assert TIMELINE_WRITES <= {action for writes in WRITES.values() for action in writes.actions.values()}
