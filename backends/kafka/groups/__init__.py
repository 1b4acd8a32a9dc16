"""Consumer groups: read for a poll (batched per coordinator), listed, described, their offsets reset and deleted,
as kafka-consumer-groups.sh and kafka-groups.sh do."""
