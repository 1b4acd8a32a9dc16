"""`kafkatop install`: Apache Kafka's binary release, downloaded, checked against its published SHA-512 and unpacked
where kafkatop finds it, $XDG_DATA_HOME/kafkatop/kafka/kafka_SCALA-VERSION.

- One install of a release at a time (a lock per release; a second one waits, then finds it done).
- The download goes to $XDG_CACHE_HOME/kafkatop/downloads/NAME.tgz.part, resumed by the next run when cut short,
  and becomes NAME.tgz only once its SHA-512 matches the published one; a mismatch keeps nothing.
- The archive is unpacked into a hidden staging folder beside the target and renamed into place once whole and
  checked, so a half-unpacked tree is never seen under the name kafkatop looks for; Ctrl-C or a full disk removes it.
- A second install of a cached release reads no network at all.
- A download may not pass its stated size, nor 1 GiB stated or not: a broken mirror does not fill the disk.
- A checksum read over plain http proves the download whole, not Apache's: said once, when it is read.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import tarfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from kafkatop.backends.lab.download import (
    ARCHIVE_LIMIT,
    ATTEMPTS,
    STALL_S,
    DiskFull,
    DownloadFailed,
    NotPublished,
    TooLarge,
    download,
    no_room,
    read_text,
)
from kafkatop.backends.lab.kafka_homes import (
    KafkaHomeInvalid,
    KafkaInstall,
    KafkaInstallError,
    installs_root,
    open_install,
    xdg_home,
)
from kafkatop.backends.lab.releases import (
    APACHE_SITES,
    DEFAULT_LINE,
    PINNED,
    Release,
    ReleaseInputError,
    Site,
    check_scala,
    check_version,
    is_release_version,
    newest_of,
    origin_warning,
    parse_checksum,
    parse_listing,
    short_digest,
)

Stage = Literal["download", "verify", "extract"]
HASH_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class InstallProgress:
    stage: Stage
    done: int  # bytes
    total: int | None


@dataclass(frozen=True, slots=True)
class Installed:
    install: KafkaInstall
    release: Release
    how: Literal["downloaded", "cached", "present"]
    digest: str | None = None  # the verified SHA-512 (hex), when this run checked one
    archive_url: str | None = None  # where the archive came from, when downloaded
    checksum_url: str | None = None


class ChecksumMismatch(KafkaInstallError):
    """The archive's SHA-512 is not the published one: it was deleted."""


class ReleaseNotFound(ReleaseInputError):
    """No site has the release asked for (exit 2: the version is likely wrong)."""


def cache_root(environ: Mapping[str, str] = os.environ) -> Path:
    """$XDG_CACHE_HOME/kafkatop/downloads (~/.cache/kafkatop/downloads): verified archives and partial downloads."""
    return xdg_home(environ, "XDG_CACHE_HOME", ".cache") / "kafkatop" / "downloads"


def _noop_progress(progress: InstallProgress) -> None:
    pass


def _noop_note(text: str) -> None:
    pass


