"""What an authorization error asks for: from Kafka's refusal (TOPIC_AUTHORIZATION_FAILED, …), what kafkatop was
doing and the resources it named, the ACLs that would let it through — principal, operations, resource — and the
`kafkatop acls --add …` line that grants them. Pure: model only.

The operations are those Kafka 4.1's brokers and controllers check (KafkaApis, ControllerApis; the documentation's
"Operations and Resources on Protocols" table), the narrowest that does: Read, Write, Delete and Alter imply Describe,
so a consumer needs no Describe beside its Read. Where the documentation is out of date, the code wins:
ElectLeaders is Alter on the cluster (not ClusterAction), ConsumerGroupDescribe Describe on the group (not Read), and
since Kafka 3.0 (KIP-679) an idempotent producer needs no IdempotentWrite on the cluster — Write on a topic lets its
InitProducerId through, so a CLUSTER_AUTHORIZATION_FAILED of an idempotent producer is answered with Write on the
topic.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from kafkatop.backends.model.acls import CLUSTER_NAME, Grant, ResourcePattern, camel
from kafkatop.backends.model.client_properties import ClientPropertiesError, parse_jaas
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.text import shell_line

# Kafka's authorization errors, and the resource type each says was refused.
AUTHORIZATION_ERRORS = {
    "TOPIC_AUTHORIZATION_FAILED": "TOPIC",
    "GROUP_AUTHORIZATION_FAILED": "GROUP",
    "CLUSTER_AUTHORIZATION_FAILED": "CLUSTER",
    "TRANSACTIONAL_ID_AUTHORIZATION_FAILED": "TRANSACTIONAL_ID",
    "DELEGATION_TOKEN_AUTHORIZATION_FAILED": "DELEGATION_TOKEN",
}
_ERROR_NAMES = re.compile(r"\b(" + "|".join(AUTHORIZATION_ERRORS) + r")\b")

ANONYMOUS = "User:ANONYMOUS"

# What kafkatop was doing when it was refused, in its own words.
Doing = Literal[
    "produce", "idempotent produce", "transactional produce", "consume", "browse", "commit", "describe topic",
    "describe group", "delete group", "delete offsets", "reset offsets", "describe configs", "alter configs",
    "create topic", "delete topic", "add partitions", "delete records", "elect", "reassign", "list reassignments",
    "describe cluster", "describe acls", "alter acls", "describe users", "alter users", "describe quotas",
    "alter quotas", "describe transactions", "describe producers", "abort transaction", "update features",
    "share consume", "describe share group", "delete share group offsets", "create token", "describe token",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Need:
    """Refused on a resource of this type, the ACL to add: `operations` on the resource of `resource_type`."""

    resource_type: str
    operations: tuple[str, ...]


def _needs(**by_refused: tuple[str, str | tuple[str, ...]]) -> dict[str, Need]:
    return {refused: Need(kind, (ops,) if isinstance(ops, str) else ops) for refused, (kind, ops) in by_refused.items()}


# For each thing kafkatop does: the type of resource Kafka said it refused → what to grant (ResourceType, operations).
# fmt: off
NEEDS: dict[str, dict[str, Need]] = {
    # Produce: Write on the topic (Metadata's Describe is implied). InitProducerId without a transactional.id:
    # IdempotentWrite on the cluster, or (KIP-679, Kafka 3.0) Write on any topic — the narrower one is granted.
    "produce": _needs(TOPIC=("TOPIC", "WRITE")),
    "idempotent produce": _needs(TOPIC=("TOPIC", "WRITE"), CLUSTER=("TOPIC", "WRITE")),
    # InitProducerId, AddPartitionsToTxn, EndTxn: Write on the transactional id; sendOffsetsToTransaction: Read on
    # the group.
    "transactional produce": _needs(TOPIC=("TOPIC", "WRITE"), TRANSACTIONAL_ID=("TRANSACTIONAL_ID", "WRITE"),
                                    GROUP=("GROUP", "READ")),
    # Fetch: Read on the topic; FindCoordinator, JoinGroup, SyncGroup, Heartbeat, OffsetCommit: Read on the group.
    "consume": _needs(TOPIC=("TOPIC", "READ"), GROUP=("GROUP", "READ")),
    "browse": _needs(TOPIC=("TOPIC", "READ")),  # assigned partitions, no group: Fetch and ListOffsets only
    "commit": _needs(TOPIC=("TOPIC", "READ"), GROUP=("GROUP", "READ")),  # OffsetCommit
    "describe topic": _needs(TOPIC=("TOPIC", "DESCRIBE")),  # Metadata, DescribeTopicPartitions, ListOffsets
    # DescribeGroups, ConsumerGroupDescribe, OffsetFetch: Describe on the group and on each topic it committed.
    "describe group": _needs(GROUP=("GROUP", "DESCRIBE"), TOPIC=("TOPIC", "DESCRIBE")),
    "delete group": _needs(GROUP=("GROUP", "DELETE")),  # DeleteGroups
    "delete offsets": _needs(GROUP=("GROUP", "DELETE"), TOPIC=("TOPIC", "READ")),  # OffsetDelete
    # kafka-consumer-groups --reset-offsets --execute: DescribeGroups, ListOffsets, then OffsetCommit.
    "reset offsets": _needs(GROUP=("GROUP", "READ"), TOPIC=("TOPIC", "READ")),
    # DescribeConfigs / IncrementalAlterConfigs: on the topic, the group, or the cluster for a broker's configs.
    "describe configs": _needs(TOPIC=("TOPIC", "DESCRIBE_CONFIGS"), GROUP=("GROUP", "DESCRIBE_CONFIGS"),
                               CLUSTER=("CLUSTER", "DESCRIBE_CONFIGS")),
    "alter configs": _needs(TOPIC=("TOPIC", "ALTER_CONFIGS"), GROUP=("GROUP", "ALTER_CONFIGS"),
                            CLUSTER=("CLUSTER", "ALTER_CONFIGS")),
    # CreateTopics: Create on the cluster, else on the topic (the narrower one is granted).
    "create topic": _needs(TOPIC=("TOPIC", "CREATE"), CLUSTER=("TOPIC", "CREATE")),
    "delete topic": _needs(TOPIC=("TOPIC", "DELETE")),  # DeleteTopics
    "add partitions": _needs(TOPIC=("TOPIC", "ALTER")),  # CreatePartitions
    "delete records": _needs(TOPIC=("TOPIC", "DELETE")),  # DeleteRecords
    "elect": _needs(CLUSTER=("CLUSTER", "ALTER")),  # ElectLeaders (ControllerApis: Alter, not ClusterAction)
    "reassign": _needs(CLUSTER=("CLUSTER", "ALTER")),  # AlterPartitionReassignments
    "list reassignments": _needs(CLUSTER=("CLUSTER", "DESCRIBE")),  # ListPartitionReassignments
    "describe cluster": _needs(CLUSTER=("CLUSTER", "DESCRIBE")),  # DescribeLogDirs, DescribeQuorum, …
    "describe acls": _needs(CLUSTER=("CLUSTER", "DESCRIBE")),  # DescribeAcls
    "alter acls": _needs(CLUSTER=("CLUSTER", "ALTER")),  # CreateAcls, DeleteAcls
    "describe users": _needs(CLUSTER=("CLUSTER", "DESCRIBE")),  # DescribeUserScramCredentials
    "alter users": _needs(CLUSTER=("CLUSTER", "ALTER")),  # AlterUserScramCredentials
    "describe quotas": _needs(CLUSTER=("CLUSTER", "DESCRIBE_CONFIGS")),  # DescribeClientQuotas
    "alter quotas": _needs(CLUSTER=("CLUSTER", "ALTER_CONFIGS")),  # AlterClientQuotas
    # DescribeTransactions, ListTransactions: Describe on the transactional id (and on the topics it holds).
    "describe transactions": _needs(TRANSACTIONAL_ID=("TRANSACTIONAL_ID", "DESCRIBE"), TOPIC=("TOPIC", "DESCRIBE")),
    "describe producers": _needs(TOPIC=("TOPIC", "READ")),  # DescribeProducers
    "abort transaction": _needs(CLUSTER=("CLUSTER", "ALTER")),  # WriteTxnMarkers
    "update features": _needs(CLUSTER=("CLUSTER", "ALTER")),  # UpdateFeatures
    # ShareGroupHeartbeat, ShareFetch, ShareAcknowledge: Read on the group and the topic.
    "share consume": _needs(GROUP=("GROUP", "READ"), TOPIC=("TOPIC", "READ")),
    "describe share group": _needs(GROUP=("GROUP", "DESCRIBE"), TOPIC=("TOPIC", "DESCRIBE")),
    "delete share group offsets": _needs(GROUP=("GROUP", "DELETE"), TOPIC=("TOPIC", "READ")),
    # CreateDelegationToken for another owner: CreateTokens on that user; describing: Describe on the token.
    "create token": _needs(DELEGATION_TOKEN=("USER", "CREATE_TOKENS")),
    "describe token": _needs(DELEGATION_TOKEN=("DELEGATION_TOKEN", "DESCRIBE")),
}
# fmt: on


def authorization_error(text: str | None) -> str | None:
    """The authorization error Kafka named in `text` (an error name, or a line that begins with or holds one)."""
    if not text:
        return None
    m = _ERROR_NAMES.search(text)
    return m.group(1) if m else None


def grants_for(
    error: str,
    doing: Doing,
    principal: str,
    *,
    topics: Iterable[str] = (),
    group: str | None = None,
    transactional_id: str | None = None,
    user: str | None = None,
    token: str | None = None,
) -> tuple[Grant, ...]:
    """The ACLs `principal` needs to do `doing` where Kafka answered `error`: one Grant per resource named (each topic
    in `topics`), () when the error is no authorization error, the action needs nothing of the refused resource's
    type, or no resource of the type to grant was named."""
    refused = AUTHORIZATION_ERRORS.get(error)
    need = NEEDS.get(doing, {}).get(refused) if refused is not None else None
    if need is None:
        return ()
    names: tuple[str, ...] = {
        "TOPIC": tuple(dict.fromkeys(topics)),
        "GROUP": (group,) if group else (),
        "CLUSTER": (CLUSTER_NAME,),
        "TRANSACTIONAL_ID": (transactional_id,) if transactional_id else (),
        "USER": (user,) if user else (),
        "DELEGATION_TOKEN": (token,) if token else (),
    }[need.resource_type]
    return tuple(Grant(principal, need.operations, ResourcePattern(need.resource_type, name)) for name in names)


# --- who kafkatop is, to the broker ---------------------------------------------------------------------------------
def _sasl_mechanism(settings: Mapping[str, str]) -> str:
    """The SASL mechanism: as set; else GSSAPI (both clients' default) unless a user name says PLAIN or SCRAM."""
    given = settings.get("sasl.mechanism") or settings.get("sasl.mechanisms")
    if given:
        return given.strip().upper()
    return "PLAIN" if "sasl.username" in settings or "sasl.jaas.config" in settings else "GSSAPI"


def principal_of(settings: Mapping[str, str]) -> str:
    """The principal the brokers' default principal builder gives these client settings (librdkafka's, or the Java
    client's): User:NAME of SASL's user name (PLAIN, SCRAM: sasl.username or the JAAS line's username), the
    Kerberos principal's first part (GSSAPI, by the default mapping rules), the unsecured OAUTHBEARER token's
    principal; User:ANONYMOUS without SASL (see principal_caveat for a client certificate)."""
    protocol = settings.get("security.protocol", "PLAINTEXT").strip().upper()
    if not protocol.startswith("SASL"):
        return ANONYMOUS
    mechanism = _sasl_mechanism(settings)
    if mechanism == "GSSAPI":
        kerberos = settings.get("sasl.kerberos.principal", "kafkaclient")
        return f"User:{re.split(r'[/@]', kerberos, maxsplit=1)[0]}"
    if mechanism == "OAUTHBEARER":
        if settings.get("sasl.oauthbearer.method", "").lower() == "oidc" and settings.get("sasl.oauthbearer.client.id"):
            return f"User:{settings['sasl.oauthbearer.client.id']}"  # the token's sub, for most providers' clients
        found = re.search(r"(?:^|\s)principal=(\S+)", settings.get("sasl.oauthbearer.config", ""))
        return f"User:{found.group(1)}" if found else "User:<sub>"
    user = settings.get("sasl.username")
    if user is None and "sasl.jaas.config" in settings:
        try:
            user = parse_jaas(settings["sasl.jaas.config"])[1].get("username")
        except ClientPropertiesError:
            user = None
    return f"User:{user}" if user else "User:<username>"


def principal_caveat(settings: Mapping[str, str]) -> str | None:
    """When principal_of is a guess the brokers may not share, why (None when it is what they see)."""
    protocol = settings.get("security.protocol", "PLAINTEXT").strip().upper()
    if protocol == "SSL" and any(k in settings for k in ("ssl.certificate.location", "ssl.certificate.pem",
                                                          "ssl.keystore.location", "ssl.keystore.key")):  # fmt: skip
        return ("with ssl.client.auth=required the brokers know this client by its certificate's subject "
                "(User:CN=…, as ssl.principal.mapping.rules map it), not as User:ANONYMOUS")  # fmt: skip
    if protocol.startswith("SASL") and _sasl_mechanism(settings) == "GSSAPI":
        return "the brokers' sasl.kerberos.principal.to.local.rules decide the user name; by default its first part"
    if protocol.startswith("SASL") and _sasl_mechanism(settings) == "OAUTHBEARER":
        if principal_of(settings) == "User:<sub>":
            return "an OAUTHBEARER token's principal is its subject (the sub claim): put it in place of <sub>"
        if "principal=" not in settings.get("sasl.oauthbearer.config", ""):  # an OIDC client, by its id
            return (
                "the brokers know an OAUTHBEARER client by its token's sub claim, taken here to be its client id "
                "(as the lab's issuer and most providers set it; some put a user id there)"
            )
    return None


# --- the lines ------------------------------------------------------------------------------------------------------
def refusals(grants: Sequence[Grant]) -> str:
    """User:client may not Write on Topic:a, Topic:b; User:client may not Read on Group:g."""
    by_who: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for g in grants:
        by_who.setdefault((g.principal, g.operations), []).append(g.pattern.short)
    return "; ".join(f"{who} may not {'/'.join(camel(op) for op in ops)} on {', '.join(resources)}"
                     for (who, ops), resources in by_who.items())  # fmt: skip


def grant_lines(grants: Sequence[Grant], flags: Sequence[str] = ()) -> str:
    """The `kafkatop acls --add …` line of each grant, with `flags` (how to reach the cluster as one who may add
    ACLs), joined by && to paste as one."""
    tail = f" {shell_line(flags)}" if flags else ""
    return " && ".join(g.command_line() + tail for g in grants)


# In a grant line's flags, where the refused user's own settings would be: an admin's (an attached cluster's, which
# kafkatop does not know). The line then says it is an admin's to run.
ADMIN_PLACEHOLDER = "ADMIN.properties"


def refusal_text(error: str, grants: Sequence[Grant], flags: Sequence[str] = ()) -> str:
    """TOPIC_AUTHORIZATION_FAILED: User:client may not Write on Topic:t — grant it: kafkatop acls --add …; a grant
    that would reach beyond what was refused (Kafka's wildcard `*`) is said apart, with how to grant it on purpose."""
    if not grants:
        return error
    exact = [g for g in grants if not g.wildcard]
    said = f"{error}: {refusals(grants)}"
    if exact:
        it = "it" if len(exact) == 1 and len(exact[0].operations) == 1 else "them"
        who = "as an admin, grant" if ADMIN_PLACEHOLDER in flags else "grant"
        said += f" — {who} {it}: {grant_lines(exact, flags)}"
    for g in grants:
        if g.wildcard:
            said += f"; {wildcard_text(g, flags)}"
    return said


def wildcard_text(grant: Grant, flags: Sequence[str] = ()) -> str:
    """Why a grant on `*` is not offered, and the line that makes it on purpose."""
    ops = "/".join(camel(op) for op in grant.operations)
    if grant.principal.endswith(":*"):
        named, every = grant.principal, f"every user's {ops}"
    else:
        named, every = grant.pattern.short, f"{ops} on every {grant.pattern.resource_type.replace('_', ' ').lower()}"
    return (f"{named} is Kafka's wildcard: an ACL on it would allow {every}, more than was refused, so kafkatop "
            f"does not offer it; to allow that on purpose: {grant_lines([grant], flags)}")  # fmt: skip


class Refused(KafkatopError):
    """Kafka's authorizer refused what kafkatop asked: `error`, what was being done (`said`: "cannot send to 't'"),
    the grants that would let it through, and a caveat when the principal is a guess. Its text names them and the
    line to grant them; `text(flags)` with the flags that reach the cluster as one who may add ACLs."""

    def __init__(self, error: str, grants: tuple[Grant, ...], said: str = "", caveat: str | None = None) -> None:
        self.error, self.grants, self.said, self.caveat = error, grants, said, caveat
        super().__init__(self.text())

    def text(self, flags: Sequence[str] = ()) -> str:
        head = f"{self.said}: " if self.said else ""
        tail = f" ({self.caveat})" if self.caveat else ""
        return head + refusal_text(self.error, self.grants, flags) + tail


def refused(
    error: str | None,
    doing: Doing,
    settings: Mapping[str, str],
    said: str = "",
    *,
    topics: Iterable[str] = (),
    group: str | None = None,
    transactional_id: str | None = None,
    user: str | None = None,
) -> Refused | None:
    """A Refused for `error` (a Kafka error name) met doing `doing` with client `settings`; None when it is no
    authorization error, or nothing to grant can be named."""
    if error is None or error not in AUTHORIZATION_ERRORS:
        return None
    principal = principal_of(settings)
    grants = grants_for(error, doing, principal, topics=topics, group=group, transactional_id=transactional_id,
                        user=user)  # fmt: skip
    if not grants:
        return None
    return Refused(error, grants, said, principal_caveat(settings))
