"""Kafka Connect through its workers' REST API (urllib, no extra dependency)."""
