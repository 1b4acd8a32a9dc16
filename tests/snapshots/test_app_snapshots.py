"""Screenshots of the app from recorded snapshots (pytest-textual-snapshot): fixed data and size, no clock, no
network, no processes (process panes come from RecordedControl, a named test double)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from textual.widgets import Input

from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.model.recording import Recorded
from kafkatop.backends.recording.file import read_recording
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.replay import Replay
from kafkatop.tui.live.sources import Settings, Sources
from tests.fixtures.snapshots import (
    TAKEN_AT,
    RecordedControl,
    RecordedSparkCounts,
    failover_lab,
    failover_snapshot,
    group_snapshot,
    kraft_lab,
    zk_lab,
)

# Polls never repeat during a snapshot test: the next one is a day away.
FROZEN = Settings(poll_interval_s=86_400, ensemble_interval_s=86_400)


async def settled(pilot: Any) -> None:
    """Every source polled once and drawn."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def settled_on_tab(key: str) -> Callable[[Any], Awaitable[None]]:
    async def show(pilot: Any) -> None:
        await settled(pilot)
        await pilot.press(key)
        await pilot.pause()

    return show


def test_main_screen_zookeeper_mode(snap_compare: Any) -> None:
    cluster, nodes, zk = zk_lab()
    sources = Sources(lambda: cluster, RecordedControl(nodes), lambda: zk)
    app = KafkatopApp(sources, FROZEN, clock=lambda: TAKEN_AT)
    assert snap_compare(app, terminal_size=(110, 30), run_before=settled)


def test_zookeeper_pane(snap_compare: Any) -> None:
    cluster, nodes, zk = zk_lab()
    app = KafkatopApp(Sources(lambda: cluster, RecordedControl(nodes), lambda: zk), FROZEN, clock=lambda: TAKEN_AT)
    assert snap_compare(app, terminal_size=(110, 30), run_before=settled_on_tab("7"))


def test_main_screen_kraft_mode(snap_compare: Any) -> None:
    cluster, nodes, quorum = kraft_lab()
    app = KafkatopApp(Sources(lambda: cluster, RecordedControl(nodes), lambda: quorum), FROZEN, clock=lambda: TAKEN_AT)
    assert snap_compare(app, terminal_size=(110, 30), run_before=settled)


def replay(*snapshots: ClusterSnapshot) -> Callable[[], ClusterSnapshot]:
    """Each poll returns the next snapshot, then the last one again."""
    it: Iterator[ClusterSnapshot] = iter(snapshots)
    last = snapshots[-1]

    def poll() -> ClusterSnapshot:
        return next(it, last)

    return poll


def test_failover_moment(snap_compare: Any) -> None:
    """A broker killed: leaders moved, ISRs shrunk, one partition offline; the rows that changed are highlighted."""
    before = failover_snapshot()
    healthy = replace(
        before,
        taken_at=TAKEN_AT - 1,
        brokers=tuple(replace(b, alive=True) for b in before.brokers),
        topics=tuple(
            replace(t, partitions=tuple(
                replace(p, leader=p.replicas[0], isr=p.replicas, offline_replicas=()) for p in t.partitions))
            for t in before.topics
        ),
    )  # fmt: skip
    app = KafkatopApp(
        Sources(replay(healthy, before), RecordedControl(failover_lab())),
        Settings(poll_interval_s=0.01, ensemble_interval_s=86_400),
        clock=lambda: TAKEN_AT,
    )

    async def second_poll(pilot: Any) -> None:
        await settled(pilot)
        while pilot.app.snapshot is None or pilot.app.snapshot.taken_at != TAKEN_AT:
            await pilot.pause(0.02)
        pilot.app.hold()  # hold the screen still for the screenshot
        await pilot.pause()

    assert snap_compare(app, terminal_size=(110, 30), run_before=second_poll)


def test_consumer_group_panel(snap_compare: Any) -> None:
    """Two consumers of one group share the partitions: members, assignment, committed offsets, lag."""
    snapshot = group_snapshot()
    _, nodes, zk = zk_lab()
    app = KafkatopApp(Sources(lambda: snapshot, RecordedControl(nodes), lambda: zk), FROZEN, clock=lambda: TAKEN_AT)
    assert snap_compare(app, terminal_size=(110, 30), run_before=settled_on_tab("5"))


def test_create_topic_dialog_shows_validation_errors(snap_compare: Any) -> None:
    cluster, nodes, zk = zk_lab()

    class NoAdmin:
        """Never reached: the dialog refuses the input before anything is sent."""

    sources = Sources(lambda: cluster, RecordedControl(nodes), lambda: zk, topic_admin=NoAdmin)
    app = KafkatopApp(sources, FROZEN, clock=lambda: TAKEN_AT)

    async def bad_input(pilot: Any) -> None:
        await settled(pilot)
        await pilot.press("c")
        await pilot.pause()
        dialog = pilot.app.screen
        dialog.query_one("#topic-name").value = "bad name!"
        dialog.query_one("#replication-factor").value = "5"
        for field in dialog.query(Input):
            field.cursor_blink = False  # a blinking cursor would make the screenshot depend on the moment
        dialog.query_one("#topic-name").focus()
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(app, terminal_size=(110, 30), run_before=bad_input)


