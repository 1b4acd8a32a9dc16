"""`kafkatop install` against a mirror on 127.0.0.1 (Python's http.server), beside the labs' own way of doing the same
step (`curl -o`, `sha512sum -c`-style compare, `tar xzf`), on the same archive: a real Kafka release packed from
KAFKA_HOME when it is set, else a stand-in of similar size. Prints medians of several runs:

- a first install (download, SHA-512, unpack) and the peer's, as a ratio;
- a second install of the same release after the unpacked tree was deleted (from the kept download, no network);
- an install of what is already there.

    .venv/bin/python bench/install.py [--runs 5]
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: tests.* also when run as a file
from tests.fixtures.release_mirror import gpg_sha512, release_archive

VERSION = "4.1.0"
NAME = f"kafka_2.13-{VERSION}"


def archive_bytes(work: Path) -> tuple[bytes, str]:
    home = os.environ.get("KAFKA_HOME")
    if home and (Path(home) / "libs").is_dir():
        out = work / "real.tgz"
        with tarfile.open(out, "w:gz") as tar:
            tar.add(home, arcname=NAME)
        return out.read_bytes(), f"a real Kafka packed from {home}"
    return release_archive(VERSION, padding=60 << 20), "a 60 MiB stand-in (set KAFKA_HOME for a real Kafka)"


def serve(root: Path) -> tuple[ThreadingHTTPServer, str]:
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


def kafkatop_install(url: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "kafkatop.tui.cli", "install", VERSION, "--mirror", url],
        env=env, check=True, capture_output=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return time.perf_counter() - started


def by_hand(url: str, work: Path) -> float:
    """What the labs do: curl the archive and its .sha512, compare the digest, tar xzf."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    started = time.perf_counter()
    base = f"{url}kafka/{VERSION}/{NAME}.tgz"
    subprocess.run(["curl", "-sSfo", str(work / f"{NAME}.tgz"), base], check=True)
    subprocess.run(["curl", "-sSfo", str(work / f"{NAME}.tgz.sha512"), base + ".sha512"], check=True)
    digest = subprocess.run(["sha512sum", str(work / f"{NAME}.tgz")], check=True, capture_output=True, text=True)
    published = "".join((work / f"{NAME}.tgz.sha512").read_text().partition(":")[2].split()).lower()
    assert digest.stdout.split()[0] == published
    subprocess.run(["tar", "xzf", f"{NAME}.tgz"], cwd=work, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory(prefix="kafkatop-bench-install-") as tmp:
        work = Path(tmp)
        data, what = archive_bytes(work)
        folder = work / "site" / "kafka" / VERSION
        folder.mkdir(parents=True)
        (folder / f"{NAME}.tgz").write_bytes(data)
        (folder / f"{NAME}.tgz.sha512").write_text(gpg_sha512(f"{NAME}.tgz", data))
        httpd, url = serve(work / "site")
        first, cached, present, peer = [], [], [], []
        try:
            for i in range(runs):
                home = work / f"home{i}"
                env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
                       "XDG_CACHE_HOME": str(home / "cache")}  # fmt: skip
                first.append(kafkatop_install(url, env))
                present.append(kafkatop_install(url, env))
                shutil.rmtree(home / "data")
                cached.append(kafkatop_install(url, env))
                peer.append(by_hand(url, work / f"hand{i}"))
                shutil.rmtree(home)
                shutil.rmtree(work / f"hand{i}")
        finally:
            httpd.shutdown()
            httpd.server_close()
    med = statistics.median
    print(f"archive: {len(data) / (1 << 20):.1f} MiB, {what}; sha512 {hashlib.sha512(data).hexdigest()[:16]}…")
    print(f"runs: {runs} (medians; each a fresh HOME, a kafkatop process from its start)")
    print(f"first install (download, SHA-512, unpack)   kafkatop {med(first):6.2f} s")
    print(f"the same by hand (curl, sha512sum, tar xzf)  peer     {med(peer):6.2f} s   "
          f"ratio kafkatop/peer {med(first) / med(peer):.2f}")  # fmt: skip
    print(f"again after deleting the tree (kept download) kafkatop {med(cached):6.2f} s   "
          f"{med(cached) / med(first):.2f} of a first install, no network")  # fmt: skip
    print(f"again with it installed                      kafkatop {med(present):6.2f} s")


if __name__ == "__main__":
    main()
