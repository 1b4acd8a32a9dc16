"""A registered schema as the Schemas tab shows it (backends/insight/schema_text.py): Avro and JSON Schema
pretty-printed, Protobuf text as registered, and a serialized FileDescriptorProto (base64, as confluent-kafka's
ProtobufSerializer registers it) decoded with the standard library into the .proto it describes — checked by protoc
itself: the text shown compiles to the very descriptor it was decoded from. What does not read as its type is shown as
served, saying so; control characters never reach the terminal. And the register dialog's checks, the tab's URL."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2
from grpc_tools import protoc

from kafkatop.backends.insight.schema_text import SHOWN_CHARS, proto_of_descriptor, schema_text
from kafkatop.backends.model.text import printable
from kafkatop.tui.live.tabs.schemas.pane import url_text
from kafkatop.tui.live.tabs.schemas.register import schema_problem
from tests.fixtures.schema_views import ORDER_V3, PAYMENT_DESCRIPTOR, PAYMENT_PROTO

SHOP = """syntax = "proto3";

package shop;

import "google/protobuf/timestamp.proto";

message Order {
  string id = 1;
  repeated Item items = 2;
  map<string, int64> counts = 3;
  oneof payment {
    string card = 4;
    string iban = 5;
  }
  optional string note = 6;
  Status status = 7;
  google.protobuf.Timestamp at = 8;
  sint32 delta = 9;
  map<int32, Item> by_line = 10;
  message Item {
    string sku = 1;
    double price = 2;
    message Tag { string name = 1; }
    repeated Tag tags = 3;
  }
  enum Status {
    NEW = 0;
    PAID = 1;
    GONE = -1;
  }
}

enum Kind {
  KIND_UNKNOWN = 0;
  KIND_RETAIL = 1;
}

service Orders {
  rpc Place(Order) returns (Order);
  rpc Watch(stream Order) returns (stream Order.Item);
}
"""
LEGACY = """syntax = "proto2";
package legacy;
message Thing {
  required string name = 1;
  optional int32 size = 2 [default = -7];
  optional string label = 3 [default = "hi \\"x\\""];
  repeated bytes blobs = 4;
  optional group Extra = 5 { optional int32 n = 1; }
  reserved "gone", "old";
}
"""
NO_PACKAGE = 'syntax = "proto3";\nmessage Ping { bytes data = 1; fixed64 at = 2; }\n'


def descriptor(tmp_path: Path, text: str, name: str = "schema.proto") -> descriptor_pb2.FileDescriptorProto:
    """protoc's FileDescriptorProto of the .proto text (as `name`)."""
    (tmp_path / name).write_text(text)
    include = Path(protoc.__file__).parent / "_proto"  # google/protobuf/*.proto, as grpc_tools ships them
    out = tmp_path / f"{name}.desc"
    assert protoc.main(["protoc", f"-I{tmp_path}", f"-I{include}", f"--descriptor_set_out={out}", name]) == 0
    return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file[0]


@pytest.mark.parametrize("proto", [SHOP, LEGACY, NO_PACKAGE], ids=["proto3", "proto2", "no-package"])
def test_a_serialized_descriptor_is_shown_as_a_proto_that_compiles_to_the_same_descriptor(
    tmp_path: Path, proto: str
) -> None:
    original = descriptor(tmp_path, proto)
    served = base64.standard_b64encode(original.SerializeToString()).decode()
    view = schema_text("PROTOBUF", served)
    assert view.language == "protobuf" and view.note is not None and "FileDescriptorProto (base64)" in view.note
    assert view.text.startswith("// schema.proto\n")
    (tmp_path / "shown").mkdir()
    recompiled = descriptor(tmp_path / "shown", view.text)
    assert recompiled == original


def test_the_fixtures_descriptor_is_protocs_and_reads_as_its_proto(tmp_path: Path) -> None:
    original = descriptor(tmp_path, PAYMENT_PROTO, "payment.proto")
    assert base64.standard_b64encode(original.SerializeToString()).decode() == PAYMENT_DESCRIPTOR
    text = proto_of_descriptor(base64.b64decode(PAYMENT_DESCRIPTOR))
    assert text == "// payment.proto\n" + PAYMENT_PROTO


def test_proto_text_avro_and_json_schema() -> None:
    proto = 'syntax = "proto3";\nmessage A { string b = 1; }\n'
    assert schema_text("PROTOBUF", proto).text == proto and schema_text("PROTOBUF", proto).note is None
    avro = schema_text("AVRO", ORDER_V3)
    assert avro.language == "json" and avro.note is None
    assert avro.text.startswith('{\n  "type": "record",\n  "name": "Order",') and json.loads(avro.text) == json.loads(
        ORDER_V3
    )
    assert schema_text("AVRO", '"string"').text == '"string"'
    assert schema_text("JSON", '{"type":"object","title":"Å"}').text == '{\n  "type": "object",\n  "title": "Å"\n}'


def test_what_does_not_read_as_its_type_is_shown_as_served_saying_so() -> None:
    broken = schema_text("AVRO", '{"type": "record", ')
    assert broken.language == "text" and broken.text == '{"type": "record", '
    assert broken.note == "not JSON, as an Avro schema is: shown as the registry serves it"
    garbage = base64.standard_b64encode(b"\xff\xff\xff\xff").decode()
    said = schema_text("PROTOBUF", garbage)
    assert said.language == "text" and said.text == garbage
    assert said.note is not None and said.note.startswith("base64 of 4 bytes that are not a FileDescriptorProto (")
    with pytest.raises(ValueError, match="no file descriptor"):
        proto_of_descriptor(b"")


def test_control_characters_are_escapes_and_a_huge_schema_is_cut() -> None:
    assert printable("a\x1b[2Jb\u202e\tc\n", lines=True) == "a\\x1b[2Jb\\u202e\tc\n"
    hostile = schema_text("PROTOBUF", 'syntax = "proto3";\n// \x1b]0;owned\x07\n')
    assert "\x1b" not in hostile.text and "\\x1b]0;owned\\x07" in hostile.text
    huge = schema_text("JSON", json.dumps({"enum": ["x" * 100] * 5000}))
    assert len(huge.text) == SHOWN_CHARS and huge.note == f"its first {SHOWN_CHARS:,} of 540,018 characters"


def test_the_register_dialog_checks_json_before_sending() -> None:
    assert schema_problem("AVRO", ORDER_V3) is None
    assert schema_problem("PROTOBUF", "anything: the registry judges") is None
    assert schema_problem("JSON", "  ") == "schema: empty: give a file, or paste the schema in the box"
    said = schema_problem("JSON", "{nope}")
    why = "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
    assert said == f"schema: not JSON ({why}): a JSON Schema is JSON"


def test_the_registry_url_is_shown_without_credentials() -> None:
    assert url_text("http://127.0.0.1:8081") == "http://127.0.0.1:8081"
    assert url_text("https://user:secret@sr.example.com/x, http://b:8081") == "https://sr.example.com/x, http://b:8081"
