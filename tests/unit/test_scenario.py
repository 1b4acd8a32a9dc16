"""Scenario files (backends/model/scenario.py): the shape the issue's checks write is accepted as written, the built-in
ones parse, and a file that is no scenario is refused with the line of what is wrong and what to write instead."""

from __future__ import annotations

import pytest

from kafkatop.backends.checks.scenario.builtin import builtin_scenarios
from kafkatop.backends.model.scenario import NodeRef
from kafkatop.backends.model.scenario_file import ScenarioError, parse_scenario

AS_WRITTEN = """\
name = "kill-the-leader"
[cluster]
brokers = 3
controllers = 1
[[topics]]
name = "ch"
partitions = 1
replication-factor = 3
[[steps]]
action = "kill"
node = "leader:ch-0"
[[steps.expect]]
what = "isr"
partition = "ch-0"
size = 2
within = "30s"
"""


def test_the_shape_the_checks_write_is_accepted_as_written() -> None:
    s = parse_scenario(AS_WRITTEN, "kill.toml")
    assert (s.name, s.cluster.brokers, s.cluster.controllers, s.cluster.mode) == ("kill-the-leader", 3, 1, "kraft")
    assert [(t.name, t.partitions, t.replication_factor) for t in s.topics] == [("ch", 1, 3)]
    (step,) = s.steps
    assert (step.action, step.node, step.line) == ("kill", NodeRef(leader_of=("ch", 0)), 9)
    (expect,) = step.expect
    assert (expect.what, expect.partition, expect.size, expect.within_s) == ("isr", ("ch", 0), 2, 30.0)
    assert expect.describe() == "the ISR of ch-0 has 2 replicas within 30 s"
    assert step.describe() == "kill -9 leader:ch-0"


def test_the_built_in_scenarios_parse() -> None:
    found = builtin_scenarios()
    assert {"seed-000", "seed-002"} <= set(found)
    for s in found.values():
        assert s.steps and all(e.explain for step in s.steps for e in step.expect), s.name


@pytest.mark.parametrize(
    ("change", "line", "said"),
    [
        (
            ('action = "kill"', 'action = "explode"'),
            10,
            "action is one of kill, stop, start, produce, consume, stop-consumer, wait",
        ),
        (('node = "leader:ch-0"', 'node = "broker-7"'), 11, "broker-7 is not in this cluster"),
        (('partition = "ch-0"', 'partition = "ch-1"'), 14, "ch has 1 partition(s): ch-1 is not one of them"),
        (('partition = "ch-0"', 'partition = "orders-0"'), 14, "topic 'orders' is not in the scenario's [[topics]]"),
        (("size = 2", "size = 4"), 15, "size is a whole number from 0 to 3"),
        (('within = "30s"', 'within = "soon"'), 16, 'a duration is "30s"'),
        (
            ('what = "isr"', 'what = "vibes"'),
            13,
            "what is one of isr, elr, last-known-elr, leader, acked-read-back, group, refused",
        ),
        (("brokers = 3", "brokers = 0"), 3, "brokers is a whole number from 1 to 9"),
        (('name = "ch"', 'name = "ch"\ncolour = "red"'), 7, "[[topics]] has no 'colour'"),
        (("replication-factor = 3", "replication-factor = 3.5"), 8, "replication-factor is a whole number"),
        (('action = "kill"', 'action = "kill"\nby-key = "yes"'), 11, "by-key = true (the user does it by key)"),
    ],
)
def test_a_mistake_is_named_with_its_line(change: tuple[str, str], line: int, said: str) -> None:
    refused(AS_WRITTEN.replace(*change), line, said)


def refused(text: str, line: int, said: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, "lab.toml")
    assert str(caught.value).startswith(f"lab.toml:{line}: {said}"), str(caught.value)


