"""How a part of the live view gets its data — one road each way:

- what the pollers deliver arrives as the app's LiveView, handed to every pane (`LivePane.receive`): drawn at once while
  the pane is on screen, and again when it is shown (its tab brought to the front), so tabs out of sight cost nothing
  and nothing has to remember to redraw them;
- what a pane itself asks of a port (a page of messages, a count, a group's reset plan, a line to produce) goes
  through `ask`: a thread worker started by the pane, whose answer, progress and failure come back as one message
  (`Answer`) handled on the UI thread — never a fetch on the UI thread, never a `call_from_thread` of a pane's own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from textual.message import Message
from textual.widget import Widget
from textual.worker import Worker, get_current_worker

from kafkatop.backends.insight.grants import Refused
from kafkatop.backends.model.acls import Grant
from kafkatop.backends.model.consoles import NoSuchTopic
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.tui.live.granting import GrantsMet, refused_text
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.widgets.fields import no_topic_text

T = TypeVar("T")
P = TypeVar("P")


def failure_text(error: BaseException, app: object = None) -> str:
    """What a failure says on screen: kafkatop's own errors as they are (a missing topic with the key that creates it,
    the authorizer's refusal with the line that grants it on `app`'s cluster); anything else with its type named (a
    library error's message alone is often a bare word)."""
    if isinstance(error, NoSuchTopic):
        return no_topic_text(error.topic)
    if isinstance(error, Refused):
        return refused_text(error, app)
    return str(error) if isinstance(error, KafkatopError) else f"{type(error).__name__}: {error}"


def grants_of(error: BaseException) -> tuple[Grant, ...]:
    """What would let a refused request through (the authorizer's refusal), for M; () for any other failure."""
    return error.grants if isinstance(error, Refused) else ()


class LivePane:
    """Mixed into a widget: the app hands every pane each new LiveView; `take` sees every one, `draw` renders the
    latest while the pane is on screen."""

    _fed: LiveView | None = None

    def receive(self, view: LiveView) -> None:
        self._fed = view
        self.take(view)
        if isinstance(self, Widget) and self.is_on_screen:
            self.draw(view)

    def take(self, view: LiveView) -> None:
        """Every view, on screen or not: for what must not be missed while out of sight (a console's new lines)."""

    def redraw(self) -> None:
        """Draw the last view again (after a change of the pane's own, such as a picked topic)."""
        if self._fed is not None:
            self.draw(self._fed)

    def on_show(self) -> None:
        self.redraw()

    def draw(self, view: LiveView) -> None:
        raise NotImplementedError


@dataclass
class Answer(Message):
    """A port's reply to the widget that asked (or its progress, or its failure): run on the UI thread."""

    deliver: Callable[[], None]
    worker: Worker[None]
    exclusive: bool

    def handle(self) -> None:
        # An exclusive question asked again: the older answer would overwrite the newer one's.
        if not (self.exclusive and self.worker.is_cancelled):
            self.deliver()


def ask(
    widget: Widget,
    group: str,
    question: Callable[[Callable[[P], None]], T],
    answered: Callable[[T], None],
    failed: Callable[[str], None],
    *,
    progress: Callable[[P], None] | None = None,
    exclusive: bool = True,
) -> Worker[None]:
    """Runs `question(tell)` in a thread worker of `widget` in `group`. What it `tell`s goes to `progress`, what it
    returns to `answered`, a failure (as `failure_text`) to `failed` — each on the UI thread, through the widget's
    message queue. `exclusive`: a new question in the group makes the older one's answers dropped (a newer page)."""

    app = widget.app  # asked on the UI thread: the worker's refusal names the line of this app's cluster

    def run() -> None:
        worker = get_current_worker()

        def reply(deliver: Callable[[], None]) -> None:
            widget.post_message(Answer(deliver, worker, exclusive))

        def tell(value: P) -> None:
            if progress is not None:
                reply(lambda: progress(value))

        try:
            result = question(tell)
        except Exception as e:  # noqa: BLE001 - a port's failure is shown where it was asked, never a crash
            text = failure_text(e, app)
            if grants := grants_of(e):
                widget.post_message(GrantsMet(grants))  # the app keeps it: M grants it
            reply(lambda: failed(text))
        else:
            reply(lambda: answered(result))

    return widget.run_worker(run, group=group, thread=True, exclusive=exclusive, exit_on_error=False)


class Asking:
    """Mixed into a widget that uses `ask`: its answers are run here."""

    def on_answer(self, message: Answer) -> None:
        message.stop()
        message.handle()
