"""Downloading one file over http(s) or from a file:// folder into a `.part` file that an interrupted run resumes
(HTTP Range, guarded by If-Range so a changed file restarts instead of being spliced). Standard library only.

A read that gets no byte for `stall_s` seconds is a stall; a cut connection, a stall or a reset is retried from where
it stopped, a few times, before giving up with the `.part` kept for the next run. A 404 is `NotPublished`, for the
caller to try the next site.

No download grows past the size it is expected to have: its Content-Length (or Content-Range) when the site says one,
else `limit` (1 GiB for a release archive); past it, the download stops and its `.part` is deleted (`TooLarge`),
as no resume could make a release of it."""

from __future__ import annotations

import errno
import http.client
import json
import socket
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.error import HTTPError, URLError
from urllib.parse import unquote, urlsplit
from urllib.request import Request, urlopen

from kafkatop.backends.lab.kafka_homes import KafkaInstallError

USER_AGENT = "kafkatop (+https://kafka.apache.org/downloads)"
CHUNK = 256 * 1024
STALL_S = 30.0
ATTEMPTS = 4  # the first try and three resumes
# The most a release archive may be when its site does not say its size; a Kafka release is about 120 MiB.
ARCHIVE_LIMIT = 1 << 30

Progress = Callable[[int, int | None], None]  # bytes in the .part so far, the file's size when known
Note = Callable[[str], None]


class NotPublished(KafkaInstallError):
    """The site has no such file (HTTP 404 or 410, or no file in the folder)."""

    def __init__(self, url: str, why: str) -> None:
        super().__init__(f"{url}: {why}")
        self.url = url
        self.why = why


class DownloadFailed(KafkaInstallError):
    """The transfer did not complete: the site is unreachable, stalled, cut off or answered with an error."""


class TooLarge(DownloadFailed):
    """The site sent, or said it would send, more than the file can be; what came of it was deleted."""


class DiskFull(KafkaInstallError):
    """A write failed for want of space (or of a quota)."""


def no_room(e: OSError) -> bool:
    """A full disk, a full quota, or a file-size limit: each is "make room and run again"."""
    return e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def _is_file(url: str) -> bool:
    return urlsplit(url).scheme == "file"


def _file_path(url: str) -> Path:
    return Path(unquote(urlsplit(url).path))


def _request(url: str, headers: dict[str, str] | None = None) -> Request:
    # identity: the byte counts and Range offsets must be the file's own, never a compressed stream's.
    return Request(url, headers={"User-Agent": USER_AGENT, "Accept-Encoding": "identity", **(headers or {})})


def _reason(e: BaseException) -> str:
    if isinstance(e, URLError) and not isinstance(e, HTTPError):
        inner = e.reason
        return str(inner.strerror if isinstance(inner, OSError) and inner.strerror else inner)
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return str(e) or type(e).__name__


def read_text(url: str, *, stall_s: float = STALL_S, limit: int = 1 << 20) -> str:
    """A small text file (a .sha512, a folder listing); NotPublished when it is not there."""
    if _is_file(url):
        path = _file_path(url)
        if path.is_dir():
            # A folder of a file:// mirror: its listing, as an index page names its entries.
            return "".join(f'<a href="{p.name}/">' for p in sorted(path.iterdir()) if p.is_dir())
        try:
            with open(path, "rb") as f:  # read(limit), not read_bytes(): a pipe or /dev/zero never ends
                return f.read(limit).decode("utf-8", "replace")
        except FileNotFoundError:
            raise NotPublished(url, "no such file") from None
        except OSError as e:
            raise DownloadFailed(f"cannot read {path}: {_reason(e)}") from None
    try:
        with urlopen(_request(url), timeout=stall_s) as response:
            data: bytes = response.read(limit)
    except HTTPError as e:
        if e.code in (404, 410):
            raise NotPublished(url, f"HTTP {e.code} {e.reason}") from None
        raise DownloadFailed(f"{url}: HTTP {e.code} {e.reason}") from None
    except URLError as e:
        if isinstance(e.reason, TimeoutError):
            raise DownloadFailed(f"cannot read {url}: no answer for {stall_s:g} s") from None
        raise DownloadFailed(f"cannot reach {urlsplit(url).netloc}: {_reason(e)}") from None
    except (OSError, http.client.HTTPException) as e:
        raise DownloadFailed(f"cannot read {url}: {_stall_or_reason(e, stall_s)}") from None
    return data.decode("utf-8", "replace")