def test_main_screen_at_80x24(snap_compare: Any) -> None:
    cluster, nodes, zk = zk_lab()
    app = KafkatopApp(Sources(lambda: cluster, RecordedControl(nodes), lambda: zk), FROZEN, clock=lambda: TAKEN_AT)
    assert snap_compare(app, terminal_size=(80, 24), run_before=settled)


def test_source_down_keeps_last_data_with_its_age(snap_compare: Any) -> None:
    polls = iter([failover_snapshot()])

    def poll() -> ClusterSnapshot:
        for snap in polls:
            return snap
        raise SourceUnavailable("kafka", "no metadata from bootstrap server 127.0.0.1:9092 within 2 s")

    app = KafkatopApp(poll, Settings(poll_interval_s=0.01), clock=lambda: TAKEN_AT + 42)

    async def second_poll_failed(pilot: Any) -> None:
        await pilot.pause()
        while pilot.app.view.failure is None:  # the second poll's failure (a worker's error, handled by the app)
            await pilot.pause(0.02)
        pilot.app.hold()  # hold the screen still for the screenshot

    assert snap_compare(app, terminal_size=(100, 24), run_before=second_poll_failed)


def test_spark_panel(snap_compare: Any) -> None:
    """Counts per partition with bars, the watermark check (markers after the last record; a partition whose low
    watermark is 40), an empty partition, top keys."""
    cluster, nodes, quorum = kraft_lab()
    sources = Sources(lambda: cluster, RecordedControl(nodes), lambda: quorum, spark=RecordedSparkCounts())
    app = KafkatopApp(sources, FROZEN, clock=lambda: TAKEN_AT)

    async def counted(pilot: Any) -> None:
        await settled_on_tab("8")(pilot)
        await pilot.press("g")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 34), run_before=counted)


def test_timeline_tab(snap_compare: Any) -> None:
    """A kill -9, the start after it and a controlled shutdown of broker 2 in ZooKeeper mode: the steps of the
    highlighted incident with the time between them, and kill -9 beside the controlled shutdown (deregistered
    after 18 s, when the ZooKeeper session expired, against 1.6 s)."""
    from tests.unit.test_timeline import (
        T0,
        baseline,
        controlled_shutdown,
        kill_9_in_zookeeper_mode,
        restart_broker_2,
        state_change,
    )

    cluster, nodes, zk = zk_lab()
    app = KafkatopApp(Sources(lambda: cluster, RecordedControl(nodes), lambda: zk), FROZEN, clock=lambda: TAKEN_AT)
    baseline(app.timeline)
    kill_9_in_zookeeper_mode(app.timeline)
    restart_broker_2(app.timeline, T0 + 30)
    app.timeline.observe_zookeeper(state_change(T0 + 45, 0, (3, (1, 2, 3), 7), (2, (1, 2, 3), 8)))
    controlled_shutdown(app.timeline, T0 + 60)
    assert snap_compare(app, terminal_size=(130, 44), run_before=settled_on_tab("9"))


# --- from a recording of a real Kafka 4.1 lab (3 combined KRaft nodes): kill -9 broker-1, then start it ---------------
RECORDING = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "kraft-4.1-kill-restart.jsonl.gz"


def _not_polled() -> ClusterSnapshot:
    raise AssertionError("a replay polls nothing")


def replayed(until: Callable[[Recorded], bool]) -> tuple[KafkatopApp, int]:
    """The app replaying the recording, paused; and how many entries it delivers: up to the first that `until`
    accepts."""
    recording = read_recording(RECORDING)
    entries = recording.entries
    count = next((i + 1 for i, e in enumerate(entries) if until(e)), len(entries))
    replay = Replay(recording, paused=True)
    replay.name = RECORDING.name
    return KafkatopApp(Sources(_not_polled), FROZEN, replay=replay), count


def delivered(count: int, tab: str | None = None) -> Callable[[Any], Awaitable[None]]:
    async def run(pilot: Any) -> None:
        replay = pilot.app.replay
        await pilot.pause()
        replay.step(count)
        while replay.state().delivered < count:
            await pilot.pause(0.02)
        await pilot.pause(0.1)
        pilot.app.clear_notifications()  # the replayed actions' notices: gone after a few seconds anyway
        if tab is not None:
            await pilot.press(tab)
        await pilot.pause()
        await pilot.pause()

    return run


def test_replay_of_a_kill_9_once_kraft_fenced_the_broker(snap_compare: Any) -> None:
    """Recorded on a real Kafka 4.1 lab: 9 s after kill -9 the quorum fenced broker-1: leaders moved, every ISR
    shrank (the rows just changed are highlighted), broker-1 killed in the process table."""

    def fenced(e: Recorded) -> bool:
        return e.kind == "cluster" and 1 not in {b.id for b in e.payload.brokers_alive}  # type: ignore[union-attr]

    app, count = replayed(fenced)
    assert snap_compare(app, terminal_size=(120, 34), run_before=delivered(count + 1))


def test_replay_timeline_after_the_restart(snap_compare: Any) -> None:
    """The whole recording: the kill -9 (broker fenced after 9 s) and the start that recovered in ~3 s."""
    app, count = replayed(lambda e: False)
    assert snap_compare(app, terminal_size=(120, 34), run_before=delivered(count, tab="9"))


def test_replay_at_80x24(snap_compare: Any) -> None:
    """The replay's banner and its keys at the size of a default terminal."""
    app, count = replayed(lambda e: e.kind == "action")
    assert snap_compare(app, terminal_size=(80, 24), run_before=delivered(count))
