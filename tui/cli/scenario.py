"""`kafkatop scenario`: the labs as scenarios (backends/model/scenario.py) from the command line.

- `scenario list`: the built-in scenarios, one line each.
- `scenario check FILE`: is FILE a scenario? The first thing wrong, with its line; exit 2. Else what it would do.
- `scenario run NAME|FILE`: starts a lab of the scenario's shape (`up`'s options: --kafka-home, --state-dir,
  --base-port, --name; the scenario's name by default), creates its topics, runs its steps, prints each step and each
  expectation (✓ with when and what was seen, ✗ with what was seen at its deadline; --json: one object at the end),
  then stops the lab it started (--detach leaves it running). Exit 0 when every expectation held, 1 when one did not
  (or the lab failed), 2 bad input, 130 interrupted (the lab is stopped first).
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from functools import partial
from pathlib import Path

from kafkatop.backends.checks.scenario.builtin import builtin_scenarios
from kafkatop.backends.model.errors import unreadable
from kafkatop.backends.model.scenario import Scenario
from kafkatop.backends.model.scenario_file import ScenarioError, parse_scenario
from kafkatop.backends.model.scenario_report import ScenarioReport
from kafkatop.tui.cli.exits import BAD_INPUT, DONE, FAILED, INTERRUPTED, UsageError, err


def cmd_scenario(args: argparse.Namespace) -> int:
    if args.what == "list":
        for name, s in builtin_scenarios().items():
            print(f"{name:<12} {s.title}")
        return DONE
    if not args.target:
        err(f"scenario {args.what}: name a scenario (kafkatop scenario list) or a .toml file")
        return BAD_INPUT
    try:
        scenario = load(args.target, builtin_only=False)
    except ScenarioError as e:
        err(str(e))
        return BAD_INPUT
    if args.what == "check":
        print(f"{scenario.source}: scenario {scenario.name!r}, {len(scenario.steps)} steps:")
        for step in scenario.steps:
            by_key = " (by key in the live view; headless, done by kafkatop)" if step.by_key else ""
            print(f"  {step.number}. {step.describe()}{by_key}")
            for expected in step.expect:
                print(f"     expect {expected.describe()}")
        return DONE
    return run(args, scenario)


def live_scenario(args: argparse.Namespace) -> Scenario | None:
    """--scenario (`kafkatop scenario NAME`) for the live view: the scenario, and its cluster's shape for the lab
    started for it (a lab of its own name, unless --name says another)."""
    if not args.scenario:
        return None
    if args.bootstrap_server:
        raise UsageError("--scenario kills and starts nodes: it runs on a lab kafkatop starts (or --demo), not on a "
                         "cluster attached with --bootstrap-server")  # fmt: skip
    scenario = load(args.scenario, builtin_only=False)
    if not args.demo:
        shape = scenario.cluster
        args.name = args.name or scenario.name
        args.brokers, args.controllers = shape.brokers, shape.controllers
        if shape.connect:  # its workers (a lab's connect count from --connect or a config file kept if more)
            args.connect = max(getattr(args, "connect", None) or 0, shape.connect)
        args.mode = "zk" if shape.mode == "zookeeper" else "kraft"
    return scenario


def load(target: str, builtin_only: bool) -> Scenario:
    """A built-in scenario by name, or a file (a name ending in .toml, or an existing path)."""
    builtins = builtin_scenarios()
    if target in builtins:
        return builtins[target]
    path = Path(target).expanduser()
    if builtin_only or not (target.endswith(".toml") or path.exists()):
        raise ScenarioError(f"no scenario named {target!r}: built in are {', '.join(builtins)} (or give a .toml file)")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ScenarioError(f"{target}: {unreadable(e, 'a folder, not a scenario file')}") from None
    except UnicodeDecodeError:
        raise ScenarioError(f"{target}: not text (a scenario is a UTF-8 TOML file)") from None
    return parse_scenario(text, target)


def run(args: argparse.Namespace, scenario: Scenario) -> int:
    from kafkatop.backends.checks.scenario.run import ScenarioRun
    from kafkatop.backends.kafka.admin.admin import AdminSource
    from kafkatop.backends.kafka.cluster.elections import LeaderElector
    from kafkatop.backends.lab.cluster import LabCluster
    from kafkatop.backends.lab.control import LabControl
    from kafkatop.tui.cli.common import build_spec, interrupt_on_termination, lab_connection, state_root
    from kafkatop.tui.cli.compose_connect import connect_cluster
    from kafkatop.tui.cli.install import find_or_offer

    shape = scenario.cluster
    args.name = args.name or scenario.name
    args.brokers = args.brokers or shape.brokers
    args.controllers = args.controllers if args.controllers is not None else shape.controllers
    if shape.connect:
        args.connect = max(args.connect or 0, shape.connect)
    args.mode = args.mode or ("zk" if shape.mode == "zookeeper" else "kraft")
    spec = build_spec(args)
    install = find_or_offer(args, spec.mode, demo_instead=False)
    assert install is not None
    cluster, notes = LabCluster.create_or_open(state_root(args), install, spec)
    say = (lambda line: print(line, file=sys.stderr, flush=True)) if args.json else print
    for note in notes:
        say(note)
    report: ScenarioReport | None = None
    interrupted = False
    with interrupt_on_termination():  # SIGTERM and SIGHUP unwind as Ctrl-C does: the lab it started is stopped
        try:
            say(f"scenario {scenario.name}: {scenario.title}")
            workers = f", {spec.connect} Connect workers" if spec.connect else ""
            say(f"starting lab {spec.name!r} ({spec.brokers} brokers{workers}, {install}) …")
            snap = cluster.up(timeout_s=args.timeout)
            connection = lab_connection(args, snap)
            admin = AdminSource(connection, timeout_s=5.0)
            elections = partial(LeaderElector, connection, timeout_s=30.0)
            with ExitStack() as stack:
                connect = connect_cluster(args, cluster, stack)
                runner = ScenarioRun(scenario, LabControl(cluster), admin.poll, connection, say, elections=elections,
                                     connect=connect)  # fmt: skip
                try:
                    report = runner.run()
                finally:
                    runner.close()
                    admin.close()
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if report is not None and args.detach:
                cluster.release()
                say(f"left running; stop it with `kafkatop down --name {spec.name}"
                    + (f" --state-dir {args.state_dir}`" if args.state_dir else "`"))  # fmt: skip
            else:
                cluster.close()  # the nodes this run started; a lab found running is left as it was found
    if interrupted or report is None:
        err("interrupted: the nodes this run started are stopped")
        return INTERRUPTED
    if args.json:
        print(json.dumps(report.to_dict()))
    else:
        met = sum(e.met for s in report.steps for e in s.expects)
        total = sum(len(s.expects) for s in report.steps)
        print(f"{'passed' if report.passed else 'FAILED'}: {met} of {total} expectations held")
    return DONE if report.passed else FAILED
