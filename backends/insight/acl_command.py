"""kafka-acls.sh's options made into what is sent, and what it prints, line for line (Kafka 4.1's
tools/…/AclCommand.java): the resource options and how they combine, the --producer/--consumer/--idempotent
conveniences, the defaults (host `*`, operation All, pattern type literal), the checks the tool makes before it sends
anything, the bindings --add creates, the filters --list and --remove send, and the text of each. Pure: model only.

The tool keeps resources and entries in Java HashMaps and HashSets keyed by enums, whose hash is an object's identity:
its order changes from one run to the next. Here resources come in Kafka's code order (Topic, Group, Cluster, …),
then by pattern type and name, and entries by principal, host, operation and permission; the lines are the tool's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kafkatop.backends.model.acls import (
    CLUSTER_NAME,
    CONSUMER_GROUP,
    CONSUMER_TOPIC,
    OPERATIONS,
    PATTERN_TYPES,
    PERMISSIONS,
    PRODUCER_TOPIC,
    PRODUCER_TRANSACTIONAL_ID,
    RESOURCE_TYPES,
    SUPPORTED_OPERATIONS,
    WILDCARD,
    AccessControlEntry,
    AclBinding,
    AclBindingFilter,
    ResourcePattern,
    camel,
    operation_named,
    principal_named,
)
from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.java_order import hash_order, string_hash

NO_RESOURCE = (
    "name a resource: --topic, --group, --cluster (with the literal pattern type only), --transactional-id, "
    "--delegation-token or --user-principal"
)
ACTIONS = ("list", "add", "remove")


@dataclass(frozen=True, slots=True)
class AclCommand:
    """What `kafkatop acls` (or kafka-acls.sh) was given, names as typed; `check` says whether it may run."""

    action: str  # list, add or remove
    topics: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    transactional_ids: tuple[str, ...] = ()
    delegation_tokens: tuple[str, ...] = ()
    user_principals: tuple[str, ...] = ()
    cluster: bool = False
    pattern_type: str = "LITERAL"  # --resource-pattern-type: LITERAL, PREFIXED, MATCH or ANY
    operations: tuple[str, ...] = ()  # --operation as typed; none: All
    allow_principals: tuple[str, ...] = ()
    deny_principals: tuple[str, ...] = ()
    allow_hosts: tuple[str, ...] = ()
    deny_hosts: tuple[str, ...] = ()
    producer: bool = False
    consumer: bool = False
    idempotent: bool = False
    principals: tuple[str, ...] = ()  # --principal: --list's filter


def action_of(add: bool, remove: bool, listing: bool) -> str:
    given = [name for name, on in (("add", add), ("remove", remove), ("list", listing)) if on]
    if len(given) != 1:
        said = " and ".join(f"--{name}" for name in given) if given else "none"
        raise BadInput(f"give exactly one action, --list, --add or --remove (given: {said})")
    return given[0]


def check(cmd: AclCommand) -> None:
    """The tool's own checks (AclCommandOptions.checkArgs), and the names: each refusal one line, BadInput."""
    given = {
        "--producer": cmd.producer, "--consumer": cmd.consumer, "--allow-host": bool(cmd.allow_hosts),
        "--allow-principal": bool(cmd.allow_principals), "--deny-host": bool(cmd.deny_hosts),
        "--deny-principal": bool(cmd.deny_principals), "--operation": bool(cmd.operations),
    }  # fmt: skip
    if cmd.action == "list":
        _refuse_with("--list", given, ("--producer", "--consumer", "--allow-host", "--allow-principal",
                                       "--deny-host", "--deny-principal"))  # fmt: skip
    for convenience in ("--producer", "--consumer"):
        if given[convenience]:
            _refuse_with(convenience, given, ("--operation", "--deny-principal", "--deny-host"), " (it chooses them)")
    if cmd.principals and cmd.action != "list":
        raise BadInput("--principal filters --list: with --add or --remove give --allow-principal/--deny-principal")
    if cmd.producer and not cmd.topics:
        raise BadInput("with --producer you must give a --topic (the one it may write)")
    if cmd.idempotent and not cmd.producer:
        raise BadInput("--idempotent goes with --producer (it adds IdempotentWrite on the Cluster)")
    if cmd.consumer and (
        not cmd.topics or not cmd.groups or (not cmd.producer and (cmd.cluster or cmd.transactional_ids))
    ):
        raise BadInput("with --consumer you must give a --topic and a --group, and no --cluster or --transactional-id")
    if cmd.pattern_type not in PATTERN_TYPES or cmd.pattern_type == "UNKNOWN":
        raise BadInput(f"--resource-pattern-type {cmd.pattern_type.lower()}: one of literal, prefixed, match, any")
    for principal in (*cmd.allow_principals, *cmd.deny_principals, *cmd.principals):
        principal_named(principal)
    for operation in cmd.operations:
        operation_named(operation)


