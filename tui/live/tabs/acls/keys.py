"""What the ACLs tab's keys do (section ACLs): `W` shows the tab (and in it, groups the bindings by
principal or by resource); `Y` adds bindings from a dialog; `V` removes the highlighted binding after a confirmation
naming it. Each write runs in the app's action worker, told on the timeline as an operation and, at its end, as a
notice (ActionFinished); the tab's next poll shows it. In a read-only context the screen refuses `Y` and `V` before
they get here (keymap's `writes`)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from kafkatop.backends.model.acls import AclBinding, AclBindingFilter
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.operations import OperationKind, OperationPhase, OperationStep
from kafkatop.backends.ports import AclAdmin
from kafkatop.tui.live.action import ANY, LiveAction
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.tabs.acls.add import bindings_text
from kafkatop.tui.live.tabs.acls.pane import NO_RECORDING, NO_SOURCE, AclsPane
from kafkatop.tui.live.tabs.tab import TabScreen

ACLS = "tab-acls"
_HERE = frozenset({ACLS})
_BINDING = partial(LiveAction, section="ACLs", tabs=_HERE, needs="acls", writes=True, asks_first=True)

# fmt: off
ACTIONS: tuple[LiveAction, ...] = (
    # ACLs: W (who may do what), Y adds, V removes (reVoke): letters no other key holds, and none a slip away from a
    # key that acts at once (w opens the contexts, v asks before its durability check, y and the others are free).
    LiveAction("acls-tab", ("W",), "acls_tab", "ACLs",
        help="the ACLs tab: every ACL binding by principal (its resources with their pattern type, the operations "
             "allowed or denied, the hosts), the authorizer, its super users and who kafkatop is (read every 3 s); "
             "in the tab, `W` again: by resource",
        section="ACLs", palette="ACLs: by principal, or by resource", launches=ANY),
    _BINDING("acl-add", ("Y",), "acls('add')", "Add ACL",
        help="ACLs: add a binding (principal, allow or deny, operations, resource, pattern type, host; or "
             "kafka-acls.sh's producer or consumer): a field Kafka would refuse says why and nothing is sent",
        palette="Add an ACL binding"),
    _BINDING("acl-remove", ("V",), "acls('remove')", "Remove ACL",
        help="ACLs: remove the highlighted binding (a confirmation names it)",
        palette="Remove the highlighted ACL binding"),
)
# fmt: on


class AclKeys:
    def __init__(self, screen: TabScreen) -> None:
        self.screen = screen
        self.app = screen.host

    def action_acls_tab(self) -> None:
        self.run("tab")

    def action_acls(self, what: str) -> None:
        self.run(what)

    @property
    def panel(self) -> AclsPane | None:
        return next(iter(self.screen.query(AclsPane)), None)

    def run(self, what: str) -> None:
        app, panel = self.app, self.panel
        launch, tab = self.screen.here()[0], self.screen.tabs.active
        if panel is None:
            app.notify(NO_RECORDING if launch == "replay" else NO_SOURCE, timeout=5)
            return
        if what == "tab":
            if tab == ACLS:
                panel.toggle_grouping()
            else:
                self.screen.show_tab(ACLS)
            return
        admin = app.sources.acls
        if admin is None:
            app.notify(panel.missing.plain, severity="warning", timeout=6)
        elif what == "add":
            self.add(admin, panel)
        elif tab != ACLS:
            app.notify("V removes the binding highlighted in ACLs: press W, pick a binding, then V", severity="warning",
                       timeout=5)  # fmt: skip
        elif (binding := panel.selected_binding) is None:
            app.notify("V: highlight a binding first (Y adds one)", severity="warning")
        else:
            self.remove(admin, binding)

    def _act(self, done: str, call: Callable[[], object]) -> None:
        """`call` in the action worker; the timeline tells what it did (or why not), and its end is a notice."""
        feed = self.app.feed

        def run() -> None:
            kind = OperationKind.ACL_CHANGE
            try:
                call()
            except KafkatopError as e:
                feed.operation(OperationStep(kind, OperationPhase.FAILED, f"{done}: not done: {e}"))
                raise
            feed.operation(OperationStep(kind, OperationPhase.DONE, f"{done} from kafkatop"))

        self.app.act(done, run)

    def add(self, admin: AclAdmin, panel: AclsPane) -> None:
        """The dialog's bindings, created (CreateAcls) once every field is one Kafka takes."""

        def chosen(bindings: tuple[AclBinding, ...] | None) -> None:
            if bindings:
                n = len(bindings)
                said = f"ACL binding{'s' * (n != 1)} added: {bindings_text(bindings)}"
                self._act(said, lambda: admin.create(bindings))

        from kafkatop.tui.live.tabs.acls.add import AddAclScreen

        snapshot, cluster = self.app.view.acls, self.app.view.cluster
        principals = tuple(sorted({b.entry.principal for b in snapshot.bindings})) if snapshot else ()
        names = sorted({t.name for t in cluster.topics} | {g.group_id for g in cluster.groups}) if cluster else []
        self.app.push_screen(AddAclScreen(principals, tuple(names)), chosen)

    def remove(self, admin: AclAdmin, binding: AclBinding) -> None:
        """DeleteAcls with a filter matching exactly this binding, after a confirmation naming it."""
        said = bindings_text((binding,))

        def delete() -> None:
            if not admin.delete([AclBindingFilter.exactly(binding)]):
                raise KafkatopError(f"no ACL binding {said}: removed meanwhile? (the tab shows them as now)")

        def answered(yes: bool | None) -> None:
            if yes:
                self._act(f"ACL binding removed: {said}", delete)

        snapshot = self.app.view.acls
        you = snapshot.principal if snapshot is not None else None
        who, allowed = binding.entry.principal, binding.entry.permission == "ALLOW"
        then = (f"{who} may then no longer do it, unless another binding allows it." if allowed else
                f"{who} is then no longer denied it: another binding (or none, with allow.everyone.if.no.acl.found) "
                "decides.")  # fmt: skip
        if you is not None and who in (you, "User:*") and allowed:
            if you not in (snapshot.authorizer.super_users if snapshot is not None else ()):
                then += f" kafkatop is {you}, no super user: it may lose this access itself."
        self.app.push_screen(ConfirmScreen("Remove this ACL binding?", yes="Remove", detail=f"{said}\n\n{then}",
                                           typed=self.app.settings.typed_name), answered)  # fmt: skip
