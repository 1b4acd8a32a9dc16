"""kafka-delete-records.sh's offset file as kafkatop reads it (model/delete_records.py), with the tool's errors, and
its lines in the file's order (the tool's own changes from run to run)."""

from __future__ import annotations

import pytest

from kafkatop.backends.model.delete_records import JAVA_ERRORS, parse_offset_json, tool_lines
from kafkatop.backends.model.errors import BadInput


def test_the_tools_file_reads_in_its_order() -> None:
    text = (
        '{"partitions": [{"topic": "orders", "partition": 1, "offset": 5}, {"topic": "pay", "partition": 0, '
        '"offset": -1}], "version": 1}'
    )
    assert parse_offset_json(text, "f") == {("orders", 1): 5, ("pay", 0): -1}
    assert parse_offset_json('{"partitions": []}', "f") == {}  # version 1 when not given, as the tool


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{not json", "f: The input string is not a valid JSON"),
        ('{"version": 2, "partitions": []}', "f: Not supported version field value 2"),
        ('{"version": 1}', "f: Missing partitions field"),
        (
            '{"partitions": [{"topic": "t", "partition": 0, "offset": 1}, '
            '{"topic": "t", "partition": 0, "offset": 2}]}',
            "f: Offset json file contains duplicate topic partitions: t-0",
        ),
        ('{"partitions": [{"topic": "t", "partition": "0", "offset": 1}]}', 'f: each partition is {"topic"'),
        ('{"partitions": [{"topic": "t", "partition": 0, "offset": -5}]}', "f: offset -5 of t-0"),
    ],
)
def test_a_file_that_does_not_read_is_said_in_the_tools_words(text: str, said: str) -> None:
    with pytest.raises(BadInput) as raised:
        parse_offset_json(text, "f")
    assert str(raised.value).startswith(said)


def test_lines_in_the_files_order() -> None:
    answers: dict[tuple[str, int], int | str] = {(f"t{i}", p): 10 * i + p for i in range(5) for p in range(3)}
    answers[("t1", 1)] = JAVA_ERRORS["OFFSET_OUT_OF_RANGE"]
    lines = tool_lines(answers)
    assert lines[0] == "Records delete operation completed:"
    assert [line.split("\t")[0] for line in lines[1:]] == [f"partition: {t}-{p}" for t, p in answers]
    said = "partition: t1-1\terror: org.apache.kafka.common.errors.OffsetOutOfRangeException: The requested offset"
    assert any(line.startswith(said) for line in lines)
    assert "partition: t0-2\tlow_watermark: 2" in lines
