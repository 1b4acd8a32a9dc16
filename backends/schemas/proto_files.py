"""Protobuf schemas from files: a `.proto` compiled by protoc (grpc_tools, so no protoc need be on the PATH), or a
descriptor set as `protoc --descriptor_set_out` writes it; the message classes built from them (protobuf's
message_factory), and a message's index path in its file as Confluent's wire format names it."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.descriptor import Descriptor, FileDescriptor
from google.protobuf.message import DecodeError, Message

from kafkatop.backends.model.formats import FormatError

PROTOC_TIMEOUT_S = 60.0
DESCRIPTOR_SETS = (".desc", ".pb", ".protoset", ".bin")


def compile_proto(path: Path) -> descriptor_pb2.FileDescriptorSet:
    """The file and its imports (the well-known types included) as one descriptor set, the file last. protoc runs in a
    child process: its errors are captured, and said as FormatError (the first one, with its line)."""
    well_known = resources.files("grpc_tools") / "_proto"
    with tempfile.TemporaryDirectory(prefix="kafkatop-protoc-") as out:
        target = Path(out) / "set.pb"
        argv = [sys.executable, "-m", "grpc_tools.protoc", f"-I{path.parent}", f"-I{well_known}",
                f"--descriptor_set_out={target}", "--include_imports", path.name]  # fmt: skip
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=PROTOC_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            raise FormatError(f"{path}: protoc did not finish within {PROTOC_TIMEOUT_S:.0f} s") from None
        if done.returncode != 0 or not target.is_file():
            lines = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
            said = lines[0] if lines else f"protoc exit {done.returncode}"
            at = re.match(rf"{re.escape(str(path))}:(\d+):(\d+): (.*)", said)
            raise FormatError(f"{path} does not compile: " + (f"line {at[1]}, column {at[2]}: {at[3]}" if at else said))
        return descriptor_pb2.FileDescriptorSet.FromString(target.read_bytes())


def compile_proto_text(name: str, text: str, imports: dict[str, str] | None = None) -> descriptor_pb2.FileDescriptorSet:
    """A .proto given as text (`name` its file name, `imports` the text of the files it imports, by name)."""
    with tempfile.TemporaryDirectory(prefix="kafkatop-proto-") as root:
        for file_name, source in {**(imports or {}), name: text}.items():
            path = Path(root) / file_name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(source, encoding="utf-8")
        return compile_proto(Path(root) / name)


def read_descriptor_set(path: Path, data: bytes) -> descriptor_pb2.FileDescriptorSet:
    try:
        files = descriptor_pb2.FileDescriptorSet.FromString(data)
    except DecodeError:
        files = None
    if files is None or not files.file:
        raise FormatError(
            f"{path} is not a Protobuf descriptor set: write one with protoc --descriptor_set_out=FILE "
            "--include_imports, or give the .proto file"
        )
    return files


@dataclass(frozen=True, slots=True)
class ProtoSchema:
    """A file's messages, ready to read and write: `message` the one records are in."""

    message: Descriptor
    message_class: type[Message]

    @property
    def name(self) -> str:
        return str(self.message.full_name)


def schema_from_set(files: descriptor_pb2.FileDescriptorSet, message_type: str | None, where: str) -> ProtoSchema:
    """The message `message_type` (a full name, or a name unique in the set) of the set's last file (the one compiled;
    its imports come first); None: the file's only top-level message. FormatError names the messages there are."""
    pool = descriptor_pool.DescriptorPool()
    for file_proto in files.file:
        try:
            pool.Add(file_proto)
        except (TypeError, ValueError) as e:
            raise FormatError(f"{where}: {file_proto.name} cannot be loaded: {e}") from None
    main = pool.FindFileByName(files.file[-1].name)
    tops = list(main.message_types_by_name.values())
    if message_type is None:
        if len(tops) != 1:
            names = ", ".join(d.full_name for d in tops) or "none"
            raise FormatError(f"{where} defines {len(tops)} top-level messages ({names}): name the one records are "
                              "in (message type)")  # fmt: skip
        desc = tops[0]
    else:
        desc = _find_message(pool, files, message_type, where)
    return ProtoSchema(desc, message_factory.GetMessageClass(desc))


def _find_message(
    pool: descriptor_pool.DescriptorPool, files: descriptor_pb2.FileDescriptorSet, name: str, where: str
) -> Descriptor:
    wanted = name.lstrip(".")
    try:
        found: Descriptor = pool.FindMessageTypeByName(wanted)
        return found
    except KeyError:
        pass
    everything = [d for f in files.file for d in messages_of(pool.FindFileByName(f.name))]
    matches = [d for d in everything if d.name == wanted or d.full_name.endswith("." + wanted)]
    if len(matches) == 1:
        return matches[0]
    names = ", ".join(d.full_name for d in everything if not d.full_name.startswith("google.protobuf.")) or "none"
    raise FormatError(f"{where} has no message {name!r}: there are {names}")


def messages_of(file: FileDescriptor) -> list[Descriptor]:
    """A file's messages, nested ones after their parent, in the order they are declared."""
    out: list[Descriptor] = []

    def walk(desc: Descriptor) -> None:
        out.append(desc)
        for nested in desc.nested_types:
            if not nested.GetOptions().map_entry:  # a map field's entry: protoc's, not the file's
                walk(nested)

    for desc in file.message_types_by_name.values():
        walk(desc)
    return out


def message_at(file: FileDescriptor, indexes: list[int]) -> Descriptor:
    """The message at Confluent's index path in a file (`[0]`: the first top-level message; `[1, 0]`: the first
    message nested in the second); IndexError when the file has no such message."""
    path = indexes or [0]
    if min(path) < 0:
        raise IndexError(f"message index {min(path)}")
    desc: Descriptor = list(file.message_types_by_name.values())[path[0]]
    for i in path[1:]:
        desc = desc.nested_types[i]
    return desc
