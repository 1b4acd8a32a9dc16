"""Adapters that speak the Kafka protocol through confluent-kafka (librdkafka): the admin poll, consumer groups,
topics, the consoles, offset resets, the mock cluster.
"""
