"""Widgets of the live view: each shows one thing, drawn from the snapshots it is given."""
