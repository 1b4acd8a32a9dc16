"""kafkatop's backends: the model, what it means (insight), the ports, and the adapters that speak to Kafka, KRaft,
ZooKeeper, processes and the demo. No UI here; see ARCHITECTURE.md.
"""
