"""SCRAM users and client quotas, as `kafka-configs.sh --describe --entity-type users|clients` shows them: each
user's SCRAM credentials (mechanism and iterations; Kafka never gives out the salted password) from
DescribeUserScramCredentials, and the quotas per user, client id and IP from DescribeClientQuotas, printed in the
tool's own lines and order. Standard library only; the adapters are backends/kafka/security/scram.py and
backends/kafka/security/client_quotas.py.

kafka-configs.sh prints the quotas in the order of the Java HashMaps its Admin client answers with
(DescribeClientQuotasResponse.complete: a HashMap<ClientQuotaEntity, HashMap<String, Double>>, each sized to its
answer), and each value as Java's Double.toString: java_order.py and `java_double` make the same order and text.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.java_order import hash_order, int32, string_hash

MECHANISMS = ("SCRAM-SHA-256", "SCRAM-SHA-512")
DEFAULT_MECHANISM = "SCRAM-SHA-512"  # the lab's, and the stronger
MIN_ITERATIONS, MAX_ITERATIONS = 4096, 16384  # Kafka refuses fewer (ScramMechanism.minIterations) and more
DEFAULT_ITERATIONS = MIN_ITERATIONS  # kafka-configs.sh's default
# DescribeClientQuotas' entity types, and the words kafka-configs.sh prints for them.
USER, CLIENT_ID, IP = "user", "client-id", "ip"
ENTITY_WORDS = {USER: "user-principal", CLIENT_ID: "client-id", IP: "ip"}
QUOTA_KEYS = ("producer_byte_rate", "consumer_byte_rate", "request_percentage", "controller_mutation_rate")


@dataclass(frozen=True, slots=True)
class ScramCredential:
    user: str
    mechanism: str  # one of MECHANISMS
    iterations: int


@dataclass(frozen=True, slots=True)
class UserQuota:
    """The quotas of one entity: a user, a client id, a user's client id, or an IP, each named or the default."""

    entity: tuple[tuple[str, str | None], ...]  # (USER | CLIENT_ID | IP, its name; None: the type's default)
    values: Mapping[str, float]  # quota name → value, as Kafka sent them

    @property
    def types(self) -> frozenset[str]:
        return frozenset(kind for kind, _ in self.entity)

    def name(self, kind: str) -> str | None:
        """The entity's name of that type (None: the default, or no such type: see `types`)."""
        return next((name for k, name in self.entity if k == kind), None)

    @property
    def entity_text(self) -> str:
        """user-principal 'bob', client-id 'app1' · the default user-principal (ConfigCommand's words)."""
        parts = []
        for kind in (USER, CLIENT_ID, IP):
            if kind in self.types:
                name = self.name(kind)
                parts.append(f"the default {ENTITY_WORDS[kind]}" if name is None else f"{ENTITY_WORDS[kind]} '{name}'")
        return ", ".join(parts)

    def java_hash(self) -> int:
        """ClientQuotaEntity.hashCode(): Objects.hash(entries), entries a Map<String, String> of type → name."""
        total = 0
        for kind, name in self.entity:
            total += string_hash(kind) ^ (string_hash(name) if name is not None else 0)
        return int32(31 + total)

    def line(self) -> str:
        """Quota configs for user-principal 'bob' are producer_byte_rate=1024.0 (kafka-configs.sh's line)."""
        ordered = hash_order(self.values, string_hash, initial=len(self.values))
        said = ", ".join(f"{key}={java_double(self.values[key])}" for key in ordered)
        return f"Quota configs for {self.entity_text} are {said}"


@dataclass(frozen=True, slots=True)
class UsersSnapshot:
    """What `kafkatop users` reads: every SCRAM credential (or one user's) and the client quotas."""

    credentials: tuple[ScramCredential, ...]  # in Kafka's order, a user's mechanisms together
    quotas: tuple[UserQuota, ...]  # in the answer's order
    quotas_error: str | None = None  # why the quotas could not be read (the SCRAM credentials still are)

    @property
    def users(self) -> dict[str, tuple[ScramCredential, ...]]:
        """Each user with a SCRAM credential, in Kafka's order, with their credentials."""
        out: dict[str, list[ScramCredential]] = {}
        for c in self.credentials:
            out.setdefault(c.user, []).append(c)
        return {user: tuple(creds) for user, creds in out.items()}


