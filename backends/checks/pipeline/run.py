"""The Connect pipeline check's run: a topic of one partition, a FileStreamSource appending a file of sequenced lines
into it and a FileStreamSink writing it back out, the lines appended at a steady rate, the worker running the source
task killed (or stopped) midway and started again once its task runs elsewhere, then every stage counted.

Status is read every half second on this thread while a writer thread appends the lines, so a kill lands
mid-stream and each task's moves are timed. Everything the run created is removed at its end (unless `keep`), and a
worker it took down is started again even when the run fails or is interrupted (unless asked to leave it down).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from confluent_kafka import Consumer, KafkaError, KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition

from kafkatop.backends.checks.pipeline.verdict import SinkTail, count_stage
from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.cluster.topics import TopicAdmin
from kafkatop.backends.kafka.errors import describe_error
from kafkatop.backends.model.connect import ConnectSnapshot, ConnectTask
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.nodes import NodeState, NodeView, ProcessRole
from kafkatop.backends.model.pipeline import (
    PipelineError,
    PipelineEvent,
    PipelineRefused,
    PipelineReport,
    PipelineSettings,
    sequenced_line,
)
from kafkatop.backends.ports import ConnectCluster, NodeControl

STATUS_EVERY_S = 0.5
STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"
SOURCE_CLASS = "org.apache.kafka.connect.file.FileStreamSourceConnector"
SINK_CLASS = "org.apache.kafka.connect.file.FileStreamSinkConnector"


class LineWriter(threading.Thread):
    """Appends the run's lines to the source file at `rate` per second, in small flushed batches."""

    def __init__(self, path: Path, run_id: str, lines: int, rate: float) -> None:
        super().__init__(name="kafkatop-pipeline-writer", daemon=True)
        self.path, self.run_id, self.lines, self.rate = path, run_id, lines, rate
        self.appended = 0
        self.stopped = threading.Event()
        self.mark: int | None = None  # a count of lines to reach…
        self.reached = threading.Event()  # …set once appended (the fault is made then, not at the next status read)

    def run(self) -> None:
        started = time.monotonic()
        with open(self.path, "a", encoding="utf-8") as f:
            while self.appended < self.lines and not self.stopped.is_set():
                due = min(self.lines, int((time.monotonic() - started) * self.rate) + 1)
                if due > self.appended:
                    f.write("".join(sequenced_line(self.run_id, s) + "\n" for s in range(self.appended, due)))
                    f.flush()
                    self.appended = due
                    if self.mark is not None and due >= self.mark:
                        self.reached.set()
                self.stopped.wait(0.02)


