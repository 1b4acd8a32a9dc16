"""Adapters that speak the Kafka protocol through confluent-kafka (librdkafka) and kafkatop's own requests, grouped
by what they serve: the admin poll (admin/), the cluster's topics, partitions, configs and features (cluster/),
consumer groups (groups/), share groups (share_groups/), transactions (transactions/), ACLs, users and key stores
(security/), the consoles and other record clients (records/). Beside them, what they share: Kafka's failures in
words (errors.py), librdkafka's handles (handles.py), the authorizer's refusals (refusal.py), the brokers' reach
(reach.py), and the mock cluster (mock.py).
"""
