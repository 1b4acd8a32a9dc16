"""What a transactional durability run promises, and how its transactions ended (pure: the standard library only).

The verifier and the verdict are verdict.py; the producing, transactional.py."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from kafkatop.backends.model.durability import DurabilitySettings, TopicFacts, TransactionCounts, TransactionOutcome

# Why a short delivery timeout makes the transaction open at a kill -9 abort, rather than wait for the new leader.
KILLED = "; a leader killed with kill -9 is replaced after broker.session.timeout.ms, 9 s by default"


def transaction_reasons(settings: DurabilitySettings, facts: TopicFacts) -> list[str]:
    """What transactions promise, and what the transaction log's replication adds to it."""
    killed = settings.kill_at is not None and settings.fault == "kill"
    reasons = [
        f"transactions of {settings.transaction_records} records (a transactional.id: idempotence and acks=all "
        "implied), read back with read_committed: a transaction's records are seen once it commits, never if it "
        "aborts (they stay in the log, skipped by the abort marker)",
        f"a transaction whose records are not all written within the delivery timeout "
        f"({settings.delivery_timeout_s:g} s{KILLED if killed else ''}) "
        "fails with an abortable error: it is aborted and its records are sent again in a new one, so each is "
        "committed once",
    ]
    rf, min_isr = facts.transaction_log_replication_factor, facts.transaction_log_min_isr
    if rf is None or min_isr is None:
        reasons.append(
            "transaction.state.log.replication.factor and min.isr could not be read: the coordinator keeps each "
            "transaction's state in __transaction_state, which must survive the fault too"
        )
    elif rf < 2:
        reasons.append(
            f"transaction.state.log.replication.factor={rf}: __transaction_state has no other replica, so a broker "
            "failing takes the coordinator's state of its transactions with it: they stall until it is back"
        )
    elif min_isr < 2:
        reasons.append(
            f"transaction.state.log.min.isr={min_isr}: a commit decision written to one replica of "
            "__transaction_state alone can be lost with it"
        )
    else:
        reasons.append(
            f"__transaction_state: RF {rf}, min.isr {min_isr}: the coordinator's state of each transaction survives "
            "one broker failing (a coordinator on the failed broker moves, and the commit or abort resumes)"
        )
    return reasons


def transaction_counts(outcomes: Mapping[int, TransactionOutcome], log_read_complete: bool) -> TransactionCounts:
    ended = Counter(outcomes.values())
    return TransactionCounts(ended["committed"], ended["aborted"], ended["unresolved"], log_read_complete)