def _refuse_with(option: str, given: dict[str, bool], others: Sequence[str], why: str = "") -> None:
    clash = [other for other in others if given[other]]
    if clash:
        raise BadInput(f"{option} does not go with {', '.join(clash)}{why}: leave {'them' if len(clash) > 1 else 'it'} "
                       "out")  # fmt: skip


# --- resources and entries ----------------------------------------------------------------------------------------
def resource_filters(cmd: AclCommand, *, required: bool = True) -> tuple[ResourcePattern, ...]:
    """The resources named, as patterns of the --resource-pattern-type (MATCH and ANY: filters). The Cluster only
    with literal (the tool's rule: `--cluster --resource-pattern-type prefixed` names no resource)."""
    found: list[ResourcePattern] = [ResourcePattern("TOPIC", name, cmd.pattern_type) for name in cmd.topics]
    if cmd.pattern_type == "LITERAL" and (cmd.cluster or cmd.idempotent):
        found.append(ResourcePattern("CLUSTER", CLUSTER_NAME, "LITERAL"))
    found += [ResourcePattern("GROUP", name, cmd.pattern_type) for name in cmd.groups]
    found += [ResourcePattern("TRANSACTIONAL_ID", name, cmd.pattern_type) for name in cmd.transactional_ids]
    found += [ResourcePattern("DELEGATION_TOKEN", name, cmd.pattern_type) for name in cmd.delegation_tokens]
    found += [ResourcePattern("USER", name, cmd.pattern_type) for name in cmd.user_principals]
    if not found and required and cmd.cluster:
        raise BadInput(f"--cluster takes the literal pattern type only (there is one Cluster, {CLUSTER_NAME!r}): "
                       f"leave out --resource-pattern-type {cmd.pattern_type.lower()}")  # fmt: skip
    if not found and required:
        raise BadInput(NO_RESOURCE)
    return tuple(dict.fromkeys(found))


def entries(cmd: AclCommand, operations: Iterable[str]) -> tuple[AccessControlEntry, ...]:
    """Each allowed principal × operation × allowed host (`*` unless --allow-host), and the same for deny."""
    ops = tuple(operations)
    found: set[AccessControlEntry] = set()
    for principals, hosts, permission in ((cmd.allow_principals, cmd.allow_hosts, "ALLOW"),
                                          (cmd.deny_principals, cmd.deny_hosts, "DENY")):  # fmt: skip
        for principal in principals:
            for op in ops:
                for host in hosts or (WILDCARD,):
                    found.add(AccessControlEntry(principal_named(principal), host, op, permission))
    return sorted_entries(found)


