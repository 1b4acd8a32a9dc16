"""`kafkatop produce`'s plain lines: read as kafka-console-producer.sh's LineMessageReader reads them (what Kafka
4.1's tool was seen to do is written beside each case), kcat -P -K's keys, -H headers, and the checks of the options
that come before anything is sent."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import pytest

from kafkatop.backends.insight.produce_input import LineReader, chomp, parse_header
from kafkatop.backends.kafka.records.bulk_producer import logged_fatal, producer_properties
from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.produce import BadLine, Produced, ProducerRecord
from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.produce import _interrupted

NOWHERE = ["--bootstrap-server", "127.0.0.1:9"]  # never reached: every case here is refused before connecting


def reader(*properties: str, key_delimiter: str | None = None, headers: tuple[str, ...] = ()) -> LineReader:
    return LineReader.of(properties, key_delimiter, headers)


def test_a_line_is_a_value_as_it_is() -> None:
    read = reader().record
    assert read(b"hello\tworld", 1) == ProducerRecord(None, b"hello\tworld")
    assert read(b"", 2) == ProducerRecord(None, b"")  # an empty line is an empty value, as the console producer
    assert read(b"\xff\xfe caf\xc3\xa9", 3).value == b"\xff\xfe caf\xc3\xa9"  # bytes go as read (kcat -P)


def test_chomp_takes_the_line_end_only() -> None:
    assert [chomp(b"a\n"), chomp(b"a\r\n"), chomp(b"a"), chomp(b"a\rb\n"), chomp(b"\n")] == [
        b"a", b"a", b"a", b"a\rb", b"",
    ]  # fmt: skip


def test_parse_key_splits_at_the_first_separator() -> None:
    assert reader("parse.key=true").record(b"k\tv\tw", 1) == ProducerRecord(b"k", b"v\tw")
    read = reader("parse.key=true", "key.separator=::").record
    assert read(b"user::42::x", 1) == ProducerRecord(b"user", b"42::x")
    assert read(b"::", 2) == ProducerRecord(b"", b"")  # an empty key and an empty value, not nulls


def test_a_line_without_the_key_separator_is_refused_with_its_number() -> None:
    with pytest.raises(BadLine, match=r"^line 7: no key separator \(:\) in 'no key here': write KEY:VALUE, or set "
                       r"ignore.error=true$") as caught:  # fmt: skip
        reader("parse.key=true", "key.separator=:").record(b"no key here", 7)
    assert caught.value.number == 7


def test_ignore_error_sends_a_line_without_separators_as_its_value() -> None:
    # Kafka 4.1 with ignore.error=true: "nosep" → no headers, key null, value "nosep"; "x:1\tk8:v8" → header x=1,
    # no key, value "k8:v8".
    read = reader("parse.key=true", "parse.headers=true", "ignore.error=true").record
    assert read(b"nosep", 1) == ProducerRecord(None, b"nosep")
    assert read(b"x:1\tk8:v8", 2) == ProducerRecord(None, b"k8:v8", (("x", b"1"),))


def test_headers_key_and_value() -> None:
    read = reader("parse.key=true", "parse.headers=true").record
    assert read(b"h1:v1,h2:v2\tk1\tv1", 1) == ProducerRecord(b"k1", b"v1", (("h1", b"v1"), ("h2", b"v2")))
    assert read(b"h:a:b\tk\tv", 2).headers == (("h", b"a:b"),)  # the first key separator splits
    assert read(b"h1:v1,\tk5\tv5", 3).headers == (("h1", b"v1"),)  # a trailing separator: Java's split drops it
    assert reader("parse.headers=true").record(b"h:\tvalue", 4) == ProducerRecord(None, b"value", (("h", b""),))


def test_bad_headers_are_refused_as_the_console_producer_refuses_them() -> None:
    read = reader("parse.key=true", "parse.headers=true").record
    # Kafka 4.1: "\tk3\tv3" fails with "No header key separator found in pair '' on line number 3".
    with pytest.raises(BadLine, match=r"^line 3: no header key separator \(:\) in header ''"):
        read(b"\tk3\tv3", 3)
    with pytest.raises(BadLine, match=r"^line 4: no header key separator \(:\) in header 'h1'"):
        read(b"h1\tk\tv", 4)
    with pytest.raises(BadLine, match=r"^line 5: no headers delimiter \(\\t\)"):
        reader("parse.headers=true").record(b"no delimiter", 5)
    # With ignore.error, Kafka 4.1 sent "a:1,,b:2" as a=1, ""=null, b=2.
    lenient = reader("parse.key=true", "parse.headers=true", "ignore.error=true").record
    assert lenient(b"a:1,,b:2\tk\tv", 6).headers == (("a", b"1"), ("", None), ("b", b"2"))


def test_the_null_marker() -> None:
    read = reader("parse.key=true", "parse.headers=true", "null.marker=NULL").record
    # Kafka 4.1: "h1:NULL\tNULL\tNULL" → header h1 with no value, no key, no value (a tombstone).
    assert read(b"h1:NULL\tNULL\tNULL", 1) == ProducerRecord(None, None, (("h1", None),))
    assert read(b"NULL\tk4\tv4", 2) == ProducerRecord(b"k4", b"v4")  # headers equal to the marker: none
    assert read(b"h:NULLx\tNULLx\txNULL", 3) == ProducerRecord(b"NULLx", b"xNULL", (("h", b"NULLx"),))
    with pytest.raises(BadLine, match="a header's name may not be the null marker 'NULL'"):
        read(b"NULL:v\tk\tv", 4)
    assert reader("null.marker=").record(b"", 5) == ProducerRecord(None, None)  # an empty marker: "" is null


def test_kcat_key_delimiter_and_headers_for_every_record() -> None:
    read = reader(key_delimiter=":", headers=("a=1", "b", "c=", "d=x=y")).record
    every = (("a", b"1"), ("b", None), ("c", b""), ("d", b"x=y"))  # kcat -H a=1 -H b -H c=: b has no value
    # kcat 1.7.1 -K: "k1:v1" keyed, "nokey" no key, ":empty" an empty key, "k4:" an empty value.
    assert [read(line, n) for n, line in enumerate([b"k1:v1", b"nokey", b":empty", b"k4:"], 1)] == [
        ProducerRecord(b"k1", b"v1", every), ProducerRecord(None, b"nokey", every),
        ProducerRecord(b"", b"empty", every), ProducerRecord(b"k4", b"", every),
    ]  # fmt: skip
    both = reader("parse.headers=true", headers=("every=1",)).record(b"own:2\tv", 1)
    assert both.headers == (("every", b"1"), ("own", b"2"))  # --header first, then the line's own


@pytest.mark.parametrize(
    ("properties", "key_delimiter", "message"),
    [
        (["parse.keys=true"], None, "--property 'parse.keys=true': write NAME=VALUE with one of parse.key, "),
        (["parse.key"], None, "write NAME=VALUE"),
        (["parse.key=yes"], None, "--property parse.key=yes: true or false"),
        (["key.separator="], None, "key.separator: give one or more characters"),
        (["null.marker=:", "key.separator=:"], None, "null.marker and key.separator may not be equal"),
        (["parse.headers=true", "headers.delimiter=;", "headers.separator=;"], None,
         "headers.delimiter and headers.separator may not be equal"),
        (["parse.headers=true", "headers.delimiter=;", "headers.key.separator=;"], None,
         "headers.delimiter and headers.key.separator may not be equal"),
        (["parse.headers=true", "headers.separator=:"], None, "headers.separator and headers.key.separator may not"),
        (["parse.key=true"], ":", "--key-delimiter and --property parse.key=true: give one"),
        ([], "", "--key-delimiter: give one or more characters"),
    ],
)  # fmt: skip
def test_reader_settings_are_checked(properties: list[str], key_delimiter: str | None, message: str) -> None:
    with pytest.raises(BadInput, match=message.replace("(", r"\(").replace(")", r"\)")):
        LineReader.of(properties, key_delimiter)


def test_header_and_producer_property_options() -> None:
    assert parse_header("trace=abc") == ("trace", b"abc")
    assert parse_header("flag") == ("flag", None)
    with pytest.raises(BadInput, match="--header '=x': write NAME=VALUE"):
        parse_header("=x")
    assert producer_properties(["linger.ms=50", "batch.size=1000"]) == {"linger.ms": "50", "batch.size": "1000"}
    with pytest.raises(BadInput, match="write NAME=VALUE"):
        producer_properties(["linger.ms"])
    with pytest.raises(BadInput, match="sasl.password: a secret does not go on the command line"):
        producer_properties(["sasl.password=hunter2"])


def test_the_summary() -> None:
    assert Produced(1).summary() == "1 record produced"
    assert Produced(998, 2, (("MSG_TIMED_OUT", 2),)).summary() == "998 records produced, 2 failed"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--json", "--property", "parse.key=true"], "--json reads JSON lines: --property and --key-delimiter are"),
        (["--repartition"], "--repartition goes with --json"),
        (["--json", "--repartition", "--partition", "1"], "--repartition and --partition together"),
        (["--property", "nope=1"], "--property 'nope=1': write NAME=VALUE with one of"),
        (["--producer-property", "ssl.key.password=x"], "a secret does not go on the command line"),
        (["--file", "/nonexistent/records.txt"], "--file /nonexistent/records.txt: cannot read it"),
        (["--partition", "-1"], "expected a partition number, 0 or more"),
        (["--acks", "2"], "invalid choice: '2'"),
        (["--producer-property", "linger.ms=abc"],
         'Invalid value for configuration property "linger.ms" (librdkafka\'s queue.buffering.max.ms)'),
    ],
)  # fmt: skip
def test_bad_options_are_refused_before_connecting(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) if argv[0] in ("--partition", "--acks") else nullcontext():  # argparse's
        assert main(["produce", "--topic", "t", *argv, *NOWHERE]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err, err


def test_a_fatal_error_is_read_back_from_librdkafkas_log_line() -> None:
    line = ("FATAL [kafkatop-producer#producer-1] [thrd:main]: Fatal error: Broker: Cluster authorization failed: "
            "Failed to acquire idempotence PID from broker sasl_plaintext://127.0.0.1:22200/1: Broker: Cluster "
            "authorization failed")  # fmt: skip  # as Kafka 4.1 with an authorizer made librdkafka log it
    fatal = logged_fatal(line)
    assert fatal is not None and (fatal.name(), fatal.fatal()) == ("CLUSTER_AUTHORIZATION_FAILED", True)
    assert fatal.str().startswith("Failed to acquire idempotence PID from broker")
    assert logged_fatal("WARN [p#producer-1] [thrd:main]: Broker: Leader not available") is None
    assert logged_fatal("FATAL [p] [thrd:main]: Fatal error: something librdkafka never says") is None


class WaitStopped:
    """A RecordProducer whose wait for the last deliveries a second Ctrl-C stops."""

    produced = Produced(2, 1, (("MSG_TIMED_OUT", 1),))
    unanswered = 3

    def finish(self) -> Produced:
        raise KeyboardInterrupt


def test_ctrl_c_in_the_last_wait_says_what_was_delivered(capsys: pytest.CaptureFixture[str]) -> None:
    assert _interrupted(WaitStopped()) == 130  # type: ignore[arg-type]
    assert capsys.readouterr().err.splitlines() == [
        "kafkatop: interrupted: 2 records produced, 1 failed; 3 sent and not waited for (Ctrl-C again)",
        "kafkatop: 1 record failed: MSG_TIMED_OUT",
    ]