def _stall_or_reason(e: BaseException, stall_s: float) -> str:
    if isinstance(e, TimeoutError | socket.timeout) or "timed out" in str(e):
        return f"no answer for {stall_s:g} s"
    return _reason(e)


def download(
    url: str,
    part: Path,
    *,
    stall_s: float = STALL_S,
    attempts: int = ATTEMPTS,
    on_progress: Progress | None = None,
    on_note: Note | None = None,
    limit: int = ARCHIVE_LIMIT,
) -> int:
    """Bring `url` into `part`, resuming what `part` already holds; returns its size once it holds the whole file.
    It may not pass `limit` bytes: one that says it is larger is refused, one that says nothing is stopped there."""
    progress = on_progress or (lambda done, total: None)
    note = on_note or (lambda text: None)
    part.parent.mkdir(parents=True, exist_ok=True)
    try:
        if _is_file(url):
            return _copy(_file_path(url), url, part, progress, limit)
        return _fetch(url, part, stall_s, attempts, progress, note, limit)
    except TooLarge:
        part.unlink(missing_ok=True)  # not a prefix of a release: resuming it would only add to it
        part.with_name(part.name + ".json").unlink(missing_ok=True)
        raise


def _fetch(url: str, part: Path, stall_s: float, attempts: int, progress: Progress, note: Note, limit: int) -> int:
    meta = _Meta.read(part, url)
    resumed_from = part.stat().st_size if part.exists() else 0
    if resumed_from:
        note(f"resuming {part.name} at {_mib(resumed_from)} (an earlier download stopped there)")
    for attempt in range(1, attempts + 1):
        try:
            size = _transfer(url, part, meta, stall_s, progress, limit)
            part.with_name(part.name + ".json").unlink(missing_ok=True)
            return size
        except _Retry as e:
            have = part.stat().st_size if part.exists() else 0
            if attempt == attempts:
                raise DownloadFailed(
                    f"{url}: {e} after {attempts} tries; {_mib(have)} kept in {part}: run the same command again to "
                    "resume from there"
                ) from None
            note(f"{e}; resuming at {_mib(have)} (try {attempt + 1} of {attempts})")
            time.sleep(min(0.2 * attempt, 1.0))
    raise AssertionError("unreachable")  # the loop returns or raises


class _Retry(Exception):
    """A transfer stopped in a way worth resuming at once: cut off, stalled, reset."""


@dataclass(slots=True)
class _Meta:
    """What the .part was downloaded from, kept beside it so a resume asks for the same file (If-Range)."""

    path: Path
    url: str
    validator: str | None = None

    @classmethod
    def read(cls, part: Path, url: str) -> _Meta:
        path = part.with_name(part.name + ".json")
        try:
            data = json.loads(path.read_text())
            if data.get("url") == url and isinstance(data.get("validator"), str):
                return cls(path, url, data["validator"])
        except (OSError, ValueError):
            pass
        return cls(path, url)

    def save(self, validator: str | None) -> None:
        self.validator = validator
        self.path.write_text(json.dumps({"url": self.url, "validator": validator}))