def test_not_toml_and_no_steps() -> None:
    with pytest.raises(ScenarioError, match=r"^lab.toml: not TOML: .*line 2"):
        parse_scenario('name = "x"\n[[steps]\n', "lab.toml")
    with pytest.raises(ScenarioError, match=r"^lab.toml:1: no \[\[steps\]\]"):
        parse_scenario('name = "x"\n', "lab.toml")


def test_durations_and_node_names() -> None:
    text = AS_WRITTEN.replace('within = "30s"', 'within = "1.5m"').replace(
        "[[steps]]", '[[steps]]\naction = "wait"\nseconds = "500ms"\n[[steps]]', 1
    )
    s = parse_scenario(text, "lab.toml")
    assert s.steps[0].seconds == 0.5 and s.steps[1].expect[0].within_s == 90.0
    assert str(parse_scenario(AS_WRITTEN.replace("leader:ch-0", "last-down"), "x").steps[0].node) == "last-down"


def test_a_group_step_and_its_expectation() -> None:
    text = AS_WRITTEN + (
        '[[steps]]\naction = "consume"\ntopic = "ch"\ngroup = "g"\nmembers = 3\n'
        '[[steps.expect]]\nwhat = "group"\ngroup = "g"\nmembers = 3\nwithin = "1m"\n'
        '[[steps]]\naction = "stop-consumer"\ngroup = "g"\n'
    )
    s = parse_scenario(text, "lab.toml")
    consume, stop = s.steps[1], s.steps[2]
    assert consume.describe() == "3 consumer(s) of ch join group g" and consume.line == 17
    assert consume.expect[0].describe() == "group g has 3 member(s) sharing every partition within 60 s"
    assert stop.describe() == "a consumer of group g stops (it leaves the group)"
    with pytest.raises(ScenarioError, match=r"^lab.toml:20: group = \"billing\""):
        parse_scenario(
            text.replace(
                'action = "consume"\ntopic = "ch"\ngroup = "g"', 'action = "consume"\ntopic = "ch"\ngroup = "a b"'
            ),
            "lab.toml",
        )


def test_a_step_by_key() -> None:
    scenario = parse_scenario(AS_WRITTEN.replace('node = "leader:ch-0"', 'node = "leader:ch-0"\nby-key = true'), "a")
    assert scenario.steps[0].by_key
    with pytest.raises(ScenarioError, match="goes with kill, stop or start"):
        parse_scenario(AS_WRITTEN.replace('action = "kill"\nnode = "leader:ch-0"', 'action = "wait"\nby-key = true'),
                       "a")  # fmt: skip


def test_an_election_step_and_what_it_loses() -> None:
    text = (
        AS_WRITTEN
        + '\n[[steps]]\naction = "elect"\npartition = "ch-0"\n[[steps.expect]]\nwhat = "acked-lost"\ntopic = "ch"\n'
    )
    step = parse_scenario(text, "a").steps[-1]
    assert (step.action, step.partition, step.election) == ("elect", ("ch", 0), "unclean")
    assert step.describe() == "unclean leader election on ch-0"
    assert step.expect[0].describe() == "records acknowledged on ch are lost (not read back) within 30 s"
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text.replace('partition = "ch-0"\n[[steps.expect]]', 'partition = "ch-0"\nelection = "dirty"\n'
                                    '[[steps.expect]]'), "lab.toml")  # fmt: skip
    assert str(caught.value) == "lab.toml:21: election is one of unclean, preferred, not 'dirty'"
    with pytest.raises(ScenarioError, match="a partition is written topic-N"):
        parse_scenario(text.replace('action = "elect"\npartition = "ch-0"', 'action = "elect"'), "lab.toml")


TRANSACTION = AS_WRITTEN + (
    '\n[[steps]]\naction = "transaction"\ntopic = "ch"\ncount = 30\nend = "open"\n'
    '[[steps.expect]]\nwhat = "records"\ntopic = "ch"\nisolation = "read_uncommitted"\ncount = 30\n'
    '[[steps.expect]]\nwhat = "transaction"\noutcome = "open"\n'
)


