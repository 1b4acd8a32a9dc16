"""`kafkatop produce` against a real Apache Kafka: the same lines give the records kafka-console-producer.sh gives
(keys, headers, the null marker, an empty value), as kafka-console-consumer.sh prints them; kcat -P -K -H's records
too; an export by `consume --json` (and by kcat -J) imported by `produce --json` into a new topic reads back byte for
byte — binary keys, values and headers, a null key, a null and an empty value, timestamps, three partitions and
their offsets; a bad line sends nothing from a --file, and what came before it from stdin. Set KAFKA_HOME to run."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest
from confluent_kafka import Producer

from kafkatop.backends.kafka.records.browser import MessageBrowser
from kafkatop.backends.model.connection import KafkaConnection
from tests.integration.test_real_kafka import KraftNode, create_topic, start_node, stop_node

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(300)]

PROPERTIES = ["parse.key=true", "parse.headers=true", "null.marker=NULL"]
LINES = [
    "h1:v1,h2:v2\tk1\tv1",
    "h1:NULL\tk2\tNULL",  # a header without a value, and a tombstone
    "NULL\tk3\tv3",  # no headers
    "trace:a=b\tk4\t",  # an empty value
    "a:1,b:\tk5\tcafé ünïcode ✓",  # an empty header value
    "h:v\t\tan empty key",
    "h:v\tNULL\tno key",  # the partitioner's choice: random in both tools
    *(f"n:{i}\tkey-{i}\tvalue {i}" for i in range(40)),
]
# A day ago: Kafka 4 refuses records stamped more than an hour ahead, and deletes those older than retention.ms.
BASE_MS = (int(time.time()) - 86_400) * 1000


def run(*argv: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*argv], input=stdin, capture_output=True, timeout=120, check=False)


def kafkatop(
    node: KraftNode, command: str, topic: str, *argv: str, stdin: bytes = b""
) -> subprocess.CompletedProcess[bytes]:
    return run(sys.executable, "-m", "kafkatop.tui.cli", command, "--bootstrap-server", node.bootstrap, "--topic",
               topic, *argv, stdin=stdin)  # fmt: skip


def console_consumer(node: KraftNode, topic: str, count: int) -> list[str]:
    done = run(str(node.home / "bin" / "kafka-console-consumer.sh"), "--bootstrap-server", node.bootstrap, "--topic",
               topic, "--from-beginning", "--max-messages", str(count), "--timeout-ms", "20000", "--property",
               "print.key=true", "--property", "print.headers=true", "--property", "print.partition=true")  # fmt: skip
    return done.stdout.decode().splitlines()


def by_partition(lines: list[str]) -> dict[str, list[str]]:
    """Each partition's records in order; a record without a key by itself (its partition was a random choice)."""
    out: dict[str, list[str]] = defaultdict(list)
    for line in lines:
        partition, headers, key, value = line.split("\t", 3)
        out["no key" if key == "null" else partition].append(f"{headers}\t{key}\t{value}")
    return dict(out)


def test_produce_sends_what_kafka_console_producer_sends(kafka: KraftNode) -> None:
    create_topic(kafka, "theirs", 3)
    create_topic(kafka, "ours", 3)
    text = ("\n".join(LINES) + "\n").encode()
    flags = [w for p in PROPERTIES for w in ("--property", p)]
    theirs = run(str(kafka.home / "bin" / "kafka-console-producer.sh"), "--bootstrap-server", kafka.bootstrap,
                 "--topic", "theirs", *flags, stdin=text)  # fmt: skip
    assert theirs.returncode == 0, theirs.stderr
    ours = kafkatop(kafka, "produce", "ours", *flags, stdin=text)
    assert (ours.returncode, ours.stderr.decode()) == (0, f"kafkatop: {len(LINES)} records produced\n")
    expected = by_partition(console_consumer(kafka, "theirs", len(LINES)))
    assert sum(map(len, expected.values())) == len(LINES)
    assert sorted(expected) == ["Partition:0", "Partition:1", "Partition:2", "no key"]
    assert "h1:null\tk2\tnull" in [r for records in expected.values() for r in records]  # no header value; a tombstone
    assert by_partition(console_consumer(kafka, "ours", len(LINES))) == expected  # the same partitions (murmur2)


