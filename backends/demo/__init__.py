"""The built-in demo: the librdkafka mock with the labs' layout, and a controller that emulates Kafka's failover around
it.
"""