def test_a_transaction_step_and_what_each_isolation_level_reads() -> None:
    step = parse_scenario(TRANSACTION, "a").steps[-1]
    assert (step.action, step.topic, step.count, step.end) == ("transaction", "ch", 30, "open")
    assert step.describe() == "30 records to ch in a transaction, then leave it open"
    reads, outcome = step.expect
    assert reads.describe() == "a read_uncommitted consumer reads 30 of this run's records of ch within 30 s"
    assert (outcome.describe(), outcome.outcome) == ("the transaction is open", "open")
    default = parse_scenario(TRANSACTION.replace('isolation = "read_uncommitted"\n', ""), "a").steps[-1].expect[0]
    assert default.isolation == "read_committed"  # what a reader of transactions sets


@pytest.mark.parametrize(
    ("change", "line", "said"),
    [
        (('end = "open"', 'end = "later"'), 22, 'end goes with action = "transaction" and is one of commit, abort'),
        (('isolation = "read_uncommitted"', 'isolation = "dirty"'), 26, "isolation is read_committed or read_unc"),
        (('outcome = "open"', 'outcome = "maybe"'), 30, "outcome is one of committed, aborted, open, not 'maybe'"),
        (('action = "kill"', 'action = "kill"\nend = "open"'), 11, 'end goes with action = "transaction"'),
        (('what = "isr"', 'what = "transaction"\noutcome = "open"'), 12, 'what = "transaction" (how the step'),
        (
            (
                'count = 30\n[[steps.expect]]\nwhat = "transaction"',
                'count = -1\n[[steps.expect]]\nwhat = "transaction"',
            ),
            27,
            "count is a whole number from 0",
        ),  # fmt: skip
    ],
)
def test_a_transaction_mistake_is_named_with_its_line(change: tuple[str, str], line: int, said: str) -> None:
    refused(TRANSACTION.replace(*change), line, said)


CONNECTOR = AS_WRITTEN.replace("controllers = 1", "controllers = 1\nconnect = 2") + (
    '\n[[steps]]\naction = "connector"\nconnector = "sink"\n'
    'config = { "connector.class" = "FileStreamSink", "topics" = "ch", "file" = "{dir}/ch.txt", "tasks.max" = 1 }\n'
    '[[steps.expect]]\nwhat = "connector"\nconnector = "sink"\n'
    '[[steps]]\naction = "kill"\nnode = "worker:sink"\n'
)


def test_a_connector_its_worker_and_its_tasks() -> None:
    s = parse_scenario(CONNECTOR, "a")
    create, kill = s.steps[-2:]
    assert s.cluster.connect == 2
    assert (create.connector, dict(create.config)["tasks.max"]) == ("sink", "1")
    assert create.describe() == "create connector sink (FileStreamSink)"
    assert create.expect[0].describe() == "connector sink has 1 task(s) RUNNING on workers that are up within 30 s"
    assert (kill.node, str(kill.node)) == (NodeRef(worker_of="sink"), "worker:sink")
    assert str(parse_scenario(CONNECTOR.replace("worker:sink", "connect-2"), "a").steps[-1].node) == "connect-2"


@pytest.mark.parametrize(
    ("change", "line", "said"),
    [
        (("connect = 2", "connect = 0"), 20, "a connector needs Kafka Connect workers: [cluster] connect = 2"),
        (("worker:sink", "connect-3"), 28, "connect-3 is not in this cluster: Connect workers are connect-1 … conn"),
        (('connector = "sink"\nconfig', 'connector = "a b"\nconfig'), 21, 'connector = "orders-sink": a name of'),
        (('"connector.class" = "FileStreamSink", ', ""), 22, 'config = { "connector.class" = "FileStreamSink"'),
        (("connect = 2", "connect = 9"), 5, "connect is a whole number from 0 to 5"),
    ],
)
def test_a_connector_mistake_is_named_with_its_line(change: tuple[str, str], line: int, said: str) -> None:
    refused(CONNECTOR.replace(*change), line, said)
