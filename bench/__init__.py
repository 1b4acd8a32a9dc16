"""Benchmarks that print figures (RESULT lines, medians of several runs); not timed tests.

Each script directly in this folder is one benchmark, run from the repository root as a file or as a module:

    .venv/bin/python bench/tui_refresh.py --runs 3
    .venv/bin/python -m bench.tui_refresh --runs 3

Every script starts by putting the repository root on sys.path, so that `bench.*` (and `tests.fixtures.*`) import
either way. What several benchmarks share is in `common/`; a script too long for one file keeps its parts in a
package of the same name with a leading underscore (`scale.py` and `_scale/`).
"""
