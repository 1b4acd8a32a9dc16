"""`M` (perMit): grant what Kafka's authorizer refused last. A pane that meets a refusal posts GrantsMet (and an action
that ends in one says so in its ActionFinished); the app keeps the last refusal's grants, and `M`, shown once there
is one, asks first — listing the ACL bindings and who adds them: on a lab with an authorizer `User:admin`, the lab's
super user, whose admin.properties kafkatop holds; elsewhere kafkatop's own user — then adds them in the action
worker (CreateAcls, through the AclAdmin port) and says so. A grantor the authorizer refuses too is said plainly, with
the line to hand an admin (granting.py)."""

from __future__ import annotations

from collections.abc import Callable

from kafkatop.backends.insight.grants import refusals, wildcard_text
from kafkatop.backends.model.acls import Grant, camel
from kafkatop.tui.live.granting import GrantAwaiting, GrantsMet, granting_of
from kafkatop.tui.live.messages import ActionFinished, ContextOpened
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.switching import ContextSwitching

GRANT = "grant"  # the action's name (keymap.py: "app.grant")


class GrantKeeping(ContextSwitching):
    """The app's part that keeps the last refusal's grants and grants them (KafkatopApp builds on it)."""

    grants_met: tuple[Grant, ...] = ()
    _granting: tuple[str, tuple[Grant, ...]] | None = None  # the grant being made: its ActionFinished text, grants

    def met(self, grants: tuple[Grant, ...]) -> None:
        if grants and grants != self.grants_met:
            self.grants_met = grants
            self.refresh_bindings()  # M appears in the footer

    def on_grants_met(self, message: GrantsMet) -> None:
        self.met(message.grants)

    def on_action_finished(self, message: ActionFinished) -> None:
        # KafkatopApp's own handler (notice, timeline) runs too: Textual calls each class's in turn.
        if message.grants:
            self.met(message.grants)
        elif self._granting is not None and message.what == self._granting[0] and message.error is None:
            granted, self._granting, self.grants_met = self._granting[1], None, ()
            self.refresh_bindings()
            for screen in self.screen_stack:  # the panes whose status line asked for it say it is granted
                for pane in screen.query("*"):
                    if isinstance(pane, GrantAwaiting):
                        pane.granted(granted, message.what)

    def on_context_opened(self, message: ContextOpened) -> None:
        self.grants_met = ()  # another cluster: its own refusals, none yet (ContextSwitching's handler runs too)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == GRANT:
            return bool(self.grants_met)
        return super().check_action(action, parameters)

    def action_grant(self) -> None:
        grants, granting = self.grants_met, granting_of(self)
        if not grants:
            self.notify("M grants what Kafka's authorizer refused: nothing was refused yet", timeout=4)
            return
        if self.settings.refusal is not None:
            self.notify(f"{self.settings.refusal}: adding ACLs writes to the cluster", severity="warning", timeout=5)
            return
        if granting is None or granting.acls is None:
            self.notify("ACLs cannot be added from here", severity="warning", timeout=5)
            return
        wide = [g for g in grants if g.wildcard]  # Kafka's `*`: more than was refused, never granted by a key
        if len(wide) == len(grants):
            self.notify(wildcard_text(wide[0], granting.flags), severity="warning", timeout=12)
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
                self.act(done, lambda: granting.grant(grants))

        self.push_screen(ConfirmScreen(f"Add {len(bindings)} ACL binding(s)?", yes="Grant", detail=detail), go)

    def act(self, what: str, call: Callable[[], object]) -> None:
        raise NotImplementedError  # KafkatopApp's: the action worker
