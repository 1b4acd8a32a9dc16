"""The live view's Granting, for the composition root (compose.py): who kafkatop is on the cluster, the flags a pasted
`kafkatop acls --add …` line needs there (grant_lines.acl_flags), and who adds what the authorizer refused (`M`): on a
lab whose admin.properties kafkatop holds, `admin`, the lab's super user, even when the view runs as another user;
elsewhere kafkatop's own user, whom the authorizer may refuse too (then M says so, with the line for an admin). None
for the demo: its mock cluster has no authorizer."""

from __future__ import annotations

import argparse
from typing import Literal

from kafkatop.backends.insight.grants import principal_of
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.ports import AclAdmin
from kafkatop.tui.cli.grant_lines import acl_flags, admin_properties
from kafkatop.tui.live.granting import Granting

TIMEOUT_S = 10.0  # CreateAcls is answered once the controller has written the bindings


def granting(
    args: argparse.Namespace, kind: Literal["lab", "attach", "demo"], connection: KafkaConnection
) -> Granting | None:
    if kind == "demo":
        return None
    from kafkatop.tui.cli.common import client_settings

    principal = principal_of(connection.client_settings)
    admin = admin_properties(args)  # a lab's, also when attached to it by its address
    by, grantor = connection, principal
    if admin is not None:
        admin_settings = client_settings(argparse.Namespace(command_config=str(admin)))
        if principal_of(admin_settings) != principal:
            by = KafkaConnection.parse(connection.bootstrap_servers, admin_settings)
            grantor = f"{principal_of(admin_settings)}, the lab's super user"

    def acls() -> AclAdmin:
        from kafkatop.backends.kafka.security.acls import KafkaAcls

        return KafkaAcls(by, timeout_s=TIMEOUT_S)

    return Granting(principal, acl_flags(args), grantor, acls)
