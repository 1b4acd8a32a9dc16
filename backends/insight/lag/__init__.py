"""Lag you can act on: offset->time points from the polls, and the evaluator of lag in time and status."""
