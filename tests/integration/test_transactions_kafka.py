"""`kafkatop transactions` against a real Kafka (one KRaft node from KAFKA_HOME, the module's `kafka` fixture), each
table compared line for line with kafka-transactions.sh's on the same cluster at the same moment.

Open transactions come from confluent-kafka's transactional producers, begun, produced, flushed and left open (aborted
at the end). A hanging transaction, one no coordinator will ever end, is made as it happens in the wild (KAFKA-12671:
a produce that lands after its transaction was ended): a transactional batch written straight to a partition with a
producer id no coordinator knows, by a Produce request sent by hand, which the broker accepts once
transaction.partition.verification.enable (KIP-890) is turned off for the cluster. Its batch is dated 20 minutes
back, so that it is older than find-hanging's default --max-transaction-timeout (15 minutes), and it holds back the
partition's last stable offset until it is aborted: a read_committed consumer reads past it only after the abort.

What differs between two runs of a table is compared with a tolerance, and said so: describe's
TransactionDurationMs (the clock of each tool, read a few seconds apart) and find-hanging's Duration(min) (±1 across
a minute's turn); every other column, and every column's padding, is compared exactly."""

from __future__ import annotations

import json
import struct
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource

from kafkatop.backends.protocol.connection import BrokerConnection
from kafkatop.backends.protocol.wire import encode_nullable_string, encode_string, int16, int32, int64
from kafkatop.backends.protocol.wire import response_reader as reader
from tests.conftest import wait_for
from tests.integration.test_bad_input import kafkatop, kafkatop_typed
from tests.integration.test_real_kafka import CLIENT_LOGGER, KraftNode, admin_client, create_topic, node_env

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(600)]

OPEN_TIMEOUT_MS = 600_000  # the open transactions outlive the module; each is aborted at its end
GHOST_AGE_MS = 20 * 60_000


# --- a hanging transaction, by hand ---------------------------------------------------------------------------------
def _crc32c_table() -> list[int]:
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC32C = _crc32c_table()


