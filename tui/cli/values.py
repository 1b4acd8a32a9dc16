"""The command line's value types: each checks one value and, refusing it, says what it expected (standard library
only, so `kafkatop --help` answers at once)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def converted(value: str, convert: Callable[[str], T], expected: str) -> T:
    """`value` as `convert` reads it (int, float), or refused: "expected <expected>; not '<value>'"."""
    try:
        return convert(value.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}; not {value!r}") from None


# --- types: each says what it expected ------------------------------------------------------------------------------
def text(what: str) -> Callable[[str], str]:
    """A value that must not be empty (or blank)."""

    def parse(value: str) -> str:
        if not value.strip():
            raise argparse.ArgumentTypeError(f"empty; give {what}")
        return value.strip()

    parse.__name__ = what  # argparse names the type in some messages
    return parse


def offset(value: str) -> int:
    """An offset: N, or -N for N records before the end (as kcat's -o -N)."""
    return converted(value, int, "an offset (1200, or -50 for 50 before the end)")


def whole(low: int, high: int | None = None, what: str = "a whole number") -> Callable[[str], int]:
    """A whole number in [low, high]."""
    expected = f"{what}, " + (f"from {low} to {high}" if high is not None else f"{low} or more")

    def parse(value: str) -> int:
        n = converted(value, int, expected)
        if n < low or (high is not None and n > high):
            raise argparse.ArgumentTypeError(f"expected {expected}; not {n}")
        return n

    parse.__name__ = what
    return parse


def number(
    *, above: float | None = 0.0, at_least: float | None = None, what: str = "seconds"
) -> Callable[[str], float]:
    """A number above `above` (or at least `at_least`)."""
    expected = f"a number of {what} " + (f"at least {at_least:g}" if at_least is not None else f"above {above:g}")

    def parse(value: str) -> float:
        x = converted(value, float, expected)
        low_ok = x >= at_least if at_least is not None else above is None or x > above
        if not low_ok or x != x or x == float("inf"):
            raise argparse.ArgumentTypeError(f"expected {expected}; not {value!r}")
        return x

    parse.__name__ = what
    return parse


PORT = whole(1, 65535, "a port")
COUNT = whole(1, what="a count")
SECONDS = number()


def fraction(value: str) -> float:
    expected = "a fraction from 0 to 1 such as 0.3"
    x = converted(value, float, expected)
    if not 0.0 <= x <= 1.0:
        raise argparse.ArgumentTypeError(f"expected {expected}; not {value!r}")
    return x


def fraction_or_none(value: str) -> float | str:
    if value.strip().lower() == "none":
        return "none"
    try:
        return fraction(value)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected a fraction from 0 to 1 such as 0.7, or none; not {value!r}"
        ) from None


def key_value(value: str) -> str:
    key, sep, rest = value.partition("=")
    if not sep or not key.strip() or not rest.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, e.g. min.insync.replicas=2; not {value!r}")
    return value


def host_ports(value: str) -> str:
    """HOST:PORT[,HOST:PORT…], not empty; the model parses it (KafkaConnection.parse), and a bad one is BadAddress."""
    if not value.strip():
        raise argparse.ArgumentTypeError("empty; give HOST:PORT, e.g. 127.0.0.1:9092")
    return value.strip()


def connect_url(value: str) -> str:
    """A Kafka Connect worker's REST URL: http://HOST:PORT, https://HOST:PORT (a proxy's path may follow), or
    HOST:PORT (http). Credentials in it are refused, unquoted: they belong in the --command-config file."""
    text = value.strip()
    if "://" not in text:
        text = f"http://{text}"
    scheme, _, rest = text.partition("://")
    authority = rest.split("/", 1)[0]
    if "@" in authority:
        raise argparse.ArgumentTypeError(
            "credentials in a Connect URL: give them in the --command-config file "
            "(connect.basic.auth.user.info=USER:PASSWORD), not on the command line"
        )
    host, sep, port = authority.rpartition(":")
    if scheme not in ("http", "https") or not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expected http://HOST:PORT or https://HOST:PORT (a Connect worker's REST "
                                         f"URL, e.g. http://127.0.0.1:8083); not {value!r}")  # fmt: skip
    return text.rstrip("/")


_MASTER = re.compile(
    r"local(\[(\*|[1-9][0-9]*)(,[1-9][0-9]*)?\])?|local-cluster\[[1-9][0-9]*,[1-9][0-9]*,[1-9][0-9]*\]"
    r"|spark://[^\s/:,]+(:[0-9]{1,5})?(,[^\s/:,]+(:[0-9]{1,5})?)*|yarn|k8s://\S+"
)


def spark_master(value: str) -> str:
    if not _MASTER.fullmatch(value.strip()):
        raise argparse.ArgumentTypeError(
            f"expected local[*], local[N], spark://HOST:7077, yarn or k8s://HOST:PORT; not {value!r}"
        )
    return value.strip()


def signed(what: str) -> Callable[[str], int]:
    """A whole number, negative or not."""

    def parse(value: str) -> int:
        return converted(value, int, what)

    parse.__name__ = what
    return parse


def reset_value(to: str) -> Callable[[str], int]:
    """--to-datetime's datetime (epoch ms) or --by-duration's ISO-8601 duration (ms), as kafka-consumer-groups.sh
    reads them."""
    from kafkatop.backends.model.consoles import ClientError
    from kafkatop.backends.model.resets import parse_reset_value

    def parse(value: str) -> int:
        try:
            parsed = parse_reset_value("timestamp" if to == "datetime" else "duration", value)
        except ClientError as e:
            raise argparse.ArgumentTypeError(str(e).removeprefix("value: ")) from None
        assert parsed is not None
        return parsed

    parse.__name__ = f"a {to}"
    return parse
