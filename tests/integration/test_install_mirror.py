"""`kafkatop install` against a local test double of Apache's download site (tests/fixtures/release_mirror.py: a
real HTTP server on 127.0.0.1, real sockets, real gzip and tar, the real file system): a good install and the
forms of mirror URL, a wrong checksum, a cut download resumed, a 404 on the download site then the archive, a
stall, a full disk (a real tmpfs when this machine can mount one, and a real per-process file-size quota), Ctrl-C
while downloading and while unpacking, two installs at once, the cache, and the offer made when none is found."""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import resource
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafkatop.backends.lab.download import DownloadFailed
from kafkatop.backends.lab.installer import (
    InstallProgress,
    KafkaInstaller,
    ReleaseNotFound,
)
from kafkatop.backends.lab.kafka_homes import KafkaInstallError, detect_version, find_kafka
from kafkatop.backends.lab.releases import Release, Site, mirror_sites
from tests.fixtures.release_mirror import MirrorServer, gpg_sha512, lay_out, mirror

VERSION = "4.1.0"
RELEASE = Release(VERSION)
NAME = RELEASE.filename
LIMIT = 1 << 20  # the size cap the tests give the installer (1 GiB in use: too much to send in a test)
PLAIN_HTTP = (
    "plain http: the .sha512 comes from the same mirror, so it proves the download is whole, not that it is "
    "Apache's; use https, or check the release's .asc with gpg"
)


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[MirrorServer, bytes]]:
    root = tmp_path / "site"
    data = lay_out(root, VERSION)
    lay_out(root, "3.9.1")
    with mirror(root) as server:
        yield server, data


@pytest.fixture
def homes(tmp_path: Path) -> dict[str, str]:
    """A fresh HOME with XDG folders of its own; no mirror from the environment."""
    env = {k: v for k, v in os.environ.items() if k not in ("KAFKATOP_KAFKA_MIRROR", "KAFKA_HOME")}
    env |= {
        "HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    return env


def installs(env: dict[str, str]) -> Path:
    return Path(env["XDG_DATA_HOME"]) / "kafkatop" / "kafka"


def cache(env: dict[str, str]) -> Path:
    return Path(env["XDG_CACHE_HOME"]) / "kafkatop" / "downloads"


def installer(env: dict[str, str], sites: tuple[Site, ...], **kw: object) -> KafkaInstaller:
    return KafkaInstaller(sites, data_root=installs(env), cache=cache(env), **kw)  # type: ignore[arg-type]


def kafkatop(*argv: str, env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kafkatop.tui.cli", *argv], env=env, capture_output=True, text=True, timeout=timeout,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


def left_in(folder: Path) -> list[str]:
    """What is in the installs folder apart from the lock files: a half-made tree would show here."""
    return sorted(p.name for p in folder.iterdir() if not p.name.endswith(".lock")) if folder.exists() else []


@pytest.mark.parametrize("form", ["root", "kafka folder"])
def test_a_mirror_install_verifies_unpacks_and_is_what_up_finds(
    site: tuple[MirrorServer, bytes], homes: dict[str, str], form: str
) -> None:
    server, data = site
    url = server.url if form == "root" else server.url + "kafka/"
    done = kafkatop("install", "--mirror", url, env=homes)
    assert done.returncode == 0, done.stderr
    home = installs(homes) / f"kafka_2.13-{VERSION}"
    digest = hashlib.sha512(data).hexdigest()
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"installing Kafka {VERSION} (Scala 2.13) from {server.url}kafka/ (Java 1")
    assert lines[1:] == [
        f"installed Kafka {VERSION} at {home}",
        f"  from {server.url}kafka/{VERSION}/{NAME}",
        f"  SHA-512 {digest[:8]}…{digest[-8:]} matches {server.url}kafka/{VERSION}/{NAME}.sha512",
        "next: `kafkatop` starts a lab cluster from it (or `kafkatop up --detach`)",
    ]
    # unpacked whole, executable bits kept, nothing else left beside it
    assert os.access(home / "bin" / "kafka-server-start.sh", os.X_OK)
    assert (home / "config" / "server.properties").is_file()
    assert left_in(installs(homes)) == [home.name]
    assert sorted(p.name for p in cache(homes).iterdir()) == [NAME, f"{NAME}.sha512"]
    # the newest 4.x was taken from the site's listing (3.9.1 is there too)
    assert any(r.path.endswith("/kafka/") for r in server.requests)
    found = find_kafka(environ=homes | {"PATH": ""}, usual_places=[str(installs(homes) / "kafka_*")])
    assert found.home == home and str(found.version) == VERSION

    listed = kafkatop("install", "--list", env=homes)
    assert listed.returncode == 0, listed.stderr
    assert f"  kafka_2.13-{VERSION}       Kafka {VERSION}  (KRaft mode)" in listed.stdout
    assert "`kafkatop up --mode zk` uses: " in listed.stdout


def test_the_done_lines_name_what_was_checked(site: tuple[MirrorServer, bytes], homes: dict[str, str]) -> None:
    server, data = site
    done = kafkatop("install", VERSION, "--mirror", server.url + "kafka", env=homes)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"installing Kafka {VERSION} (Scala 2.13) from {server.url}kafka/ (Java ")
    digest = hashlib.sha512(data).hexdigest()
    assert lines[1] == f"installed Kafka {VERSION} at {installs(homes) / f'kafka_2.13-{VERSION}'}"
    assert lines[2] == f"  from {server.url}kafka/{VERSION}/{NAME}"
    assert lines[3] == f"  SHA-512 {digest[:8]}…{digest[-8:]} matches {server.url}kafka/{VERSION}/{NAME}.sha512"
    assert not any(r.path.endswith("/kafka/") for r in server.requests)  # an exact version needs no listing