@pytest.mark.skipif(shutil.which("kcat") is None, reason="needs kcat on PATH (apt install kcat)")
def test_produce_sends_what_kcat_sends(kafka: KraftNode) -> None:
    create_topic(kafka, "kcat-theirs", 3)
    create_topic(kafka, "kcat-ours", 3)
    text = b"k1:v1\nnokey\n:empty key\nk4:\nk5:a:b\n\xff\xfe:\x80binary\n"  # kcat skips empty lines
    theirs = run("kcat", "-P", "-b", kafka.bootstrap, "-t", "kcat-theirs", "-K:", "-H", "a=1", "-H", "b", "-p", "2",
                 stdin=text)  # fmt: skip
    assert theirs.returncode == 0, theirs.stderr
    ours = kafkatop(kafka, "produce", "kcat-ours", "--key-delimiter", ":", "--header", "a=1", "--header", "b",
                    "--partition", "2", stdin=text)  # fmt: skip
    assert ours.returncode == 0, ours.stderr

    def read(topic: str) -> list[object]:
        lines = kafkatop(kafka, "consume", topic, "--json").stdout.splitlines()
        return [{k: v for k, v in json.loads(line).items() if k not in ("topic", "ts")} for line in lines]

    assert read("kcat-ours") == read("kcat-theirs") and len(read("kcat-ours")) == 6


def fill_source(node: KraftNode, topic: str) -> int:
    """Records of every kind, on three partitions, by confluent-kafka's own producer; how many."""
    producer = Producer({"bootstrap.servers": node.bootstrap, "enable.idempotence": True, "linger.ms": 5})
    count = 0
    for i in range(600):
        key = None if i % 7 == 0 else bytes([i % 256, 0xFF, 0]) if i % 3 == 0 else f"k{i}".encode()
        value = (None if i % 11 == 0 else b"" if i % 13 == 0 else bytes(range(i % 256)) + b"\xc3\x28" if i % 5 == 0
                 else f'{{"i":{i},"s":"é\\n\u2028\\t"}}'.encode())  # fmt: skip
        headers = [("n", str(i).encode()), ("bin", b"\x80\x81"), ("none", None), ("empty", b""), ("n", b"again")]
        producer.produce(topic, value, key, partition=i % 3, timestamp=BASE_MS + i, headers=headers if i % 2 else None)
        count += 1
    assert producer.flush(30) == 0
    return count


def per_partition(export: bytes, topic: str) -> dict[int, list[bytes]]:
    out: dict[int, list[bytes]] = defaultdict(list)
    for line in export.splitlines(keepends=True):
        head = b'{"topic":"%s",' % topic.encode()
        assert line.startswith(head)
        out[json.loads(line)["partition"]].append(b'{"topic":"_",' + line[len(head) :])
    return dict(out)


def test_an_export_imported_into_a_new_topic_reads_back_byte_for_byte(kafka: KraftNode) -> None:
    create_topic(kafka, "source", 3)
    count = fill_source(kafka, "source")
    export = kafkatop(kafka, "consume", "source", "--json")
    assert export.returncode == 0 and len(export.stdout.splitlines()) == count, export.stderr
    assert b'"headers_encoding":[null,"base64",null,null,null]' in export.stdout
    assert b'"key":null' in export.stdout and b'"payload":null' in export.stdout and b'"payload":""' in export.stdout

    create_topic(kafka, "copy", 3)
    imported = kafkatop(kafka, "produce", "copy", "--json", stdin=export.stdout)  # a stream, read as it comes
    assert (imported.returncode, imported.stderr.decode()) == (0, f"kafkatop: {count} records produced\n")
    again = kafkatop(kafka, "consume", "copy", "--json").stdout
    # Byte for byte but the topic, offsets and timestamps included; partitions interleave as they are fetched.
    assert per_partition(again, "copy") == per_partition(export.stdout, "source")

    if shutil.which("kcat") is not None:  # kcat -J's export (bytes that are not UTF-8 printed as they are) too
        kcat = run("kcat", "-C", "-e", "-q", "-J", "-b", kafka.bootstrap, "-t", "source")
        assert kcat.returncode == 0 and len(kcat.stdout.splitlines()) == count
        create_topic(kafka, "copy-of-kcat", 3)
        imported = kafkatop(kafka, "produce", "copy-of-kcat", "--json", stdin=kcat.stdout)
        assert imported.returncode == 0, imported.stderr
        again = kafkatop(kafka, "consume", "copy-of-kcat", "--json").stdout
        assert per_partition(again, "copy-of-kcat") == per_partition(export.stdout, "source")


