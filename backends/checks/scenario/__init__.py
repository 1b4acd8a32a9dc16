"""Scenarios: a lab as steps and expectations (backends/model/scenario.py), run against a cluster."""
