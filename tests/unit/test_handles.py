"""librdkafka aborts the process when a handle is destroyed on one of its own threads. These tests reproduce the two
ways Python does that — the last reference dropped in a callback librdkafka runs, and a garbage cycle collected
there — with raw confluent-kafka handles (which abort) and with kafkatop's (which cannot), and check that no module
makes a handle any other way."""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kafkatop.backends.model import lifetime

ROOT = Path(__file__).resolve().parents[2]

# A child process, since the abort kills it. Nothing listens on 127.0.0.1:1: the admin request fails after its
# request_timeout, and librdkafka completes its future, running the callback below, on the client's own background
# thread. If the client's last reference goes there, rd_kafka_destroy() runs on that thread: librdkafka's assert.
CHILD = textwrap.dedent(
    """
    import gc, logging, sys, threading
    from confluent_kafka.admin import AdminClient
    from kafkatop.backends.kafka import handles
    from kafkatop.backends.model import lifetime

    kind, path = sys.argv[1], sys.argv[2]
    quiet = logging.getLogger("quiet")
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    conf = {"bootstrap.servers": "127.0.0.1:1", "logger": quiet}
    admin = AdminClient(conf) if kind == "raw" else handles.admin_client(conf)
    future = admin.describe_cluster(request_timeout=0.5)

    class Owner:
        pass

    holder = []
    if path == "callback":
        holder.append(admin)  # the only reference but the one below
    else:
        gc.disable()
        owner = Owner()
        owner.admin, owner.me = admin, owner  # in a cycle: only the collector frees it
        del owner
    del admin

    def on_done(future):
        if path == "callback":
            holder.clear()  # the last reference, dropped on the client's background thread
        else:
            gc.collect()  # the collector, run there (as any allocation on that thread may start it)
        done.set()

    done = threading.Event()
    future.add_done_callback(on_done)
    if not done.wait(20):
        sys.exit("the request never completed")
    print(f"survived, {lifetime.kept_count()} handles kept")
    """
)


def run_child(kind: str, path: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CHILD, kind, path],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "PYTHONFAULTHANDLER": ""},
    )


@pytest.mark.parametrize("path", ["callback", "cycle"])
def test_a_raw_handle_freed_on_librdkafkas_thread_aborts_the_process(path: str) -> None:
    """The hazard is real: without kafkatop's lifetime rules the process dies (SIGABRT, librdkafka's assert). This is
    the abort seen in `kafkatop describe` after a kill -9."""
    child = run_child("raw", path)
    assert child.returncode == -signal.SIGABRT, (child.returncode, child.stdout, child.stderr)
    assert "librdkafka owned thread is prohibited" in child.stderr


@pytest.mark.parametrize("path", ["callback", "cycle"])
def test_a_kafkatop_handle_survives_the_same_release(path: str) -> None:
    child = run_child("kafkatop", path)
    assert child.returncode == 0, (child.returncode, child.stdout, child.stderr)
    assert "survived, 1 handles kept" in child.stdout
    assert "prohibited" not in child.stderr


def test_release_frees_the_handle_on_its_own_thread_once_the_last_other_reference_is_gone() -> None:
    freed_on: list[str] = []

    class Handle:
        def __del__(self) -> None:
            import threading

            freed_on.append(threading.current_thread().name)

    handle = lifetime.keep(Handle())
    before, parked = lifetime.kept_count(), lifetime.parked_count()
    thread = lifetime.release([handle])
    assert thread is not None
    assert lifetime.kept_count() == before - 1
    del handle  # the caller's own reference goes after the release: still freed there, not here
    thread.join(5)
    assert freed_on == ["kafkatop-release"]
    assert lifetime.parked_count() == parked


def test_a_handle_still_held_elsewhere_after_release_is_parked_not_freed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lifetime, "LAST_REFERENCE_WAIT_S", 0.2)
    held = lifetime.keep(object())
    parked = lifetime.parked_count()
    thread = lifetime.release([held])
    assert thread is not None
    thread.join(5)
    assert lifetime.parked_count() == parked + 1


# --- by construction: no other way to make a handle --------------------------------------------------------------
HANDLE_CLASSES = {"AdminClient", "Consumer", "Producer"}


def _handle_calls_outside_keep(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    kept: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name == "keep":
                kept.update(id(a) for a in node.args)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and id(node) not in kept:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in HANDLE_CLASSES:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}(…)")
    return found


def test_every_client_handle_is_made_through_keep() -> None:
    """An AdminClient, Consumer or Producer made anywhere but as keep(…)'s argument could be freed on librdkafka's
    threads: backends/kafka/handles.py (or, in Spark's process, model.lifetime.keep) is the only way."""
    files = [p for d in ("backends", "spark", "tui") for p in (ROOT / d).rglob("*.py")]
    offenders = [f for p in files for f in _handle_calls_outside_keep(p)]
    assert offenders == []
    # The check sees what it looks for: the raw constructor calls in the child script above.
    probe = ROOT / "tests" / "unit" / "_probe_handles.py"
    probe.write_text(CHILD)
    try:
        assert [f.split(" ")[1] for f in _handle_calls_outside_keep(probe)] == ["AdminClient(…)"]
    finally:
        probe.unlink()


def test_an_admin_owner_answers_until_closed_then_says_so() -> None:
    from confluent_kafka.admin import AdminClient

    from kafkatop.backends.kafka.handles import AdminOwner, admin_client
    from kafkatop.backends.model.connection import KafkaConnection

    connection = KafkaConnection.parse("127.0.0.1:1")
    with AdminOwner(
        connection, 1.0, lambda: RuntimeError("closed"), lambda: admin_client(connection.config())
    ) as owner:
        assert isinstance(owner._client(), AdminClient)
    assert owner._admin is None
    with pytest.raises(RuntimeError, match="closed"):
        owner._client()
    owner.close()  # a second close lets go of nothing
