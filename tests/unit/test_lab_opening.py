"""A lab is shown as found (issue 38, point 9): what the live view does with a lab it opens, decided from what runs in
it (tui/cli/compose_lab.py). Started only when none of its nodes runs; a node found stopped or killed stays so; a
read-only context starts, sets, creates and stops nothing. The lab cluster itself, opened by the live view on real
processes: tests/integration/test_lab_as_found.py (and on a real Kafka 4.1, test_lab_as_found_kafka.py)."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest

from kafkatop.backends.lab.spec import NodeSpec
from kafkatop.backends.lab.state import LabSnapshot, NodeStatus
from kafkatop.backends.model.nodes import NodeState, ProcessRole
from kafkatop.tui.cli.compose import compose_sources
from kafkatop.tui.cli.compose_lab import LabOpening, lab_opening, lab_startup
from kafkatop.tui.cli.contexts import apply_context
from kafkatop.tui.cli.exits import UsageError
from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.parser import build_parser

UP = "kafkatop up --name e"
NODES = (
    NodeSpec("controller-101", ProcessRole.CONTROLLER, 101, 19600),
    NodeSpec("broker-1", ProcessRole.BROKER, 1, 19500),
    NodeSpec("broker-2", ProcessRole.BROKER, 2, 19501),
)


def lab(**states: NodeState) -> LabSnapshot:
    """Lab `e` with each node in the state given (up when not named): a pid where it runs, none where it does not."""
    statuses = []
    for i, node in enumerate(NODES):
        state = states.get(node.name.replace("-", "_"), NodeState.UP)
        running = state is NodeState.UP
        statuses.append(NodeStatus(node, state, 4000 + i if running else None, 1.0 if running else None,
                                   Path(f"{node.name}.properties"), Path(f"{node.name}.log")))  # fmt: skip
    return LabSnapshot("e", "kraft", "/opt/kafka", "4.1.0", "id", Path("/tmp/h3-e"), tuple(statuses))


ALL_DOWN = {"controller_101": NodeState.DOWN, "broker_1": NodeState.DOWN, "broker_2": NodeState.DOWN}


def test_a_lab_entirely_down_is_started_and_stopped_on_quit() -> None:
    assert lab_opening(lab(**ALL_DOWN), None, UP) == LabOpening(start=True, adopted=False, set_features=True)


def test_a_lab_found_running_is_left_as_found() -> None:
    assert lab_opening(lab(), None, UP) == LabOpening(start=False, adopted=True, set_features=True)


def test_nodes_found_stopped_or_killed_stay_so_and_the_view_says_so() -> None:
    """Broker 1 stopped and broker 2 killed -9 (its intent still up: `failed`), to watch ELR: not started again."""
    opening = lab_opening(lab(broker_1=NodeState.DOWN, broker_2=NodeState.FAILED), None, UP)
    assert (opening.start, opening.adopted, opening.not_running) == (False, True, None)
    (warning,) = opening.warnings
    assert "broker-1 (down), broker-2 (failed) not running: shown as found" in warning, warning
    assert "`s` on a node starts it" in warning and "quitting leaves the lab as found" in warning


@pytest.mark.parametrize("states", [ALL_DOWN, {"broker_1": NodeState.KILLED}, {}], ids=["down", "partly", "up"])
def test_a_read_only_lab_is_neither_started_nor_set_nor_stopped(states: dict[str, NodeState]) -> None:
    opening = lab_opening(lab(**states), "context 'rolab' is read-only", UP)
    assert (opening.start, opening.adopted, opening.set_features) == (False, True, False)
    hint = "context 'rolab' is read-only: kafkatop starts nothing here; `kafkatop up --name e` starts it"
    assert opening.not_running == hint
    assert all(hint in w for w in opening.warnings) and len(opening.warnings) == (1 if states else 0)
    if states is ALL_DOWN:
        assert opening.warnings[0].startswith("lab cluster 'e' is not running; ")


def test_nothing_runs_at_start_up_unless_there_is_something_to_do() -> None:
    features = {"eligible.leader.replicas.version": 1}
    unused: object = object()  # neither the lab nor its connection is touched to decide
    found = LabOpening(start=False, adopted=True, set_features=True)
    read_only = LabOpening(start=False, adopted=True, set_features=False)
    assert lab_startup(unused, unused, found, {}) is None  # type: ignore[arg-type]
    assert lab_startup(unused, unused, read_only, features) is None  # type: ignore[arg-type]
    assert lab_startup(unused, unused, found, features) is not None  # type: ignore[arg-type]


def test_a_read_only_context_never_creates_its_lab(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No lab at its state dir: refused (exit 2) before anything is offered, downloaded or written, terminal or not."""
    (isolated / "kafkatop.toml").write_text('[contexts.rolab]\nlab = "rolab"\nstate-dir = "labs"\nread-only = true\n')
    assert main(["--context", "rolab"]) == 2
    err = capsys.readouterr().err
    assert "context 'rolab' is read-only, and lab cluster 'rolab' does not exist" in err, err
    assert f"`kafkatop up --name rolab --state-dir {isolated / 'labs'}` creates and starts it" in err, err
    assert sorted(p.name for p in isolated.iterdir()) == ["kafkatop.toml"]  # no state, no download
    args = build_parser().parse_args(["--context", "rolab"])
    apply_context(args)
    with ExitStack() as stack, pytest.raises(UsageError, match="kafkatop creates nothing here"):
        compose_sources(args, stack, terminal=False)  # headless too, where a Kafka install would be found and used
    assert sorted(p.name for p in isolated.iterdir()) == ["kafkatop.toml"]


def test_a_labs_flags_are_those_a_command_needs_to_reach_it(isolated: Path) -> None:
    """The lab's --name and --state-dir where not the default, quoted for a shell: the Connect tab's add-connect."""
    from kafkatop.backends.lab.state import default_state_root
    from kafkatop.tui.cli.compose_lab import lab_flags

    assert lab_flags("lab", default_state_root()) == ""
    assert lab_flags("e", default_state_root()) == "--name e"
    assert lab_flags("lab", isolated / "my labs") == f"--state-dir '{isolated / 'my labs'}'"
    assert lab_flags("e", Path("/tmp/labs")) == "--name e --state-dir /tmp/labs"
