"""`kafkatop consume` and `kafkatop produce` with formats and a Schema Registry, against librdkafka's mock cluster
and the Schema Registry TEST DOUBLE (no real registry can run here), as a new user met them: an export made with a
registry configured keeps the records' bytes and reads back byte for byte, a decoded export is refused without a
format to encode it; schemas are checked before any connection; a registry that does not answer is said once, in
words, and fails the run; auto beside a registered subject is said; a record over the producer's limit names it;
a format picked in the live view is said when it changes a command."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.format_config import remember
from kafkatop.backends.model.formats import FieldFormat, Format, TopicFormat
from kafkatop.tui.cli.main import main
from tests.doubles.schema_registry import SchemaRegistryDouble

pytestmark = pytest.mark.timeout(90)

SCHEMA = {"type": "record", "name": "R", "fields": [{"name": "id", "type": "int"}, {"name": "name", "type": "string"}]}
RECORDS = [{"id": i, "name": f"n{i}"} for i in range(3)]


@pytest.fixture
def double() -> Iterator[SchemaRegistryDouble]:
    with SchemaRegistryDouble() as d:
        yield d


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No kafkatop.toml, config.toml or remembered formats but the test's own."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    (tmp_path / "r.avsc").write_text(json.dumps(SCHEMA))
    (tmp_path / "records.txt").write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    return tmp_path


def run(capsysbinary: pytest.CaptureFixture[bytes], *argv: str) -> tuple[int, bytes, list[str]]:
    status = main(list(argv))
    out, err = capsysbinary.readouterr()
    return status, out, err.decode().splitlines()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def avro_topic(cap: pytest.CaptureFixture[bytes], cluster: MockCluster, registry: str, *topics: str) -> list[str]:
    """Topics made, the first filled with RECORDS in Avro through the registry; the flags that reach the cluster."""
    for topic in topics:
        cluster.create_topic(topic, 1, 1)
    b = ["--bootstrap-server", cluster.bootstrap_servers]
    writes = ["--value-format", "avro", "--value-schema", "r.avsc", "--schema-registry", registry]
    assert run(cap, "produce", "--topic", topics[0], "--file", "records.txt", *writes, *b)[0] == 0
    return b


def test_an_export_with_the_registry_test_double_configured_keeps_the_bytes_and_reads_back_byte_for_byte(
    mock_cluster: MockCluster, double: SchemaRegistryDouble, home: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    b = avro_topic(capsysbinary, mock_cluster, double.url, "av", "copy")
    r = ["--schema-registry", double.url]
    status, export, err = run(capsysbinary, "consume", "--topic", "av", "--json", *r, *b)
    lines = [json.loads(line) for line in export.splitlines()]
    assert status == 0 and len(lines) == 3, err
    assert lines[0]["payload"].startswith("\x00\x00\x00\x00\x01") and "value_schema_id" not in lines[0]  # bytes
    assert err[0].startswith("kafkatop: values are in Confluent's wire format (schema id 1): --json keeps their bytes")
    (home / "av.jsonl").write_bytes(export)
    assert run(capsysbinary, "produce", "--topic", "copy", "--json", "--file", "av.jsonl", *r, *b)[0] == 0
    copied = run(capsysbinary, "consume", "--topic", "copy", "--json", *r, *b)[1]
    assert copied == export.replace(b'"topic":"av"', b'"topic":"copy"')

    # Decoded when the command line asks (kcat -J -s), and refused back without a format to encode it.
    status, decoded, err = run(capsysbinary, "consume", "--topic", "av", "--json", "--value-format", "avro", *r, *b)
    assert status == 0, err
    assert [(json.loads(line)["payload"], json.loads(line)["value_schema_id"]) for line in decoded.splitlines()] == [
        (record, 1) for record in RECORDS
    ]
    (home / "decoded.jsonl").write_bytes(decoded)
    status, _, err = run(capsysbinary, "produce", "--topic", "copy", "--json", "--file", "decoded.jsonl", *r, *b)
    assert status == 2
    assert err[-1] == (
        "kafkatop: line 1: payload is a decoded value (value_schema_id 1), not the record's bytes: give --value-format "
        "avro, protobuf or json-schema (with --value-schema or --value-subject, or the registry's TOPIC-value) to "
        "encode it, or export with `kafkatop consume --json` without --value-format, which keeps the bytes"
    )
    encode = ["--value-format", "avro", "--value-subject", "av-value"]
    assert run(capsysbinary, "produce", "--topic", "copy", "--json", "--file", "decoded.jsonl", *encode, *r, *b)[0] == 0
    status, out, _ = run(capsysbinary, "consume", "--topic", "copy", *r, *b)
    assert [json.loads(line) for line in out.splitlines()] == RECORDS * 2


def test_schemas_are_checked_before_any_connection(
    double: SchemaRegistryDouble, home: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    nowhere = ["--bootstrap-server", f"127.0.0.1:{closed_port()}", "--timeout", "2"]
    (home / "bad.avsc").write_text("{")
    missing = str(home / "nope.avsc")
    produce = ["produce", "--file", os.devnull, "--value-format", "avro"]  # no line: the run used to end well
    cases = [
        (["consume", "--value-format", "avro", "--value-schema", "nope.avsc"], f"{missing}: No such file or directory"),
        (["consume", "--value-format", "avro", "--value-schema", "bad.avsc"], "bad.avsc is not JSON"),
        (["consume", "--value-schema", "r.avsc"], "--value-schema needs --value-format avro, protobuf or json-schema"),
        ([*produce, "--value-schema", "nope.avsc"], missing),
        ([*produce, "--value-subject", "nope-value", "--schema-registry", double.url], "the value's subject: schema"),
        ([*produce, "--value-subject", "s", "--value-schema", "r.avsc"], "--value-schema and --value-subject together"),
    ]
    for argv, said in cases:
        status, _, err = run(capsysbinary, *argv, "--topic", "t", *nowhere)
        assert (status, len(err)) == (2, 1), (argv, err)
        assert said in err[0], (argv, err)


def test_a_registry_that_does_not_answer_is_said_once_and_fails_the_run(
    mock_cluster: MockCluster, double: SchemaRegistryDouble, home: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    b = avro_topic(capsysbinary, mock_cluster, double.url, "av")
    down = f"http://127.0.0.1:{closed_port()}"
    status, out, err = run(capsysbinary, "consume", "--topic", "av", "--schema-registry", down, *b)
    assert status == 1 and out.count(b"\n") == 3
    assert err == [
        f"kafkatop: schema registry {down} cannot be read (connection refused: is the server down?): the records in "
        "its wire format print as bytes; check that the registry runs at that URL (--schema-registry, "
        "[schema-registry] url in kafkatop.toml, or the context's)",
        "kafkatop: 3 records read; 3 could not be decoded and printed as bytes",
    ]
    wrong = ["--schema-registry", double.url + "/wrong", "--value-format", "avro"]
    status, _, err = run(capsysbinary, "consume", "--topic", "av", *wrong, *b)
    assert status == 1 and "/wrong cannot be read (HTTP 404, not a Schema Registry's answer: is the URL" in err[0]

    writes = ["--value-format", "avro", "--value-schema", "r.avsc", "--schema-registry", down]
    status, _, err = run(capsysbinary, "produce", "--topic", "av", "--file", "records.txt", *writes, *b)
    assert status == 1
    assert err == [
        f"kafkatop: schema registry {down} cannot be read (connection refused: is the server down?): the values are "
        f"written through it as avro ({home / 'r.avsc'}), so nothing was sent; check that the registry runs at that URL"
    ]


def test_auto_beside_a_subject_of_the_topic_is_said(
    mock_cluster: MockCluster, double: SchemaRegistryDouble, home: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    b = avro_topic(capsysbinary, mock_cluster, double.url, "av")
    r = ["--schema-registry", double.url]
    assert run(capsysbinary, "produce", "--topic", "av", "--file", "records.txt", *r, *b)[2] == [
        "kafkatop: the registry has subject av-value, and values are sent as text (auto): give --value-format avro "
        "to encode them",
        "kafkatop: 3 records produced",
    ]
    assert run(capsysbinary, "produce", "--topic", "av", "--file", "records.txt", "--value-format", "string", *r,
               *b)[2] == ["kafkatop: 3 records produced"]  # fmt: skip


def test_a_record_over_the_producers_limit_names_it(
    mock_cluster: MockCluster, home: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    mock_cluster.create_topic("t", 1, 1)
    (home / "big.txt").write_bytes(b"small\n" + b"x" * 1_100_000 + b"\n")
    status, _, err = run(capsysbinary, "produce", "--topic", "t", "--file", "big.txt", "--bootstrap-server",
                         mock_cluster.bootstrap_servers)  # fmt: skip
    assert status == 2
    assert err == [
        "kafkatop: 1 record produced; stopped at line 2: nothing from it on was sent",
        "kafkatop: the record is 1100000 bytes (key, value and headers), over the producer's message.max.bytes "
        "(1000000): give --producer-property message.max.bytes=N, N at most the topic's max.message.bytes "
        "(`kafkatop configs --topic t` shows it; --alter max.message.bytes=N raises it)",
    ]


def test_a_format_picked_in_the_live_view_is_said_where_it_applies(
    mock_cluster: MockCluster, double: SchemaRegistryDouble, home: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    b = avro_topic(capsysbinary, mock_cluster, double.url, "av")
    remembered = home / "state" / "kafkatop"
    avro = TopicFormat(value=FieldFormat(Format.AVRO))
    remember(remembered, f"bootstrap:{mock_cluster.bootstrap_servers}", "av", avro)
    r = ["--schema-registry", double.url, "--max-messages", "1"]
    status, out, err = run(capsysbinary, "consume", "--topic", "av", *r, *b)
    assert (status, json.loads(out)) == (0, RECORDS[0])
    assert err[0] == (
        f"kafkatop: values read as avro, as picked in the live view ({remembered / 'formats.json'}); --value-format "
        "overrides"
    )
    for flags in (["--value-format", "auto"], ["--json"]):  # the flag's, and an export's bytes: nothing to say
        assert not any("picked in the live view" in line for line in run(capsysbinary, "consume", "--topic", "av",
                                                                          *flags, *r, *b)[2])  # fmt: skip
