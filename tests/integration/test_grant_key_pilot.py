"""`M` grants what the authorizer refused: the producer console, on the librdkafka mock cluster made to answer Produce
with TOPIC_AUTHORIZATION_FAILED (its request errors: the mock has no authorizer and no ACLs), names the principal, the
operation and the resource with the `kafkatop acls --add …` line; M then appears, asks first listing the bindings and
who adds them, and adds them through the AclAdmin port — here RecordingAcls, a TEST DOUBLE that keeps what it was
given (the real CreateAcls is tests/integration/test_grants_kafka.py's). Refused where it must be: before any refusal,
in a read-only context, and when the grantor may not add ACLs either."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from textual.widgets import Input, RichLog, Static

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.kafka.records.consoles import Consoles
from kafkatop.backends.model.acls import (
    AclBinding,
    AclBindingFilter,
    AclsSnapshot,
    AuthorizerInfo,
    Grant,
    ResourcePattern,
)
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.consoles import ConsumerView
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.granting import Granting
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.consume.pane import ConsumerPane
from kafkatop.tui.live.tabs.produce.pane import ProducerPane
from kafkatop.tui.live.widgets.tables import MessageLog
from tests.conftest import pilot_until

PRODUCE = 0
TOPIC_AUTHORIZATION_FAILED = 29
INIT_PRODUCER_ID, CLUSTER_AUTHORIZATION_FAILED = 22, 31
LINE = "kafkatop acls --add --allow-principal User:ANONYMOUS --operation Write --topic t --name lab"


@dataclass
class RecordingAcls:
    """TEST DOUBLE of the AclAdmin port: keeps the bindings it is asked to create (or refuses, as Kafka would a user
    without Alter on the cluster)."""

    refuse: bool = False
    created: list[AclBinding] = field(default_factory=list)
    closed: int = 0

    def poll(self) -> AclsSnapshot:
        return AclsSnapshot(tuple(self.created), AuthorizerInfo(None), None)

    def describe(self, matching: AclBindingFilter) -> tuple[AclBinding, ...]:
        return tuple(self.created)

    def create(self, bindings: Sequence[AclBinding]) -> None:
        if self.refuse:
            raise KafkatopError("cannot add ACLs: CLUSTER_AUTHORIZATION_FAILED: Cluster authorization failed.")
        self.created.extend(bindings)

    def delete(self, filters: Sequence[AclBindingFilter]) -> tuple[AclBinding, ...]:
        return ()

    def close(self) -> None:
        self.closed += 1


def app_on(mock_cluster: MockCluster, acls: RecordingAcls, read_only: bool = False) -> tuple[KafkatopApp, Consoles]:
    connection = KafkaConnection.parse(mock_cluster.bootstrap_servers)
    admin = AdminSource(connection, timeout_s=2.0)
    consoles = Consoles(connection)
    granting = Granting("User:ANONYMOUS", ("--name", "lab"), "User:admin, the lab's super user", lambda: acls)
    sources = Sources(admin.poll, consoles=consoles, granting=granting)
    return KafkatopApp(sources, Settings(poll_interval_s=0.5, read_only=read_only)), consoles


async def refused_send(pilot: Any, app: KafkatopApp, topic: str = "t") -> str:
    """Sends one line to `topic`, refused by the mock's TOPIC_AUTHORIZATION_FAILED; the producer's status once said."""
    await pilot.press("3")  # Produce
    app.query_one("#produce-topic", Input).value = topic
    field_ = app.query_one("#produce-line", Input)
    field_.focus()
    field_.value = "hello"
    await pilot.press("enter")
    status = app.query_one("#produce-status", Static)
    await pilot_until(pilot, lambda: "not delivered" in str(status.render()), "the refusal in the producer's status")
    return str(status.render())


async def test_a_refusal_names_the_grant_and_m_adds_it(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("t", 1, 1)
    mock_cluster.push_request_errors(PRODUCE, [TOPIC_AUTHORIZATION_FAILED] * 20)
    acls = RecordingAcls()
    app, consoles = app_on(mock_cluster, acls)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot_until(pilot, lambda: app.view.cluster is not None, "the first poll")
            assert app.check_action("grant", ()) is False  # nothing refused yet: M is not shown
            said = await refused_send(pilot, app)
            assert "TOPIC_AUTHORIZATION_FAILED: User:ANONYMOUS may not Write on Topic:t — grant it: " + LINE in said
            assert said.endswith(" · M grants it")
            lines = app.query_one(ProducerPane).query_one("#deliveries", RichLog).lines
            log = " ".join(" ".join(line.text for line in lines).split())  # as read, lines wrapped at the width
            assert "✗ t: TOPIC_AUTHORIZATION_FAILED: User:ANONYMOUS may not Write on Topic:t" in log
            assert LINE in log  # the console's log keeps the line to paste
            assert app.query_one("#produce-line", Input).value == "hello"  # a refused line stays in the field
            await pilot_until(pilot, lambda: app.check_action("grant", ()) is True, "M shown after the refusal")
            app.set_focus(None)  # out of the text field: M is a key there, not a letter typed
            await pilot.press("M")
            assert isinstance(app.screen, ConfirmScreen)
            assert "ALLOW User:ANONYMOUS Write on Topic:t" in app.screen.detail
            assert "added as User:admin, the lab's super user" in app.screen.detail and LINE in app.screen.detail
            await pilot.press("y")
            await pilot_until(pilot, lambda: acls.created, "the bindings created")
            await app.workers.wait_for_complete()
            await pilot.pause()
            (binding,) = acls.created
            assert (binding.pattern.resource_type, binding.pattern.name, binding.pattern.pattern_type) == (
                "TOPIC", "t", "LITERAL")  # fmt: skip
            assert (binding.entry.principal, binding.entry.host, binding.entry.operation, binding.entry.permission) == (
                "User:ANONYMOUS", "*", "WRITE", "ALLOW")  # fmt: skip
            assert acls.closed == 1
            assert any(n.message.startswith("granted: User:ANONYMOUS may now Write on Topic:t")
                       for n in app._notifications)  # fmt: skip
            assert app.check_action("grant", ()) is False  # granted: nothing left to grant
            status = str(app.query_one("#produce-status", Static).render())  # no longer "not delivered … M grants it"
            assert status == "granted: User:ANONYMOUS may now Write on Topic:t · Enter sends the line again", status
            await pilot.press("x")  # the cursor is back in the field, after the line: a key typed adds to it
            assert app.query_one("#produce-line", Input).value == "hellox"
    finally:
        consoles.close()


async def test_the_idempotent_producer_refused_its_producer_id_names_the_grant(mock_cluster: MockCluster) -> None:
    """Before: with `idempotent` ticked (the tab's default) the refusal came as `_PURGE_QUEUE: Local: Purged in queue`
    and M had nothing to grant; it says the fatal error librdkafka met before the purge, and what grants it."""
    mock_cluster.create_topic("t", 1, 1)
    # As an authorizer would, every InitProducerId is refused, not only the first: with a single pushed error a
    # retried InitProducerId would be granted and the line delivered (a suspected cause of a rare timeout here).
    mock_cluster.push_request_errors(INIT_PRODUCER_ID, [CLUSTER_AUTHORIZATION_FAILED] * 20)
    app, consoles = app_on(mock_cluster, RecordingAcls())
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot_until(pilot, lambda: app.view.cluster is not None, "the first poll")
            said = await refused_send(pilot, app)
            assert "_PURGE" not in said, said
            assert "CLUSTER_AUTHORIZATION_FAILED: User:ANONYMOUS may not Write on Topic:t — grant it: " + LINE in said
            assert said.endswith(" · M grants it")
            await pilot_until(pilot, lambda: app.check_action("grant", ()) is True, "M shown after the refusal")
    finally:
        consoles.close()


async def test_m_refuses_where_it_must(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("t", 1, 1)
    mock_cluster.push_request_errors(PRODUCE, [TOPIC_AUTHORIZATION_FAILED] * 20)
    acls = RecordingAcls(refuse=True)
    app, consoles = app_on(mock_cluster, acls)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot_until(pilot, lambda: app.view.cluster is not None, "the first poll")
            await pilot.press("M")  # before any refusal: hidden from the footer, it says why it does nothing
            await pilot.pause()
            assert "nothing was refused yet" in list(app._notifications)[-1].message
            await refused_send(pilot, app)
            await pilot_until(pilot, lambda: app.check_action("grant", ()) is True, "M shown after the refusal")
            app.set_focus(None)
            await pilot.press("M", "y")
            await pilot_until(pilot, lambda: app.last_action is not None and app.last_action.error, "the refusal")
            assert app.last_action is not None and app.last_action.error == (
                "User:admin, the lab's super user may not add ACLs (Alter on the cluster): ask an admin to run: "
                "kafkatop acls --add --allow-principal User:ANONYMOUS --operation Write --topic t --name lab"
            )  # the line as it reaches this cluster (the view's flags), to run as printed
            assert acls.created == [] and app.check_action("grant", ()) is True  # still there to grant
    finally:
        consoles.close()
    ro, consoles = app_on(mock_cluster, RecordingAcls(), read_only=True)
    try:
        async with ro.run_test(size=(160, 45)) as pilot:
            ro.grants.met(app.grants.grants_met)
            ro.action_grant()
            await pilot.pause()
            assert "read-only" in list(ro._notifications)[-1].message and not isinstance(ro.screen, ConfirmScreen)
    finally:
        consoles.close()


async def test_the_consumer_console_says_so_under_its_refusal_once_m_granted_it(mock_cluster: MockCluster) -> None:
    """The consumer's side of M: its log names the refusal (a consumer whose group the authorizer refuses: a view as
    the Consoles adapter makes it, the mock having no authorizer) and, once M granted it, says so beneath."""
    acls = RecordingAcls()
    app, consoles = app_on(mock_cluster, acls)
    grant = Grant("User:ANONYMOUS", ("READ",), ResourcePattern("GROUP", "g"))
    refused = ConsumerView("consumer-1", "g", ("t",), "failed", (), 0,
                           "GROUP_AUTHORIZATION_FAILED: Group authorization failed.", (grant,))  # fmt: skip
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot_until(pilot, lambda: app.view.cluster is not None, "the first poll")
            panel = app.query_one(ConsumerPane)
            panel._show_refusals((refused,))  # noqa: SLF001 - the drain's step, given the adapter's view
            await pilot_until(pilot, lambda: app.check_action("grant", ()) is True, "M shown after the refusal")
            log = panel.query_one("#received", MessageLog)
            kept = lambda: [line.plain for line in log._kept]  # noqa: E731, SLF001 - every line added, unwrapped
            assert any("User:ANONYMOUS may not Read on Group:g" in line for line in kept())
            app.set_focus(None)
            await pilot.press("M")
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("y")
            await pilot_until(pilot, lambda: "✓ granted: User:ANONYMOUS may now Read on Group:g" in kept(),
                              "the consumer's log says it was granted")  # fmt: skip
            assert [b.entry.operation for b in acls.created] == ["READ"]
    finally:
        consoles.close()


async def test_m_never_grants_kafkas_wildcard(mock_cluster: MockCluster) -> None:
    """A topic named `*` (the mock takes any name; a real Kafka refuses the name, but its authorizer answers first):
    the refusal says `*` is Kafka's wildcard and how to allow every topic on purpose; M adds nothing (issue 38: it
    added a LITERAL `*` ACL, letting the user write every topic)."""
    mock_cluster.create_topic("*", 1, 1)
    mock_cluster.push_request_errors(PRODUCE, [TOPIC_AUTHORIZATION_FAILED] * 20)
    acls = RecordingAcls()
    app, consoles = app_on(mock_cluster, acls)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot_until(pilot, lambda: app.view.cluster is not None, "the first poll")
            said = await refused_send(pilot, app, "*")
            assert "grant it" not in said and "M grants it" not in said, said
            assert "Topic:* is Kafka's wildcard: an ACL on it would allow Write on every topic" in said, said
            assert "to allow that on purpose: kafkatop acls --add --allow-principal User:ANONYMOUS --operation " \
                   "Write --topic '*' --name lab" in said, said  # fmt: skip
            await pilot_until(pilot, lambda: app.check_action("grant", ()) is True, "M shown after the refusal")
            app.set_focus(None)
            await pilot.press("M")
            await pilot_until(pilot, lambda: any("Kafka's wildcard" in n.message for n in app._notifications),
                              "M saying why it grants nothing")  # fmt: skip
            assert not isinstance(app.screen, ConfirmScreen)
            await pilot.press("y")
            await app.workers.wait_for_complete()
            assert acls.created == []
    finally:
        consoles.close()
