"""Native client handles that may only die on a thread of kafkatop's own.

librdkafka aborts the process when rd_kafka_destroy() runs on one of its own threads ("calling rd_kafka_destroy()
from librdkafka owned thread is prohibited"). confluent-kafka calls it wherever the Python handle is freed: where its
last reference goes, or wherever the cycle collector happens to run, which is any thread that allocates, and
librdkafka's threads run Python too (an AdminClient completes its futures, and their callbacks, on its background
thread). So a handle's end cannot be left to reference counting. Instead:

- `keep(handle)` on creation: a module-level registry holds a reference from then on, so nothing else letting go of
  the handle (a callback, a collected cycle, an exception's traceback) can free it;
- `release(box)` is the only way out: a thread of kafkatop's own takes the handles, closes them, waits until it holds
  their last reference, and drops it there. A handle still referenced elsewhere after that wait is parked for the
  life of the process and counted (`parked_count`): a leak that a test can see, never an abort.

Standard library only: Spark's tasks ship this module to executors with the data source.
"""

from __future__ import annotations

import atexit
import gc
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

H = TypeVar("H")

# How long a releasing thread waits for other references (a caller's local variable, a frame on its way out) to go.
LAST_REFERENCE_WAIT_S = 5.0

_lock = threading.Lock()
_kept: dict[int, Any] = {}  # id(handle) -> handle, from creation until release
_parked: list[Any] = []  # released handles someone else still held: never freed


def keep(handle: H) -> H:
    """`handle`, registered: it stays alive until `release` takes it, whoever else lets go of it."""
    with _lock:
        _kept[id(handle)] = handle
    return handle


def kept_count() -> int:
    """Handles created and not yet released."""
    with _lock:
        return len(_kept)


def parked_count() -> int:
    """Released handles that were still referenced elsewhere, kept alive for good rather than freed off-thread."""
    with _lock:
        return len(_parked)


def release(
    box: list[Any], close: Callable[[Any], None] | None = None, wait_s: float | None = None
) -> threading.Thread | None:
    """Frees the handles in `box` (the caller's last references: it must hold no other) on a thread of their own.

    `close` runs first on each (a Consumer's close(), which leaves its destructor nothing to wait for). Destroying a
    handle waits for its threads, longer with a broker down: the caller may join the returned thread with a bound,
    and the interpreter's exit never waits for it (a daemon thread).
    """
    if not box:
        return None
    handles = list(box)
    box.clear()
    wait = LAST_REFERENCE_WAIT_S if wait_s is None else wait_s
    thread = threading.Thread(target=_free, args=(handles, close, wait), name="kafkatop-release", daemon=True)
    thread.start()
    return thread


def _free(handles: list[Any], close: Callable[[Any], None] | None, wait_s: float) -> None:
    while handles:
        handle = handles.pop(0)  # in order: callers put the handles whose destroy may hang last
        with _lock:
            _kept.pop(id(handle), None)
        if close is not None:
            try:
                close(handle)
            except Exception:  # noqa: BLE001 - a handle being thrown away has nothing left to report to
                pass
        # getrefcount counts its own argument and this frame's variable: 2 means this thread holds the last one.
        end = time.monotonic() + wait_s
        while sys.getrefcount(handle) > 2 and time.monotonic() < end:
            time.sleep(0.01)
        if sys.getrefcount(handle) > 2:
            with _lock:
                _parked.append(handle)
        del handle  # the last reference: the destructor (rd_kafka_destroy) runs here, on this thread


# At exit: how long a handle referenced elsewhere is waited for, and how long freeing them all may take.
EXIT_REFERENCE_WAIT_S = 0.5
EXIT_WAIT_S = 3.0


@atexit.register
def _release_at_exit() -> None:
    """At exit, what was never released is freed while the interpreter is still whole. A handle left alive into the
    interpreter's finalization keeps librdkafka threads that call into Python (its logger, error_cb) as Python is
    torn down, and the process dies of SIGSEGV. Garbage cycles holding handles are collected first; the handles are
    then freed on a release thread, as ever, joined for EXIT_WAIT_S at most (a dead broker can hold a destroy for
    seconds). What is still referenced elsewhere, or not freed by then, is parked on a daemon thread: the process's
    end frees it."""
    gc.collect()
    with _lock:
        left = list(_kept.values())
    thread = release(left, wait_s=EXIT_REFERENCE_WAIT_S)
    if thread is not None:
        thread.join(EXIT_WAIT_S)
    with _lock:
        parked = [*_parked, *_kept.values()]
        _parked.clear()
        _kept.clear()
    if parked:
        threading.Thread(target=_hold, args=(parked,), name="kafkatop-parked", daemon=True).start()


def _hold(handles: list[Any]) -> None:
    """Holds `handles` in this frame until the process ends (a daemon thread's frame is never torn down)."""
    threading.Event().wait()
