"""A connector from a file (backends/model/connect_files.py): Connect's JSON in both shapes, connect-standalone's
.properties, and one clear refusal for anything else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafkatop.backends.model.connect import ConnectRefused
from kafkatop.backends.model.connect_files import MAX_FILE_BYTES, parse_connector_file, read_connector_file
from kafkatop.backends.model.errors import BadInput

SOURCE = {"connector.class": "FileStreamSource", "file": "/tmp/in.txt", "topic": "lines", "tasks.max": "1"}


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "lines-in", "config": {"connector.class": "FileStreamSource", "file": "/tmp/in.txt", '
        '"topic": "lines", "tasks.max": 1}}',  # POST /connectors, a number where Connect takes a string
        '{"name": "lines-in", "connector.class": "FileStreamSource", "file": "/tmp/in.txt", "topic": "lines", '
        '"tasks.max": "1"}',  # PUT /connectors/NAME/config: the config alone
        "# connect-standalone's file\nname=lines-in\nconnector.class=FileStreamSource\nfile=/tmp/in.txt\n"
        "topic : lines\ntasks.max 1\n",
        '\ufeff  {"name": "lines-in", "config": {"name": "lines-in", "connector.class": "FileStreamSource", '
        '"file": "/tmp/in.txt", "topic": "lines", "tasks.max": "1"}}',
    ],
    ids=["json", "json-flat", "properties", "json-bom-name-twice"],
)
def test_each_shape_gives_the_same_connector(text: str) -> None:
    file = parse_connector_file(text, "in.json")
    assert file.name == "lines-in" and dict(file.config) == SOURCE and file.class_name == "FileStreamSource"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"name": "x", "config": ', "in.json: not valid JSON (line 1, column 25: Expecting value)"),
        ("[1, 2]", "in.json: expected a JSON object"),
        ('{"name": "x", "config": {"connector.class": "A", "nested": {"a": 1}}}', "'nested' is an object"),
        ('{"name": "x", "config": {"connector.class": "A"}, "tasks.max": "1"}', "beside 'name' and 'config' it has"),
        ('{"name": "x", "config": {"name": "y", "connector.class": "A"}}', "'name' is 'x' beside its config and 'y'"),
        ("connector.class=FileStreamSource\n", "no connector name: add name=…"),
        ("name=x\ntopic=t\n", "no connector.class: name the plugin"),
        ('{"name": 7, "config": {"connector.class": "A"}}', "'name' must be a string"),
    ],
)
def test_what_is_not_a_connector_is_refused_saying_why(text: str, says: str) -> None:
    with pytest.raises(ConnectRefused) as refused:
        parse_connector_file(text, "in.json")
    assert says in str(refused.value) and isinstance(refused.value, BadInput)  # exit 2


def test_a_file_that_cannot_be_one_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ConnectRefused, match="file not found"):
        read_connector_file(tmp_path / "missing.json")
    with pytest.raises(ConnectRefused, match="a directory"):
        read_connector_file(tmp_path)
    binary = tmp_path / "x.properties"
    binary.write_bytes(b"name=x\x00")
    with pytest.raises(ConnectRefused, match="binary content"):
        read_connector_file(binary)
    big = tmp_path / "big.properties"
    big.write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    with pytest.raises(ConnectRefused, match="larger than 1024 KiB"):
        read_connector_file(big)
    good = tmp_path / "sink.properties"
    good.write_text("name=lines-out\nconnector.class=FileStreamSink\ntopics=lines\nfile=/tmp/out.txt\n")
    assert read_connector_file(good).name == "lines-out"


@pytest.mark.parametrize("name", ["a/b", "../connectors", ".", "..", "back\\slash", "tab\there"])
def test_a_name_connects_rest_paths_could_not_reach_again_is_refused(name: str) -> None:
    """Jetty refuses an encoded '/' in a path (400 Ambiguous URI path separator): a connector named `a/b` could be
    created and then never shown, stopped or deleted."""
    with pytest.raises(ConnectRefused, match="connector name"):
        parse_connector_file(json.dumps({"name": name, "config": {"connector.class": "FileStreamSource"}}), "f.json")


def test_an_empty_file_says_it_is_empty() -> None:
    with pytest.raises(ConnectRefused, match="f.properties: empty"):
        parse_connector_file(" \n\n", "f.properties")
