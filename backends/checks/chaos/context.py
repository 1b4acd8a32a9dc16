"""What every phase of a chaos run shares: the cluster, its control, the settings, the clients running during the
run, and the plumbing — acting on a node, reading the cluster, waiting unless cancelled, and telling what happens.
Settling (the cluster read the same twice in a row) and convergence (how many of kafkatop's own polls it took to
show that) are here too: the steps and the start of the run both use them."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

from kafkatop.backends.checks.chaos.clients import (
    WAIT_STEP_S,
    AdminFactory,
    ClusterSource,
    GroupConsumer,
    SequencedProducer,
    ViewPoller,
)
from kafkatop.backends.checks.chaos.verdict import cluster_state, expected_alive, polls_to_converge, unsettled_reason
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.lab.runner import NodeStartError
from kafkatop.backends.model.chaos import Action, ChaosEvent, ChaosSettings, ChaosStep, ClusterState
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.nodes import NodesSnapshot
from kafkatop.backends.ports import NodeControl

# A control action bounds itself (a lab start waits up to 120 s for the node to serve, a stop 30 s before SIGKILL);
# this only backstops it.
ACTION_WAIT_S = 180.0
# View polls measured after the cluster settled before the view is said never to have shown it.
CONVERGE_POLLS_MAX = 5


def first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text


@dataclass(frozen=True, slots=True)
class Settled:
    state: ClusterState
    since: float  # time.monotonic() when the first of the two equal reads ended
    view_index: int  # the view's poll count then: every view poll started since has at least this index


@dataclass
class Clients:
    producer: SequencedProducer | None = None
    consumer: GroupConsumer | None = None
    view: ViewPoller | None = None
    extra: list[str] = field(default_factory=list)


class ChaosContext:
    def __init__(
        self,
        control: NodeControl,
        connection: KafkaConnection,
        settings: ChaosSettings,
        *,
        admin_factory: AdminFactory | None = None,
        on_event: Callable[[ChaosEvent], None] | None = None,
    ) -> None:
        self.control = control
        self.connection = connection
        self.bootstrap_servers = connection.bootstrap_servers
        self.settings = settings
        self.admin_factory = admin_factory or self._default_admin
        self.on_event = on_event
        self.cancelled = threading.Event()
        self.actions: ThreadPoolExecutor | None = None
        self.check_isr = True
        self.clients = Clients()

    def _default_admin(self, connection: KafkaConnection) -> ClusterSource:
        return AdminSource(connection, timeout_s=self.settings.view_timeout_s)

    def emit(self, text: str, step: ChaosStep | None = None) -> None:
        if self.on_event is not None:
            self.on_event(ChaosEvent(time.time(), text, step))

    # --- plumbing ------------------------------------------------------------------------------------------------
    def config(self, client_id: str) -> dict[str, Any]:
        config = self.connection.config(client_id)
        # librdkafka backs reconnects off up to 10 s: a broker back from the dead would stay dark that long.
        config.setdefault("reconnect.backoff.max.ms", 1000)
        return config

    def nodes(self) -> NodesSnapshot | None:
        try:
            return self.control.poll()
        except Exception:  # noqa: BLE001 - an unreadable node list is "nothing to expect yet", never a crash
            return None

    def read(self, source: ClusterSource) -> tuple[ClusterSnapshot | None, str | None]:
        try:
            return source.poll(), None
        except KafkatopError as e:
            return None, str(e)
        except Exception as e:  # noqa: BLE001 - a read that fails is not a settled cluster; said, not raised
            return None, f"{type(e).__name__}: {e}"

    def wait(self, seconds: float) -> bool:
        """Sleeps, unless cancelled first (True)."""
        return self.cancelled.wait(max(0.0, seconds))

    def act(self, action: Action, node: str) -> str | None:
        """Performs the action; its error as one line (None: done). A bug in a control is an error, not a crash."""
        if self.actions is None:
            self.actions = ThreadPoolExecutor(1, thread_name_prefix="kafkatop-chaos-action")
        future = self.actions.submit(getattr(self.control, action), node)
        try:
            future.result(timeout=ACTION_WAIT_S)
        except FutureTimeout:
            return f"{action} {node} did not return within {ACTION_WAIT_S:g} s"
        except NodeStartError as e:
            return f"{e.node} {e.reason}"  # without the log tail: the node's log has it
        except KafkatopError as e:
            return first_line(str(e))
        except Exception as e:  # noqa: BLE001 - see above
            return f"{type(e).__name__}: {e}"
        return None

    # --- settling and convergence ---------------------------------------------------------------------------------
    def settle(self, deadline: float) -> tuple[Settled | None, str]:
        """Reads the cluster with a fresh AdminSource until it is as the nodes' states say and the same twice in a
        row; (None, why not) at the deadline."""
        source = self.admin_factory(self.connection)
        gap = max(0.1, self.settings.poll_interval_s)
        why = "not read yet"
        first: Settled | None = None
        try:
            while True:
                nodes = self.nodes()
                snapshot, reason = self.read(source)
                ended = time.monotonic()
                expected = None if nodes is None else expected_alive(nodes)
                not_yet = unsettled_reason(snapshot, expected, check_isr=self.check_isr)
                if not_yet is None:
                    state = cluster_state(snapshot, nodes, reason)
                    if first is not None and first.state == state:
                        return first, ""
                    view = self.clients.view
                    first = Settled(state, ended, 0 if view is None else view.count)
                else:
                    first, why = None, not_yet
                    if snapshot is None and reason is not None and not_yet == "no metadata":
                        why = reason
                if ended >= deadline:
                    return None, why if first is None else "it changed between reads"
                if self.wait(gap):
                    return None, "cancelled"
        finally:
            source.close()

    def converge(self, settled: Settled) -> int | None:
        """View polls started after the cluster settled, up to the first that shows it (None: none within
        CONVERGE_POLLS_MAX)."""
        view = self.clients.view
        assert view is not None
        s = self.settings
        limit = time.monotonic() + CONVERGE_POLLS_MAX * (s.poll_interval_s + s.view_timeout_s) + 1.0
        while True:
            polls = [p for p in view.polls(settled.view_index) if p.started_at >= settled.since]
            found = polls_to_converge(polls, settled.state, settled.since)
            if found is not None:
                return found
            if len(polls) >= CONVERGE_POLLS_MAX or time.monotonic() > limit or self.wait(WAIT_STEP_S):
                return None

    def shutdown_actions(self) -> None:
        if self.actions is not None:
            self.actions.shutdown(wait=False, cancel_futures=True)
            self.actions = None
