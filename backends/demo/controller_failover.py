"""Failover in the demo: what Kafka's controller does when a broker goes down or comes back, which the librdkafka
mock does not (a mock broker that goes down keeps its leaderships, and a group keeps its coordinator).

Down: the broker leaves the ISR of its partitions, each partition it led gets the next live in-sync replica as
leader (or goes offline), and the controller and group coordinators move off it. Up: it rejoins the ISRs at once (the
mock shares one log between replicas), offline partitions get a leader again from their ISR (or from any replica,
under unclean.leader.election.enable), and preferred leaders return after the rebalance delay.
"""

from __future__ import annotations

from kafkatop.backends.demo.controller import DemoController, joined_ids
from kafkatop.backends.model.cluster import NO_LEADER
from kafkatop.backends.model.java_order import string_hash
from kafkatop.backends.model.nodes import NodeState


class ControllerFailover(DemoController):
    """The controller's answer to a broker going down (`_went_down`) or starting (`_came_up`); the caller holds the
    lock and has set the broker's state."""

    def _went_down(self, b: int, how: str) -> None:
        who = f"broker {b} {how}"
        followed = 0
        for tp, part in sorted(self._partitions.items()):
            if b not in part.replicas:
                continue
            if b in part.isr and len(part.isr) > 1:
                part.isr.remove(b)  # the last in-sync replica stays in the ISR: only it may lead again
            if part.leader != b:
                followed += 1
                continue
            leader = self._elect(part)
            self._set_leader(tp, part, leader)
            if leader == NO_LEADER:
                self._event(f"{who}: {tp} offline: no other in-sync replica (ISR {joined_ids(part.isr)})", b)
            else:
                self._event(f"{who}: leader of {tp} → {leader}", b, leader)
        if followed:
            self._event(f"{who}: out of the ISR of {followed} partition(s) it followed", b)
        live = self._live()
        if self._controller == b and live:
            self._controller = live[0]  # in ZooKeeper mode, whichever broker creates /controller first
            self.mock.set_controller(live[0])
            self._event(f"{who}: controller moves to broker {live[0]}", b, live[0])
        for group, coordinator in self._coordinators.items():
            if coordinator == b and live:
                new = live[abs(string_hash(group)) % len(live)]
                self._coordinators[group] = new
                self.mock.set_group_coordinator(group, new)
                self._event(f"{who}: coordinator of group {group} moves to broker {new}", b, new)

    def _came_up(self, b: int) -> None:
        who = f"broker {b} started"
        rejoined = 0
        for tp, part in sorted(self._partitions.items()):
            if b not in part.replicas:
                continue
            if part.leader != NO_LEADER:
                if b not in part.isr:
                    part.isr.append(b)  # caught up at once: the mock keeps one log per partition
                    rejoined += 1
                continue
            if b in part.isr or self.unclean_leader_election:
                if b not in part.isr:
                    part.isr = [b]  # unclean: what the other replicas had and b lacks is lost
                    self._event(f"{who}: unclean leader election: {tp} led by {b}, an out-of-sync replica", b)
                self._set_leader(tp, part, b)
                live = self._live()
                part.isr = [r for r in part.replicas if r in live]
                self._event(f"{who}: leader of {tp} → {b} (was offline)", b)
            else:
                last = joined_ids(part.isr)
                self._event(
                    f"{who}: {tp} stays offline until its last in-sync replica ({last}) is back "
                    "(unclean.leader.election.enable=false)",
                    b,
                )
        if rejoined:
            self._event(f"{who}: back in the ISR of {rejoined} partition(s)", b)
        if self._controller is None or self._brokers[self._controller].state is not NodeState.UP:
            self._controller = b
            self.mock.set_controller(b)
            self._event(f"{who}: controller moves to broker {b}", b)
        for group, coordinator in self._coordinators.items():
            if self._brokers[coordinator].state is not NodeState.UP:
                self._coordinators[group] = b
                self.mock.set_group_coordinator(group, b)
                self._event(f"{who}: coordinator of group {group} moves to broker {b}", b)
        if self.rebalance_delay_s is not None and self._preferred_moves():
            self._event(f"{who}: preferred leaders return in {self.rebalance_delay_s:g} s (leader rebalance)", b)
            self._schedule_rebalance(self.rebalance_delay_s)
