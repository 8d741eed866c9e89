"""Judges a JSON value against a schema of the Play Developer API's discovery document, the one
google-api-python-client ships (static discovery). Usage: play_schema.py SCHEMA < value.json
Prints nothing and exits 0 when the value fits; else one line per misfit, and exits 1.

A value fits when every property is one the schema declares, of its declared type: a string, an
integer (int32 a JSON number; int64 and uint64 a string of digits, as Google sends them), a
boolean, an array of fitting items, or an object fitting its $ref."""
import json
import sys

from googleapiclient import discovery_cache


def misfits(value, schema, schemas, path):
    if "$ref" in schema:
        return misfits(value, schemas[schema["$ref"]], schemas, path)
    kind = schema.get("type")
    problems = []
    if kind == "object":
        if not isinstance(value, dict):
            return [f"{path}: expected an object, got {json.dumps(value)[:60]}"]
        declared = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if key in declared:
                problems += misfits(item, declared[key], schemas, f"{path}.{key}")
            elif extra is not None:
                problems += misfits(item, extra, schemas, f"{path}.{key}")
            else:
                problems.append(f"{path}.{key}: not a property of {schema.get('id', 'this object')}")
    elif kind == "array":
        if not isinstance(value, list):
            return [f"{path}: expected an array"]
        for index, item in enumerate(value):
            problems += misfits(item, schema.get("items", {}), schemas, f"{path}[{index}]")
    elif kind == "string":
        if not isinstance(value, str):
            return [f"{path}: expected a string, got {json.dumps(value)[:60]}"]
        if schema.get("format") in ("int64", "uint64") and not value.lstrip("-").isdigit():
            problems.append(f"{path}: expected {schema['format']} digits in a string, got {value!r}")
        if "enum" in schema and value not in schema["enum"]:
            problems.append(f"{path}: {value!r} is not one of {schema['enum']}")
    elif kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            return [f"{path}: expected an integer, got {json.dumps(value)[:60]}"]
    elif kind == "boolean":
        if not isinstance(value, bool):
            return [f"{path}: expected a boolean, got {json.dumps(value)[:60]}"]
    elif kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return [f"{path}: expected a number"]
    return problems


def main():
    name = sys.argv[1]
    document = json.loads(discovery_cache.get_static_doc("androidpublisher", "v3"))
    schemas = document["schemas"]
    if name not in schemas:
        print(f"{name}: no such schema in androidpublisher v3")
        sys.exit(2)
    found = misfits(json.load(sys.stdin), schemas[name], schemas, name)
    for line in found:
        print(line)
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