def resource_entries(cmd: AclCommand) -> dict[ResourcePattern, tuple[AccessControlEntry, ...]]:
    """Each resource (or filter) and its entries, as the tool builds them for --add and --remove: the operations
    given, or those of --producer and --consumer together; an operation the resource type does not take is refused."""
    result: dict[ResourcePattern, tuple[AccessControlEntry, ...]] = {}
    if not cmd.producer and not cmd.consumer:
        given = tuple(dict.fromkeys(operation_named(op) for op in cmd.operations)) or ("ALL",)
        result = {pattern: entries(cmd, given) for pattern in resource_filters(cmd)}
    if cmd.producer:
        for pattern in resource_filters(cmd):
            if pattern.resource_type == "TOPIC":
                result[pattern] = entries(cmd, PRODUCER_TOPIC)
            elif pattern.resource_type == "TRANSACTIONAL_ID":
                result[pattern] = entries(cmd, PRODUCER_TRANSACTIONAL_ID)
        if cmd.idempotent:
            result[ResourcePattern("CLUSTER", CLUSTER_NAME, "LITERAL")] = entries(cmd, ("IDEMPOTENT_WRITE",))
    if cmd.consumer:
        for pattern in resource_filters(cmd):
            ops = {"TOPIC": CONSUMER_TOPIC, "GROUP": CONSUMER_GROUP}.get(pattern.resource_type)
            if ops is not None:
                result[pattern] = sorted_entries({*result.get(pattern, ()), *entries(cmd, ops)})
    for pattern, found in result.items():
        _check_operations(pattern.resource_type, {e.operation for e in found})
    return result


def _check_operations(resource_type: str, operations: set[str]) -> None:
    takes = SUPPORTED_OPERATIONS[resource_type] + ("ALL",)
    wrong = sorted(operations - set(takes), key=OPERATIONS.__getitem__)
    if wrong:
        where = {op: [camel(t) for t, ops in SUPPORTED_OPERATIONS.items() if op in ops] for op in wrong}
        also = "; ".join(f"{camel(op)} applies to {' and '.join(where[op])}" for op in wrong if where[op])
        raise BadInput(f"--operation {', '.join(camel(op) for op in wrong)} does not apply to a "
                       f"{camel(resource_type)}: it takes {', '.join(camel(op) for op in takes)}"
                       + (f" ({also})" if also else ""))  # fmt: skip


def bindings_to_add(cmd: AclCommand) -> dict[ResourcePattern, tuple[AccessControlEntry, ...]]:
    """What --add creates, per resource; refused: a pattern type that is a filter, a resource without a principal,
    a prefixed `*` (Kafka would take it as a prefix, matching only names that start with `*`)."""
    if cmd.pattern_type not in ("LITERAL", "PREFIXED"):
        raise BadInput(f"--resource-pattern-type {cmd.pattern_type.lower()} is a filter, for --list and --remove: "
                       "--add takes literal (the default) or prefixed")  # fmt: skip
    result = resource_entries(cmd)
    if any(not found for found in result.values()):
        raise BadInput("--add needs a principal: give --allow-principal TYPE:NAME or --deny-principal TYPE:NAME "
                       "(e.g. User:alice)")  # fmt: skip
    for pattern in result:
        if pattern.pattern_type == "PREFIXED" and pattern.name == WILDCARD:
            option, every = _OPTIONS[pattern.resource_type]
            raise BadInput(f"{option} '*' with --resource-pattern-type prefixed is the prefix `*`, which only names "
                           f"starting with '*' have (Kafka would take it): for {every} give {option} '*' with literal "
                           "(the default)")  # fmt: skip
    return result


_OPTIONS = {
    "TOPIC": ("--topic", "every topic"),
    "GROUP": ("--group", "every group"),
    "TRANSACTIONAL_ID": ("--transactional-id", "every transactional id"),
    "DELEGATION_TOKEN": ("--delegation-token", "every token"),
    "USER": ("--user-principal", "every user"),
}


@dataclass(frozen=True, slots=True)
class Removal:
    """One resource filter of --remove: the entries to remove from it (none: every ACL it matches), and the
    DeleteAcls filters that remove them."""

    pattern: ResourcePattern
    entries: tuple[AccessControlEntry, ...]

    @property
    def filters(self) -> tuple[AclBindingFilter, ...]:
        p = self.pattern
        if not self.entries:
            return (AclBindingFilter(p.resource_type, p.name, p.pattern_type),)
        return tuple(AclBindingFilter.exactly(AclBinding(p, e)) for e in self.entries)

    @property
    def question(self) -> str:
        """The tool's question before it removes them (--force skips it), as it prints it, newline included."""
        if not self.entries:
            return f"Are you sure you want to delete all ACLs for resource filter `{self.pattern}`? (y/n)\n"
        return ("Are you sure you want to remove ACLs: \n " + "\n".join(f"\t{e}" for e in self.entries)
                + f"\n from resource filter `{self.pattern}`? (y/n)\n")  # fmt: skip


