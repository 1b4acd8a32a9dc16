"""The ACLs tab's pure parts: the add dialog's fields as bindings (kafka-acls.sh's checks and conveniences, each bad
field said, nothing made), the rows in their groups, the header's words, the status bar's authorizer, and the ACLs on
their way through the feed: recorded when they change, read back equal, kept on screen when a poll cannot read them,
replayed through the same path."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from rich.text import Text
from textual.message import Message

from kafkatop.backends.model.acls import AclsSnapshot, AuthorizerInfo
from kafkatop.backends.model.codec import decode, encode
from kafkatop.backends.model.recording import PAYLOADS, Recorded, SourceFailed
from kafkatop.tui.live.feed import Feed
from kafkatop.tui.live.messages import Polled, PollFailed
from kafkatop.tui.live.tabs.acls.add import AclForm, bindings_of, bindings_text
from kafkatop.tui.live.tabs.acls.pane import NO_AUTHORIZER, acl_rows, header_text
from kafkatop.tui.live.widgets.status_bar import status_text
from tests.fixtures.acl_views import BINDINGS, STANDARD, acls_snapshot, binding, no_authorizer
from tests.fixtures.snapshots import kraft_lab
from tests.unit.test_connect_feed import KeptRecorder

T0 = 1_700_000_000.0


# --- the add dialog ----------------------------------------------------------------------------------------------
def test_the_fields_make_one_binding_per_operation() -> None:
    made, problems = bindings_of(AclForm("User:bob", "deny", "alter, IdempotentWrite", "cluster", pattern="literal"))
    assert problems == [] and [(b.pattern.short, b.entry.operation, b.entry.permission) for b in made] == [
        ("Cluster", "ALTER", "DENY"), ("Cluster", "IDEMPOTENT_WRITE", "DENY")]  # fmt: skip
    assert made[0].pattern.name == "kafka-cluster"
    made, _ = bindings_of(AclForm("User:bob", "allow", "Write Read Write", "topic", "app-", "prefixed", "10.0.0.1"))
    assert bindings_text(made) == "User:bob ALLOW Write, Read on Topic:app-* (PREFIXED) from 10.0.0.1"


def test_the_conveniences_are_kafka_acls_producer_and_consumer() -> None:
    producer, _ = bindings_of(AclForm("User:client", name="orders", convenience="producer"))
    assert producer == tuple(binding("User:client", op, "TOPIC", "orders") for op in ("WRITE", "DESCRIBE", "CREATE"))
    consumer, _ = bindings_of(AclForm("User:client", name="orders", convenience="Consumer", group="billing"))
    assert consumer == (binding("User:client", "READ", "TOPIC", "orders"),
                        binding("User:client", "DESCRIBE", "TOPIC", "orders"),
                        binding("User:client", "READ", "GROUP", "billing"))  # fmt: skip


@pytest.mark.parametrize(
    ("form", "said"),
    [
        (AclForm("client", operations="Read", name="t"), "principal: principal 'client' is not TYPE:NAME"),
        (AclForm("User:c", operations="Reed", name="t"), "operations: unknown operation 'Reed': one of All, Read"),
        (
            AclForm("User:c", operations="Write", resource="group", name="g"),
            "operations: a Group takes Read, Describe, Delete, DescribeConfigs, AlterConfigs or All, not Write",
        ),
        (AclForm("User:c", operations="", name="t"), "operations: at least one"),
        (AclForm("User:c", "maybe", "Read", name="t"), "allow/deny: maybe? allow or deny"),
        (AclForm("User:c", operations="Read", resource="queue", name="t"), "resource: queue? one of topic, group"),
        (AclForm("User:c", operations="Read"), "name: the Topic's name (or *: every one)"),
        (AclForm("User:c", operations="Read", name="*", pattern="prefixed"), "pattern: a prefixed * is not a name"),
        (AclForm("User:c", operations="Read", name="t", pattern="match"), "pattern: match selects bindings"),
        (AclForm("User:c", operations="Read", name="t", host="1.2.3.4 5.6.7.8"), "host: '1.2.3.4 5.6.7.8'? one"),
        (AclForm("User:c", operations="Read", name="t", convenience="producer"), "operations: leave them out"),
        (AclForm("User:c", name="g", resource="group", convenience="producer"), "resource: producer acts on a topic"),
        (AclForm("User:c", name="t", convenience="consumer"), "group: a consumer's group"),
        (AclForm("User:c", name="t", convenience="admin"), "or as: admin? producer or consumer"),
        (AclForm("User:c", operations="Read", name="t", group="g"), "group: only with consumer"),
    ],
)
def test_a_field_kafka_would_refuse_says_why_and_makes_nothing(form: AclForm, said: str) -> None:
    made, problems = bindings_of(form)
    assert made == ()
    assert any(p.startswith(said) for p in problems), problems


# --- the tab -----------------------------------------------------------------------------------------------------
def test_rows_by_principal_then_by_resource_write_a_groups_name_dim_after_its_first_row() -> None:
    rows = acl_rows(BINDINGS, "principal")
    plain = [tuple(c.plain if isinstance(c, Text) else c for c in r) for r in rows.values()]
    assert plain[0] == ("User:*", "Topic:*", "LITERAL", "ALLOW", "Describe", "127.0.0.1")
    assert [p[0] for p in plain] == ["User:*"] + ["User:analyst"] * 3 + ["User:client"] * 5
    client = [r for r in rows.values() if "User:client" in str(r[0])]
    assert [str(r[0].style) for r in client if isinstance(r[0], Text)] == ["bold", "dim", "dim", "dim", "dim"]
    assert [(str(r[1]), str(r[1].style)) for r in client if isinstance(r[1], Text)][:3] == [
        ("Group:billing", "bold"), ("Topic:orders", "bold"), ("Topic:orders", "dim")]  # fmt: skip

    by_resource = [tuple(str(c) for c in r) for r in acl_rows(BINDINGS, "resource").values()]
    assert [r[:3] for r in by_resource[:2]] == [("Group:billing", "LITERAL", "User:client"),
                                                ("Topic:*", "LITERAL", "User:*")]  # fmt: skip
    assert len(by_resource) == len(BINDINGS) == len(rows)


def test_the_header_says_the_authorizer_who_kafkatop_is_or_why_there_are_no_bindings() -> None:
    said = header_text(acls_snapshot()).plain
    assert said == "authorizer StandardAuthorizer, super users User:admin · you: User:admin (super user) · 9 bindings"
    assert header_text(no_authorizer()).plain == NO_AUTHORIZER
    assert "`kafkatop up --security sasl_ssl --authorizer`" in NO_AUTHORIZER
    client = replace(acls_snapshot(()), principal="User:client", error="User:client may not Describe the Cluster")
    assert header_text(client).plain.splitlines() == [
        "authorizer StandardAuthorizer, super users User:admin · you: User:client",
        "User:client may not Describe the Cluster"]  # fmt: skip


def test_the_status_bar_names_the_authorizer_and_its_super_users_where_there_is_one() -> None:
    cluster = kraft_lab()[0]
    wide = status_text(cluster, None, None, authorizer=STANDARD).plain
    assert wide.endswith("offline 0  authorizer StandardAuthorizer, super users User:admin")
    assert status_text(cluster, None, None, narrow=True, authorizer=STANDARD).plain.endswith("offline 0  authorizer")
    assert "authorizer" not in status_text(cluster, None, None, authorizer=AuthorizerInfo(None)).plain
    assert len(status_text(cluster, None, None, narrow=True, authorizer=STANDARD).plain) <= 80
    unknown = replace(cluster, mode="unknown")  # "mode unknown": no room left for the word
    assert "authorizer" not in status_text(unknown, None, None, narrow=True, authorizer=STANDARD).plain
    badge = status_text(cluster, None, None, narrow=True, badge=("prod", None, True), authorizer=STANDARD).plain
    assert "authorizer" not in badge and len(badge) <= 80


# --- the feed, recording and replay ------------------------------------------------------------------------------
def test_the_acls_are_recorded_when_they_change_and_read_back_equal() -> None:
    recorder = KeptRecorder()
    posted: list[Message] = []
    feed = Feed(posted.append, recorder)
    feed.acls(acls_snapshot(at=T0))
    feed.acls(acls_snapshot(at=T0 + 3))  # the same ACLs: not written again
    feed.acls(acls_snapshot(BINDINGS[:2], at=T0 + 6))
    assert [(e.kind, e.at) for e in recorder.entries] == [("acls", T0), ("acls", T0 + 6)]
    data = json.loads(json.dumps(encode(recorder.entries[0].payload, PAYLOADS["acls"])))
    assert decode(PAYLOADS["acls"], data) == acls_snapshot(at=T0)
    shown = [m.snapshot.at for m in posted if isinstance(m, Polled) and m.source == "acls"]
    assert shown == [T0, T0 + 3, T0 + 6]  # each shown


def test_bindings_that_cannot_be_read_again_stay_on_screen_with_their_time() -> None:
    posted: list[Message] = []
    feed = Feed(posted.append)
    feed.acls(acls_snapshot(at=T0))
    refused = AclsSnapshot((), STANDARD, "User:admin", "may not Describe the Cluster", T0 + 3)
    feed.acls(refused)
    shown = posted[-1]
    assert isinstance(shown, Polled) and shown.source == "acls"
    assert shown.snapshot.bindings == BINDINGS and shown.snapshot.at == T0 and shown.snapshot.error == refused.error
    assert "the bindings below as read at 22:13:20" in header_text(shown.snapshot).plain


def test_a_replay_delivers_the_acls_and_their_failures_through_the_same_path() -> None:
    posted: list[Message] = []
    feed = Feed(posted.append)
    feed.replayed(Recorded(T0, "acls", acls_snapshot(at=T0)))
    feed.replayed(Recorded(T0 + 3, "acls-failed", SourceFailed("DescribeAcls to 127.0.0.1:9092: timed out")))
    assert isinstance(posted[0], Polled) and posted[0].source == "acls" and posted[0].snapshot == acls_snapshot(at=T0)
    assert isinstance(posted[1], PollFailed) and (posted[1].source, posted[1].at) == ("acls", T0 + 3)


def test_super_users_a_broker_does_not_tell_are_said_unknown_and_a_labs_are_filled_in() -> None:
    """Kafka describes super.users as sensitive (no value): the adapter finds none; a lab's are those kafkatop wrote."""
    from kafkatop.tui.cli.compose_acls import LabSuperUsers
    from tests.fixtures.acl_views import RecordedAcls

    untold = replace(acls_snapshot(), authorizer=AuthorizerInfo(STANDARD.class_name))
    assert header_text(untold).plain.startswith(
        "authorizer StandardAuthorizer (its super users are not told: Kafka describes super.users as sensitive) · "
        "you: User:admin · 9 bindings"
    )
    assert LabSuperUsers(RecordedAcls(untold), ("User:admin",)).poll() == acls_snapshot()
    assert LabSuperUsers(RecordedAcls(no_authorizer()), ("User:admin",)).poll() == no_authorizer()


def test_a_recording_file_holds_the_acls_and_reads_them_back(tmp_path: Path) -> None:
    from kafkatop.backends.model.recording import RecordingHeader
    from kafkatop.backends.recording.file import RecordingWriter, read_recording

    path = tmp_path / "session.jsonl.gz"
    writer = RecordingWriter(path, RecordingHeader(T0, "lab 'acl'", ("control", "acls")))
    feed = Feed(lambda message: None, writer)
    feed.acls(acls_snapshot(at=T0))
    feed.acls(no_authorizer(T0 + 3))
    writer.close()
    recording = read_recording(path)
    assert recording.header.sources == ("control", "acls")
    assert [e.payload for e in recording.entries] == [acls_snapshot(at=T0), no_authorizer(T0 + 3)]
