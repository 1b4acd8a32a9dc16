"""kafkatop's PySpark pipeline. Runs in its own process; the TUI never imports this package."""