class KafkaInstaller:
    """Installs releases from `sites`, tried in order (Apache: its download site, then its archive)."""

    def __init__(
        self,
        sites: Sequence[Site] = APACHE_SITES,
        *,
        data_root: Path | None = None,
        cache: Path | None = None,
        stall_s: float = STALL_S,
        attempts: int = ATTEMPTS,
        archive_limit: int = ARCHIVE_LIMIT,
        on_progress: Callable[[InstallProgress], None] = _noop_progress,
        on_note: Callable[[str], None] = _noop_note,
    ) -> None:
        self.sites = tuple(sites)
        self.data_root = installs_root() if data_root is None else data_root
        self.cache = cache_root() if cache is None else cache
        self.stall_s = stall_s
        self.attempts = attempts
        self.archive_limit = archive_limit  # the most an archive may be, its size stated or not
        self.on_progress = on_progress
        self.note = on_note

    # --- which release --------------------------------------------------------------------------------------------
    def resolve(self, asked: str | None, scala: str, line: str = DEFAULT_LINE) -> Release:
        """The release for `asked` (4.1.0; 4.1 or 4 for the newest of that line; None for the newest of `line`),
        read from the sites' folder listings; a release known to exist when no site lists its folders."""
        wanted = check_version(asked) if asked is not None else line
        check_scala(scala, wanted if is_release_version(wanted) else None)
        if is_release_version(wanted):
            return Release(wanted, scala)
        listed_anywhere = False
        for site in self.sites:
            try:
                versions = parse_listing(read_text(site.listing_url, stall_s=self.stall_s))
            except (NotPublished, DownloadFailed) as e:
                self.note(f"cannot list the releases at {site.listing_url} ({_why(e)})")
                continue
            listed_anywhere = listed_anywhere or bool(versions)
            found = newest_of(wanted, versions)
            if found is not None:
                check_scala(scala, found)
                return Release(found, scala)
        fallback = PINNED.get(wanted)
        if not listed_anywhere and fallback is not None:
            self.note(f"no release listing could be read; taking Kafka {fallback}, a known {wanted}.x release")
            return Release(fallback, scala)
        places = ", ".join(s.listing_url for s in self.sites)
        raise ReleaseNotFound(
            f"no Kafka {wanted}.x release at {places}; give a version that exists (see https://kafka.apache.org/downloads)"
        )

    # --- what is here ---------------------------------------------------------------------------------------------
    def installed(self) -> list[KafkaInstall]:
        """The releases installed under the data root, newest first."""
        found = []
        for path in sorted(self.data_root.glob("kafka_*")) if self.data_root.is_dir() else ():
            try:
                found.append(open_install(path))
            except KafkaHomeInvalid:
                continue
        return sorted(found, key=lambda i: (i.version.major, i.version.minor, i.version.patch), reverse=True)

    def cached(self) -> list[Path]:
        return sorted(self.cache.glob("kafka_*.tgz")) if self.cache.is_dir() else []

    # --- installing -----------------------------------------------------------------------------------------------
    def install(self, release: Release) -> Installed:
        target = self.data_root / release.name
        present = _valid(target)
        if present is not None:
            return Installed(present, release, "present")
        self.data_root.mkdir(parents=True, exist_ok=True)
        with self._lock(release):
            present = _valid(target)  # another install finished while this one waited
            if present is not None:
                return Installed(present, release, "present")
            if target.exists():
                raise KafkaInstallError(
                    f"{target} exists and is not a Kafka installation; move it away (or delete it) and run again"
                )
            for stale in self.data_root.glob(f".{release.name}.partial-*"):
                shutil.rmtree(stale, ignore_errors=True)  # left by a run that was killed mid-unpack
            archive, how, digest, urls = self._archive(release)
            install = self._unpack(release, archive, target)
        return Installed(install, release, how, digest, *urls)

    @contextmanager
    def _lock(self, release: Release) -> Iterator[None]:
        path = self.data_root / f".{release.name}.lock"
        with open(path, "a+") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                lock.seek(0)
                holder = lock.read().strip() or "?"
                self.note(f"another kafkatop (pid {holder}) is installing {release.name}; waiting for it to finish")
                fcntl.flock(lock, fcntl.LOCK_EX)
            lock.seek(0)
            lock.truncate()
            lock.write(str(os.getpid()))
            lock.flush()
            try:
                yield
            finally:
                lock.truncate(0)
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _archive(
        self, release: Release
    ) -> tuple[Path, Literal["downloaded", "cached"], str, tuple[str | None, str | None]]:
        """The verified archive: from the cache when it still matches its checksum, else downloaded."""
        archive = self.cache / release.filename
        published = self.cache / f"{release.filename}.sha512"
        if archive.is_file() and published.is_file():
            try:
                digest = parse_checksum(published.read_text(errors="replace"), release.filename)
                if self._sha512(archive) == digest:
                    return archive, "cached", digest, (None, None)
            except KafkaInstallError:
                pass
            self.note(f"the cached {archive.name} no longer matches its checksum; downloading it again")
            archive.unlink(missing_ok=True)
            published.unlink(missing_ok=True)
        misses: list[str] = []
        warned = False
        for site in self.sites:
            checksum_url, archive_url = site.checksum_url(release), site.archive_url(release)
            warning = origin_warning(site)
            if warning is not None and not warned:
                self.note(warning)
                warned = True
            try:
                text = read_text(checksum_url, stall_s=self.stall_s)
            except DownloadFailed as e:
                raise DownloadFailed(
                    f"{e}; check the network (a proxy: HTTPS_PROXY), or use --mirror URL (a company mirror, or a "
                    "folder holding the release)"
                ) from None
            except NotPublished as e:
                misses.append(checksum_url)
                self.note(f"{release.filename} is not on {site.name} ({_why(e)})")
                continue
            digest = parse_checksum(text, release.filename)
            part = self.cache / f"{release.filename}.part"
            try:
                download(
                    archive_url, part, stall_s=self.stall_s, attempts=self.attempts,
                    on_progress=lambda done, total: self.on_progress(InstallProgress("download", done, total)),
                    on_note=self.note, limit=self.archive_limit,
                )  # fmt: skip
            except NotPublished as e:
                misses.append(archive_url)
                self.note(f"{release.filename} is not on {site.name} ({_why(e)})")
                continue
            except TooLarge as e:
                if site in APACHE_SITES:
                    raise TooLarge(f"{e}: is a proxy (HTTPS_PROXY) answering for {site.name}?") from None
                raise TooLarge(
                    f"{e}: is --mirror {site.name} a Kafka mirror? (a Kafka release is about 120 MiB)"
                ) from None
            got = self._sha512(part)
            if got != digest:
                part.unlink(missing_ok=True)
                part.with_name(part.name + ".json").unlink(missing_ok=True)
                raise ChecksumMismatch(
                    f"{release.filename} from {archive_url} does not match its published SHA-512: it hashes to "
                    f"{short_digest(got)}, {checksum_url} says {short_digest(digest)}. The download was deleted and "
                    "nothing installed; run again, and if it repeats, use another --mirror"
                )
            os.replace(part, archive)
            published.write_text(text)
            return archive, "downloaded", digest, (archive_url, checksum_url)
        raise ReleaseNotFound(
            f"{release} is not published at {' nor '.join(misses)}; check the version "
            "(https://kafka.apache.org/downloads lists them) or the --mirror"
        )

    def _sha512(self, path: Path) -> str:
        total = path.stat().st_size
        h = hashlib.sha512()
        done = 0
        self.on_progress(InstallProgress("verify", 0, total))
        with open(path, "rb") as f:
            while chunk := f.read(HASH_CHUNK):
                h.update(chunk)
                done += len(chunk)
                self.on_progress(InstallProgress("verify", done, total))
        return h.hexdigest()

    def _unpack(self, release: Release, archive: Path, target: Path) -> KafkaInstall:
        staging = self.data_root / f".{release.name}.partial-{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        try:
            total = archive.stat().st_size
            with open(archive, "rb") as raw:
                self._extract(raw, total, staging, release)
            top = staging / release.name
            install = open_install(top)
            if install.version.text != release.version:
                raise KafkaInstallError(
                    f"{archive.name} holds Kafka {install.version}, not {release.version}: the archive is mislabelled"
                )
            os.rename(top, target)  # atomic: the name kafkatop looks for appears whole or not at all
        except OSError as e:
            if no_room(e):
                raise DiskFull(
                    f"no room to unpack {archive.name} into {self.data_root} ({e.strerror}); nothing was installed: "
                    "free some space there, or point XDG_DATA_HOME at a disk with room, and run again"
                ) from None
            raise KafkaInstallError(f"cannot unpack {archive.name} into {self.data_root}: {e}") from None
        except KafkaHomeInvalid as e:
            raise KafkaInstallError(f"{archive.name} is not a Kafka binary release: {e}") from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return open_install(target)

    def _extract(self, raw: BinaryIO, total: int, staging: Path, release: Release) -> None:
        self.on_progress(InstallProgress("extract", 0, total))
        try:
            with tarfile.open(fileobj=raw, mode="r|gz") as tar:
                for member in tar:
                    top = member.name.split("/", 1)[0]
                    if top != release.name:
                        raise KafkaInstallError(
                            f"{release.filename} holds {member.name!r}, outside {release.name}/: not a Kafka release"
                        )
                    _extract_safely(tar, member, staging)
                    self.on_progress(InstallProgress("extract", raw.tell(), total))
        except (tarfile.TarError, EOFError) as e:
            raise KafkaInstallError(f"{release.filename} cannot be unpacked: {e}") from None