def java_double(value: float) -> str:
    """Java's Double.toString: 1024.0, 12.5, 1.048576E7, 1.0E-4 (the shortest digits that read back as the value)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    sign = "-" if value < 0 else ""
    digits_tuple, exponent = _shortest(abs(value))
    digits = "".join(map(str, digits_tuple))
    point = len(digits) + exponent  # where the decimal point falls in `digits`
    if 1e-3 <= abs(value) < 1e7:
        if point <= 0:
            return f"{sign}0.{'0' * -point}{digits}"
        whole, fraction = digits[:point].ljust(point, "0"), digits[point:]
        return f"{sign}{whole}.{fraction or '0'}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{point - 1}"


def _shortest(value: float) -> tuple[tuple[int, ...], int]:
    """The shortest decimal digits that read back as `value` (Python's repr) and their exponent, no trailing zeros."""
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    assert isinstance(exponent, int)  # a finite value
    return digits, exponent


# --- kafka-configs.sh --describe's lines ---------------------------------------------------------------------------
def scram_line(user: str, credentials: Iterable[ScramCredential]) -> str:
    said = ", ".join(f"{c.mechanism}=iterations={c.iterations}" for c in credentials)
    return f"SCRAM credential configs for user-principal '{user}' are {said}"


def _quota_lines(quotas: Iterable[UserQuota], chosen: Callable[[UserQuota], bool]) -> list[str]:
    """The lines of one kafka-configs.sh --describe: its answer's entities in its HashMap's order."""
    group = [q for q in quotas if chosen(q)]
    return [q.line() for q in hash_order(group, UserQuota.java_hash, initial=len(group))]


def users_lines(snapshot: UsersSnapshot, user: str | None = None) -> list[str]:
    """Every user: the lines of `kafka-configs.sh --describe --entity-type users`, then `--entity-type clients`,
    `--entity-type users --entity-type clients` and `--entity-type ips`. One user: those of `--entity-type users
    --entity-name USER`, then `--entity-type users --entity-name USER --entity-type clients`."""
    quotas = snapshot.quotas
    users = snapshot.users
    if user is not None:
        scram = [scram_line(user, users[user])] if user in users else []
        return [
            *_quota_lines(quotas, lambda q: q.types == {USER} and q.name(USER) == user),
            *scram,
            *_quota_lines(quotas, lambda q: q.types == {USER, CLIENT_ID} and q.name(USER) == user),
        ]
    return [
        *_quota_lines(quotas, lambda q: q.types == {USER}),
        *(scram_line(name, creds) for name, creds in users.items()),
        *_quota_lines(quotas, lambda q: q.types == {CLIENT_ID}),
        *_quota_lines(quotas, lambda q: q.types == {USER, CLIENT_ID}),
        *_quota_lines(quotas, lambda q: q.types == {IP}),
    ]


def users_json(snapshot: UsersSnapshot) -> dict[str, object]:
    """{"users": [{user, credentials: [{mechanism, iterations}]}], "quotas": [{user?, client-id?, ip?, values}],
    "quotas_error"}: an entity's type is there when it is part of it, null for the type's default."""
    return {
        "users": [
            {"user": user, "credentials": [{"mechanism": c.mechanism, "iterations": c.iterations} for c in creds]}
            for user, creds in snapshot.users.items()
        ],
        "quotas": [{**dict(q.entity), "values": dict(q.values)} for q in snapshot.quotas],
        "quotas_error": snapshot.quotas_error,
    }


# --- what `kafkatop users --add` checks before anything is sent ----------------------------------------------------
def check_iterations(iterations: int) -> int:
    if not MIN_ITERATIONS <= iterations <= MAX_ITERATIONS:
        raise BadInput(f"--iterations {iterations}: Kafka takes {MIN_ITERATIONS} to {MAX_ITERATIONS} (the default is "
                       f"{DEFAULT_ITERATIONS}); nothing changed")  # fmt: skip
    return iterations


def check_password(password: str) -> str:
    """A password as typed or piped (its line ending gone): not empty. The message never quotes it."""
    if not password:
        raise BadInput("empty password: type one at the prompt (or pipe one line on stdin); nothing changed")
    return password
