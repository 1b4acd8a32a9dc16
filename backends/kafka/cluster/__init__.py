"""The cluster's topics, partitions, configs and features, read and changed as Kafka's tools do (kafka-topics,
kafka-configs, kafka-features, kafka-reassign-partitions, kafka-leader-election), and each partition's offsets."""