def test_a_second_install_is_instant_and_a_cached_one_reads_no_network(
    site: tuple[MirrorServer, bytes], homes: dict[str, str]
) -> None:
    server, _ = site
    url = server.url
    assert kafkatop("install", VERSION, "--mirror", url, env=homes).returncode == 0
    again = kafkatop("install", VERSION, "--mirror", url, env=homes)
    assert again.returncode == 0
    assert again.stdout.startswith(f"Kafka {VERSION} is already installed at ")
    server.close()  # from here on, any request would fail
    shutil.rmtree(installs(homes) / f"kafka_2.13-{VERSION}")
    cached = kafkatop("install", VERSION, "--mirror", url, env=homes)
    assert cached.returncode == 0, cached.stderr
    assert "  from the cached download (SHA-512 " in cached.stdout
    assert (installs(homes) / f"kafka_2.13-{VERSION}" / "bin" / "kafka-server-start.sh").is_file()


def test_a_checksum_mismatch_refuses_and_keeps_nothing(site: tuple[MirrorServer, bytes], homes: dict[str, str]) -> None:
    server, _ = site
    sha = server.root / "kafka" / VERSION / f"{NAME}.sha512"
    sha.write_text(gpg_sha512(NAME, b"some other archive"))
    done = kafkatop("install", VERSION, "--mirror", server.url, env=homes)
    assert done.returncode == 1
    assert f"kafkatop: {NAME} from {server.url}kafka/{VERSION}/{NAME} does not match its published SHA-512" in (
        done.stderr
    )
    assert "The download was deleted and nothing installed" in done.stderr
    assert "Traceback" not in done.stderr
    assert left_in(installs(homes)) == []
    assert list(cache(homes).iterdir()) == []


def test_a_cut_download_resumes_with_a_range_request(site: tuple[MirrorServer, bytes], homes: dict[str, str]) -> None:
    server, data = site
    server.faults.cut_once[NAME] = len(data) // 3
    notes: list[str] = []
    done = installer(homes, mirror_sites(server.url), on_note=notes.append).install(RELEASE)
    assert done.how == "downloaded" and done.digest == hashlib.sha512(data).hexdigest()
    gets = server.archive_gets(NAME)
    assert [g.range for g in gets] == [None, f"bytes={len(data) // 3}-"]
    assert any(n.startswith("cut off at ") and "resuming at" in n for n in notes), notes


