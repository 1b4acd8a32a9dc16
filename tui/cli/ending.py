"""How the live view ends, whatever ends it: q, SIGTERM, SIGHUP (its terminal closed), SIGINT, or a bug.

Each way out goes through the same unwinding (`Ending.stack`, filled by compose.compose_app): the app's clients
closed, then the lab nodes this kafkatop started stopped, brokers before controllers (or left running with --detach,
and said so). A signal while the app runs asks it to quit, as q does; a signal before it runs unwinds as Ctrl-C; once
the way out has begun, further signals are ignored, so the stop cannot be cut short and leave orphan JVMs.

A closed terminal must not keep kafkatop alive. Textual's driver resumes on every SIGCONT, and the kernel sends one,
with SIGHUP, to a terminal's session leader when the terminal closes (tmux kill-session on `kafkatop …` as the pane's
command): resumed on a dead terminal, it started a second writer thread, which died on EIO, and the way out waited for
ever on that writer's full queue. The driver here resumes only after a suspension (Ctrl-Z), and never writes to, or
waits for, a writer that died. Whatever else a driver does, a watchdog, started when the way out begins, ends the
process, with one line on stderr, when the terminal has not let go (the driver closed) within LET_GO_S: after the
unwinding, which it then does itself, so that the lab nodes this kafkatop started are stopped first. Once the terminal
has let go, the rest of the way out (the app's last workers, the lab's nodes stopping) has its own bounds and is never
cut short.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from contextlib import ExitStack
from types import FrameType, TracebackType
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

if TYPE_CHECKING:
    from textual.driver import Driver

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

LET_GO_S = 10.0  # from the way out's start to the terminal given back (Textual's driver closed)


class QuittableApp(Protocol):
    driver_class: type[Driver]

    def call_from_thread(self, callback: Any, *args: Any) -> Any: ...
    def exit(self, result: Any = None) -> None: ...
    def run(self) -> Any: ...

    @property
    def is_running(self) -> bool: ...

    @property
    def return_code(self) -> int | None: ...


class Unwinding(ExitStack):
    """The live view's ExitStack, unwound once: by the way out, or by the watchdog when the way out is stuck in the
    terminal (whichever comes second waits for the first)."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._unwound = False

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> bool:
        with self._lock:
            if self._unwound:
                return False
            self._unwound = True
            return bool(super().__exit__(t, e, tb))


class Ending:
    """Installs the signal handlers for the live view's life (a context manager) and unwinds `stack` at its end;
    `run(app)` runs the app."""

    def __init__(self) -> None:
        self.signal: int | None = None  # the signal that ended the view, if one did
        self.stack = Unwinding()
        self._app: QuittableApp | None = None
        self._stopping = False
        self._previous: dict[int, Any] = {}
        self._began = threading.Lock()  # taken, never released, by the way out's start: once, even from a handler
        self._let_go = threading.Event()  # the terminal given back

    def __enter__(self) -> Ending:
        self._previous = {s: signal.signal(s, self._handle) for s in SIGNALS}
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self._stopping = True  # the unwinding is the way out, however it was reached
        try:
            self.stack.__exit__(t, e, tb)  # callbacks, which swallow no exception
        finally:
            for s, h in self._previous.items():
                signal.signal(s, h)

    def run(self, app: QuittableApp) -> int:
        """Runs the app; its exit status: 1 when it ended on an error (Textual has shown the traceback), 128 + the
        signal's number when a signal ended it, else 0."""
        self._app = app
        _guard_driver(app, self)
        try:
            app.run()
        finally:
            self._app = None
            self._stopping = True  # what follows is the way out: no signal may cut it short
            self._let_go.set()  # the app has ended: whatever its driver, the terminal is let go
        if self.signal is not None:
            return 128 + self.signal
        return 1 if app.return_code else 0

    def began(self) -> None:
        """The way out has begun (a signal, q, an error): the watchdog starts, once."""
        if not self._began.acquire(blocking=False):
            return
        threading.Thread(target=self._watch, args=(time.monotonic(),), name="kafkatop-watchdog", daemon=True).start()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self._stopping:
            return
        self._stopping = True
        self.signal = signum
        app = self._app
        if app is None:
            raise KeyboardInterrupt  # before the app runs: unwind as Ctrl-C does
        self.began()
        # A signal handler runs on the event loop's own thread, between bytecodes: the exit is handed to the loop
        # from another thread, which wakes it (call_from_thread refuses to be called from the loop's thread).
        threading.Thread(target=_quit, args=(app,), name="kafkatop-quit", daemon=True).start()

    def _watch(self, began: float) -> None:
        """A daemon thread: the process's normal end ends it too."""
        if self._let_go.wait(max(0.0, began + LET_GO_S - time.monotonic())):
            return  # what follows (the app's last workers, the lab's nodes stopping) has bounds of its own
        # The main thread is stuck in the terminal: the unwinding happens here, the lab's nodes stopped first.
        status = 1 if self.signal is None else 128 + self.signal
        try:
            self.stack.close()
        finally:
            _give_up(f"the terminal did not let go within {LET_GO_S:.0f} s", status)

    def driver_closed(self) -> None:
        self._let_go.set()

    @property
    def stopping(self) -> bool:
        return self._stopping

    @property
    def name(self) -> str | None:
        return None if self.signal is None else signal.Signals(self.signal).name


