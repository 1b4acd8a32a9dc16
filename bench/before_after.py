"""Benchmark: the live view's figures on two trees, taken in one run — a change's before and after.

Runs bench/first_frame.py, bench/tui_refresh.py and bench/context_switch.py of each tree, with each tree's own
virtualenv (`<tree>/.venv`), alternately (before, after, before, after, …) so the machine's load falls on both
alike, and prints each RESULT figure: the median over the rounds for each tree and after ÷ before. Asserts nothing.
(`bench/scale.py --only table,console` sets the tree before issue 30 beside this one itself: --before.)

    .venv/bin/python bench/before_after.py --before /tmp/before [--after .] [--rounds 3] [--only first_frame,scale]

Make the before tree with `git worktree add /tmp/before <commit>` and its virtualenv with the README's command.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
from pathlib import Path

# (bench, its arguments, the RESULT figures read from its output: name -> pattern of the figure in ms)
BENCHES: tuple[tuple[str, tuple[str, ...], dict[str, str]], ...] = (
    ("first_frame.py", ("--runs", "5"), {"first frame (b)": r"RESULT: time to first frame \(b\), median of \d+ runs "
                                         r"([\d.,]+) ms"}),  # fmt: skip
    ("tui_refresh.py", ("--runs", "15"), {"1,000-row refresh, slowest median": r"RESULT: a refresh .*?wall time "
                                          r"([\d.,]+) ms"}),  # fmt: skip
    ("context_switch.py", ("--runs", "5", "--first-visits", "0", "--key-runs", "0"), {
        "context switch to its first full frame": r"RESULT: context switch to its first full frame, median of \d+ "
                                                  r"switches ([\d.,]+) ms",
    }),
)  # fmt: skip


def run(tree: Path, script: str, args: tuple[str, ...], patterns: dict[str, str]) -> dict[str, float]:
    python = tree / ".venv" / "bin" / "python"
    extra = ("--kafkatop", str(tree / ".venv" / "bin" / "kafkatop")) if script == "first_frame.py" else ()
    done = subprocess.run(
        [str(python), str(tree / "bench" / script), *args, *extra], cwd=tree, capture_output=True, text=True,
        timeout=1800,
    )  # fmt: skip
    out = done.stdout + done.stderr
    figures: dict[str, float] = {}
    for name, pattern in patterns.items():
        found = re.search(pattern, out)
        if found is None:
            print(f"  {tree}: {script} printed no figure for {name!r} (exit {done.returncode})", file=sys.stderr)
            print("  " + "\n  ".join(out.strip().splitlines()[-8:]), file=sys.stderr)
            continue
        figures[name] = float(found.group(1).replace(",", ""))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", help="these benches by script name, comma-separated: first_frame,tui_refresh,...")
    args = parser.parse_args()
    chosen = BENCHES if not args.only else tuple(b for b in BENCHES if b[0].removesuffix(".py") in args.only.split(","))
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    for label, tree in trees.items():
        if not (tree / ".venv" / "bin" / "python").exists():
            raise SystemExit(f"{label} tree {tree} has no .venv: run the README's install command in it")
    taken: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    for r in range(args.rounds):
        for script, bench_args, patterns in chosen:
            for label, tree in trees.items():
                print(f"round {r + 1}/{args.rounds}: {label} {script}", flush=True)
                for name, value in run(tree, script, bench_args, patterns).items():
                    taken[label].setdefault(name, []).append(value)
    print(f"\nmedians over {args.rounds} alternating rounds (each itself a bench's median of several runs)")
    print(f"{'figure':48} {'before':>10} {'after':>10} {'after/before':>13}")
    for _, _, patterns in chosen:
        for name in patterns:
            before, after = taken["before"].get(name, []), taken["after"].get(name, [])
            if not before or not after:
                print(f"{name:48} {'-':>10} {'-':>10} {'-':>13}")
                continue
            b, a = statistics.median(before), statistics.median(after)
            print(f"{name:48} {b:8.1f}ms {a:8.1f}ms {a / b:13.2f}")
            verdict = "PASS" if a / b <= 1.05 else "FAIL"
            print(f"RESULT {name}: after/before {a / b:.2f} (no worse than 5 %: {verdict})")


if __name__ == "__main__":
    main()
