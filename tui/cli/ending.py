"""How the live view ends, whatever ends it: q, SIGTERM, SIGHUP (its terminal closed), SIGINT, or a bug.

Each way out goes through the same unwinding (compose.run_live_view's ExitStack): the app's clients closed, then the
lab nodes this kafkatop started stopped, brokers before controllers (or left running with --detach, and said so).
A signal while the app runs asks it to quit, as q does; a signal before it runs unwinds as Ctrl-C; once the way out
has begun, further signals are ignored, so the stop cannot be cut short and leave orphan JVMs.
"""

from __future__ import annotations

import signal
import sys
import threading
from types import FrameType, TracebackType
from typing import Any, Protocol

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class QuittableApp(Protocol):
    def call_from_thread(self, callback: Any, *args: Any) -> Any: ...
    def exit(self, result: Any = None) -> None: ...
    def run(self) -> Any: ...

    @property
    def return_code(self) -> int | None: ...


class Ending:
    """Installs the signal handlers for the live view's life (a context manager); `run(app)` runs the app."""

    def __init__(self) -> None:
        self.signal: int | None = None  # the signal that ended the view, if one did
        self._app: QuittableApp | None = None
        self._stopping = False
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> Ending:
        self._previous = {s: signal.signal(s, self._handle) for s in SIGNALS}
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        for s, h in self._previous.items():
            signal.signal(s, h)

    def run(self, app: QuittableApp) -> int:
        """Runs the app; its exit status: 1 when it ended on an error (Textual has shown the traceback), 128 + the
        signal's number when a signal ended it, else 0."""
        self._app = app
        try:
            app.run()
        finally:
            self._app = None
            self._stopping = True  # what follows is the way out: no signal may cut it short
        if self.signal is not None:
            return 128 + self.signal
        return 1 if app.return_code else 0

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self._stopping:
            return
        self._stopping = True
        self.signal = signum
        app = self._app
        if app is None:
            raise KeyboardInterrupt  # before the app runs: unwind as Ctrl-C does
        # A signal handler runs on the event loop's own thread, between bytecodes: the exit is handed to the loop
        # from another thread, which wakes it (call_from_thread refuses to be called from the loop's thread).
        threading.Thread(target=_quit, args=(app,), name="kafkatop-quit", daemon=True).start()

    @property
    def name(self) -> str | None:
        return None if self.signal is None else signal.Signals(self.signal).name


def _quit(app: QuittableApp) -> None:
    try:
        app.call_from_thread(app.exit)
    except Exception:  # noqa: BLE001 - the app ended meanwhile: nothing left to quit
        pass


def say(message: str, *, error: bool = False) -> None:
    """A line for the user that never raises: on the way out the terminal may be gone (SIGHUP), and what follows the
    line (stopping the lab) must still happen."""
    try:
        print(message, file=sys.stderr if error else sys.stdout, flush=True)
    except (OSError, ValueError):
        pass
