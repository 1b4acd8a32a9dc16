"""Apache's release layout, read as Apache publishes it: the URLs, the .sha512 forms, the folder listing, the version
asked for, the mirror as typed, and the Java a release needs."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

from kafkatop.backends.lab.java import JavaMissing, check_java, java_major
from kafkatop.backends.lab.releases import (
    APACHE_ARCHIVE,
    APACHE_DOWNLOADS,
    APACHE_SITES,
    ChecksumFileInvalid,
    Release,
    ReleaseInputError,
    check_scala,
    check_version,
    mirror_sites,
    newest_of,
    origin_warning,
    parse_checksum,
    parse_listing,
)
from tests.fixtures.release_mirror import gpg_sha512

NAME = "kafka_2.13-4.1.0.tgz"
DATA = b"not really kafka\n" * 100
DIGEST = hashlib.sha512(DATA).hexdigest()


def test_apaches_urls_for_a_release() -> None:
    r = Release("4.1.0")
    assert APACHE_DOWNLOADS.archive_url(r) == "https://dlcdn.apache.org/kafka/4.1.0/kafka_2.13-4.1.0.tgz"
    assert APACHE_DOWNLOADS.checksum_url(r) == "https://downloads.apache.org/kafka/4.1.0/kafka_2.13-4.1.0.tgz.sha512"
    old = Release("3.7.0", "2.12")
    assert APACHE_ARCHIVE.archive_url(old) == "https://archive.apache.org/dist/kafka/3.7.0/kafka_2.12-3.7.0.tgz"
    assert APACHE_ARCHIVE.checksum_url(old).endswith("/dist/kafka/3.7.0/kafka_2.12-3.7.0.tgz.sha512")


def test_the_gpg_form_kafkas_release_script_writes_is_read() -> None:
    text = gpg_sha512(NAME, DATA)
    assert text.startswith(f"{NAME}: ") and "\n" in text.strip()  # wrapped over lines, as Apache's files are
    assert parse_checksum(text, NAME) == DIGEST


@pytest.mark.skipif(shutil.which("gpg") is None, reason="gpg is not installed: the double's own form is tested above")
def test_real_gpg_output_is_read_and_the_double_writes_it_byte_for_byte(tmp_path: Path) -> None:
    (tmp_path / NAME).write_bytes(DATA)
    real = subprocess.run(
        ["gpg", "--homedir", str(tmp_path), "--print-md", "sha512", NAME],
        cwd=tmp_path, capture_output=True, text=True, check=True, timeout=30,
    ).stdout  # fmt: skip
    assert real == gpg_sha512(NAME, DATA)
    assert parse_checksum(real, NAME) == DIGEST


def test_the_forms_a_company_mirror_may_write_are_read() -> None:
    assert parse_checksum(f"{DIGEST}  {NAME}\n", NAME) == DIGEST  # sha512sum
    assert parse_checksum(f"{DIGEST} *{NAME}\n", NAME) == DIGEST  # sha512sum -b
    assert parse_checksum(f"{DIGEST.upper()}\n", NAME) == DIGEST  # the digest alone
    assert parse_checksum(f"SHA512 ({NAME}) = {DIGEST}\n", NAME) == DIGEST  # BSD, shasum --tag


def test_a_checksum_of_another_file_or_of_nothing_is_refused() -> None:
    with pytest.raises(ChecksumFileInvalid, match="is for 'kafka_2.13-3.9.0.tgz', another file"):
        parse_checksum(gpg_sha512("kafka_2.13-3.9.0.tgz", DATA), NAME)
    with pytest.raises(ChecksumFileInvalid, match="holds no SHA-512"):
        parse_checksum(f"{NAME}: 1234 ABCD\n", NAME)
    with pytest.raises(ChecksumFileInvalid, match="not a SHA-512 listing"):
        parse_checksum("<html>Not Found</html>", NAME)


def test_the_folder_listing_gives_the_releases_and_a_line_its_newest() -> None:
    html = '<a href="3.8.1/">3.8.1/</a><a href="3.9.1/">3.9.1/</a><a href="4.0.1/">x</a><a href="4.1.0/">4.1.0/</a>'
    html += '<a href="KEYS">KEYS</a><a href="4.1.1-rc0/">rc</a><a href="4.10.0/">4.10.0</a>'
    versions = parse_listing(html)
    assert versions == ["3.8.1", "3.9.1", "4.0.1", "4.1.0", "4.10.0"]  # numeric order: 4.10 after 4.1
    assert newest_of("4", versions) == "4.10.0"
    assert newest_of("4.1", versions) == "4.1.0"
    assert newest_of("3.9", versions) == "3.9.1"
    assert newest_of("4.1.0", versions) == "4.1.0"
    assert newest_of("2", versions) is None


def test_versions_and_scala_as_typed() -> None:
    assert check_version(" v4.1.0 ") == "4.1.0"
    assert check_version("3.9") == "3.9"
    for bad in ("latest", "4.x", "4.1.0.1", "", "4.1.0-rc1"):
        with pytest.raises(ReleaseInputError, match="is not a Kafka version: give one such as 4.1.0"):
            check_version(bad)
    with pytest.raises(ReleaseInputError, match="built for Scala 2.13 only"):
        check_scala("2.12", "4.1.0")
    assert check_scala("2.12", "3.9.1") == "2.12"


def test_a_mirror_is_its_root_or_its_kafka_folder(tmp_path: Path) -> None:
    root = mirror_sites("https://repo.example.com/apache")
    assert [s.archives for s in root] == ["https://repo.example.com/apache/kafka/", "https://repo.example.com/apache/"]
    folder = mirror_sites("https://repo.example.com/apache/kafka/")
    assert [s.archives for s in folder] == ["https://repo.example.com/apache/kafka/"]
    (tmp_path / "kafka" / "4.1.0").mkdir(parents=True)
    assert mirror_sites(str(tmp_path))[0].archives == f"file://{tmp_path}/kafka/"
    assert mirror_sites(f"file://{tmp_path}/kafka")[0].archives == f"file://{tmp_path}/kafka/"
    with pytest.raises(ReleaseInputError, match="no such folder"):
        mirror_sites(str(tmp_path / "nope"))
    with pytest.raises(ReleaseInputError, match="not an http"):
        mirror_sites("ftp://repo.example.com/")


def test_only_a_plain_http_install_site_is_warned_about(tmp_path: Path) -> None:
    """Over plain http the .sha512 travels as the archive does, so it cannot show the archive is Apache's."""
    (plain,) = (origin_warning(s) for s in mirror_sites("http://mirror.example.com/apache/kafka"))
    assert plain == (
        "--mirror http://mirror.example.com/apache/kafka/: plain http: the .sha512 comes from the same mirror, so it "
        "proves the download is whole, not that it is Apache's; use https, or check the release's .asc with gpg"
    )
    sites = (*APACHE_SITES, *mirror_sites("https://mirror.example.com/apache/"), *mirror_sites(str(tmp_path)))
    assert [origin_warning(s) for s in sites] == [None] * 5


