"""What the keys do to the cluster's topics, leaders, replicas and groups (a node's keys: view_keys.ProcessKeys): a
topic created or deleted, leaders elected, replicas moved, a group deleted, configs changed, the durability check.
Each asks what it needs first (a dialog, a confirmation), then runs in the app's action worker; its end comes back as
an ActionFinished.

A dialog's module is imported when it is first opened: the view's start compiles none of them (about 1,300 lines)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from kafkatop.backends.insight.elections import finished_text, plan_topic, started_text
from kafkatop.backends.model.configs import ConfigResource
from kafkatop.backends.model.elections import ElectionPlan, ElectionType
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.nodes import ProcessRole
from kafkatop.backends.model.operations import OperationKind, OperationPhase, OperationStep
from kafkatop.backends.model.reassignment import ReassignmentPlan
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.model.topics import NewTopicRequest
from kafkatop.backends.ports import LeaderElections, Reassignments
from kafkatop.tui.live.acting import Acting
from kafkatop.tui.live.reassigning import follow_reassignment
from kafkatop.tui.live.screens.confirm import ConfirmScreen

if TYPE_CHECKING:
    from kafkatop.tui.live.screens.reassign import ReassignRequest


class ClusterActions:
    def __init__(self, app: Acting) -> None:
        self.app = app
        self.reassigning: ReassignmentPlan | None = None  # the plan kafkatop is following, if one

    def create_topic(self) -> None:
        app = self.app
        factory = app.sources.topic_admin
        if factory is None:
            app.notify("topics cannot be created here", severity="warning")
            return
        live = len(app.view.cluster.brokers_alive) if app.view.cluster is not None else None

        def create(request: NewTopicRequest | None) -> None:
            if request is None:
                return

            def run() -> None:
                admin = factory()
                try:
                    admin.create_topic(request.name, request.partitions, request.replication_factor, request.configs)
                finally:
                    admin.close()

            app.act(f"topic {request.name} created", run)

        from kafkatop.tui.live.screens.create_topic import CreateTopicScreen

        app.push_screen(CreateTopicScreen(live), create)

    def delete_topic(self, topic: str | None) -> None:
        app = self.app
        factory = app.sources.topic_admin
        if topic is None or factory is None:
            app.notify("highlight a row of the topic to delete", severity="warning")
            return

        def answered(yes: bool | None) -> None:
            if not yes:
                return

            def delete() -> None:
                admin = factory()
                try:
                    admin.delete_topic(topic)
                finally:
                    admin.close()

            app.act(f"topic {topic} deleted", delete)

        about = app.view.cluster.topic(topic) if app.view.cluster is not None else None
        detail = "This cannot be undone."
        if about is not None:
            messages = sum(p.messages or 0 for p in about.partitions)
            detail = f"{len(about.partitions)} partition(s), {messages} message(s). This cannot be undone."
        question = f"Delete topic {topic!r} and all its messages?"
        app.push_screen(ConfirmScreen(question, detail=detail, typed=app.settings.typed_name), answered)

    def transactions(self) -> None:
        """i: the transactions not ended yet, read again every 2 s (the screen's own worker)."""
        from kafkatop.tui.live.screens.transactions import TransactionsScreen

        app = self.app
        reader = app.sources.transactions
        if reader is None:
            app.notify("i lists the transactions of a live Kafka cluster: the demo's mock answers no ListTransactions "
                       "and a replay asks nothing; run a lab (or attach to a Kafka 3.0+) to see them",
                       severity="warning", timeout=6)  # fmt: skip
            return
        app.push_screen(TransactionsScreen(reader, lambda: app.view.cluster.brokers_alive if app.view.cluster else ()))

    def durability(self, topic: str | None) -> None:
        app = self.app
        if app.sources.durability is None:
            app.notify("the durability check needs a cluster kafkatop can reach", severity="warning")
            return
        kind = app.view.nodes.kind if app.view.nodes is not None else None
        from kafkatop.tui.live.screens.durability import DurabilityScreen

        app.push_screen(DurabilityScreen(app.sources.durability, topic, can_restart=kind != "attach"))

    def configs(self, *, node: str | None, broker: int | None, topic: str | None) -> None:
        """The Configs screen of a broker (by the process highlighted, or the broker in Brokers) or a topic."""
        app = self.app
        if app.sources.configs is None:
            app.notify("configs cannot be read here", severity="warning")
            return
        if node is not None:
            view = app.view.nodes.node(node) if app.view.nodes is not None else None
            if view is None or view.node_id is None or view.role not in (ProcessRole.BROKER, ProcessRole.COMBINED):
                app.notify(f"{node} is not a broker: C shows a broker's configs, or a topic's in Partitions",
                           severity="warning")  # fmt: skip
                return
            broker = view.node_id
        if broker is not None:
            resource = ConfigResource.broker(broker)
        elif topic is not None:
            resource = ConfigResource.topic(topic)
        else:
            app.notify("C shows the configs of the topic highlighted in Partitions, or of the broker highlighted in "
                       "Brokers or in the process table (0)", severity="warning", timeout=5)  # fmt: skip
            return
        subject = topic if broker is None else None

        def changed(said: str) -> None:
            app.feed.operation(OperationStep(OperationKind.CONFIG_CHANGE, OperationPhase.DONE, said, subject))

        from kafkatop.tui.live.screens.configs import ConfigsScreen

        app.push_screen(
            ConfigsScreen(app.sources.configs, resource, changed, read_only_reason=app.settings.read_only_reason)
        )

    # --- leader elections and new partitions ----------------------------------------------------------------------
    def elect(
        self, election_type: ElectionType, partition: TopicPartition | None, shown: tuple[TopicPartition, ...] = ()
    ) -> None:
        """The election screen for the highlighted partition's topic (the scope and kind can change there); what it
        returns is sent, told to the timeline before and after."""
        app = self.app
        factory = app.sources.elections
        snapshot = app.view.cluster
        if factory is None or snapshot is None:
            app.notify("leader elections need a cluster kafkatop can reach", severity="warning")
            return
        if partition is None:
            app.notify("no partition here to elect a leader for", severity="warning")
            return
        try:
            elections = factory()
        except KafkatopError as e:
            app.notify(str(e), title="leader election", severity="error", timeout=8)
            return
        note = elections.note

        def read_log_ends(wanted: Mapping[TopicPartition, int]) -> tuple[dict[TopicPartition, int], list[str]]:
            return elections.log_ends(snapshot, wanted)

        def chosen(plan: ElectionPlan | None) -> None:
            if plan is None or not plan.moving:
                elections.close()
                return
            app.act(started_text(plan), lambda: self._elect(elections, plan, note))

        from kafkatop.tui.live.screens.elect_leaders import ElectionScopes, ElectLeadersScreen

        screen = ElectLeadersScreen(
            snapshot, election_type, ElectionScopes(partition, shown if len(shown) > 0 else ()),
            high_watermarks=app.feed.history.last_high_watermarks(), read_log_ends=read_log_ends, note=note,
            typed=app.settings.typed_name,
        )  # fmt: skip
        app.push_screen(screen, chosen)

    def _elect(self, elections: LeaderElections, plan: ElectionPlan, note: str | None) -> None:
        feed, kind = self.app.feed, OperationKind.LEADER_ELECTION
        topic = plan_topic(plan)
        by = " (the demo's controller)" if note else ""
        try:
            feed.operation(OperationStep(kind, OperationPhase.STARTED, started_text(plan) + by, topic))
            try:
                results = elections.elect(plan.election_type, [c.partition for c in plan.moving])
            except KafkatopError as e:
                feed.operation(OperationStep(kind, OperationPhase.FAILED, f"{plan.election_type.word} leader "
                                             f"election failed: {e}", topic))  # fmt: skip
                raise
            phase = OperationPhase.FAILED if results.failed and not results.elected else OperationPhase.DONE
            feed.operation(OperationStep(kind, phase, finished_text(results), topic))
            if results.failed:
                raise KafkatopError(finished_text(results))
        finally:
            elections.close()

    # --- reassignments ------------------------------------------------------------------------------------------
    def reassign(self, topic: str | None) -> None:
        """`m`: the reassignment screen for the highlighted topic; while one of kafkatop's runs, `m` offers to cancel
        it. What the screen returns is started and followed in the action worker, each step on the timeline."""
        app = self.app
        admin, snapshot = app.sources.reassignments, app.view.cluster
        if admin is None:
            self._lab_only("has no partition reassignment (AlterPartitionReassignments)")
            return
        if self.reassigning is not None:
            running = self.reassigning

            def cancel(yes: bool | None) -> None:
                if yes:
                    app.act("reassignment cancelled", lambda: admin.cancel([m.key for m in running.changes]))

            names = ", ".join(m.name for m in running.changes[:6]) + (" …" if len(running.changes) > 6 else "")
            question = "Cancel the running reassignment?"
            detail = f"Kafka puts {names} back on the replicas they had before it began."
            app.push_screen(ConfirmScreen(question, yes="Cancel it", detail=detail), cancel)
            return
        if snapshot is None or topic is None or snapshot.topic(topic) is None:
            app.notify("highlight a row of the topic whose replicas to move", severity="warning")
            return

        def chosen(request: ReassignRequest | None) -> None:
            if request is not None:
                self.reassigning = request.plan
                app.act(f"reassignment of {topic} done", lambda: self._follow(admin, request))

        from kafkatop.tui.live.screens.reassign import ReassignScreen

        app.push_screen(ReassignScreen(snapshot, topic), chosen)

    def _lab_only(self, lacks: str) -> None:
        self.app.notify(f"the demo's mock cluster {lacks}: run a lab cluster (kafkatop --kafka-home DIR) to try it",
                        severity="warning", timeout=6)  # fmt: skip

    def _follow(self, admin: Reassignments, request: ReassignRequest) -> None:
        try:
            follow_reassignment(admin, request, self.app.feed, lambda: self.app.view.cluster)
        finally:
            self.reassigning = None

    # --- consumer groups --------------------------------------------------------------------------------------------
    def delete_group(self, group_id: str | None, offsets_only: bool) -> None:
        """`x`: delete the highlighted group; `X`: its committed offsets of every topic it has them for. Each asks
        first, says what its consumers do next, and tells Kafka's refusal (members, or topics still consumed)."""
        app = self.app
        tools, snapshot = app.sources.group_tools, app.view.cluster
        if tools is None:
            self._lab_only("cannot delete groups or offsets (no DeleteGroups, no OffsetDelete)")
            return
        group = next((g for g in snapshot.groups if g.group_id == group_id), None) if snapshot else None
        if group is None:
            app.notify("highlight a group in the Groups tab first", severity="warning")
            return
        if offsets_only and group.group_type == "share":
            app.notify(f"{group.group_id} is a share group: its start offsets are deleted with `kafkatop share-groups "
                       f"--delete-offsets --group {group.group_id} --topic T` (DeleteShareGroupOffsets, not "
                       "OffsetDelete)", severity="warning", timeout=8)  # fmt: skip
            return
        partitions: dict[str, list[int]] = {}
        for o in group.offsets:
            partitions.setdefault(o.topic, []).append(o.partition)
        if offsets_only and not partitions:
            app.notify(f"group {group.group_id} has no committed offsets to delete", severity="warning")
            return
        then = "its consumers start again from auto.offset.reset (latest, unless they say earliest)"
        if offsets_only:
            question = f"Delete group {group.group_id}'s committed offsets of {', '.join(sorted(partitions))}?"
            detail = f"Next time {then}. Kafka refuses while the group consumes a topic."
        else:
            question = f"Delete consumer group {group.group_id}?"
            detail = f"Its committed offsets go with it: {then}. Kafka refuses while it has members."

        def delete() -> None:
            kind, done = OperationKind.GROUP_CHANGE, OperationPhase.DONE
            if offsets_only:
                outcome = tools.delete_offsets(group.group_id, partitions)
                refused = sorted({why for why in outcome.values() if why is not None})
                if refused:
                    raise KafkatopError(f"Kafka refused to delete offsets of group {group.group_id}: "
                                        + "; ".join(refused))  # fmt: skip
                text = f"group {group.group_id}'s committed offsets of {', '.join(sorted(partitions))} deleted"
            else:
                why = tools.delete_groups([group.group_id]).get(group.group_id)
                if why is not None:
                    raise KafkatopError(f"Kafka refused to delete group {group.group_id}: {why}")
                text = f"consumer group {group.group_id} deleted"
            app.feed.operation(OperationStep(kind, done, text))

        def go(yes: bool | None) -> None:
            if yes:
                what = "offsets deleted" if offsets_only else "deleted"
                app.act(f"group {group.group_id}: {what}", delete)

        app.push_screen(ConfirmScreen(question, yes="Delete", detail=detail, typed=app.settings.typed_name), go)

    def add_partitions(self, topic: str | None) -> None:
        app = self.app
        factory = app.sources.topic_admin
        about = app.view.cluster.topic(topic) if app.view.cluster is not None and topic is not None else None
        if factory is None or about is None:
            app.notify("highlight a row of the topic to add partitions to", severity="warning")
            return
        current = len(about.partitions)

        def validate(total: int) -> None:
            admin = factory()
            try:
                admin.add_partitions(about.name, total, validate_only=True)
            finally:
                admin.close()

        def chosen(total: int | None) -> None:
            if total is None:
                return
            kind = OperationKind.ADD_PARTITIONS

            def run() -> None:
                text = f"add partitions: {about.name} {current} → {total}"
                app.feed.operation(OperationStep(kind, OperationPhase.STARTED, text, about.name))
                admin = factory()
                try:
                    admin.add_partitions(about.name, total)
                except KafkatopError as e:
                    app.feed.operation(OperationStep(kind, OperationPhase.FAILED, f"{text} failed: {e}", about.name))
                    raise
                finally:
                    admin.close()
                app.feed.operation(OperationStep(kind, OperationPhase.DONE, f"{text}: done", about.name))

            app.act(f"topic {about.name}: {current} → {total} partitions", run)

        from kafkatop.tui.live.screens.add_partitions import AddPartitionsScreen

        app.push_screen(AddPartitionsScreen(about.name, current, validate), chosen)
