"""The ACLs tab at 80x24 and 160x45, from fixed bindings (RecordedAcls, a named test double, answering the bindings
kafka-acls.sh's options add, tests/fixtures/acl_views.py): by principal, by resource, filtered, the add dialog
refusing what Kafka would refuse, the confirmation of a removal, a read-only context; and what the tab says where
there are no ACLs (a cluster without an authorizer, the demo). Fixed data and size, no clock, no network, no
processes."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

import pytest

from kafkatop.backends.model.acls import AclsSnapshot
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from tests.fixtures.acl_views import RecordedAcls, acls_snapshot, no_authorizer
from tests.fixtures.snapshots import TAKEN_AT, RecordedControl, kraft_lab
from tests.snapshots.test_connect_snapshots import pressing

SIZES = {"80x24": (80, 24), "160x45": (160, 45)}
FROZEN = Settings(poll_interval_s=86_400, ensemble_interval_s=86_400, acls_interval_s=86_400, launch="lab")


def acls_app(
    snapshot: AclsSnapshot | None, mode: Literal["lab", "demo"] = "lab", read_only: bool = False
) -> KafkatopApp:
    cluster, nodes, quorum = kraft_lab()
    acls = RecordedAcls(snapshot) if snapshot is not None else None
    sources = Sources(lambda: cluster, RecordedControl(nodes), lambda: quorum, acls=acls)
    settings = replace(FROZEN, launch=mode, read_only=read_only, context="prod" if read_only else None)
    return KafkatopApp(sources, settings, clock=lambda: TAKEN_AT)


# Each: the ACLs polled (None: no AclAdmin), the mode, read-only, then the keys pressed.
SCREENS: dict[str, tuple[AclsSnapshot | None, Literal["lab", "demo"], bool, tuple[str, ...]]] = {
    "by-principal": (acls_snapshot(), "lab", False, ("W",)),
    "by-resource": (acls_snapshot(), "lab", False, ("W", "W")),
    "filtered": (acls_snapshot(), "lab", False, ("W", "slash", *"analyst", "enter")),
    "add-refuses-what-kafka-would": (acls_snapshot(), "lab", False, ("W", "Y", *"client", "tab", "tab", "tab",
                                                                     *"Write", "tab", *"group", "enter")),
    "remove-asks": (acls_snapshot(), "lab", False, ("W", "j", "j", "j", "V")),
    "read-only": (acls_snapshot(), "lab", True, ("W",)),
    "no-authorizer": (no_authorizer(), "lab", False, ("W",)),
    "demo-has-none": (None, "demo", False, ("W",)),
}  # fmt: skip


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_acls_tab(snap_compare: Any, screen: str, size: str) -> None:
    snapshot, mode, read_only, keys = SCREENS[screen]
    app = acls_app(snapshot, mode, read_only)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=pressing(*keys))
