"""The live view's ACLs (its ACLs tab), for the composition root (compose.py): the cluster's AclAdmin
(backends/kafka/acls.py), with the connection's client properties — a lab's admin.properties where it has them, so the
view reads the ACLs as a super user — or None for the demo, whose mock cluster answers no ACL request: its tab says so,
and how to get an authorizer.

A broker describes `super.users` as sensitive (Kafka's DescribeConfigs answers it with no value: it is no config of
the broker's own definition), so the adapter cannot tell the super users; for a lab kafkatop wrote them itself, and
its snapshots name them (LabSuperUsers)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import replace
from typing import TYPE_CHECKING, Literal

from kafkatop.backends.model.acls import AclBinding, AclBindingFilter, AclsSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.ports import AclAdmin

if TYPE_CHECKING:
    from kafkatop.backends.lab.cluster import LabCluster

# Each request is bounded by this: an unreachable cluster slows the ACLs tab's poll (its own worker thread) by as
# much, never the rest of the view; CreateAcls and DeleteAcls are answered once the controller has written them.
TIMEOUT_S = 10.0


class LabSuperUsers:
    """An AclAdmin whose snapshots name the super users a lab's brokers were configured with."""

    def __init__(self, admin: AclAdmin, super_users: tuple[str, ...]) -> None:
        self.admin = admin
        self.super_users = super_users

    def poll(self) -> AclsSnapshot:
        polled = self.admin.poll()
        authorizer = polled.authorizer
        if authorizer.class_name is None or authorizer.super_users:
            return polled
        return replace(polled, authorizer=replace(authorizer, super_users=self.super_users))

    def describe(self, matching: AclBindingFilter) -> tuple[AclBinding, ...]:
        return self.admin.describe(matching)

    def create(self, bindings: Sequence[AclBinding]) -> None:
        self.admin.create(bindings)

    def delete(self, filters: Sequence[AclBindingFilter]) -> tuple[AclBinding, ...]:
        return self.admin.delete(filters)

    def close(self) -> None:
        self.admin.close()


def acl_admin(
    kind: Literal["lab", "attach", "demo"], connection: KafkaConnection, stack: ExitStack, lab: LabCluster | None
) -> AclAdmin | None:
    if kind == "demo":
        return None
    from kafkatop.backends.kafka.security.acls import KafkaAcls

    admin: AclAdmin = KafkaAcls(connection, timeout_s=TIMEOUT_S)
    stack.callback(admin.close)
    if kind == "lab" and lab is not None and lab.spec.authorizer:
        from kafkatop.backends.lab.security import SUPER_USERS

        admin = LabSuperUsers(admin, tuple(SUPER_USERS.split(";")))
    return admin