def _extract_safely(tar: tarfile.TarFile, member: tarfile.TarInfo, into: Path) -> None:
    """Extract one member with tarfile's "data" filter (no absolute paths, nothing out of the folder, no device
    files, no setuid bits); Pythons before 3.11.4 lack the filter, so the same rules are applied here."""
    if hasattr(tarfile, "data_filter"):
        tar.extract(member, into, filter="data")
        return
    name = Path(member.name)
    if name.is_absolute() or ".." in name.parts:
        raise KafkaInstallError(f"the archive holds {member.name!r}, a path outside its folder: not a Kafka release")
    if not (member.isfile() or member.isdir() or member.issym() or member.islnk()):
        raise KafkaInstallError(f"the archive holds {member.name!r}, a device or pipe: not a Kafka release")
    if member.issym() or member.islnk():
        base = into if member.islnk() else into / name.parent
        target = (base / member.linkname).resolve()
        if member.linkname.startswith("/") or not target.is_relative_to(into.resolve()):
            raise KafkaInstallError(f"the archive holds {member.name!r}, a link out of its folder: not a Kafka release")
    member.mode &= 0o755  # no setuid, setgid, sticky, or group/other write
    tar.extract(member, into)


def _valid(path: Path) -> KafkaInstall | None:
    if not path.is_dir():
        return None
    try:
        return open_install(path)
    except KafkaHomeInvalid:
        return None


def _why(e: KafkaInstallError) -> str:
    return e.why if isinstance(e, NotPublished) else str(e)