def crc32c(data: bytes) -> int:
    c = 0xFFFFFFFF
    for b in data:
        c = CRC32C[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def varint(n: int) -> bytes:
    """A zigzag varint, as a record's fields are written."""
    n = (n << 1) ^ (n >> 63)
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def transactional_batch(producer_id: int, epoch: int, timestamp_ms: int, values: list[bytes]) -> bytes:
    """A record batch v2 (magic 2) with the transactional attribute, from sequence 0."""
    records = b""
    for i, v in enumerate(values):
        record = b"\x00" + varint(0) + varint(i) + varint(-1) + varint(len(v)) + v + varint(0)
        records += varint(len(record)) + record
    after_crc = (int16(0x10) + int32(len(values) - 1) + int64(timestamp_ms) + int64(timestamp_ms)
                 + int64(producer_id) + int16(epoch) + int32(0) + int32(len(values)) + records)  # fmt: skip
    tail = int32(-1) + b"\x02" + struct.pack(">I", crc32c(after_crc)) + after_crc
    return int64(0) + int32(len(tail)) + tail


def produce_ghost(node: KraftNode, topic: str, producer_id: int, epoch: int) -> None:
    """A transactional record no coordinator knows of (Produce v3, sent by hand), dated GHOST_AGE_MS back."""
    batch = transactional_batch(producer_id, epoch, int(time.time() * 1000) - GHOST_AGE_MS, [b"ghost"])
    body = (encode_nullable_string("ghost") + int16(-1) + int32(10_000) + int32(1) + encode_string(topic)
            + int32(1) + int32(0) + int32(len(batch)) + batch)  # fmt: skip
    with BrokerConnection("127.0.0.1", node.port, time.monotonic() + 15) as conn:
        r = reader(conn.request(0, 3, body, flexible=False), flexible=False)
    r.array_length(), r.string(), r.array_length(), r.int32()
    assert r.int16() == 0, "the broker refused the hand-made transactional batch"


def produce_plain(node: KraftNode, topic: str, value: bytes) -> None:
    producer = Producer({"bootstrap.servers": node.bootstrap, "acks": "all", "logger": CLIENT_LOGGER})
    producer.produce(topic, value=value, partition=0)
    assert producer.flush(20) == 0


# --- the cluster ----------------------------------------------------------------------------------------------------
def transactional_producer(node: KraftNode, transactional_id: str) -> Producer:
    producer = Producer({"bootstrap.servers": node.bootstrap, "transactional.id": transactional_id,
                         "transaction.timeout.ms": OPEN_TIMEOUT_MS, "logger": CLIENT_LOGGER})  # fmt: skip
    producer.init_transactions(60)
    return producer


def verification_off(node: KraftNode) -> None:
    """transaction.partition.verification.enable=false on the node (a dynamic broker config), once in force."""
    admin = admin_client(node)
    broker = ConfigResource(ConfigResource.Type.BROKER, "1")
    broker.add_incremental_config(
        ConfigEntry("transaction.partition.verification.enable", "false", incremental_operation=AlterConfigOpType.SET)
    )
    admin.incremental_alter_configs([broker])[broker].result(20)

    def in_force() -> bool:
        asked = ConfigResource(ConfigResource.Type.BROKER, "1")
        entries = admin.describe_configs([asked])[asked].result(20)
        return bool(entries["transaction.partition.verification.enable"].value == "false")

    wait_for(in_force, timeout_s=30, interval_s=0.2, what="verification off on broker 1")


@pytest.fixture(scope="module")
def cluster(kafka: KraftNode) -> Iterator[KraftNode]:
    """Topics orders (3), ledger (1), ghosts (1); pay-1 open on orders-0..2 and ledger-0, pay-2 open on ledger-0,
    done-1 committed. The open ones are aborted at the end."""
    for name, partitions in (("orders", 3), ("ledger", 1), ("ghosts", 1)):
        create_topic(kafka, name, partitions)
    verification_off(kafka)
    producers: list[Producer] = []
    try:
        for transactional_id, where in (("pay-1", [("orders", 0), ("orders", 1), ("orders", 2), ("ledger", 0)]),
                                        ("pay-2", [("ledger", 0)]), ("done-1", [("orders", 0)])):  # fmt: skip
            producer = transactional_producer(kafka, transactional_id)
            producers.append(producer)
            producer.begin_transaction()
            for topic, partition in where:
                producer.produce(topic, value=transactional_id.encode(), partition=partition)
            assert producer.flush(30) == 0
        producers[-1].commit_transaction(30)
        yield kafka
    finally:
        for producer in producers[:2]:
            try:
                producer.abort_transaction(30)
            except Exception:  # noqa: BLE001 - the node may be gone already; the module's fixture stops it
                pass
        for producer in producers:
            producer.flush(5)


def theirs(node: KraftNode, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(node.home / "bin" / "kafka-transactions.sh"), "--bootstrap-server", node.bootstrap, *args],
        env=node_env(node.log_dir), capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def ours(node: KraftNode, tmp_path: Path, *args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    return kafkatop("transactions", *args, "--bootstrap-server", node.bootstrap, cwd=tmp_path, **kw)


def typed(node: KraftNode, tmp_path: Path, answer: str, *args: str) -> tuple[int, str]:
    """kafkatop with a terminal for stdin and stderr, `answer` typed: (exit status, what the terminal showed)."""
    status, _, shown = kafkatop_typed(answer, "transactions", *args, "--bootstrap-server", node.bootstrap, cwd=tmp_path)
    return status, shown


def both(node: KraftNode, tmp_path: Path, *args: str) -> tuple[list[str], list[str], float]:
    """The two tools' lines, theirs first; and the seconds from the start of theirs to the end of ours."""
    start = time.monotonic()
    java = theirs(node, *args)
    mine = ours(node, tmp_path, *args)
    took = time.monotonic() - start
    assert java.returncode == 0, java.stdout + java.stderr
    assert mine.returncode == 0 and "Traceback" not in mine.stderr, mine.stdout + mine.stderr
    return java.stdout.splitlines(), mine.stdout.splitlines(), took


def cells(line: str) -> list[str]:
    return line.split("\t")


def same_but(column: int, java: list[str], mine: list[str], tolerance: float) -> None:
    """Line for line, every cell exact (padding included) but `column`'s number, within `tolerance`."""
    assert len(java) == len(mine), (java, mine)
    assert java[0] == mine[0]
    for j, m in zip(java[1:], mine[1:], strict=True):
        jc, mc = cells(j), cells(m)
        assert jc[:column] + jc[column + 1 :] == mc[:column] + mc[column + 1 :], (j, m)
        assert len(jc[column]) == len(mc[column]), (j, m)  # padded to the header's width, wider than the number
        assert abs(int(jc[column]) - int(mc[column])) <= tolerance, (j, m)


# --- list, describe, describe-producers -----------------------------------------------------------------------------
def test_list_is_the_tools_line_for_line(cluster: KraftNode, tmp_path: Path) -> None:
    java, mine, _ = both(cluster, tmp_path, "list")
    print("kafka-transactions.sh list:", *java, "kafkatop transactions list:", *mine, sep="\n")
    assert mine == java
    assert {cells(line)[0].strip() for line in mine[1:]} == {"pay-1", "pay-2", "done-1"}
    java, mine, _ = both(cluster, tmp_path, "list", "--transactional-id-pattern", "pay-.*")
    assert mine == java and len(mine) == 3, (java, mine)  # pay-1 and pay-2
    # Running longer than 0 ms, by the coordinator's clock: done-1 too (its last transaction's start is kept).
    java, mine, _ = both(cluster, tmp_path, "list", "--duration-filter", "0")
    assert mine == java, (java, mine)
    listed = json.loads(ours(cluster, tmp_path, "list", "--json").stdout)
    assert {(t["transactional_id"], t["coordinator"], t["transaction_state"]) for t in listed} == {
        ("pay-1", 1, "Ongoing"), ("pay-2", 1, "Ongoing"), ("done-1", 1, "CompleteCommit"),
    }  # fmt: skip


@pytest.mark.parametrize("transactional_id", ["pay-1", "done-1"])
def test_describe_is_the_tools_line_for_line(cluster: KraftNode, tmp_path: Path, transactional_id: str) -> None:
    """TransactionDurationMs (column 7) is now − start by each tool's clock: within the seconds between the two."""
    java, mine, took = both(cluster, tmp_path, "describe", "--transactional-id", transactional_id)
    print("kafka-transactions.sh describe:", *java, "kafkatop transactions describe:", *mine, sep="\n")
    if cells(java[1])[7].strip() == "None":
        assert mine == java
    else:
        same_but(7, java, mine, tolerance=took * 1000 + 50)
    if transactional_id == "pay-1":  # four partitions, in the order of the tool's HashSet (compared above)
        assert sorted(cells(mine[1])[8].split(",")) == ["ledger-0", "orders-0", "orders-1", "orders-2"]


def test_an_unknown_transactional_id_is_bad_input(cluster: KraftNode, tmp_path: Path) -> None:
    java = theirs(cluster, "describe", "--transactional-id", "nobody")
    mine = ours(cluster, tmp_path, "describe", "--transactional-id", "nobody")
    assert java.returncode == 1 and "could not be found" in java.stderr + java.stdout
    assert mine.returncode == 2 and mine.stdout == ""
    assert "transactional id 'nobody' is not known to its coordinator (TRANSACTIONAL_ID_NOT_FOUND)" in mine.stderr


def test_describe_producers_is_the_tools_line_for_line(cluster: KraftNode, tmp_path: Path) -> None:
    for partition in ("0", "1"):
        java, mine, _ = both(cluster, tmp_path, "describe-producers", "--topic", "orders", "--partition", partition)
        assert mine == java and len(mine) >= 2, (java, mine)


def test_open_transactions_that_coordinators_track_are_not_hanging(cluster: KraftNode, tmp_path: Path) -> None:
    """pay-1 and pay-2 are open, and with --max-transaction-timeout 0 every open one is a candidate; their
    coordinator holds each of their partitions, so none hangs: both tools print the header alone."""
    for scope in (["--topic", "orders"], ["--topic", "ledger", "--partition", "0"]):
        java, mine, _ = both(cluster, tmp_path, "find-hanging", *scope, "--max-transaction-timeout", "0")
        assert mine == java and len(mine) == 1, (scope, java, mine)


# --- a hanging transaction: found, kept from read_committed consumers, aborted ----------------------------------------
def committed_offsets(node: KraftNode, tmp_path: Path) -> list[str]:
    """What a read_committed consumer reads of ghosts-0: the offsets below the last stable offset, not aborted."""
    done = kafkatop("consume", "--topic", "ghosts", "--isolation-level", "read_committed", "--format", "%o\n",
                    "--bootstrap-server", node.bootstrap, "--timeout", "5", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_a_hanging_transaction_is_found_and_aborted(cluster: KraftNode, tmp_path: Path) -> None:
    """Duration(min) (column 7) is compared within ±1 (the two tools may read the clock either side of a minute)."""
    produce_ghost(cluster, "ghosts", 900001, 0)  # offset 0, its transaction open
    produce_plain(cluster, "ghosts", b"after")  # offset 1, committed: held back by the open transaction
    assert committed_offsets(cluster, tmp_path) == []
    for scope in (["--topic", "ghosts"], ["--broker-id", "1"], ["--topic", "ghosts", "--partition", "0"]):
        java, mine, _ = both(cluster, tmp_path, "find-hanging", *scope)
        print("kafka-transactions.sh find-hanging:", *java, "kafkatop transactions find-hanging:", *mine, sep="\n")
        same_but(7, java, mine, tolerance=1)
        assert [c.strip() for c in cells(mine[1])[:6]] == ["ghosts", "0", "900001", "0", "-1", "0"]
        assert len(mine) == 2

    abort = ("abort", "--topic", "ghosts", "--partition", "0", "--start-offset", "0")
    unasked = ours(cluster, tmp_path, *abort)
    assert unasked.returncode == 2 and "an abort needs a confirmation" in unasked.stderr  # no terminal, no --yes
    status, shown = typed(cluster, tmp_path, "yes", *abort)  # an attached cluster: its address must be typed
    assert (
        status == 1 and "write an ABORT marker on ghosts-0 for producer 900001 (epoch 0, coordinator epoch 0)?" in shown
    )
    assert f"type {cluster.bootstrap} to go ahead" in shown and "not confirmed: nothing was sent" in shown
    assert len(ours(cluster, tmp_path, "find-hanging", "--topic", "ghosts").stdout.splitlines()) == 2

    wrong = ours(cluster, tmp_path, "abort", "--topic", "ghosts", "--partition", "0", "--start-offset", "1", "--yes")
    assert wrong.returncode == 2
    assert "Could not find any open transactions starting at offset 1 on partition ghosts-0" in wrong.stderr

    status, shown = typed(cluster, tmp_path, cluster.bootstrap, *abort)
    assert status == 0, shown
    assert "wrote an ABORT marker on ghosts-0 for producer 900001 (epoch 0)" in shown
    java, mine, _ = both(cluster, tmp_path, "find-hanging", "--topic", "ghosts")
    assert mine == java and len(mine) == 1
    assert committed_offsets(cluster, tmp_path) == ["1"]  # the last stable offset moved past it


def test_each_tool_aborts_what_the_other_then_sees_ended(cluster: KraftNode, tmp_path: Path) -> None:
    """kafka-transactions.sh abort --start-offset, then kafkatop's abort by producer id, epoch and coordinator epoch
    (-1, never written, sent as 0): each leaves nothing hanging for the other tool."""
    produce_ghost(cluster, "ghosts", 900002, 3)
    java, mine, _ = both(cluster, tmp_path, "find-hanging", "--topic", "ghosts")
    same_but(7, java, mine, tolerance=1)
    start = cells(mine[1])[5].strip()
    done = theirs(cluster, "abort", "--topic", "ghosts", "--partition", "0", "--start-offset", start)
    assert done.returncode == 0, done.stderr
    assert len(ours(cluster, tmp_path, "find-hanging", "--topic", "ghosts").stdout.splitlines()) == 1

    produce_ghost(cluster, "ghosts", 900003, 1)
    done = ours(cluster, tmp_path, "abort", "--topic", "ghosts", "--partition", "0", "--producer-id", "900003",
                "--producer-epoch", "1", "--coordinator-epoch", "-1", "--yes", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [{"topic": "ghosts", "partition": 0, "producer_id": 900003,
                                        "producer_epoch": 1, "coordinator_epoch": 0}]  # fmt: skip
    java = theirs(cluster, "find-hanging", "--topic", "ghosts")
    assert java.returncode == 0 and len(java.stdout.splitlines()) == 1, java.stdout
    java, mine, _ = both(cluster, tmp_path, "describe-producers", "--topic", "ghosts", "--partition", "0")
    assert mine == java
    assert all(cells(line)[5].strip() == "None" for line in mine[1:])  # no open transaction left on ghosts-0


async def test_the_live_views_transactions_screen(cluster: KraftNode) -> None:
    """`i` in the live view: the transactions not ended yet (pay-1, pay-2 open; done-1 committed), each with its
    state, producer, partitions and age, read by TransactionWatch as kafka-transactions.sh describe reads them."""
    from textual.widgets import DataTable, Static

    from kafkatop.backends.kafka.admin.admin import AdminSource
    from kafkatop.backends.kafka.transactions.transaction_watch import TransactionWatch
    from kafkatop.backends.model.connection import KafkaConnection
    from kafkatop.tui.live.app import KafkatopApp
    from kafkatop.tui.live.screens.transactions import TransactionsScreen
    from kafkatop.tui.live.sources import Settings, Sources
    from tests.conftest import pilot_until

    connection = KafkaConnection.parse(cluster.bootstrap)
    source = AdminSource(connection, timeout_s=5.0)
    app = KafkatopApp(Sources(source.poll, transactions=TransactionWatch(connection)), Settings(poll_interval_s=0.5))
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot_until(pilot, lambda: app.snapshot is not None, "the first poll")
            await pilot.press("i")
            await pilot_until(pilot, lambda: isinstance(app.screen, TransactionsScreen), "the Transactions screen")
            table = app.screen.query_one(DataTable)
            await pilot_until(pilot, lambda: table.row_count == 2, "the two open transactions", timeout_s=30)
            rows = {str(table.get_row_at(i)[0]): [str(c) for c in table.get_row_at(i)] for i in range(2)}
            assert set(rows) == {"pay-1", "pay-2"}  # done-1 committed: not shown
            assert rows["pay-1"][1] == "Ongoing" and rows["pay-1"][6] == "ledger-0,orders-0,orders-1,orders-2"
            assert rows["pay-2"][6] == "ledger-0" and rows["pay-1"][4].endswith(("s", "min"))
            status = str(app.screen.query_one("#transactions-status", Static).render())
            assert status.startswith("2 not ended, 1 transactional id idle or ended")
            await pilot.press("escape")
            await pilot_until(pilot, lambda: not isinstance(app.screen, TransactionsScreen), "the screen closed")
    finally:
        source.close()
