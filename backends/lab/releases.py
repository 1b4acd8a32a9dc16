"""Apache Kafka's binary releases as Apache publishes them: where each one is, which version to take, and its
published SHA-512. Only the standard library; nothing here touches the network (download.py does).

Apache's layout, which a company mirror or an air-gapped folder repeats:
    https://downloads.apache.org/kafka/4.1.0/kafka_2.13-4.1.0.tgz.sha512   the checksum, from the main site
    https://dlcdn.apache.org/kafka/4.1.0/kafka_2.13-4.1.0.tgz              the archive, from Apache's CDN
    https://archive.apache.org/dist/kafka/3.7.0/kafka_2.13-3.7.0.tgz(.sha512)  every older release
The .sha512 is what Kafka's release script writes with `gpg --print-md sha512 FILE`: the file name, a colon, then
the digest in upper-case groups of eight hex digits, wrapped under the name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit
from urllib.request import pathname2url

from kafkatop.backends.lab.kafka_homes import KafkaInstallError, KafkaVersion
from kafkatop.backends.model.errors import BadInput

DEFAULT_SCALA = "2.13"
SCALAS = ("2.12", "2.13")
# What `kafkatop install` takes when no version is given: the newest of a line, as listed by the site. The pins are
# used only when a site gives no listing (a mirror without folder indexes); they are releases known to exist.
DEFAULT_LINE = "4"  # KRaft only
ZOOKEEPER_LINE = "3.9"  # the last line with ZooKeeper mode, as the labs run it
PINNED = {DEFAULT_LINE: "4.1.0", ZOOKEEPER_LINE: "3.9.1"}
# The Java a release's brokers need: 17 from Kafka 4.0 (KIP-750), 8 before (11+ recommended from 3.0).
JAVA_FOR_BROKERS = ((4, 17), (0, 8))

_RELEASE_VERSION = re.compile(r"\d+\.\d+\.\d+")
_ASKED_VERSION = re.compile(r"\d+(?:\.\d+){0,2}")
_LISTED = re.compile(r'href="(\d+\.\d+\.\d+)/"')
_HEX = re.compile(r"[0-9a-fA-F]+")


class ReleaseInputError(KafkaInstallError, BadInput):
    """A version, Scala version or mirror as typed cannot name a Kafka release: the input is wrong (exit 2)."""


class ChecksumFileInvalid(KafkaInstallError):
    """A published .sha512 could not be read as a SHA-512 of the archive it sits beside."""


@dataclass(frozen=True, slots=True)
class Release:
    """One binary release: kafka_SCALA-VERSION.tgz."""

    version: str  # "4.1.0"
    scala: str = DEFAULT_SCALA

    @property
    def name(self) -> str:
        return f"kafka_{self.scala}-{self.version}"

    @property
    def filename(self) -> str:
        return f"{self.name}.tgz"

    @property
    def kafka_version(self) -> KafkaVersion:
        return KafkaVersion.parse(self.version)

    @property
    def java_needed(self) -> int:
        major = self.kafka_version.major
        return next(java for since, java in JAVA_FOR_BROKERS if major >= since)

    def __str__(self) -> str:
        return f"Kafka {self.version} (Scala {self.scala})"


@dataclass(frozen=True, slots=True)
class Site:
    """Where releases are: a base URL for the archives and one for their checksums, both ending in the `kafka/`
    folder. Apache serves archives from its CDN and checksums from its main site; a mirror serves both."""

    name: str
    archives: str
    checksums: str

    @classmethod
    def at(cls, url: str, name: str | None = None) -> Site:
        folder = url if url.endswith("/") else url + "/"
        return cls(name or folder, folder, folder)

    def archive_url(self, release: Release) -> str:
        return f"{self.archives}{release.version}/{release.filename}"

    def checksum_url(self, release: Release) -> str:
        return f"{self.checksums}{release.version}/{release.filename}.sha512"

    @property
    def listing_url(self) -> str:
        return self.checksums


APACHE_DOWNLOADS = Site(
    "downloads.apache.org", "https://dlcdn.apache.org/kafka/", "https://downloads.apache.org/kafka/"
)
APACHE_ARCHIVE = Site.at("https://archive.apache.org/dist/kafka/", "archive.apache.org")
APACHE_SITES = (APACHE_DOWNLOADS, APACHE_ARCHIVE)


def mirror_sites(given: str) -> tuple[Site, ...]:
    """The sites a --mirror names, laid out as Apache's: its root (holding kafka/) or its kafka/ folder itself;
    a plain path is a file:// mirror. When the URL's last folder is not `kafka`, its kafka/ is tried, then itself."""
    text = given.strip()
    if not text:
        raise ReleaseInputError("--mirror is empty: give a URL such as https://mirror.example.com/apache/ or a folder")
    parts = urlsplit(text)
    if parts.scheme in ("", "file"):
        path = Path(parts.path if parts.scheme else text).expanduser()
        if not path.is_absolute():
            path = path.resolve()
        if not path.is_dir():
            raise ReleaseInputError(
                f"--mirror {given}: no such folder; give the folder that holds kafka/VERSION/kafka_SCALA-VERSION.tgz "
                "(or the kafka/ folder itself)"
            )
        url = "file://" + pathname2url(str(path))
        if (path / "kafka").is_dir():
            return (Site.at(url + "/kafka/"),)
        return (Site.at(url + "/"),)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ReleaseInputError(
            f"--mirror {given}: not an http(s):// or file:// URL; e.g. https://mirror.example.com/apache/ "
            "(laid out as Apache's site: kafka/VERSION/kafka_SCALA-VERSION.tgz beside its .sha512)"
        )
    base = urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + "/", "", ""))
    if base.rstrip("/").endswith("/kafka"):
        return (Site.at(base),)
    return (Site.at(base + "kafka/"), Site.at(base))


