"""Kafka's ACLs as its authorizer holds them: a binding is a resource pattern (type, name, pattern type) and an access
control entry (principal, host, operation, permission). Names and codes are Kafka's own
(org.apache.kafka.common.resource.ResourceType / PatternType, org.apache.kafka.common.acl.AclOperation /
AclPermissionType), the text forms their toString()s, as kafka-acls.sh prints them. Standard library only; the
adapter is backends/kafka/security/acls.py.

A `Grant` is what a refused request needed: the principal that was refused, the operations and the resource, and
the `kafkatop acls --add …` line that grants it.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.text import shell_line

# Kafka's codes, as the protocol carries them (DescribeAcls/CreateAcls/DeleteAcls).
RESOURCE_TYPES = {"UNKNOWN": 0, "ANY": 1, "TOPIC": 2, "GROUP": 3, "CLUSTER": 4, "TRANSACTIONAL_ID": 5,
                  "DELEGATION_TOKEN": 6, "USER": 7}  # fmt: skip
PATTERN_TYPES = {"UNKNOWN": 0, "ANY": 1, "MATCH": 2, "LITERAL": 3, "PREFIXED": 4}
OPERATIONS = {"UNKNOWN": 0, "ANY": 1, "ALL": 2, "READ": 3, "WRITE": 4, "CREATE": 5, "DELETE": 6, "ALTER": 7,
              "DESCRIBE": 8, "CLUSTER_ACTION": 9, "DESCRIBE_CONFIGS": 10, "ALTER_CONFIGS": 11, "IDEMPOTENT_WRITE": 12,
              "CREATE_TOKENS": 13, "DESCRIBE_TOKENS": 14, "TWO_PHASE_COMMIT": 15}  # fmt: skip
PERMISSIONS = {"UNKNOWN": 0, "ANY": 1, "DENY": 2, "ALLOW": 3}
CLUSTER_NAME = "kafka-cluster"  # the one CLUSTER resource's name
WILDCARD = "*"  # a LITERAL name or principal or host that matches every one


# The operations each resource type takes besides All (Kafka's AclEntry.supportedOperations, as kafka-acls.sh 4.1
# names them when it refuses another: "ResourceType TRANSACTIONAL_ID only supports operations [TWO_PHASE_COMMIT, …]").
SUPPORTED_OPERATIONS: dict[str, tuple[str, ...]] = {
    "TOPIC": ("READ", "WRITE", "CREATE", "DESCRIBE", "DELETE", "ALTER", "DESCRIBE_CONFIGS", "ALTER_CONFIGS"),
    "GROUP": ("READ", "DESCRIBE", "DELETE", "DESCRIBE_CONFIGS", "ALTER_CONFIGS"),
    "CLUSTER": ("CREATE", "CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE", "ALTER",
                "DESCRIBE"),
    "TRANSACTIONAL_ID": ("DESCRIBE", "WRITE", "TWO_PHASE_COMMIT"),
    "DELEGATION_TOKEN": ("DESCRIBE",),
    "USER": ("CREATE_TOKENS", "DESCRIBE_TOKENS"),
}  # fmt: skip
# kafka-acls.sh's conveniences: --producer (on its topics and transactional ids) and --consumer (topics and group).
PRODUCER_TOPIC = ("WRITE", "DESCRIBE", "CREATE")
PRODUCER_TRANSACTIONAL_ID = ("WRITE", "DESCRIBE")
CONSUMER_TOPIC = ("READ", "DESCRIBE")
CONSUMER_GROUP = ("READ",)


def _by_code(table: dict[str, int]) -> dict[int, str]:
    return {code: name for name, code in table.items()}


RESOURCE_TYPE_NAMES = _by_code(RESOURCE_TYPES)
PATTERN_TYPE_NAMES = _by_code(PATTERN_TYPES)
OPERATION_NAMES = _by_code(OPERATIONS)
PERMISSION_NAMES = _by_code(PERMISSIONS)


def camel(name: str) -> str:
    """A Kafka enum name as kafka-acls.sh's options spell it: IDEMPOTENT_WRITE → IdempotentWrite, TOPIC → Topic."""
    return "".join(part.capitalize() for part in name.split("_"))


def operation_named(text: str) -> str:
    """`--operation` as kafka-acls.sh takes it (IdempotentWrite, idempotent_write, WRITE …) → IDEMPOTENT_WRITE."""
    key = text.strip().replace("-", "_")
    by_camel = {camel(name).lower(): name for name in OPERATIONS}
    name = by_camel.get(key.lower()) or (key.upper() if key.upper() in OPERATIONS else None)
    if name is None or name in ("UNKNOWN", "ANY"):
        known = ", ".join(camel(n) for n in OPERATIONS if n not in ("UNKNOWN", "ANY"))
        raise BadInput(f"unknown operation {text!r}: one of {known}")
    return name


def principal_named(text: str) -> str:
    """A principal as Kafka writes it, TYPE:NAME (User:alice, User:*); anything else is bad input."""
    kind, sep, name = text.partition(":")
    if not sep or not kind or not name:
        example = name or (kind if not sep else "") or "alice"  # what was typed, as a name
        raise BadInput(f"principal {text!r} is not TYPE:NAME: write it as Kafka does, e.g. User:{example}")
    return text


