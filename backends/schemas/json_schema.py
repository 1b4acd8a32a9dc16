"""JSON Schema: a record is JSON (after the wire format's 5 bytes), checked against its schema by jsonschema, as
confluent-kafka's JSONDeserializer checks it (a registered schema's references resolved by its own resolver), and said
by the path of the first field that does not fit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry._sync.json_schema import _resolve_named_schema
from jsonschema import exceptions, validators
from referencing import Registry

from kafkatop.backends.model.formats import FormatError, JsonValue
from kafkatop.backends.model.json_text import loads


@dataclass(frozen=True, slots=True)
class JsonSchemaCheck:
    validator: Any  # a jsonschema Validator for the schema's draft

    def problem(self, value: JsonValue) -> str | None:
        """Why the value does not fit, in one line (`$.customer.id: 'x' is not of type 'integer'`), or None."""
        error = exceptions.best_match(self.validator.iter_errors(value))
        if error is None:
            return None
        return f"{error.json_path}: {' '.join(str(error.message).split())[:200]}"


def json_schema_of(text: str, where: str, registry: Registry | None = None) -> JsonSchemaCheck:
    """A schema's text (a file's, or the registry's); FormatError says why it cannot be one."""
    try:
        schema = loads(text)
    except ValueError as e:
        raise FormatError(f"{where} is not JSON: {e}") from None
    if not isinstance(schema, dict | bool):
        raise FormatError(f"{where} is not a JSON Schema: a schema is an object")
    cls = validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except exceptions.SchemaError as e:
        raise FormatError(f"{where} is not a JSON Schema: {' '.join(str(e.message).split())[:200]}") from None
    return JsonSchemaCheck(cls(schema) if registry is None else cls(schema, registry=registry))


def registered_json_schema(schema: Schema, client: SchemaRegistryClient, where: str) -> JsonSchemaCheck:
    return json_schema_of(schema.schema_str or "", where, _resolve_named_schema(schema, client))
