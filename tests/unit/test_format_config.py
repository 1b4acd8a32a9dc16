"""Where formats and the Schema Registry are configured: kafkatop.toml's [schema-registry] and [formats.TOPIC], a
context's keys, the live view's remembered picks, and the command's flags over them."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from kafkatop.backends.model.contexts import read_contexts
from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.format_config import parse_formats, parse_registry, read_remembered, remember
from kafkatop.backends.model.formats import FieldFormat, Format, FormatError, TopicFormat, wire_schema_id
from kafkatop.tui.cli.compose_schemas import (
    registry_settings,
    say_open_secrets,
    say_where_from,
    topic_formats,
    with_flags,
)
from kafkatop.tui.cli.parser import build_parser


def test_formats_tables_resolve_schema_files_against_their_file(tmp_path: Path) -> None:
    found = parse_formats(
        {"orders": {"value": "avro", "value-schema": "s/orders.avsc", "key": "STRING"}, "a.b": {"value": "json"}},
        tmp_path / "kafkatop.toml",
    )
    assert found["orders"].value == FieldFormat(Format.AVRO, str(tmp_path / "s" / "orders.avsc"))
    assert found["orders"].key == FieldFormat(Format.STRING)
    assert found["a.b"] == TopicFormat(value=FieldFormat(Format.JSON))


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ({"t": {"value": "avroo"}}, "no format 'avroo': there are auto, string"),
        ({"t": {"valu": "json"}}, "unknown key(s) valu"),
        ({"t": {"value": "json", "value-schema": "x.avsc"}}, "a schema goes with avro, protobuf or json-schema"),
        ({"t": {"value": "avro", "value-message-type": "a.B"}}, "a message type is Protobuf's"),
        ({"t": "json"}, "must be a table"),
    ],
)
def test_bad_formats_are_refused_saying_where(tmp_path: Path, table: dict[str, object], said: str) -> None:
    with pytest.raises(FormatError, match="kafkatop.toml: \\[formats.t\\]|formats must") as e:
        parse_formats(table, tmp_path / "kafkatop.toml")
    assert said in str(e.value)


def test_registry_table(tmp_path: Path) -> None:
    got = parse_registry({"url": "http://127.0.0.1:8081", "config": "reg.properties"}, tmp_path / "k.toml")
    assert got is not None and got.url == "http://127.0.0.1:8081"
    assert got.properties_file == str(tmp_path / "reg.properties")
    assert parse_registry(None, tmp_path / "k.toml") is None
    with pytest.raises(FormatError, match="not a registry URL"):
        parse_registry({"url": "127.0.0.1:8081"}, tmp_path / "k.toml")
    with pytest.raises(FormatError, match="unknown key\\(s\\) password"):
        parse_registry({"url": "http://h:1", "password": "x"}, tmp_path / "k.toml")


def test_a_context_carries_its_registry_and_formats(tmp_path: Path) -> None:
    f = tmp_path / "kafkatop.toml"
    f.write_text(
        '[contexts.b]\nbootstrap-server = "127.0.0.1:1"\nschema-registry = "http://127.0.0.1:2"\n'
        '[contexts.b.formats.orders]\nvalue = "protobuf"\nvalue-schema = "o.proto"\nvalue-message-type = "shop.Order"\n'
    )
    context = read_contexts([f]).get("b")
    assert context.schema_registry is not None and context.schema_registry.url == "http://127.0.0.1:2"
    assert dict(context.formats)["orders"].value == FieldFormat(
        Format.PROTOBUF, str(tmp_path / "o.proto"), message_type="shop.Order"
    )
    f.write_text('[contexts.b]\nbootstrap-server = "127.0.0.1:1"\nschema-registry-config = "r.properties"\n')
    with pytest.raises(BadInput, match="schema-registry-config goes with schema-registry"):
        read_contexts([f])


def test_remembered_formats_are_per_cluster_and_survive_a_bad_file(tmp_path: Path) -> None:
    fmt = TopicFormat(value=FieldFormat(Format.AVRO, "/s/o.avsc"))
    remember(tmp_path, "context:a", "orders", fmt)
    remember(tmp_path, "context:b", "orders", TopicFormat(value=FieldFormat(Format.JSON)))
    assert read_remembered(tmp_path, "context:a") == {"orders": fmt}
    assert read_remembered(tmp_path, "context:c") == {}
    (tmp_path / "formats.json").write_text("{not json")
    assert read_remembered(tmp_path, "context:a") == {}
    remember(tmp_path, "context:a", "t", fmt)  # a broken file is replaced, not a traceback
    assert read_remembered(tmp_path, "context:a") == {"t": fmt}


def _args(argv: list[str], tmp_path: Path) -> argparse.Namespace:
    args = build_parser().parse_args(argv)
    args.state_dir = str(tmp_path / "state")
    args.context_name = None
    return args


def test_flags_over_the_files_and_the_remembered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (tmp_path / "xdg" / "kafkatop").mkdir(parents=True)
    (tmp_path / "xdg" / "kafkatop" / "config.toml").write_text(
        '[schema-registry]\nurl = "http://user:1"\n[formats.orders]\nvalue = "json"\nkey = "hex"\n'
    )
    (tmp_path / "kafkatop.toml").write_text(
        '[schema-registry]\nurl = "http://project:1"\n[formats.orders]\nvalue = "avro"\n'
    )
    args = _args(["consume", "--topic", "orders", "--bootstrap-server", "127.0.0.1:9"], tmp_path)
    assert registry_settings(args).url == "http://project:1"  # type: ignore[union-attr]
    formats = topic_formats(args)
    assert formats["orders"].value.format is Format.AVRO  # the project's table replaces the user's whole
    assert formats["orders"].key.format is Format.AUTO
    remember(Path(args.state_dir), "bootstrap:127.0.0.1:9", "orders", TopicFormat(value=FieldFormat(Format.STRING)))
    assert topic_formats(args)["orders"].value.format is Format.STRING  # picked in the app, over the files
    flagged = _args(
        ["consume", "--topic", "orders", "--bootstrap-server", "127.0.0.1:9", "--value-format", "protobuf",
         "--value-schema", "o.proto", "--schema-registry", "https://flag:1"], tmp_path,
    )  # fmt: skip
    assert with_flags(flagged, formats["orders"]).value == FieldFormat(Format.PROTOBUF, str(tmp_path / "o.proto"))
    assert registry_settings(flagged).url == "https://flag:1"  # type: ignore[union-attr]
    bad = _args(["consume", "--topic", "t", "--bootstrap-server", "127.0.0.1:9", "--value-schema", "o.avsc"], tmp_path)
    with pytest.raises(FormatError, match="^--value-schema needs --value-format avro, protobuf or json-schema$"):
        with_flags(bad, TopicFormat())  # consume has no --value-subject: not named
    os.remove(tmp_path / "kafkatop.toml")
    assert registry_settings(args).url == "http://user:1"  # type: ignore[union-attr]


def test_wire_schema_id() -> None:
    assert wire_schema_id(b"\x00\x00\x00\x00\x07rest") == 7
    assert wire_schema_id(b"\x00\x00\x00\x07") is None  # too short
    assert wire_schema_id(b'{"a":1}') is None
    assert wire_schema_id(None) is None


def test_a_schema_file_and_a_subject_together_are_refused(tmp_path: Path) -> None:
    both = _args(["produce", "--topic", "t", "--value-format", "avro", "--value-schema", "o.avsc", "--value-subject",
                  "s"], tmp_path)  # fmt: skip
    with pytest.raises(FormatError, match="^--value-schema and --value-subject together: give one — --value-schema "
                       "FILE writes with the file"):  # fmt: skip
        with_flags(both, TopicFormat())


def test_where_a_format_comes_from_is_said_unless_a_flag_sets_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (tmp_path / "kafkatop.toml").write_text('[formats.orders]\nvalue = "json"\nkey = "auto"\n')
    args = _args(["consume", "--topic", "orders"], tmp_path)
    say_where_from(args, ("key", "value"), "read")
    assert capsys.readouterr().err == (
        f"kafkatop: values read as json, as set in {tmp_path / 'kafkatop.toml'}; --value-format overrides\n"
    )  # auto is not said: it is what no setting reads as
    say_where_from(_args(["consume", "--topic", "orders", "--value-format", "string"], tmp_path), ("value",), "read")
    say_where_from(_args(["consume", "--topic", "other"], tmp_path), ("value",), "read")
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(("mode", "said"), [(0o644, True), (0o600, False)])
def test_a_registry_properties_file_others_can_read_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: int, said: bool
) -> None:
    props = tmp_path / "registry.properties"
    props.write_text("basic.auth.user.info=u:secret\nssl.ca.location=/x\n")
    props.chmod(mode)
    args = _args(["consume", "--topic", "t", "--schema-registry", "http://r:1", "--schema-registry-config",
                  str(props)], tmp_path)  # fmt: skip
    say_open_secrets(args)
    err = capsys.readouterr().err
    expected = (f"kafkatop: {props} holds basic.auth.user.info and is readable by group and others (mode 0644): "
                f"`chmod 600 {props}`\n")  # fmt: skip
    assert err == (expected if said else "") and "secret" not in err
