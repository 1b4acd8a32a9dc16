"""The Schema Registry and the record formats: Confluent's schema_registry client and serdes, fastavro and protobuf
behind the SchemaRegistry and RecordCodec ports."""
