"""What the live view knows of the authorizer's refusals: who kafkatop is, the flags a pasted `kafkatop acls --add …`
line needs here, and who can add the ACLs a refusal asked for (the composition root builds it: tui/cli/grant_desk.py).
A pane that meets a refusal posts GrantsMet; the app keeps the last one, and `M` grants it (grant_key.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from textual.message import Message

from kafkatop.backends.insight.grants import Refused, grant_lines, refusal_text
from kafkatop.backends.model.acls import Grant
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.ports import AclAdmin


@dataclass(frozen=True)
class Granting:
    principal: str  # who kafkatop is on this cluster (User:client): whom the refusals name
    flags: tuple[str, ...]  # what a pasted `kafkatop acls` line needs to reach this cluster as `grantor`
    grantor: str  # who adds the ACLs: "User:admin, the lab's super user", or kafkatop's own principal
    acls: Callable[[], AclAdmin] | None = None  # opened when M is pressed, closed after; None: none can be added here

    def line(self, grants: Sequence[Grant]) -> str:
        return grant_lines(grants, self.flags)

    def grant(self, grants: Sequence[Grant]) -> None:
        """Adds the grants' bindings (blocking: the action worker calls it). A grantor the authorizer refuses too
        (CLUSTER_AUTHORIZATION_FAILED: no Alter on the cluster) is said plainly, with the line to hand an admin."""
        if self.acls is None:
            raise KafkatopError("ACLs cannot be added here: " + self.line(grants))
        admin = self.acls()
        try:
            admin.create([b for g in grants for b in g.bindings()])
        except KafkatopError as e:
            if "CLUSTER_AUTHORIZATION_FAILED" in str(e):
                raise KafkatopError(f"{self.grantor} may not add ACLs (Alter on the cluster): ask an admin to run: "
                                    f"{self.line(grants)}") from None  # fmt: skip
            raise
        finally:
            admin.close()


@dataclass
class GrantsMet(Message):
    """A pane met the authorizer's refusal: what would let it through (the app keeps the last, for M)."""

    grants: tuple[Grant, ...]


class GrantAwaiting:
    """A pane whose status line says a refusal and `M`: told once M granted what it asked for (grant_key.py)."""

    def granted(self, grants: tuple[Grant, ...], said: str) -> None:
        """`said`: the grant made, as the app's notice says it ("granted: User:client may now Write on …")."""


def granting_of(app: object) -> Granting | None:
    """The Granting of the app's current sources, if it has one (a pane asks its app; the demo and a replay have
    none)."""
    found = getattr(getattr(app, "sources", None), "granting", None)
    return found if isinstance(found, Granting) else None


def flags_of(app: object) -> tuple[str, ...]:
    granting = granting_of(app)
    return granting.flags if granting is not None else ()


def _m_key(grants: Sequence[Grant], app: object) -> str:
    """` · M grants it` where M can: ACLs can be added here, and what was refused is not Kafka's wildcard."""
    granting = granting_of(app)
    can = granting is not None and granting.acls is not None and any(not g.wildcard for g in grants)
    return " · M grants it" if can else ""


def refused_text(error: Refused, app: object) -> str:
    """A refusal as a pane says it: who may not do what, the line that grants it here, and M."""
    return error.text(flags_of(app)) + _m_key(error.grants, app)


def grants_text(error: str, grants: Sequence[Grant], app: object) -> str:
    """A refusal met without an exception (a delivery report, a consumer's error), as refused_text says it."""
    return refusal_text(error, grants, flags_of(app)) + _m_key(grants, app)
