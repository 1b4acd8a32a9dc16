"""Java's hashCodes and HashMap order (backends/model/java_order.py), the one place kafkatop computes them."""

from __future__ import annotations

from kafkatop.backends.model.java_order import hash_order, int32, string_hash


def test_int32_wraps_as_java_int() -> None:
    assert int32(2**31) == -(2**31)
    assert int32(2**32 + 5) == 5
    assert int32(-1) == -1


def test_string_hash_is_javas() -> None:
    assert string_hash("") == 0
    assert string_hash("hello") == 99162322  # "hello".hashCode() in Java
    assert string_hash("polygenelubricants") == -(2**31)  # Java's well-known MIN_VALUE hash
    assert string_hash("\U0001f600") == 1772899  # a surrogate pair counts as two UTF-16 code units


def test_hash_order_follows_buckets_then_insertion() -> None:
    # "Aa" and "BB" share a hashCode (2112): one bucket, insertion order kept.
    assert hash_order(["BB", "Aa"], string_hash) == ["BB", "Aa"]
    assert hash_order(["Aa", "BB"], string_hash) == ["Aa", "BB"]
    assert hash_order(["b", "a"], string_hash) == ["a", "b"]  # buckets 98 & 15 = 2, 97 & 15 = 1
