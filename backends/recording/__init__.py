"""Adapters that speak to files: recordings of the live view (JSON lines, gzip when the name ends in .gz)."""