def _quit(app: QuittableApp) -> None:
    try:
        app.call_from_thread(app.exit)
    except Exception:  # noqa: BLE001 - the app ended meanwhile: nothing left to quit
        pass


def _give_up(why: str, status: int) -> NoReturn:
    """The process ends now, with one line on stderr; written from a thread of its own, so that a terminal that
    takes nothing cannot hold the end."""
    line = f"kafkatop: {why}; exiting\n".encode()
    writer = threading.Thread(target=_write_stderr, args=(line,), name="kafkatop-last-line", daemon=True)
    writer.start()
    writer.join(1.0)
    os._exit(status)


def _write_stderr(data: bytes) -> None:
    try:
        os.write(2, data)
    except OSError:
        pass


def _guard_driver(app: QuittableApp, ending: Ending) -> None:
    """Textual's Linux driver, kept from resuming on a terminal that has gone and from waiting on a dead writer (see
    the module's note); it tells `ending` when the app's shutdown begins and when the terminal is let go."""
    try:
        from textual.drivers.linux_driver import LinuxDriver
    except ImportError:  # no termios (Windows): Textual's own driver there, and no SIGCONT
        return
    if app.driver_class is not LinuxDriver:
        return  # one chosen by TEXTUAL_DRIVER: left as it is

    class GuardedDriver(LinuxDriver):
        _suspended = False

        def suspend_application_mode(self) -> None:
            super().suspend_application_mode()
            self._suspended = True

        def resume_application_mode(self) -> None:
            # Textual resumes on every SIGCONT, not only on the one after a Ctrl-Z; and never once the way out began.
            if not self._suspended or ending.stopping or not app.is_running:
                return
            self._suspended = False
            super().resume_application_mode()

        def disable_input(self) -> None:
            if not app.is_running:
                ending.began()  # the app's shutdown begins
            super().disable_input()

        def write(self, data: str) -> None:
            if self._writer_alive():
                super().write(data)

        def close(self) -> None:
            try:
                if self._writer_alive():
                    super().close()
            finally:
                if not app.is_running:
                    ending.driver_closed()

        def _writer_alive(self) -> bool:
            """False once the writer thread died (a write to a closed terminal: EIO) or was stopped: a write queued
            for it would wait for ever once its queue is full."""
            writer = self._writer_thread
            return writer is None or writer.is_alive()

    app.driver_class = GuardedDriver


def say(message: str, *, error: bool = False) -> None:
    """A line for the user that never raises: on the way out the terminal may be gone (SIGHUP), and what follows the
    line (stopping the lab) must still happen."""
    try:
        print(message, file=sys.stderr if error else sys.stdout, flush=True)
    except (OSError, ValueError):
        pass
