"""The audit trail's adapters: its file (JSON lines, 0600, rotated) and the ports that write to it as they write to
the cluster (backends/model/audit.py holds the entries)."""
