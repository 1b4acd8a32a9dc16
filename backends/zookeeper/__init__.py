"""Adapters that speak ZooKeeper: Kafka's znodes by watches (kazoo), the four-letter words of every server, and a
ZooKeeper server from pyspark's jars.
"""
