"""The model's frozen dataclasses to JSON and back, guided by their type hints (standard library only).

Used by recordings (model/recording.py): a snapshot written by one kafkatop is read back by another as the same
frozen value. Dataclasses become objects of their init fields; tuples, frozensets and lists become arrays; enums their
value; a member of a union of dataclasses carries its class name under "@". Anything that does not fit the hint
raises CodecError naming the path to it, and nothing else: decode reads files that may hold anything.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import math
import reprlib
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, Union

JSON = None | bool | int | float | str | list["JSON"] | dict[str, "JSON"]
TAG = "@"


class CodecError(ValueError):
    """A value does not match the type it is read as."""


_shown = reprlib.Repr()  # a value in a message, cut short: a bad value may be megabytes
_shown.maxstring = _shown.maxother = 60


def _show(data: object) -> str:
    return _shown.repr(data)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


@functools.cache
def _fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    return tuple(f for f in dataclasses.fields(cls) if f.init)


def _union_members(hint: Any) -> tuple[Any, ...] | None:
    origin = typing.get_origin(hint)
    if origin is Union or origin is types.UnionType:
        return typing.get_args(hint)
    return None


def encode(value: object, hint: Any) -> JSON:
    """`value`, read as `hint`, as JSON-able data."""
    members = _union_members(hint)
    if members is not None:
        if value is None:
            return None
        classes = [m for m in members if isinstance(m, type) and dataclasses.is_dataclass(m)]
        chosen = next((m for m in members if m is not type(None) and _fits(value, m)), None)
        if chosen is None:
            raise CodecError(f"{type(value).__name__} is none of {hint}")
        data = encode(value, chosen)
        if len(classes) > 1 and isinstance(data, dict):
            data = {TAG: type(value).__qualname__, **data}
        return data
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        hints = _hints(type(value))
        return {f.name: encode(getattr(value, f.name), hints[f.name]) for f in _fields(type(value))}
    if isinstance(value, enum.Enum):
        return value.value  # type: ignore[no-any-return]
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (tuple, list, frozenset, set) or isinstance(value, tuple | list | frozenset | set):
        items = sorted(value, key=repr) if isinstance(value, frozenset | set) else list(value)  # type: ignore[call-overload]
        if origin is tuple and args and args[-1] is not Ellipsis:
            return [encode(v, a) for v, a in zip(items, args, strict=True)]
        item = args[0] if args else Any
        return [encode(v, item) for v in items]
    if isinstance(value, Mapping):
        key_hint, value_hint = args if args else (Any, Any)
        if all(isinstance(k, str) for k in value):
            return {k: encode(v, value_hint) for k, v in value.items()}
        return [[encode(k, key_hint), encode(v, value_hint)] for k, v in value.items()]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise CodecError(f"cannot encode {type(value).__name__}")


def _fits(value: object, hint: Any) -> bool:
    if hint is Any:
        return True
    origin = typing.get_origin(hint) or hint
    if origin is Literal:
        return value in typing.get_args(hint)
    if isinstance(origin, type):
        if origin is float:
            return isinstance(value, int | float) and not isinstance(value, bool)
        return isinstance(value, origin)
    return False


def decode(hint: Any, data: JSON, path: str = "$") -> Any:
    """The value of type `hint` that `data` encodes; CodecError names where it does not fit."""
    members = _union_members(hint)
    if members is not None:
        if data is None and type(None) in members:
            return None
        if isinstance(data, float) and not math.isfinite(data) and type(None) in members:
            return None  # a NaN a source reported (written as JSON's NaN) reads as unknown, not as a number
        classes = {m.__qualname__: m for m in members if isinstance(m, type) and dataclasses.is_dataclass(m)}
        if isinstance(data, dict) and TAG in data:
            tag = data[TAG]
            cls = classes.get(tag) if isinstance(tag, str) else None
            if cls is None:
                raise CodecError(f"{path}: {_show(tag)} is none of {hint}")
            return decode(cls, {k: v for k, v in data.items() if k != TAG}, path)
        errors = []
        for m in members:
            if m is type(None):
                continue
            try:
                return decode(m, data, path)
            except CodecError as e:
                errors.append(str(e))
        raise CodecError(f"{path}: fits none of {hint} ({'; '.join(errors)})")
    if hint is Any:
        return data
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if not isinstance(data, dict):
            raise CodecError(f"{path}: expected an object for {hint.__name__}, not {type(data).__name__}")
        hints = _hints(hint)
        kwargs = {}
        for f in _fields(hint):
            if f.name in data:
                kwargs[f.name] = decode(hints[f.name], data[f.name], f"{path}.{f.name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise CodecError(f"{path}: {hint.__name__} needs {f.name!r}")
        try:
            return hint(**kwargs)
        except (TypeError, ValueError) as e:
            raise CodecError(f"{path}: {hint.__name__}: {e}") from None
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            if not isinstance(data, list | dict):  # no enum's value, and Enum's own message would repr all of it
                return hint(data)
        except ValueError:
            pass
        raise CodecError(f"{path}: {_show(data)} is not a {hint.__name__}")
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is Literal:
        if data not in args:
            raise CodecError(f"{path}: {_show(data)} is not one of {args}")
        return data
    if origin in (tuple, list, frozenset, set):
        if not isinstance(data, list):
            raise CodecError(f"{path}: expected an array, not {type(data).__name__}")
        if origin is tuple and args and args[-1] is not Ellipsis:
            if len(args) != len(data):
                raise CodecError(f"{path}: expected {len(args)} items, not {len(data)}")
            return tuple(decode(a, v, f"{path}[{i}]") for i, (a, v) in enumerate(zip(args, data, strict=True)))
        item = args[0] if args else Any
        values = [decode(item, v, f"{path}[{i}]") for i, v in enumerate(data)]
        try:
            return origin(values)
        except TypeError as e:  # a frozenset of unhashable items (lists, objects)
            raise CodecError(f"{path}: not a {origin.__name__}: {e}") from None
    if origin is dict or origin is Mapping:  # a Mapping field (a REST answer kept as it came) reads as a dict
        key_hint, value_hint = args if args else (Any, Any)
        if isinstance(data, dict):
            return {decode(key_hint, k, path): decode(value_hint, v, f"{path}.{k}") for k, v in data.items()}
        if isinstance(data, list):
            pairs = {}
            for i, kv in enumerate(data):
                if not isinstance(kv, list) or len(kv) != 2:
                    raise CodecError(f"{path}[{i}]: expected a [key, value] pair, not {_show(kv)}")
                pairs[decode(key_hint, kv[0], f"{path}[{i}][0]")] = decode(value_hint, kv[1], f"{path}[{i}][1]")
            return pairs
        raise CodecError(f"{path}: expected an object, not {type(data).__name__}")
    if hint is float:
        if not isinstance(data, int | float) or isinstance(data, bool):
            raise CodecError(f"{path}: expected a number, not {_show(data)}")
        if not math.isfinite(data):  # JSON's NaN and Infinity: a time or a rate that is one would break the replay
            raise CodecError(f"{path}: expected a finite number, not {data}")
        return float(data)
    if hint in (int, str, bool):
        if type(data) is not hint:
            raise CodecError(f"{path}: expected {hint.__name__}, not {_show(data)}")
        return data
    if hint is type(None):
        if data is not None:
            raise CodecError(f"{path}: expected null, not {_show(data)}")
        return None
    raise CodecError(f"{path}: cannot read {hint}")