def origin_warning(site: Site) -> str | None:
    """What a checksum from `site` cannot prove, to say before relying on it: over plain http anyone on the way can
    change the .sha512 with the archive, so a match shows the download is whole, not that it is Apache's."""
    if urlsplit(site.checksums).scheme != "http":
        return None
    return (
        f"--mirror {site.checksums}: plain http: the .sha512 comes from the same mirror, so it proves the download "
        "is whole, not that it is Apache's; use https, or check the release's .asc with gpg"
    )


def check_scala(scala: str, version: str | None) -> str:
    if scala not in SCALAS:
        raise ReleaseInputError(f"--scala {scala}: Kafka is built for Scala {' or '.join(SCALAS)}")
    if scala == "2.12" and version is not None and _major(version) >= 4:
        raise ReleaseInputError(f"Kafka {version} is built for Scala 2.13 only (2.12 builds ended with 3.9)")
    return scala


def _major(version: str) -> int:
    return int(version.split(".")[0])


def check_version(asked: str) -> str:
    """A version as typed: 4.1.0 exactly, or 4.1 / 4 for the newest of that line."""
    text = asked.strip().removeprefix("v")
    if not _ASKED_VERSION.fullmatch(text):
        raise ReleaseInputError(
            f"{asked!r} is not a Kafka version: give one such as 4.1.0, or 4.1 (the newest 4.1.x), or 3.9 (the last "
            "with ZooKeeper mode)"
        )
    return text


def parse_listing(html: str) -> list[str]:
    """Release versions in a site's folder index (Apache's httpd autoindex: <a href="4.1.0/">), oldest first."""
    found = {m.group(1) for m in _LISTED.finditer(html)}
    return sorted(found, key=_key)


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def newest_of(line: str, versions: Sequence[str]) -> str | None:
    """The newest listed release of a line ("4", "4.1") or the release itself ("4.1.0") when listed."""
    if _RELEASE_VERSION.fullmatch(line):
        return line if line in versions else None
    prefix = _key(line)
    matching = [v for v in versions if _key(v)[: len(prefix)] == prefix]
    return max(matching, key=_key) if matching else None


def is_release_version(text: str) -> bool:
    return _RELEASE_VERSION.fullmatch(text) is not None


def parse_checksum(text: str, filename: str) -> str:
    """The SHA-512 (lower-case hex) in a published .sha512 for `filename`.

    Reads Apache's form (`gpg --print-md sha512`: `NAME: 1A2B3C4D 5E6F…` wrapped over lines), and the two forms a
    company mirror may write instead: `sha512sum` (`HEX  NAME`) and BSD (`SHA512 (NAME) = HEX`). A file naming
    another archive is refused: it is the checksum of something else."""
    body = text.strip()
    named: str | None = None
    bsd = re.fullmatch(r"SHA512 ?\((.+)\) ?= ?([0-9a-fA-F]+)", body)
    if bsd:
        named, digest = bsd.group(1), bsd.group(2)
    elif re.match(r"[0-9a-fA-F]{128}(\s|$)", body):
        first = body.splitlines()[0].split(maxsplit=1)
        digest = first[0]
        named = first[1].lstrip("*").strip() if len(first) > 1 else None
    else:
        name, colon, rest = body.partition(":")
        if not colon:
            raise ChecksumFileInvalid(f"the checksum file for {filename} is not a SHA-512 listing: {_head(body)!r}")
        named = name.strip()
        digest = "".join(rest.split())
    if named is not None and Path(named).name != filename:
        raise ChecksumFileInvalid(f"the checksum file for {filename} is for {named!r}, another file")
    if len(digest) != 128 or not _HEX.fullmatch(digest):
        raise ChecksumFileInvalid(
            f"the checksum file for {filename} holds no SHA-512 (128 hex digits): {_head(body)!r}"
        )
    return digest.lower()


def _head(text: str) -> str:
    line = text.splitlines()[0] if text else ""
    return line[:80] + ("…" if len(line) > 80 else "")


def short_digest(digest: str) -> str:
    """The first and last 8 hex digits, as a person compares them by eye."""
    return f"{digest[:8]}…{digest[-8:]}"