class PipelineCheck:
    def __init__(
        self,
        connection: KafkaConnection,
        connect: ConnectCluster,
        control: NodeControl | None,
        settings: PipelineSettings,
        run_dir: Path,
        *,
        worker_config: Mapping[str, str] | None = None,
        on_progress: Callable[[str], None] | None = None,
        lab_flags: str = "",
    ) -> None:
        self.connection, self.connect, self.control = connection, connect, control
        self.settings = settings.validate()
        if settings.kill_at is not None and control is None:
            raise PipelineRefused(
                "a fault needs workers kafkatop can kill and start: run it on a lab (`up --connect 2`), or --fault none"
            )
        self.run_id = secrets.token_hex(4)
        self.run_dir = run_dir / self.run_id
        self.source_file, self.sink_file = self.run_dir / "in.txt", self.run_dir / "out.txt"
        self._sink = SinkTail(self.sink_file, self.run_id)
        self.topic = f"kafkatop-pipeline-{self.run_id}"
        self.source, self.sink = f"{self.topic}-source", f"{self.topic}-sink"
        self.worker_config = dict(worker_config or {})
        self.on_progress = on_progress
        self.lab_flags = lab_flags  # `--name X --state-dir D`: what the commands it suggests need to reach the lab
        self.started = time.monotonic()
        self.events: list[PipelineEvent] = []
        self.problems: list[str] = []
        self.taken_down: str | None = None  # the worker the run killed or stopped, while it is down
        self.fault_at: float | None = None
        self.failover_s: float | None = None
        self.stale_said = False
        self._tasks: dict[tuple[str, int], tuple[str, str]] = {}  # (connector, task) -> (state, worker) last seen

    # --- reporting -------------------------------------------------------------------------------------------------
    def event(self, what: str) -> None:
        self.events.append(PipelineEvent(time.monotonic() - self.started, what))
        self.progress(what)

    def progress(self, what: str) -> None:
        if self.on_progress is not None:
            self.on_progress(what)

    def _worker_name(self, worker_id: str) -> str:
        """`127.0.0.1:8083 (connect-1)` where the lab's node for that port is known."""
        node = self._node_of(worker_id)
        return f"{worker_id} ({node.name})" if node is not None else worker_id or "no worker"

    def _node_of(self, worker_id: str) -> NodeView | None:
        if self.control is None or not worker_id:
            return None
        port = worker_id.rpartition(":")[2]
        for node in self.control.poll().nodes:
            if node.role is ProcessRole.CONNECT and port.isdigit() and int(port) in node.ports:
                return node
        return None

    # --- the run ---------------------------------------------------------------------------------------------------
    def run(self) -> PipelineReport:
        snapshot = self._preflight()
        writer = LineWriter(self.source_file, self.run_id, self.settings.lines, self.settings.rate)
        if self.settings.kill_at is not None:
            writer.mark = max(1, int(self.settings.lines * self.settings.kill_at))
        complete = False
        try:
            self._create(snapshot)
            writer.start()
            self.event(f"appending {self.settings.lines} lines at {self.settings.rate:g}/s to {self.source_file}")
            complete = self._watch(writer)
        finally:
            writer.stopped.set()
            writer.join(5.0)
            self._restore()
            try:
                stages = (
                    count_stage("topic", self._read_topic(), self.run_id, writer.appended),
                    count_stage("file out", self._read_lines(self.sink_file), self.run_id, writer.appended),
                )
            finally:
                self._clean_up()
        return PipelineReport(
            run_id=self.run_id,
            settings=self.settings,
            workers=self.connect.urls,
            topic=self.topic,
            source_file=str(self.source_file),
            sink_file=str(self.sink_file),
            lines_in=writer.appended,
            stages=stages,
            events=tuple(self.events),
            failover_s=self.failover_s,
            rebalance_delay_ms=_int(self.worker_config.get("scheduled.rebalance.max.delay.ms"), 300_000),
            offset_flush_ms=_int(self.worker_config.get("offset.flush.interval.ms"), 60_000),
            complete=complete,
            problems=tuple(self.problems),
        )

    def _preflight(self) -> ConnectSnapshot:
        snapshot = self.connect.poll()
        if snapshot.problem is not None:
            raise PipelineRefused(f"no Connect worker answered: {snapshot.problem}")
        live = [w for w in snapshot.workers if w.reachable]
        if self.settings.kill_at is not None and len(live) < 2:
            raise PipelineRefused(
                f"{len(live)} Connect worker answered ({', '.join(w.url for w in live) or 'none'}): a fault needs a "
                "second one for the source task to move to. Add one with `kafkatop add-connect`, or run with "
                "--fault none"
            )
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.source_file.touch()
        return snapshot

    def _create(self, snapshot: ConnectSnapshot) -> None:
        try:
            metadata = handles.admin_client(self.connection.config("kafkatop-pipeline")).list_topics(timeout=10)
        except KafkaException as e:
            raise PipelineError(f"cannot read the cluster's brokers: {describe_error(e)}") from None
        with TopicAdmin(self.connection) as admin:
            admin.create_topic(self.topic, 1, max(1, min(3, len(metadata.brokers))))
        common = {"tasks.max": "1", "key.converter": STRING_CONVERTER, "value.converter": STRING_CONVERTER}
        self.connect.create(
            self.source, {**common, "connector.class": SOURCE_CLASS, "file": str(self.source_file), "topic": self.topic}
        )
        self.connect.create(
            self.sink, {**common, "connector.class": SINK_CLASS, "file": str(self.sink_file), "topics": self.topic}
        )
        self.event(f"created topic {self.topic} and connectors {self.source}, {self.sink}")
        deadline = time.monotonic() + 60.0
        while time.monotonic() < deadline:
            tasks = self._observe()
            if all(t.state == "RUNNING" for t in tasks.values()) and len(tasks) == 2:
                return
            time.sleep(STATUS_EVERY_S)
        raise PipelineError(f"the connectors' tasks were not RUNNING within 60 s: {self._task_states()}")

    def _task_states(self) -> str:
        return ", ".join(f"{c} task {t}: {state}" for (c, t), (state, _w) in sorted(self._tasks.items())) or "none"

    def _observe(self) -> dict[str, ConnectTask]:
        """Each connector's task 0 now; an event for every change of state or worker."""
        try:
            snapshot = self.connect.poll()
        except KafkatopError as e:
            self.progress(f"status not read: {e}")
            return {}
        found: dict[str, ConnectTask] = {}
        for name, role in ((self.source, "source"), (self.sink, "sink")):
            connector = snapshot.connector(name)
            task = next((t for t in connector.tasks if t.task == 0), None) if connector is not None else None
            if task is None:
                continue
            found[role] = task
            now = (task.state, task.worker_id)
            if (
                self.taken_down is not None
                and not self.stale_said
                and task.state == "RUNNING"
                and (node := self._node_of(task.worker_id)) is not None
                and node.name == self.taken_down
            ):
                self.stale_said = True
                self.event(
                    f"{role} task still reported RUNNING on {node.name}, which is down: a dead worker's last status "
                    "stays in the status topic until the group gives its tasks to another worker"
                )
            if self._tasks.get((role, 0)) != now:
                self._tasks[(role, 0)] = now
                where = f" on {self._worker_name(task.worker_id)}" if task.worker_id else ""
                self.event(f"{role} task {task.state}{where}")
                if (
                    role == "source"
                    and task.state == "RUNNING"
                    and self.fault_at is not None
                    and self.failover_s is None
                ):
                    self.failover_s = time.monotonic() - self.fault_at
        return found

    def _watch(self, writer: LineWriter) -> bool:
        """Until the sink has every line, or the deadline after the last line appended; the fault on the way."""
        deadline: float | None = None
        while True:
            if writer.mark is not None and writer.reached.is_set() and self.fault_at is None:
                self._fault(writer.appended)
            self._observe()
            if self.taken_down is not None and self.failover_s is not None and self.settings.restart != "never":
                self._start_again()
            if deadline is None and not writer.is_alive():
                deadline = time.monotonic() + self.settings.timeout_s
                self.event(f"all {writer.appended} lines appended")
            if deadline is not None:
                distinct = self._sink.distinct(writer.appended)
                self.progress(f"sink has {distinct} of {writer.appended} lines")
                if distinct >= writer.appended and (self.taken_down is None or self.settings.restart == "never"):
                    self.event(f"the sink wrote every one of the {writer.appended} lines")
                    return True
                if time.monotonic() >= deadline:
                    return False
            if self.fault_at is None:
                writer.reached.wait(STATUS_EVERY_S)  # woken at the mark, to make the fault there
            else:
                time.sleep(STATUS_EVERY_S)

    def _fault(self, appended: int) -> None:
        """Kill (or stop) the worker the source task was last seen on."""
        node_worker = self._tasks.get(("source", 0), ("", ""))[1]
        node = self._node_of(node_worker)
        self.fault_at = time.monotonic()
        if node is None or self.control is None:
            self.problems.append("the worker running the source task is not one of the lab's: no fault was made")
            self.failover_s = 0.0
            return
        also = " and the sink task" if self._tasks.get(("sink", 0), ("", ""))[1] == node_worker else ""
        signal = "kill -9" if self.settings.fault == "kill" else "stop (SIGTERM)"
        self.event(f"{signal} {node.name}: it ran the source task{also}; {appended} lines appended")
        try:
            (self.control.kill if self.settings.fault == "kill" else self.control.stop)(node.name)
        except KafkatopError as e:
            raise PipelineError(f"cannot {self.settings.fault} {node.name}: {e}") from None
        self.taken_down = node.name
        self.event(f"{node.name} is down")

    def _start_again(self) -> None:
        name, self.taken_down = self.taken_down, None
        assert name is not None and self.control is not None
        self.event(f"starting {name} again")
        try:
            self.control.start(name)
        except KafkatopError as e:
            self.problems.append(f"{name} did not start again: {e}; `kafkatop start {name}{self.lab_flags}`")
            return
        self.event(f"{name} is up again")

    def _restore(self) -> None:
        """A worker the run took down is started again (the run failed or was interrupted before it was)."""
        if self.taken_down is None or self.control is None:
            return
        if self.settings.restart == "never":
            self.problems.append(
                f"{self.taken_down} was left down, as asked: `kafkatop start {self.taken_down}{self.lab_flags}`"
            )
            return
        node = next((n for n in self.control.poll().nodes if n.name == self.taken_down), None)
        if node is not None and node.state in (NodeState.KILLED, NodeState.DOWN):
            self._start_again()

    # --- counting --------------------------------------------------------------------------------------------------
    @staticmethod
    def _read_lines(path: Path) -> list[str]:
        try:
            return path.read_text(encoding="utf-8", errors="replace").splitlines()
        except FileNotFoundError:
            return []

    def _read_topic(self) -> list[str | None]:
        """Every record of the topic's one partition, up to its end, as text."""
        config = self.connection.config("kafkatop-pipeline")
        config.update({"group.id": f"kafkatop-pipeline-{self.run_id}", "enable.auto.commit": False,
                       "enable.partition.eof": True, "auto.offset.reset": "earliest"})  # fmt: skip
        consumer: Consumer = handles.consumer(config)
        values: list[str | None] = []
        try:
            _low, high = consumer.get_watermark_offsets(KafkaTopicPartition(self.topic, 0), timeout=10, cached=False)
            if high <= 0:
                return values
            consumer.assign([KafkaTopicPartition(self.topic, 0, 0)])
            deadline = time.monotonic() + 60.0
            while time.monotonic() < deadline:
                for msg in consumer.consume(num_messages=1000, timeout=0.5):
                    err = msg.error()
                    if err is not None:
                        if err.code() == KafkaError._PARTITION_EOF and (msg.offset() or 0) >= high:
                            return values
                        continue
                    raw = msg.value()
                    values.append(None if raw is None else raw.decode("utf-8", errors="replace"))
                    if (msg.offset() or 0) + 1 >= high:
                        return values
            self.problems.append(f"{self.topic}: read {len(values)} records of {high} within 60 s")
            return values
        except KafkaException as e:
            self.problems.append(f"{self.topic} could not be read back: {describe_error(e)}")
            return values
        finally:
            consumer.close()

    def _clean_up(self) -> None:
        if self.settings.keep:
            self.problems.append(
                f"kept: connectors {self.source}, {self.sink}, topic {self.topic}, files in {self.run_dir}"
            )
            return
        for name in (self.sink, self.source):
            try:
                self.connect.delete(name)
            except KafkatopError as e:
                self.problems.append(f"connector {name} not deleted: {e}")
        try:
            with TopicAdmin(self.connection) as admin:
                admin.delete_topic(self.topic)
        except KafkatopError as e:
            self.problems.append(f"topic {self.topic} not deleted: {e}")
        try:  # the sink's consumer group, `connect-<name>`, which Connect leaves behind
            admin_client = handles.admin_client(self.connection.config("kafkatop-pipeline"))
            admin_client.delete_consumer_groups([f"connect-{self.sink}"], request_timeout=10)[
                f"connect-{self.sink}"
            ].result(timeout=10)
        except Exception as e:  # noqa: BLE001 - best effort: a group left behind is only named
            self.problems.append(f"consumer group connect-{self.sink} not deleted: {e}")
        for path in (self.source_file, self.sink_file):
            path.unlink(missing_ok=True)
        try:
            self.run_dir.rmdir()
        except OSError:
            pass


def _int(value: str | None, default: int) -> int:
    """A worker setting as a number, else Kafka's default for it."""
    return int(value) if value is not None and value.strip().isdigit() else default
