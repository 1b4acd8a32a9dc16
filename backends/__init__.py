"""kafkatop's data sources and actuators: plain blocking code that returns frozen snapshots (no UI here)."""
