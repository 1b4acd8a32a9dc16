"""kafkatop's demo cluster: the librdkafka mock with the labs' layout, for a first run without any Kafka install.

`DemoControl` lets the node panes kill, stop and start the mock's brokers, and plays the part of Kafka's controller,
which the mock lacks: it places the replicas of new topics as Kafka does (the mock gives every partition 1,2,3), keeps
each partition's ISR (the mock always answers ISR = replicas), elects leaders when a broker goes down (a mock broker
keeps its leaderships), returns preferred leaders later as Kafka's automatic leader rebalance does, and moves group
coordinators off a broker that is down (the mock would keep sending a group to it). `overlay` puts that state into the
snapshots the app shows, so the table, the status bar and the timeline tell what this controller decided.

This module holds the node panes' side; the controller's state is controller.py, and each of its roles a module next
to it (controller_failover.py, controller_topics.py, controller_elections.py, controller_overlay.py).
"""

from __future__ import annotations

import time
from typing import Any

from kafkatop.backends.demo.controller import DemoBroker
from kafkatop.backends.demo.controller_elections import ControllerElections
from kafkatop.backends.demo.controller_failover import ControllerFailover
from kafkatop.backends.demo.controller_overlay import ControllerOverlay
from kafkatop.backends.demo.controller_topics import ControllerTopics
from kafkatop.backends.kafka import handles
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.nodes import NodesSnapshot, NodeState, NodeView, ProcessRole, check_action

DEMO_DETAIL = "mock broker inside kafkatop (DEMO)"


_TAIL_LINES = 40


class DemoControl(ControllerFailover, ControllerTopics, ControllerElections, ControllerOverlay):
    """The demo's three mock brokers as nodes, with Kafka's failover emulated around the mock.

    What is emulated, as a Kafka controller does it:
    - a broker killed (or stopped) leaves the ISR of its partitions, and each partition it led gets as leader the
      first replica in assignment order that is alive and in the ISR; a partition whose last in-sync replica goes
      down is offline (leader -1), its ISR keeping that last replica;
    - `stop` is a controlled shutdown: leadership moves while the broker still runs, then it goes down; `kill`
      takes it down first. Both end the same way: the difference is in the event lines (and, on a real cluster, in
      the seconds clients spend on a dead leader);
    - a broker that starts catches up at once (the mock shares one log between replicas) and rejoins the ISR;
      an offline partition gets a leader again only from its ISR, unless `unclean_leader_election` (Kafka's
      unclean.leader.election.enable, default false) lets any replica lead;
    - `rebalance_delay_s` after a start, partitions whose preferred leader (first replica) is alive and in sync
      go back to it, as auto.leader.rebalance.enable does (None: never);
    - the controller and the coordinator of every group it knows (the demo's, and those of kafkatop's consumers,
      see place_group) move off a broker that goes down;
    - a topic's replicas are placed as Kafka places them (see assignment.py), and its partitions start led by their
      preferred leader (a topic made in the mock directly keeps the mock's leaders until the rebalance delay has
      passed); topics are created and deleted through the mock's own calls (it has no CreateTopics).
    The mock cannot report an ISR of its own (it always answers ISR = replicas) nor these replica lists: `overlay`
    replaces what its metadata says with what is kept here.
    """

    # --- nodes -----------------------------------------------------------------------------------------------------
    def _broker(self, name: str) -> DemoBroker:
        ref = name.strip().removeprefix("broker").strip(" -")
        if ref.isdigit() and int(ref) in self._brokers:
            return self._brokers[int(ref)]
        names = ", ".join(f"broker-{b}" for b in self._brokers)
        raise KafkatopError(f"no node {name!r} in the demo cluster; its nodes are: {names}")

    def _view(self, broker: DemoBroker, now: float) -> NodeView:
        up = broker.state is NodeState.UP
        tail = [e.line for e in self._events if broker.id in e.brokers][-_TAIL_LINES:]
        return NodeView(
            name=f"broker-{broker.id}",
            role=ProcessRole.BROKER,
            node_id=broker.id,
            state=broker.state,
            pid=None,
            ports=(broker.port,) if broker.port is not None else (),
            cpu_percent=None,
            rss_bytes=None,
            uptime_s=max(0.0, now - broker.started_at) if up else None,
            detail=DEMO_DETAIL,
            log_tail=tuple(tail),
            actions=frozenset({"kill", "stop", "restart"}) if up else frozenset({"start", "restart"}),
        )

    def poll(self) -> NodesSnapshot:
        with self._lock:
            now = time.time()
            return NodesSnapshot(
                taken_at=now,
                kind="demo",
                title=f"DEMO · librdkafka mock, {len(self._brokers)} brokers",
                nodes=tuple(self._view(b, now) for b in self._brokers.values()),
                can_add_broker=False,
            )

    # --- actions ---------------------------------------------------------------------------------------------------
    def _checked(self, name: str, action: str) -> DemoBroker:
        if self._closed:
            raise KafkatopError("the demo cluster is closed")
        broker = self._broker(name)
        check_action(action, self._view(broker, time.time()))
        return broker

    def _going_down(self, name: str, action: str, metadata: Any) -> DemoBroker:
        """The broker about to go down, checked; the topics as the cluster had them learned first (its elections)."""
        broker = self._checked(name, action)
        if metadata is not None:
            self._learn_topics(metadata)
        return broker

    def kill(self, name: str) -> None:
        """kill -9: the broker is gone at once; then the controller elects new leaders."""
        metadata = self._fresh_metadata()
        with self._lock:
            broker = self._going_down(name, "kill", metadata)
            self.mock.set_broker_down(broker.id)
            broker.state = NodeState.KILLED
            self._went_down(broker.id, "killed")

    def stop(self, name: str) -> None:
        """A controlled shutdown: leaders move away while the broker still serves, then it goes down."""
        metadata = self._fresh_metadata()
        with self._lock:
            broker = self._going_down(name, "stop", metadata)
            broker.state = NodeState.DOWN  # no longer eligible: elections below skip it
            try:
                self._went_down(broker.id, "stopped (controlled shutdown)")
            finally:
                self.mock.set_broker_down(broker.id)

    def start(self, name: str) -> None:
        with self._lock:
            broker = self._checked(name, "start")
            self.mock.set_broker_up(broker.id)
            broker.state = NodeState.UP
            broker.started_at = time.time()
            self._came_up(broker.id)

    def restart(self, name: str) -> None:
        """A controlled stop, then a start; of a broker that is down, a start."""
        with self._lock:
            running = self._checked(name, "restart").state is NodeState.UP
        if running:
            self.stop(name)
        self.start(name)

    def add_broker(self) -> str:
        raise KafkatopError("the demo cluster has a fixed 3 brokers; run a lab cluster (kafkatop up) to add brokers")

    def close(self) -> None:
        """Cancels a pending rebalance and closes the mock cluster (the demo lives in this process)."""
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            box: list[Any] = [self._admin] if self._admin is not None else []
            self._admin = None
        handles.release(box)
        self.demo.close()
