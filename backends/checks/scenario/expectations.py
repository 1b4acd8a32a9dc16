"""What a scenario's expectations are checked against (backends/model/scenario.py's Expectation), and how: a fresh
poll of the cluster (ISR, ELR, leader, group), the records the run produced and reads back (acked-read-back,
acked-lost, refused), its transactions and what each isolation level reads (transaction, records), its connectors'
tasks (connector). Each check says
whether the expectation holds now and what was seen, in the words the pane and the report show."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from kafkatop.backends.checks.scenario.connectors import ScenarioConnect
from kafkatop.backends.checks.scenario.records import AckedRecords
from kafkatop.backends.checks.scenario.transactions import ScenarioTransactions
from kafkatop.backends.model.cluster import ClusterSnapshot, Partition
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.groups import GroupState
from kafkatop.backends.model.scenario import Expectation


class Evidence:
    def __init__(
        self,
        poll: Callable[[], ClusterSnapshot],
        records: AckedRecords,
        transactions: ScenarioTransactions,
        connect: ScenarioConnect,
    ) -> None:
        self.poll = poll
        self.connect = connect
        self.records = records
        self.transactions = transactions
        self.produced: dict[str, tuple[int, int, Counter[str]]] = {}  # topic: its last produce step's outcome
        self.group_topics: dict[str, set[str]] = {}  # group: the topics this run's consumers read in it

    def snapshot(self) -> ClusterSnapshot | None:
        try:
            return self.poll()
        except KafkatopError:
            return None

    def check(self, e: Expectation, before: ClusterSnapshot | None, seen: str) -> tuple[bool | None, str]:
        """Whether it holds now, and what was seen; None: not known (no poll answered, the partition not in it)."""
        if e.what == "refused":
            assert e.topic is not None
            if e.topic not in self.produced:
                return False, f"this run produced nothing to {e.topic}"
            acked, failed, errors = self.produced[e.topic]
            why = ", ".join(f"{name} ×{n}" for name, n in errors.most_common()) or "no error"
            return acked == 0 and failed > 0, f"{acked} of {acked + failed} acknowledged; refused: {why}"
        if e.what in ("acked-read-back", "acked-lost"):
            assert e.topic is not None
            try:
                missing, acked = self.records.read_back(e.topic)
            except KafkatopError as error:
                return False, str(error)
            held = missing == 0 if e.what == "acked-read-back" else missing > 0
            return held, f"{acked - missing} of {acked} acknowledged records read back"
        if e.what == "transaction":
            last = self.transactions.last
            if last is None:
                return False, "this run has had no transaction"
            return last.outcome == e.outcome, str(last)
        if e.what == "connector":
            assert e.connector is not None
            try:
                running, seen = self.connect.running(e.connector)
            except KafkatopError as error:
                return None, str(error)
            return running == e.count, seen
        if e.what == "records":
            assert e.topic is not None and e.isolation is not None
            try:
                read = self.transactions.read(e.topic, e.isolation)
            except KafkatopError as error:
                return False, str(error)
            return read == e.count, f"{read} read ({e.isolation})"
        snap = self.snapshot()
        if snap is None:
            return None, seen
        if e.what == "group":
            return self._group(snap, e)
        assert e.partition is not None
        p = partition(snap, *e.partition)
        if p is None:
            return None, f"{e.partition[0]}-{e.partition[1]} not in the metadata (no broker answered?)"
        if e.what == "isr":
            return len(p.isr) == e.size, f"ISR {','.join(map(str, p.isr)) or 'empty'} ({len(p.isr)})"
        if e.what in ("elr", "last-known-elr"):
            name, members = ("ELR", p.elr) if e.what == "elr" else ("LastKnownElr", p.last_known_elr)
            if members is None:
                return False, f"{name} not read (a cluster without KIP-966, or a poll without DescribeTopicPartitions)"
            return len(members) == e.size, f"{name} {','.join(map(str, members)) or 'empty'} ({len(members)})"
        now = leader(p)
        said = "none (-1)" if now is None else str(now)
        if e.leader == "none":
            return now is None, f"leader {said}"
        if e.leader == "changed":
            old = leader(partition(before, *e.partition))
            return now is not None and now != old, f"leader {said} (was {'none (-1)' if old is None else old})"
        return str(now) == e.leader, f"leader {said}"

    def _group(self, snap: ClusterSnapshot, e: Expectation) -> tuple[bool, str]:
        """Its members, and whether they share every partition of the topics this run's consumers read in it, the
        group settled (Stable)."""
        group = next((g for g in snap.groups if g.group_id == e.group), None)
        if group is None:
            return False, f"no group {e.group} in the poll"
        held = {(tp.topic, tp.partition) for m in group.members for tp in m.assignment}
        # A group of another's (a sink connector's): the topics its members were given
        topics = self.group_topics.get(e.group or "") or {topic for topic, _ in held}
        wanted = {(t, p.id) for t in topics if (found := snap.topic(t)) is not None for p in found.partitions}
        seen = f"{len(group.members)} member(s), {len(held & wanted)} of {len(wanted)} partitions assigned"
        shared = bool(wanted) and wanted <= held and group.state is GroupState.STABLE  # not mid-rebalance
        return len(group.members) == e.members and (not e.members or shared), f"{seen} ({group.state})"


def partition(snap: ClusterSnapshot | None, topic: str, number: int) -> Partition | None:
    t = snap.topic(topic) if snap is not None else None
    return next((p for p in t.partitions if p.id == number), None) if t is not None else None


def leader(p: Partition | None) -> int | None:
    """The partition's leader; None when it has none (Kafka's -1: every replica that may lead is down)."""
    return p.leader if p is not None and p.leader is not None and p.leader >= 0 else None
