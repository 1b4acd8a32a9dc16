"""The ACLs tab and its keys, the app headless: the bindings by principal and by resource (`W`), `/`, the add dialog
(a field Kafka would refuse says why and nothing is sent; a whole one is sent once), the removal of the highlighted
binding after a confirmation naming it, the refusals (a read-only context: nothing sent, the keys not offered; a
replay; outside the tab), the demo that says it has no authorizer, and a replay of recorded ACLs. The ACLs are
RecordedAcls, a TEST DOUBLE of the AclAdmin port (a real Kafka 4.1 with StandardAuthorizer is driven by
test_acls_tab_kafka.py; the demo by test_demo_has_no_authorizer here, on the librdkafka mock)."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import replace
from typing import Any, Literal

from textual.widgets import Input, Static, TabbedContent

from kafkatop.backends.model.acls import AclBindingFilter
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.recording import Recorded, Recording, RecordingHeader
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.commands import offered
from kafkatop.tui.live.keymap import by_id
from kafkatop.tui.live.replay import Replay
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.acls.add import AddAclScreen
from kafkatop.tui.live.tabs.acls.pane import NO_AUTHORIZER, NO_DEMO, NO_RECORDING, AclsPane
from kafkatop.tui.live.widgets.line_table import LineTable
from kafkatop.tui.live.widgets.status_bar import StatusBar
from tests.conftest import pilot_until
from tests.fixtures.acl_views import BINDINGS, RecordedAcls, acls_snapshot, binding, no_authorizer
from tests.fixtures.snapshots import TAKEN_AT, RecordedControl, kraft_lab

ADD, REMOVE = by_id("acl-add").palette, by_id("acl-remove").palette
SETTINGS = Settings(poll_interval_s=86_400, ensemble_interval_s=86_400, acls_interval_s=86_400, launch="lab")


def app_with(acls: RecordedAcls | None, launch: Literal["lab", "attach", "demo"] = "lab", read_only: bool = False,
             context: str | None = None) -> KafkatopApp:  # fmt: skip
    cluster, nodes, quorum = kraft_lab()
    sources = Sources(lambda: cluster, RecordedControl(nodes), lambda: quorum, acls=acls)
    settings = replace(SETTINGS, launch=launch, read_only=read_only, context=context)
    return KafkatopApp(sources, settings, clock=lambda: TAKEN_AT)


async def settled(pilot: Any) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def notices(app: KafkatopApp) -> list[str]:
    return [n.message for n in app._notifications]


def shown(app: KafkatopApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())  # the screen on top: a dialog, or the main one


def rows(app: KafkatopApp) -> list[tuple[str, ...]]:
    table = app.query_one("#acl-table", LineTable)
    return [table.row(k) for k in table._keys]


async def test_the_tab_groups_by_principal_then_by_resource_and_filters() -> None:
    app = app_with(RecordedAcls())
    async with app.run_test(size=(160, 45)) as pilot:
        await settled(pilot)
        await pilot.press("W")
        assert app.query_one(TabbedContent).active == "tab-acls"
        assert app.main_screen.tab_titles()[-1] == "ACLs"
        said = "authorizer StandardAuthorizer, super users User:admin · you: User:admin (super user) · 9 bindings"
        assert shown(app, "#acls-header") == said
        assert "authorizer StandardAuthorizer, super users User:admin" in app.query_one(StatusBar).text.plain
        assert [r[0] for r in rows(app)] == ["User:*"] + ["User:analyst"] * 3 + ["User:client"] * 5
        await pilot.press("W")  # again, in the tab: by resource
        assert app.query_one("#acl-table", LineTable).columns[:3] == ("resource", "pattern", "principal")
        assert [r[0] for r in rows(app)][:3] == ["Group:billing", "Topic:*", "Topic:logs-*"]
        assert shown(app, "#acls-keys").startswith("W: by principal · / filter · Y add · V remove")
        await pilot.press("slash", *"analyst", "enter")
        assert [r[2] for r in rows(app)] == ["User:analyst"] * 3
        await pilot.press("escape")  # every row again
        await pilot.press("slash", *"idempotent", "enter")
        assert rows(app) == []
        await pilot.press("escape", "slash", *"deny", "enter")
        assert rows(app) == [("Topic:logs-secret", "LITERAL", "User:analyst", "DENY", "Read", "*")]


async def test_the_add_dialog_says_why_a_field_is_wrong_sends_nothing_then_sends_the_bindings_once() -> None:
    acls = RecordedAcls()
    app = app_with(acls)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        await pilot.press("W", "Y")
        assert isinstance(app.screen, AddAclScreen)
        await pilot.press(*"client", "enter")  # a principal without its type, and no operation
        errors = shown(app, "#dialog-errors")
        assert "principal: principal 'client' is not TYPE:NAME: write it as Kafka does, e.g. User:client" in errors
        assert "operations: at least one" in errors and acls.calls == []
        app.screen.query_one("#acl-principal", Input).value = "User:carol"
        app.screen.query_one("#acl-name", Input).value = "orders"
        app.screen.query_one("#acl-convenience", Input).value = "consumer"
        app.screen.query_one("#acl-group", Input).value = "billing"
        await pilot.pause()
        preview = shown(app, "#acl-preview")
        assert preview == ("adds User:carol ALLOW Read, Describe on Topic:orders (LITERAL) from *; User:carol ALLOW "
                           "Read on Group:billing (LITERAL) from *")  # fmt: skip
        await pilot.press("enter")
        await settled(pilot)
        added = (binding("User:carol", "READ", "TOPIC", "orders"), binding("User:carol", "DESCRIBE", "TOPIC", "orders"),
                 binding("User:carol", "READ", "GROUP", "billing"))  # fmt: skip
        assert acls.calls == [("create", added)]
        assert app.last_action is not None and app.last_action.error is None
        assert app.last_action.what.startswith("ACL bindings added: User:carol ALLOW Read, Describe on Topic:orders")
        await pilot_until(pilot, lambda: "User:carol" in {r[0] for r in rows(app)}, "the new bindings in the tab")
        done = [e.text for e in app.timeline.snapshot().events]
        assert any(t.startswith("ACL bindings added: User:carol") and t.endswith("from kafkatop") for t in done)
        await pilot.press("Y", "escape")  # Escape out of the dialog: nothing more sent
        assert not isinstance(app.screen, AddAclScreen) and len(acls.calls) == 1


async def test_remove_asks_naming_the_binding_then_deletes_exactly_it() -> None:
    acls = RecordedAcls()
    app = app_with(acls)
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        await pilot.press("W", "j", "j", "j")  # User:analyst's DENY
        await pilot.press("V")
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.detail.startswith("User:analyst DENY Read on Topic:logs-secret (LITERAL) from *\n\n"
                                            "User:analyst is then no longer denied it")  # fmt: skip
        await pilot.press("n")
        assert acls.calls == []
        await pilot.press("V", "y")
        await settled(pilot)
        denied = binding("User:analyst", "READ", "TOPIC", "logs-secret", permission="DENY")
        assert acls.calls == [("delete", (AclBindingFilter.exactly(denied),))]
        await pilot_until(pilot, lambda: len(rows(app)) == len(BINDINGS) - 1, "the binding gone from the tab")
        assert "DENY" not in {r[3] for r in rows(app)}
        assert app.last_action is not None and app.last_action.what.startswith("ACL binding removed: User:analyst")


async def test_an_attached_cluster_asks_for_its_name_before_a_removal() -> None:
    acls = RecordedAcls()
    cluster, nodes, quorum = kraft_lab()
    sources = Sources(lambda: cluster, RecordedControl(nodes), lambda: quorum, acls=acls)
    app = KafkatopApp(sources, replace(SETTINGS, launch="attach", typed_name="prod"), clock=lambda: TAKEN_AT)
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        await pilot.press("W", "V", "y")  # y types a y: the name is asked
        assert isinstance(app.screen, ConfirmScreen) and app.screen.typed == "prod"
        await pilot.press("escape")
        assert acls.calls == []


async def test_refused_in_a_read_only_context_in_a_replay_and_outside_the_tab() -> None:
    acls = RecordedAcls()
    app = app_with(acls, read_only=True, context="prod")
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        await pilot.press("W")
        assert app.query_one(TabbedContent).active == "tab-acls"
        assert "Y add" not in shown(app, "#acls-keys") and "context 'prod' is read-only" in shown(app, "#acls-keys")
        for key in ("Y", "V"):
            await pilot.press(key)
            await settled(pilot)
            assert "context 'prod' is read-only" in notices(app)[-1] and "writes to the cluster" in notices(app)[-1]
        assert not isinstance(app.screen, AddAclScreen | ConfirmScreen) and acls.calls == []
        assert not {c.title for c in offered(app.main_screen)} & {ADD, REMOVE}  # the palette offers neither

    app = app_with(RecordedAcls())
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        assert not {c.title for c in offered(app.main_screen)} & {ADD, REMOVE}  # not in this tab
        await pilot.press("V")
        assert notices(app)[-1] == "V removes the binding highlighted in ACLs: press W, pick a binding, then V"
        await pilot.press("W")
        assert {c.title for c in offered(app.main_screen)} >= {ADD, REMOVE}

    header = RecordingHeader(TAKEN_AT, "lab 'acl'", ("control", "acls"))
    recording = Recording(header, (Recorded(TAKEN_AT, "acls", acls_snapshot()),))
    app = KafkatopApp(Sources(lambda: kraft_lab()[0]), Settings(), replay=Replay(recording))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot_until(pilot, lambda: app.view.acls is not None, "the replayed ACLs")
        await pilot.press("W")
        assert app.query_one(TabbedContent).active == "tab-acls" and len(rows(app)) == len(BINDINGS)
        assert shown(app, "#acls-keys") == "W: by resource · / filter"
        await pilot.press("Y")
        assert "a replay only plays back what was recorded" in notices(app)[-1]

    before = RecordingHeader(TAKEN_AT, "lab 'acl'", ("control",))  # recorded by a kafkatop without the ACLs
    old = Recording(before, (Recorded(TAKEN_AT, "cluster", kraft_lab()[0]),))
    app = KafkatopApp(Sources(lambda: kraft_lab()[0]), Settings(), replay=Replay(old))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "ACLs" not in app.main_screen.tab_titles()
        await pilot.press("W")
        assert notices(app)[-1] == NO_RECORDING


async def test_a_cluster_without_an_authorizer_says_so_and_how_to_get_one() -> None:
    app = app_with(RecordedAcls(no_authorizer()))
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        await pilot.press("W")
        await settled(pilot)
        assert shown(app, "#acls-header") == NO_AUTHORIZER
        assert not app.query_one("#acl-table").display
        assert "authorizer" not in app.query_one(StatusBar).text.plain


async def test_the_demo_has_no_authorizer() -> None:
    """`kafkatop --demo`, composed as the command line composes it: no AclAdmin (the librdkafka mock answers no ACL
    request: the adapter finds no DescribeAcls in its ApiVersions), and the tab says so and how to get one."""
    from kafkatop.backends.kafka.security.acls import KafkaAcls
    from kafkatop.tui.cli.compose import compose_app
    from kafkatop.tui.cli.parser import build_parser

    args = build_parser().parse_args(["--demo", "--interval", "0.5"])
    with ExitStack() as stack:
        app = compose_app(args, stack, terminal=False)
        assert app.sources.acls is None
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot_until(pilot, lambda: app.snapshot is not None, "the first poll")
            await pilot.press("W")
            assert app.query_one(TabbedContent).active == "tab-acls"
            assert shown(app, "#acls-header") == NO_DEMO
            assert not app.query_one("#acl-table").display
            await pilot.press("Y")
            assert notices(app)[-1] == NO_DEMO and not isinstance(app.screen, AddAclScreen)
            assert app.snapshot is not None
            mock = KafkaAcls(KafkaConnection.parse(",".join(b.address for b in app.snapshot.brokers)), timeout_s=5.0)
            try:
                said = mock.poll()
            finally:
                mock.close()
            assert said.bindings == () and said.error is not None and "does not offer DescribeAcls" in said.error


async def test_no_tab_where_there_are_no_acls_to_read() -> None:
    """An attached cluster always has its AclAdmin (compose_acls.py): without one (a test's sources), no tab."""
    app = app_with(None, launch="attach")
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        assert "ACLs" not in app.main_screen.tab_titles() and not app.query(AclsPane)