def removals(cmd: AclCommand) -> tuple[Removal, ...]:
    return tuple(Removal(p, found) for p, found in sorted(resource_entries(cmd).items(), key=lambda i: _key(i[0])))


def list_filters(cmd: AclCommand) -> tuple[AclBindingFilter, ...]:
    """What --list asks: each resource named, with every entry; no resource: every ACL."""
    patterns = resource_filters(cmd, required=False)
    return tuple(AclBindingFilter(p.resource_type, p.name, p.pattern_type) for p in patterns) or (AclBindingFilter(),)


# --- the text -------------------------------------------------------------------------------------------------------
def _key(p: ResourcePattern) -> tuple[int, int, str]:
    return RESOURCE_TYPES.get(p.resource_type, 0), PATTERN_TYPES.get(p.pattern_type, 0), p.name


def sorted_entries(found: Iterable[AccessControlEntry]) -> tuple[AccessControlEntry, ...]:
    return tuple(sorted(set(found), key=lambda e: (e.principal, e.host, OPERATIONS.get(e.operation, 0),
                                                   PERMISSIONS.get(e.permission, 0))))  # fmt: skip


def by_resource(bindings: Iterable[AclBinding]) -> dict[ResourcePattern, tuple[AccessControlEntry, ...]]:
    """Bindings grouped by resource pattern (each once), in this module's order."""
    grouped: dict[ResourcePattern, set[AccessControlEntry]] = {}
    for b in bindings:
        grouped.setdefault(b.pattern, set()).add(b.entry)
    return {p: sorted_entries(grouped[p]) for p in sorted(grouped, key=_key)}


def adding_text(pattern: ResourcePattern, found: Sequence[AccessControlEntry]) -> str:
    """What --add prints before it creates a resource's ACLs (the tool prints nothing after)."""
    return f"Adding ACLs for resource `{pattern}`: \n " + "\n".join(f"\t{e}" for e in found) + "\n\n"


def current_text(grouped: dict[ResourcePattern, tuple[AccessControlEntry, ...]]) -> str:
    return "".join(
        f"Current ACLs for resource `{p}`:\n" + "\n".join(f"\t{e}" for e in found) + "\n\n"
        for p, found in grouped.items()
    )


def listing_text(bindings: Iterable[AclBinding], principals: Sequence[str] = ()) -> str:
    """--list's output: every resource with its entries; with --principal, for each principal (in the order of the
    tool's HashSet of them: their hash is their strings') the resources where it has an entry."""
    grouped = by_resource(bindings)
    if not principals:
        return current_text(grouped)
    out = []
    for principal in _principal_order(principals):
        out.append(f"ACLs for principal `{principal}`\n")
        mine = {p: tuple(e for e in found if e.principal == principal) for p, found in grouped.items()}
        out.append(current_text({p: found for p, found in mine.items() if found}))
    return "".join(out)


def _principal_order(principals: Sequence[str]) -> list[str]:
    def java_hash(principal: str) -> int:  # KafkaPrincipal.hashCode(): 31 × type's hash + name's hash
        kind, _, name = principal.partition(":")
        return 31 * string_hash(kind) + string_hash(name)

    return hash_order(dict.fromkeys(principals), java_hash)


def acls_json(bindings: Iterable[AclBinding]) -> list[dict[str, str]]:
    """`kafkatop acls --list --json`: one object per binding, Kafka's names, in the text's order."""
    return [
        {"resource_type": p.resource_type, "name": p.name, "pattern_type": p.pattern_type, "principal": e.principal,
         "host": e.host, "operation": e.operation, "permission": e.permission}
        for p, found in by_resource(bindings).items() for e in found
    ]  # fmt: skip
