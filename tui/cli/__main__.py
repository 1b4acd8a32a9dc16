"""`python -m kafkatop.tui.cli`: the same as the `kafkatop` command."""

from kafkatop.tui.cli.main import main

raise SystemExit(main())
