"""`M` (perMit): grant what Kafka's authorizer refused last. A pane that meets a refusal posts GrantsMet (and an action
that ends in one says so in its ActionFinished); the app keeps the last refusal's grants, and `M`, shown once there
is one, asks first — listing the ACL bindings and who adds them: on a lab with an authorizer `User:admin`, the lab's
super user, whose admin.properties kafkatop holds; elsewhere kafkatop's own user — then adds them in the action
worker (CreateAcls, through the AclAdmin port) and says so. A grantor the authorizer refuses too is said plainly, with
the line to hand an admin (granting.py)."""

from __future__ import annotations

from kafkatop.backends.insight.grants import refusals, wildcard_text
from kafkatop.backends.model.acls import Grant, camel
from kafkatop.tui.live.granting import GrantAwaiting, granting_of
from kafkatop.tui.live.host import Host
from kafkatop.tui.live.messages import ActionFinished
from kafkatop.tui.live.screens.confirm import ConfirmScreen

GRANT = "grant"  # the action's name (keymap.py: "app.grant")


class GrantKeeper:
    """The last refusal's grants, and `M` granting them; the app owns one per context shown."""

    def __init__(self, app: Host) -> None:
        self.app = app
        self.grants_met: tuple[Grant, ...] = ()
        self._granting: tuple[str, tuple[Grant, ...]] | None = None  # the grant being made: its notice, its grants

    def met(self, grants: tuple[Grant, ...]) -> None:
        if grants and grants != self.grants_met:
            self.grants_met = grants
            self.app.refresh_bindings()  # M appears in the footer

    def forget(self) -> None:
        self.grants_met = ()  # another cluster: its own refusals, none yet

    def finished(self, message: ActionFinished) -> None:
        """An action ended: a refusal's grants kept, or the grant made said by the panes that asked for it."""
        if message.grants:
            self.met(message.grants)
        elif self._granting is not None and message.what == self._granting[0] and message.error is None:
            granted, self._granting, self.grants_met = self._granting[1], None, ()
            self.app.refresh_bindings()
            for screen in self.app.screen_stack:  # the panes whose status line asked for it say it is granted
                for pane in screen.query("*"):
                    if isinstance(pane, GrantAwaiting):
                        pane.granted(granted, message.what)

    def grant(self) -> None:
        app = self.app
        grants, granting = self.grants_met, granting_of(app)
        if not grants:
            app.notify("M grants what Kafka's authorizer refused: nothing was refused yet", timeout=4)
            return
        if app.settings.read_only_reason is not None:
            app.notify(
                f"{app.settings.read_only_reason}: adding ACLs writes to the cluster", severity="warning", timeout=5
            )
            return
        if granting is None or granting.acls is None:
            app.notify("ACLs cannot be added from here", severity="warning", timeout=5)
            return
        wide = [g for g in grants if g.wildcard]  # Kafka's `*`: more than was refused, never granted by a key
        if len(wide) == len(grants):
            app.notify(wildcard_text(wide[0], granting.flags), severity="warning", timeout=12)
            return
        grants = tuple(g for g in grants if not g.wildcard)
        bindings = [b for g in grants for b in g.bindings()]
        listed = "\n".join(f"  ALLOW {b.entry.principal} {camel(b.entry.operation)} on {b.pattern.short}, any host"
                           for b in bindings)  # fmt: skip
        detail = f"{listed}\nadded as {granting.grantor}, as this line does:\n  {granting.line(grants)}"
        if wide:
            detail += f"\nnot {', '.join(g.pattern.short for g in wide)}: Kafka's wildcard, more than was refused"
        done = "granted: " + refusals(grants).replace(" may not ", " may now ")

        def go(yes: bool | None) -> None:
            if yes:
                self._granting = done, grants
                app.act(done, lambda: granting.grant(grants))

        app.push_screen(ConfirmScreen(f"Add {len(bindings)} ACL binding(s)?", yes="Grant", detail=detail), go)