def _transfer(url: str, part: Path, meta: _Meta, stall_s: float, progress: Progress, limit: int) -> int:
    have = part.stat().st_size if part.exists() else 0
    headers = {}
    if have:
        headers["Range"] = f"bytes={have}-"
        if meta.validator:
            headers["If-Range"] = meta.validator
    try:
        response = urlopen(_request(url, headers), timeout=stall_s)
    except HTTPError as e:
        if e.code in (404, 410):
            raise NotPublished(url, f"HTTP {e.code} {e.reason}") from None
        if e.code == 416 and have:
            total = _total_of(e.headers.get("Content-Range"))
            if total == have:
                return have  # the .part was already whole
            part.unlink()  # longer than the file: not a prefix of it
            raise _Retry("the kept partial download did not fit the file; starting again") from None
        if e.code >= 500:
            raise _Retry(f"HTTP {e.code} {e.reason}") from None
        raise DownloadFailed(f"{url}: HTTP {e.code} {e.reason}") from None
    except (URLError, OSError, http.client.HTTPException) as e:
        reason = _stall_or_reason(e, stall_s)
        if isinstance(e, URLError) and not isinstance(e.reason, TimeoutError | socket.timeout | ConnectionError):
            raise DownloadFailed(f"cannot reach {urlsplit(url).netloc}: {reason}") from None
        raise _Retry(reason) from None
    with response:
        if response.status == 206:
            start = _start_of(response.headers.get("Content-Range"))
            if start != have:
                raise DownloadFailed(f"{url}: asked for bytes from {have}, sent from {start}")
            total = _total_of(response.headers.get("Content-Range"))
            mode = "ab"
        else:
            length = response.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            if have:
                have = 0  # the server sent the whole file (no Range support, or it changed): start over
            mode = "wb"
        cap = _cap(url, total, limit)
        if have > cap:  # a Content-Range starting past the size it gives
            raise _too_long(url, total, limit)
        meta.save(response.headers.get("ETag") or response.headers.get("Last-Modified"))
        progress(have, total)
        try:
            with open(part, mode) as out:
                while True:
                    try:
                        # One byte past the cap, at most: enough to tell a body that goes on from one that ends.
                        chunk = response.read(min(CHUNK, cap - have + 1))
                    except TimeoutError:
                        raise _Retry(f"stalled: no data for {stall_s:g} s") from None
                    except (OSError, http.client.HTTPException) as e:
                        raise _Retry(f"cut off: {_reason(e)}") from None
                    if not chunk:
                        break
                    if have + len(chunk) > cap:
                        raise _too_long(url, total, limit)
                    out.write(chunk)
                    have += len(chunk)
                    progress(have, total)
        except OSError as e:
            if no_room(e):
                raise DiskFull(
                    f"no room to write {part} ({_reason(e)}, {_mib(have)} written): free some space there, or point "
                    "XDG_CACHE_HOME at a disk with room, and run again: the download resumes"
                ) from None
            raise
    if total is not None and have < total:
        raise _Retry(f"cut off at {_mib(have)} of {_mib(total)}")
    return have


def _cap(url: str, total: int | None, limit: int) -> int:
    """The most bytes the whole file may have: its stated size, which may not pass `limit`; else `limit`."""
    if total is None:
        return limit
    if total > limit:
        raise TooLarge(
            f"{url} is {_mib(total)}, more than a release archive can be ({_size(limit)} at most); nothing was "
            "downloaded"
        )
    return total


def _too_long(url: str, total: int | None, limit: int) -> TooLarge:
    if total is None:
        said = f"more than {_size(limit)} without saying its size"
    else:
        said = f"more than the {_mib(total)} it said"
    return TooLarge(f"{url} sent {said}; stopped there, and what came was deleted")


def _start_of(content_range: str | None) -> int | None:
    # "bytes 100-199/200"
    try:
        return int((content_range or "").split()[1].split("-")[0])
    except (IndexError, ValueError):
        return None


def _total_of(content_range: str | None) -> int | None:
    tail = (content_range or "").rpartition("/")[2]
    return int(tail) if tail.isdigit() else None


def _copy(source: Path, url: str, part: Path, progress: Progress, limit: int) -> int:
    """A file:// mirror: a local copy, with the same progress (a network share can be slow too)."""
    try:
        st = source.stat()
        # Only a regular file has a size to go by: a pipe, or a link to /dev/zero, says 0 and may never end.
        total = st.st_size if stat.S_ISREG(st.st_mode) else None
        cap = _cap(url, total, limit)
        with open(source, "rb") as src, open(part, "wb") as out:
            done = 0
            progress(0, total)
            while chunk := src.read(min(CHUNK, cap - done + 1)):
                if done + len(chunk) > cap:
                    raise _too_long(url, total, limit)
                out.write(chunk)
                done += len(chunk)
                progress(done, total)
    except FileNotFoundError:
        part.unlink(missing_ok=True)
        raise NotPublished(url, "no such file") from None
    except OSError as e:
        if no_room(e):
            part.unlink(missing_ok=True)
            raise DiskFull(f"no room to write {part} ({_reason(e)}): free some space there and run again") from None
        raise DownloadFailed(f"cannot copy {source}: {_reason(e)}") from None
    return done


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB"


def _size(n: int) -> str:
    """A limit as a person states it: 1 GiB, 1 MiB, 1.5 MiB."""
    unit, scale = ("GiB", 1 << 30) if n >= 1 << 30 else ("MiB", 1 << 20)
    return f"{n / scale:.1f}".removesuffix(".0") + f" {unit}"
