"""The consoles' pure parts: showing payloads, parsing keyed lines, checking producer settings."""

from __future__ import annotations

import pytest

from kafkatop.backends.model.consoles import (
    DEFAULT_PRODUCER_SETTINGS,
    ClientError,
    ProducerSettings,
    escape_payload,
    split_key,
)
from kafkatop.backends.model.errors import KafkatopError


# --- escape_payload -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("data", "shown"),
    [
        (None, ""),
        (b"", ""),
        (b"m1", "m1"),
        ("héllo wörld ✓ 🚀".encode(), "héllo wörld ✓ 🚀"),
        (b'{"a": "x\\"y"}', '{"a": "x\\"y"}'),  # backslashes stay as they are
        (b"a\nb\tc\rd", "a\\nb\\tc\\rd"),
        (b"\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),  # no terminal escape gets through
        (b"\x00\x07\x7f", "\\x00\\x07\\x7f"),
        ("c1\u0085".encode(), "c1\\x85"),  # C1 control, valid UTF-8
        ("rtl\u202eevil\u200b".encode(), "rtl\\u202eevil\\u200b"),  # bidi override, zero-width space
        ("line\u2028sep".encode(), "line\\u2028sep"),
        (b"\xff\xfeok", "\\xff\\xfeok"),  # not UTF-8
        (b"ok\xc3", "ok\\xc3"),  # a character cut short
        (b"\xed\xa0\x80", "\\xed\\xa0\\x80"),  # an encoded surrogate is not UTF-8
        (b"caf\xc3\xa9\xe9t\xc3\xa9", "café\\xe9té"),  # valid, invalid, valid again
        (b"\xf0\x9f\x9a\x80\x80", "🚀\\x80"),
    ],
)
def test_escape_payload(data: bytes | None, shown: str) -> None:
    assert escape_payload(data) == shown


def test_escape_payload_of_every_byte_never_raises_and_is_one_printable_line() -> None:
    data = bytes(range(256)) * 3
    shown = escape_payload(data, max_chars=100_000)
    assert shown.isprintable()
    assert shown.startswith("\\x00\\x01") and "\\n" in shown and ' !"#' in shown and "\\xff" in shown


def test_long_payload_is_capped_with_the_bytes_left() -> None:
    assert escape_payload(b"x" * 1000) == "x" * 1000  # exactly at the cap: whole
    shown = escape_payload(b"x" * 1500)
    assert shown == "x" * 1000 + "…(+500 bytes)"

    # Multi-byte characters: the count is of bytes left, not characters.
    shown = escape_payload("é".encode() * 1200, max_chars=1000)
    assert shown == "é" * 1000 + "…(+400 bytes)"

    # An escape is never cut in half.
    shown = escape_payload(b"abc" + b"\n" * 10, max_chars=8)
    assert shown == "abc\\n\\n…(+8 bytes)"
    shown = escape_payload(b"\xff" * 10, max_chars=10)
    assert shown == "\\xff\\xff…(+8 bytes)"


def test_huge_payload_costs_no_more_than_its_shown_head() -> None:
    data = b"\x01" * 50_000_000
    shown = escape_payload(data, max_chars=20)
    assert shown == "\\x01" * 5 + "…(+49999995 bytes)"


# --- keyed lines ----------------------------------------------------------------------------------------------------
def test_split_key() -> None:
    assert split_key("k1:v1", None) == (None, "k1:v1")
    assert split_key("k1:v1", ":") == ("k1", "v1")
    assert split_key("k1:v:1", ":") == ("k1", "v:1")  # the first separator splits, as Kafka's reader does
    assert split_key(":v", ":") == ("", "v")
    assert split_key("k::v", "::") == ("k", "v")


def test_line_without_the_separator_is_kafkas_error() -> None:
    with pytest.raises(ClientError) as raised:
        split_key("no separator here", ":")
    assert str(raised.value).startswith("No key separator found on line: 'no separator here'.")
    assert "KEY:VALUE" in str(raised.value) and "turn keys off" in str(raised.value)
    with pytest.raises(ClientError, match=r"^No key separator found on line number 3: 'v3'"):
        split_key("v3", ":", 3)
    assert isinstance(raised.value, KafkatopError)


# --- producer settings ----------------------------------------------------------------------------------------------
def test_default_settings_are_kafkas_defaults() -> None:
    s = DEFAULT_PRODUCER_SETTINGS
    assert (s.acks, s.idempotence, s.compression, s.key_separator, s.partition) == ("all", True, "none", None, None)
    assert s.producer_config() == {
        "acks": "all",
        "enable.idempotence": True,
        "compression.type": "none",
        "linger.ms": 5,
    }


@pytest.mark.parametrize("acks", ["0", "1"])
def test_idempotence_needs_acks_all(acks: str) -> None:
    with pytest.raises(ClientError) as raised:
        ProducerSettings(acks=acks)  # type: ignore[arg-type]
    assert str(raised.value).startswith(f"idempotence needs acks=all (acks={acks} ")
    assert "turn idempotence off" in str(raised.value)
    # Turned off, the same acks are fine.
    assert ProducerSettings(acks=acks, idempotence=False).producer_config()["acks"] == acks  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"acks": "2"}, "acks must be one of 0, 1, all"),
        ({"compression": "brotli"}, "compression must be one of none, gzip, snappy, lz4, zstd"),
        ({"key_separator": ""}, "the key separator must be one or more characters"),
        ({"key_separator": "\n"}, "the key separator must be one or more characters"),
        ({"partition": -1}, "the partition must be 0 or more"),
        ({"linger_ms": -5}, "linger.ms must be between 0 and 900000"),
    ],
)
def test_invalid_settings(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ClientError, match=message):
        ProducerSettings(**kwargs)  # type: ignore[arg-type]


def test_settings_are_frozen() -> None:
    s = ProducerSettings(key_separator=":", partition=2, compression="zstd", linger_ms=0)
    with pytest.raises(AttributeError):
        s.acks = "1"  # type: ignore[misc]