def test_the_java_a_release_needs() -> None:
    assert Release("4.1.0").java_needed == 17
    assert Release("3.9.1").java_needed == 8


def _java_double(tmp_path: Path, says: str) -> Path:
    """TEST DOUBLE of a JDK's bin/java: prints a `java -version` banner."""
    java = tmp_path / "jdk" / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text(f"#!/bin/sh\necho '{says}' >&2\n")
    java.chmod(0o755)
    return java


def test_java_versions_are_read_and_an_old_one_refused_with_the_fix(tmp_path: Path) -> None:
    old = _java_double(tmp_path, 'openjdk version "11.0.22" 2024-01-16')
    assert java_major(str(old)) == 11
    with pytest.raises(JavaMissing, match=r"is Java 11: Kafka 4.1.0 \(Scala 2.13\) needs Java 17 or newer; sudo apt"):
        check_java(17, str(Release("4.1.0")), {"JAVA_HOME": str(tmp_path / "jdk"), "PATH": ""})
    eight = _java_double(tmp_path / "8", 'java version "1.8.0_392"')
    assert java_major(str(eight)) == 8
    with pytest.raises(JavaMissing, match=r"no Java found \(JAVA_HOME, PATH\)"):
        check_java(17, "Kafka 4", {"PATH": str(tmp_path / "empty")})


@pytest.mark.skipif(shutil.which("java") is None, reason="no java on PATH")
def test_this_machines_java_is_read() -> None:
    java = shutil.which("java")
    assert java is not None and java_major(java) >= 8