@dataclass(frozen=True, slots=True, order=True)
class ResourcePattern:
    resource_type: str  # a RESOURCE_TYPES name
    name: str
    pattern_type: str = "LITERAL"  # a PATTERN_TYPES name

    def __str__(self) -> str:  # Kafka's ResourcePattern.toString(), as kafka-acls.sh prints it
        return f"ResourcePattern(resourceType={self.resource_type}, name={self.name}, patternType={self.pattern_type})"

    @property
    def short(self) -> str:
        """Topic:orders, Group:app*, Cluster: a resource as a line on screen names it (`*` after a prefix)."""
        suffix = "*" if self.pattern_type == "PREFIXED" else ""
        if self.resource_type == "CLUSTER":
            return "Cluster"
        return f"{camel(self.resource_type)}:{self.name}{suffix}"


@dataclass(frozen=True, slots=True, order=True)
class AccessControlEntry:
    principal: str  # User:alice, User:*
    host: str  # "*" or an IP address
    operation: str  # an OPERATIONS name
    permission: str  # ALLOW or DENY

    def __str__(self) -> str:  # Kafka's AccessControlEntry.toString()
        return (f"(principal={self.principal}, host={self.host}, operation={self.operation}, "
                f"permissionType={self.permission})")  # fmt: skip


@dataclass(frozen=True, slots=True, order=True)
class AclBinding:
    pattern: ResourcePattern
    entry: AccessControlEntry


@dataclass(frozen=True, slots=True)
class AclBindingFilter:
    """What DescribeAcls and DeleteAcls match: None (or ANY) matches every value. A pattern type of MATCH also
    matches the PREFIXED patterns and wildcards that would cover `name`."""

    resource_type: str = "ANY"
    name: str | None = None
    pattern_type: str = "ANY"
    principal: str | None = None
    host: str | None = None
    operation: str = "ANY"
    permission: str = "ANY"

    @staticmethod
    def exactly(binding: AclBinding) -> AclBindingFilter:
        p, e = binding.pattern, binding.entry
        return AclBindingFilter(p.resource_type, p.name, p.pattern_type, e.principal, e.host, e.operation, e.permission)


@dataclass(frozen=True, slots=True)
class AuthorizerInfo:
    """What the brokers say of their authorizer (their `authorizer.class.name` and `super.users` configs)."""

    class_name: str | None  # None: no authorizer (every ACL request answers SECURITY_DISABLED)
    super_users: tuple[str, ...] = ()

    @property
    def short(self) -> str:
        return self.class_name.rpartition(".")[2] if self.class_name else "no authorizer"


@dataclass(frozen=True, slots=True)
class AclsSnapshot:
    """One poll of the ACLs: every binding, the authorizer, and who kafkatop is on this cluster."""

    bindings: tuple[AclBinding, ...]
    authorizer: AuthorizerInfo
    principal: str | None  # the user kafkatop authenticates as (User:admin), None when unauthenticated
    error: str | None = None  # why the bindings could not be read (no authorizer, not allowed, unreachable)
    at: float = 0.0


@dataclass(frozen=True, slots=True)
class Grant:
    """What a refused request needed: `principal` may not `operations` on `pattern`."""

    principal: str
    operations: tuple[str, ...]  # OPERATIONS names, in the order kafka-acls.sh would add them
    pattern: ResourcePattern
    host: str = WILDCARD

    def bindings(self) -> tuple[AclBinding, ...]:
        return tuple(
            AclBinding(self.pattern, AccessControlEntry(self.principal, self.host, op, "ALLOW"))
            for op in self.operations
        )

    @property
    def wildcard(self) -> bool:
        """Whether it reaches beyond what was refused: its resource's name (a topic, a group, a transactional id
        named `*`) or its principal (`User:*`) is what Kafka reads as every one. Never granted by `M`."""
        named = self.pattern.resource_type != "CLUSTER" and self.pattern.name == WILDCARD
        return named or self.principal.partition(":")[2] == WILDCARD

    @property
    def refusal(self) -> str:
        """User:client may not Write on Topic:t."""
        ops = "/".join(camel(op) for op in self.operations)
        return f"{self.principal} may not {ops} on {self.pattern.short}"

    def command_line(self) -> str:
        """The `kafkatop acls --add …` line that grants it (kafka-acls.sh takes the same options)."""
        words = ["kafkatop", "acls", "--add", "--allow-principal", self.principal]
        if self.host != WILDCARD:
            words += ["--allow-host", self.host]
        for op in self.operations:
            words += ["--operation", camel(op)]
        option = {"TOPIC": "--topic", "GROUP": "--group", "TRANSACTIONAL_ID": "--transactional-id",
                  "USER": "--user-principal", "DELEGATION_TOKEN": "--delegation-token"}  # fmt: skip
        if self.pattern.resource_type == "CLUSTER":
            words.append("--cluster")
        else:
            words += [option[self.pattern.resource_type], self.pattern.name]
        if self.pattern.pattern_type == "PREFIXED":
            words += ["--resource-pattern-type", "prefixed"]
        return shell_line(words)  # a name with a control character as $'…': the line still names it at a terminal
