"""ACLs: the bindings by principal or by resource, the authorizer and who kafkatop is. In the view where there are ACLs
to show (the app's sources, or those a replay recorded), and in the demo, to say it has none."""

from __future__ import annotations

from pathlib import Path

from kafkatop.tui.live.tabs.acls.keys import ACLS, ACTIONS, AclKeys
from kafkatop.tui.live.tabs.acls.pane import AclsPane
from kafkatop.tui.live.tabs.tab import Tab, showing

CSS = Path(__file__).with_name("acls.tcss")  # its rules: layout and colour beside the tab
TAB = Tab(
    ACLS,
    "ACLs",
    showing(lambda c: AclsPane(c.launch, "acls" in c.present, c.settings.read_only_reason)),
    ACTIONS,
    AclKeys,
    composed=lambda c: "acls" in c.present or c.launch == "demo",
    css=CSS,
    purpose="the ACL bindings by principal or by resource, and the authorizer",
    shown_by="acls-tab",
)