def test_an_interrupted_run_is_resumed_by_the_next(site: tuple[MirrorServer, bytes], homes: dict[str, str]) -> None:
    """Ctrl-C mid-download: exit 130, the partial download kept, nothing in the installs folder; the next run
    asks only for the rest."""
    server, data = site
    server.faults.bytes_per_s = 256 * 1024  # about 8 s for the archive: time to interrupt it
    proc = subprocess.Popen(
        [sys.executable, "-m", "kafkatop.tui.cli", "install", VERSION, "--mirror", server.url],
        env=homes, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    part = cache(homes) / f"{NAME}.part"
    try:
        deadline = time.monotonic() + 20
        while not (part.exists() and part.stat().st_size > 256 * 1024) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert part.exists(), "the download never began"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert err.strip().endswith("kafkatop: interrupted")
    assert "Traceback" not in err
    kept = part.stat().st_size
    assert 0 < kept < len(data)
    assert left_in(installs(homes)) == []
    server.faults.bytes_per_s = None
    again = kafkatop("install", VERSION, "--mirror", server.url, env=homes)
    assert again.returncode == 0, again.stderr
    assert f"resuming {NAME}.part at " in again.stderr
    assert server.archive_gets(NAME)[-1].range == f"bytes={kept}-"


def test_a_404_on_the_download_site_falls_back_to_the_archive(tmp_path: Path, homes: dict[str, str]) -> None:
    """As Apache moves a release from downloads.apache.org to archive.apache.org once a newer one is out."""
    lay_out(tmp_path / "current", "4.2.0")
    lay_out(tmp_path / "archive", VERSION)
    with mirror(tmp_path / "current", "kafka-current") as current, mirror(tmp_path / "archive", "dist") as archive:
        sites = (Site.at(current.url + "kafka/"), Site.at(archive.url + "kafka/"))
        notes: list[str] = []
        done = installer(homes, sites, on_note=notes.append).install(RELEASE)
        assert done.how == "downloaded"
        assert done.archive_url == f"{archive.url}kafka/{VERSION}/{NAME}"
        assert notes == [
            f"--mirror {current.url}kafka/: {PLAIN_HTTP}",
            f"{NAME} is not on {current.url}kafka/ (HTTP 404 Not Found)",
        ]
        with pytest.raises(ReleaseNotFound, match=r"Kafka 9.9.9 \(Scala 2.13\) is not published at http://127.0"):
            installer(homes, sites).install(Release("9.9.9"))
        # with no version asked, the newest listed 4.x on the download site
        assert installer(homes, sites).resolve(None, "2.13") == Release("4.2.0")
        assert installer(homes, sites).resolve("4.1", "2.13") == Release(VERSION)  # found in the archive's listing


def test_a_stalled_server_times_out_and_says_the_next_run_resumes(
    site: tuple[MirrorServer, bytes], homes: dict[str, str]
) -> None:
    server, _ = site
    server.faults.stall_after[NAME] = 100_000
    started = time.monotonic()
    with pytest.raises(DownloadFailed) as e:
        installer(homes, mirror_sites(server.url), stall_s=0.5, attempts=2).install(RELEASE)
    assert time.monotonic() - started < 10
    message = str(e.value)
    assert "stalled: no data for 0.5 s after 2 tries" in message
    assert "run the same command again to resume from there" in message
    assert left_in(installs(homes)) == []


def _download_sizes(seen: list[InstallProgress]) -> list[int]:
    return [p.done for p in seen if p.stage == "download"]


def test_a_download_that_never_says_its_size_stops_at_the_cap_and_keeps_nothing(
    site: tuple[MirrorServer, bytes], homes: dict[str, str]
) -> None:
    """A broken or hostile mirror sending on and on with no Content-Length would fill the disk. Here it sends the cap
    and 512 KiB more, then stops (so the test ends whatever the code does): the download stops at the cap, says so,
    and deletes what came, which no resume could turn into a release."""
    server, _ = site
    server.faults.unsized[NAME] = LIMIT + (512 << 10)
    seen: list[InstallProgress] = []
    with pytest.raises(DownloadFailed) as e:
        installer(homes, mirror_sites(server.url), archive_limit=LIMIT, on_progress=seen.append).install(RELEASE)
    assert str(e.value) == (
        f"{server.url}kafka/{VERSION}/{NAME} sent more than 1 MiB without saying its size; stopped there, and what "
        f"came was deleted: is --mirror {server.url}kafka/ a Kafka mirror? (a Kafka release is about 120 MiB)"
    )
    assert 0 < max(_download_sizes(seen)) <= LIMIT
    assert list(cache(homes).iterdir()) == []  # neither the .part nor its resume record
    assert left_in(installs(homes)) == []
    assert len(server.archive_gets(NAME)) == 1  # not retried


def test_a_download_bigger_than_a_release_can_be_is_refused_before_it_starts(
    site: tuple[MirrorServer, bytes], homes: dict[str, str]
) -> None:
    server, data = site
    assert len(data) > LIMIT
    seen: list[InstallProgress] = []
    with pytest.raises(DownloadFailed) as e:
        installer(homes, mirror_sites(server.url), archive_limit=LIMIT, on_progress=seen.append).install(RELEASE)
    assert str(e.value) == (
        f"{server.url}kafka/{VERSION}/{NAME} is {len(data) / (1 << 20):.1f} MiB, more than a release archive can be "
        f"(1 MiB at most); nothing was downloaded: is --mirror {server.url}kafka/ a Kafka mirror? (a Kafka release is "
        "about 120 MiB)"
    )
    assert _download_sizes(seen) == []
    assert list(cache(homes).iterdir()) == []


def test_a_body_longer_than_its_content_length_is_not_written_past_it(
    site: tuple[MirrorServer, bytes], homes: dict[str, str]
) -> None:
    server, data = site
    server.faults.overlong[NAME] = 512 << 10
    seen: list[InstallProgress] = []
    done = installer(homes, mirror_sites(server.url), on_progress=seen.append).install(RELEASE)
    assert done.how == "downloaded"
    assert max(_download_sizes(seen)) == len(data)
    assert (cache(homes) / NAME).read_bytes() == data


def test_a_file_mirror_whose_archive_never_ends_is_cut_at_the_cap(tmp_path: Path, homes: dict[str, str]) -> None:
    """A file:// mirror's archive that is no regular file has no size to trust: a pipe here (the cap and 512 KiB
    more, then it ends); a link to /dev/zero would never end."""
    lay_out(tmp_path / "usb", VERSION)
    archive = tmp_path / "usb" / "kafka" / VERSION / NAME
    archive.unlink()
    os.mkfifo(archive)

    def feed() -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # open without blocking: a writer waiting for a reader never ends
            try:
                fd = os.open(archive, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: no reader yet
                time.sleep(0.01)
                continue
            os.set_blocking(fd, True)
            try:
                with open(fd, "wb") as pipe:
                    pipe.write(bytes(LIMIT + (512 << 10)))
            except BrokenPipeError:
                pass
            return

    writer = threading.Thread(target=feed, name="endless-archive", daemon=True)
    writer.start()
    with pytest.raises(DownloadFailed, match=r"sent more than 1 MiB without saying its size; stopped there"):
        installer(homes, mirror_sites(str(tmp_path / "usb")), archive_limit=LIMIT).install(RELEASE)
    writer.join(timeout=20)
    assert list(cache(homes).iterdir()) == []


def test_a_plain_http_mirror_is_said_once_to_prove_a_whole_download_not_its_origin(
    site: tuple[MirrorServer, bytes], homes: dict[str, str], tmp_path: Path
) -> None:
    server, _ = site
    done = kafkatop("install", VERSION, "--mirror", server.url, env=homes)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(PLAIN_HTTP) == 1
    assert f"  --mirror {server.url}kafka/: {PLAIN_HTTP}\n" in done.stderr
    # from the cache nothing is downloaded, so nothing to warn about
    shutil.rmtree(installs(homes))
    again = kafkatop("install", VERSION, "--mirror", server.url, env=homes)
    assert again.returncode == 0 and PLAIN_HTTP not in again.stderr, again.stderr
    # nor for a folder, nor for https
    shutil.rmtree(installs(homes))
    shutil.rmtree(cache(homes))
    lay_out(tmp_path / "usb", VERSION)
    local = kafkatop("install", VERSION, "--mirror", str(tmp_path / "usb"), env=homes)
    assert local.returncode == 0 and PLAIN_HTTP not in local.stderr, local.stderr
    notes: list[str] = []
    with pytest.raises(DownloadFailed, match="cannot reach 127.0.0.1:9"):
        installer(homes, mirror_sites("https://127.0.0.1:9/"), on_note=notes.append).install(Release("4.0.0"))
    assert notes == []


def _file_size_quota(limit: int) -> None:
    # A real kernel quota on the size of any file this process writes; SIGXFSZ ignored so the write fails (EFBIG).
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_no_room_while_downloading_or_unpacking_says_so_and_leaves_nothing_half_made(
    site: tuple[MirrorServer, bytes], homes: dict[str, str]
) -> None:
    server, data = site
    args = [sys.executable, "-m", "kafkatop.tui.cli", "install", VERSION, "--mirror", server.url]
    full = subprocess.run(args, env=homes, capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: _file_size_quota(len(data) // 2))  # fmt: skip
    assert full.returncode == 1
    assert f"kafkatop: no room to write {cache(homes) / NAME}.part (File too large" in full.stderr
    assert "and run again: the download resumes" in full.stderr
    assert left_in(installs(homes)) == []
    # with the archive downloaded, no room for the biggest file in it (2 MiB): the unpacking fails, and is cleaned up
    assert kafkatop("install", VERSION, "--mirror", server.url, env=homes).returncode == 0
    shutil.rmtree(installs(homes) / f"kafka_2.13-{VERSION}")
    unpack = subprocess.run(args, env=homes, capture_output=True, text=True, timeout=60,
                            preexec_fn=lambda: _file_size_quota((2 << 20) - 1000))  # fmt: skip
    assert unpack.returncode == 1, unpack.stdout
    assert f"kafkatop: no room to unpack {NAME} into {installs(homes)}" in unpack.stderr
    assert "nothing was installed" in unpack.stderr
    assert left_in(installs(homes)) == []


def _can_mount_tmpfs() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt"],
                           capture_output=True, timeout=10)  # fmt: skip
    return probe.returncode == 0


@pytest.mark.skipif(not _can_mount_tmpfs(), reason="this machine cannot mount a private tmpfs (unshare -rm)")
def test_a_real_full_disk_a_small_tmpfs(
    site: tuple[MirrorServer, bytes], homes: dict[str, str], tmp_path: Path
) -> None:
    """XDG_DATA_HOME and XDG_CACHE_HOME on a 1 MiB tmpfs, mounted in a private mount namespace (gone with the
    process): the download hits ENOSPC; what is left on the tmpfs is listed before it goes."""
    server, _ = site
    small = tmp_path / "small"
    small.mkdir()
    env = homes | {"XDG_DATA_HOME": str(small / "data"), "XDG_CACHE_HOME": str(small / "cache")}
    script = (
        f"mount -t tmpfs -o size=1m tmpfs {small} && "
        f"{sys.executable} -m kafkatop.tui.cli install {VERSION} --mirror {server.url}; "
        f"echo exit=$?; ls -A {small}/data/kafkatop/kafka 2>/dev/null | grep -v '\\.lock$'; echo listed"
    )
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script], env=env, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)  # fmt: skip
    assert "exit=1\nlisted" in done.stdout, done.stdout + done.stderr
    assert f"kafkatop: no room to write {small}/cache/kafkatop/downloads/{NAME}.part (No space left on device" in (
        done.stderr
    )


def test_ctrl_c_while_unpacking_leaves_no_half_tree(site: tuple[MirrorServer, bytes], homes: dict[str, str]) -> None:
    server, _ = site
    seen: list[InstallProgress] = []

    def interrupt_mid_unpack(p: InstallProgress) -> None:
        seen.append(p)
        if p.stage == "extract" and p.done > 0:
            raise KeyboardInterrupt  # as Ctrl-C arrives at this point

    with pytest.raises(KeyboardInterrupt):
        installer(homes, mirror_sites(server.url), on_progress=interrupt_mid_unpack).install(RELEASE)
    assert [s for s in dict.fromkeys(p.stage for p in seen)] == ["download", "verify", "extract"]
    assert left_in(installs(homes)) == []  # no staging folder, no half tree
    assert (cache(homes) / NAME).is_file()  # the verified archive stays: the next run unpacks it at once
    assert installer(homes, mirror_sites(server.url)).install(RELEASE).how == "cached"


def test_two_installs_at_once_download_once(site: tuple[MirrorServer, bytes], homes: dict[str, str]) -> None:
    server, _ = site
    server.faults.bytes_per_s = 1 << 20
    argv = [sys.executable, "-m", "kafkatop.tui.cli", "install", VERSION, "--mirror", server.url]
    first = subprocess.Popen(argv, env=homes, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    part = cache(homes) / f"{NAME}.part"
    deadline = time.monotonic() + 20
    while not part.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    second = subprocess.Popen(argv, env=homes, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    outs = [p.communicate(timeout=60) for p in (first, second)]
    assert first.returncode == 0 and second.returncode == 0, outs
    assert len(server.archive_gets(NAME)) == 1
    assert f"another kafkatop (pid {first.pid}) is installing kafka_2.13-{VERSION}; waiting for it" in outs[1][1]
    assert outs[1][0].startswith(f"installing Kafka {VERSION}")
    assert f"Kafka {VERSION} is already installed at " in outs[1][0]


def test_a_file_mirror_an_air_gapped_folder(tmp_path: Path, homes: dict[str, str]) -> None:
    data = lay_out(tmp_path / "usb", VERSION)
    for given in (str(tmp_path / "usb"), f"file://{tmp_path}/usb/kafka/"):
        done = kafkatop("install", VERSION, "--mirror", given, env=homes)
        assert done.returncode == 0, done.stderr
        shutil.rmtree(installs(homes))
        shutil.rmtree(cache(homes))
    assert "  from file://" in done.stdout
    env = homes | {"KAFKATOP_KAFKA_MIRROR": str(tmp_path / "usb")}  # the same from the environment
    assert kafkatop("install", env=env).returncode == 0
    assert (cache(homes) / NAME).read_bytes() == data


def test_bad_input_is_said_plainly(site: tuple[MirrorServer, bytes], homes: dict[str, str]) -> None:
    server, _ = site
    for argv, message in (
        (("install", "latest"), "kafkatop: 'latest' is not a Kafka version: give one such as 4.1.0"),
        (("install", "4.1.0", "--scala", "2.12"), "kafkatop: Kafka 4.1.0 is built for Scala 2.13 only"),
        (("install", "--mirror", "ftp://x/"), "kafkatop: --mirror ftp://x/: not an http(s):// or file:// URL"),
        (("install", "7", "--mirror", server.url), "kafkatop: no Kafka 7.x release at "),
        (("install", "7.0.0", "--mirror", server.url), "kafkatop: Kafka 7.0.0 (Scala 2.13) is not published at "),
        (("install", "--list", "4.1.0"), "kafkatop: --list shows what is installed; leave out the VERSION"),
    ):
        done = kafkatop(*argv, env=homes)
        assert done.returncode == 2, (argv, done.stderr)
        assert done.stderr.splitlines()[-1].startswith(message), (argv, done.stderr)
        assert "Traceback" not in done.stderr
    unreachable = kafkatop("install", VERSION, "--mirror", "http://127.0.0.1:9/", env=homes)
    assert unreachable.returncode == 1
    assert "Connection refused" in unreachable.stderr and "Traceback" not in unreachable.stderr


# --- the offer, when no Kafka is found ------------------------------------------------------------------------------
@pytest.fixture
def no_kafka_here(monkeypatch: pytest.MonkeyPatch, homes: dict[str, str]) -> dict[str, str]:
    """This process as on a machine without Kafka: no KAFKA_HOME, nothing on PATH, no usual place holding one."""
    import kafkatop.backends.lab.kafka_homes as install

    for key in ("KAFKA_HOME", "KAFKATOP_KAFKA_MIRROR"):
        monkeypatch.delenv(key, raising=False)
    for key in ("HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(key, homes[key])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setattr(install, "USUAL_PLACES", ())
    return homes


def _args(**kw: object) -> argparse.Namespace:
    return argparse.Namespace(**({"kafka_home": None, "yes": False, "mirror": None, "command": None} | kw))


def test_without_kafka_the_live_view_offers_a_download_or_the_demo(
    no_kafka_here: dict[str, str], site: tuple[MirrorServer, bytes], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    from kafkatop.tui.cli import install as cli_install
    from kafkatop.tui.cli.exits import Declined

    server, _ = site
    monkeypatch.setenv("KAFKATOP_KAFKA_MIRROR", server.url)
    # not on a terminal: the demo, said in one line
    assert cli_install.find_or_offer(_args(), None, demo_instead=True, interactive=False) is None
    said = capsys.readouterr().err
    assert said == (
        "kafkatop: No Kafka installation was found (KAFKA_HOME, PATH, /opt/kafka*, ~/kafka*, "
        f"{installs(no_kafka_here)}): running the built-in demo; `kafkatop install` downloads Kafka\n"
    )
    # on a terminal: asked (TEST DOUBLE of the keyboard: input() answers as a person would type)
    answers = iter(["x", "d"])
    monkeypatch.setattr("builtins.input", lambda prompt: print(prompt) or next(answers))
    assert cli_install.find_or_offer(_args(), None, demo_instead=True, interactive=True) is None
    asked = capsys.readouterr().out
    assert "No Kafka installation was found" in asked
    assert f"kafkatop can download the newest Apache Kafka 4 from {server.url}kafka/, check it against the " in asked
    assert "[Y] download it and start the lab, [d] the built-in demo instead, [q] quit: " in asked
    assert "  type one of y, d, q" in asked
    monkeypatch.setattr("builtins.input", lambda prompt: "q")
    with pytest.raises(Declined, match="nothing downloaded"):
        cli_install.find_or_offer(_args(), None, demo_instead=True, interactive=True)
    monkeypatch.setattr("builtins.input", lambda prompt: "")  # Enter: the default, download
    found = cli_install.find_or_offer(_args(), None, demo_instead=True, interactive=True)
    assert found is not None and str(found.version) == VERSION
    assert found.home == installs(no_kafka_here) / f"kafka_2.13-{VERSION}"


def test_up_without_kafka_says_what_to_do_or_installs_with_yes(
    no_kafka_here: dict[str, str], site: tuple[MirrorServer, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    from kafkatop.backends.model.errors import KafkatopError
    from kafkatop.tui.cli import install as cli_install

    server, _ = site
    with pytest.raises(KafkatopError, match=r"`kafkatop install` downloads it \(or add --yes to download and go on\)"):
        cli_install.find_or_offer(_args(), None, demo_instead=False, interactive=False)
    monkeypatch.setenv("KAFKATOP_KAFKA_MIRROR", server.url)
    found = cli_install.find_or_offer(_args(yes=True), None, demo_instead=False, interactive=False)
    assert found is not None and str(found.version) == VERSION
    # --mode zk with only 4.x here: 3.9 is offered, and --yes takes it
    with pytest.raises(KafkatopError, match=r"runs KRaft only; ZooKeeper mode \(--mode zk\) needs Kafka 3.x.*"
                       r"`kafkatop install 3.9` downloads it"):  # fmt: skip
        cli_install.find_or_offer(_args(), "zk", demo_instead=False, interactive=False)
    zk = cli_install.find_or_offer(_args(yes=True), "zk", demo_instead=False, interactive=False)
    assert zk is not None and str(zk.version) == "3.9.1" and "zk" in zk.supported_modes


def test_download_progress_reaches_the_whole_file(site: tuple[MirrorServer, bytes], homes: dict[str, str]) -> None:
    server, data = site
    seen: list[InstallProgress] = []
    lock = threading.Lock()

    def record(p: InstallProgress) -> None:
        with lock:
            seen.append(p)

    installer(homes, mirror_sites(server.url), on_progress=record).install(RELEASE)
    downloads = [p for p in seen if p.stage == "download"]
    assert downloads[-1].done == downloads[-1].total == len(data)
    assert [p.done for p in downloads] == sorted(p.done for p in downloads)
    extracts = [p for p in seen if p.stage == "extract"]
    assert extracts[-1].done == extracts[-1].total


def _archive_reaching_out(top: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in ((f"{top}/LICENSE", b"x"), (f"{top}/../../evil", b"written outside")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.mark.parametrize("python", ["with tarfile's data filter", "before 3.11.4, without it"])
def test_an_archive_reaching_out_of_its_folder_is_refused(
    tmp_path: Path, homes: dict[str, str], monkeypatch: pytest.MonkeyPatch, python: str
) -> None:
    """A checksum only says the archive is the one published; the unpacking still refuses paths out of its folder,
    with tarfile's "data" filter or, on a Python without it (Debian 12's 3.11.2), by the same rules."""
    if python.startswith("with") and not hasattr(tarfile, "data_filter"):
        pytest.skip("this Python's tarfile has no data filter")
    if python.startswith("before"):
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    lay_out(tmp_path / "site", VERSION, archive=_archive_reaching_out(RELEASE.name))
    with pytest.raises(KafkaInstallError, match=r"kafka_2\.13-4\.1\.0|outside its folder"):
        installer(homes, mirror_sites(str(tmp_path / "site"))).install(RELEASE)
    assert not (installs(homes).parent / "evil").exists() and not (installs(homes) / "evil").exists()
    assert left_in(installs(homes)) == []


@pytest.mark.kafka
def test_a_real_kafka_installed_from_a_mirror_runs_a_lab(
    kafka_home: Path, tmp_path: Path, homes: dict[str, str]
) -> None:
    """End to end with a real Kafka: KAFKA_HOME packed as Apache packs a release, served by the mirror double,
    installed by `kafkatop install`, then a one-broker lab from what was installed, which takes a topic."""
    from tests.integration.test_supervisor import free_port_block

    version = detect_version(kafka_home).text
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(kafka_home, arcname=f"kafka_2.13-{version}")
    lay_out(tmp_path / "site", version, archive=buffer.getvalue())
    env = {k: v for k, v in homes.items() if k != "KAFKA_HOME"}
    state = tmp_path / "state"
    port = free_port_block(8)
    with mirror(tmp_path / "site") as server:
        done = kafkatop("install", "--mirror", server.url, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
    home = installs(env) / f"kafka_2.13-{version}"
    assert f"installed Kafka {version} at {home}" in done.stdout
    lab = ("--name", "fetched", "--state-dir", str(state))
    try:
        # no --kafka-home: the lab takes what kafkatop installed (an equal version elsewhere comes after it)
        up = kafkatop("up", *lab, "--brokers", "1", "--base-port", str(port), "--controller-port", str(port + 4),
                      "--heap", "256m", "--detach",
                      env=env | {"PATH": "/usr/bin:/bin"}, timeout=180)  # fmt: skip
        assert up.returncode == 0, up.stdout + up.stderr
        assert f"Kafka {version} at {home}" in up.stdout
        bootstrap = f"127.0.0.1:{port}"
        made = kafkatop("create-topic", "t", "--partitions", "2", "--replication-factor", "1",
                        "--bootstrap-server", bootstrap, env=env)  # fmt: skip
        assert made.returncode == 0, made.stderr
        described = kafkatop("describe", "--topic", "t", "--bootstrap-server", bootstrap, env=env)
        assert "PartitionCount: 2" in described.stdout, described.stdout + described.stderr
    finally:
        down = kafkatop("down", *lab, "--delete", env=env, timeout=120)
        assert down.returncode == 0, down.stderr