def high_watermarks(node: KraftNode, topic: str) -> int:
    browser = MessageBrowser(KafkaConnection.parse(node.bootstrap))
    try:
        return sum(w.high for w in browser.watermarks(topic))
    finally:
        browser.close()


def test_a_bad_line_sends_nothing_from_a_file_and_what_came_before_from_stdin(kafka: KraftNode, tmp_path: Path) -> None:
    create_topic(kafka, "strict", 1)
    records = tmp_path / "records.txt"
    records.write_bytes(b"k1:v1\nk2:v2\nno separator\nk4:v4\n")
    flags = ["--property", "parse.key=true", "--property", "key.separator=:"]
    from_file = kafkatop(kafka, "produce", "strict", *flags, "--file", str(records))
    assert from_file.returncode == 2
    assert from_file.stderr.decode().splitlines() == [
        "kafkatop: nothing was sent: --file is read whole before anything is sent",
        "kafkatop: line 3: no key separator (:) in 'no separator': write KEY:VALUE, or set ignore.error=true",
    ]
    assert high_watermarks(kafka, "strict") == 0
    from_stdin = kafkatop(kafka, "produce", "strict", *flags, stdin=records.read_bytes())
    assert from_stdin.returncode == 2
    assert from_stdin.stderr.decode().splitlines()[0] == (
        "kafkatop: 2 records produced; stopped at line 3: nothing after it was sent"
    )
    assert high_watermarks(kafka, "strict") == 2


def topic_partitions(node: KraftNode, topic: str) -> int | None:
    """The topic's partition count as a Metadata request that never creates it says (None: no such topic)."""
    producer = Producer({"bootstrap.servers": node.bootstrap, "allow.auto.create.topics": False})
    try:
        found = producer.list_topics(topic=topic, timeout=10).topics.get(topic)
        return None if found is None or found.error is not None else len(found.partitions)
    finally:
        producer.flush(1)


def test_a_missing_topic_is_created_by_the_brokers_as_for_kafka_console_producer(kafka: KraftNode) -> None:
    """auto.create.topics.enable=true (Kafka's default): kafka-console-producer.sh's records create the topic, with
    num.partitions (1); so do kafkatop's, which says so and goes on."""
    theirs = run(str(kafka.home / "bin" / "kafka-console-producer.sh"), "--bootstrap-server", kafka.bootstrap,
                 "--topic", "made-by-theirs", stdin=b"a\n")  # fmt: skip
    assert theirs.returncode == 0, theirs.stderr
    done = kafkatop(kafka, "produce", "made-by-ours", "--timeout", "20", stdin=b"a\nb\n")
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode().splitlines() == [
        "kafkatop: topic 'made-by-ours' does not exist: the brokers create it (auto.create.topics.enable=true) with "
        "1 partition",
        "kafkatop: 2 records produced",
    ]
    assert topic_partitions(kafka, "made-by-ours") == topic_partitions(kafka, "made-by-theirs") == 1
    assert high_watermarks(kafka, "made-by-ours") == 2


def test_a_missing_topic_is_refused_where_the_brokers_do_not_create_topics(
    kafka_home: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    node = start_node(kafka_home, tmp_path_factory.mktemp("kraft-no-auto"), extra={"auto.create.topics.enable": "false",
                                                                                  "num.partitions": "3"})  # fmt: skip
    try:
        done = kafkatop(node, "produce", "nowhere", "--timeout", "10", stdin=b"a\n")
        assert done.returncode == 2, done.stderr
        assert done.stderr.decode() == (
            "kafkatop: topic 'nowhere' does not exist, and the brokers do not create topics on first use "
            "(auto.create.topics.enable=false on broker 1): create it with `kafkatop create-topic nowhere --partitions "
            f"3 --replication-factor 1 --bootstrap-server {node.bootstrap}` (kafka-topics.sh --create does the same), "
            "then send again; nothing was sent\n"
        )
        assert topic_partitions(node, "nowhere") is None
    finally:
        stop_node(node.proc)
