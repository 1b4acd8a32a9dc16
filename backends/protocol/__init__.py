"""Kafka's wire protocol spoken by kafkatop itself, where confluent-kafka has no API: the primitive types and headers
(wire.py) and a bounded connection to one broker (connection.py); each message's codec beside its adapter."""
