"""The other half of OpenAI's strict mode: the nulls it makes a model send, taken out.

Strict mode needs every property in `required`, so an optional one is sent as nullable and a
model fills the ones it does not use with null. Before a call is checked and run, such a null is
removed where the original schema neither requires the key nor admits null there, through
nested objects (properties, items, local `$ref`s and object alternatives of `anyOf`/`oneOf`/
`allOf`). The walk follows the value and stops `MAX_DEPTH` levels down: deeper nulls stay.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._model.json_schema import allows_null, resolve_ref

__all__ = ["drop_unasked_nulls", "MAX_DEPTH"]

MAX_DEPTH = 48


def drop_unasked_nulls(value: Any, schema: Mapping[str, Any]) -> Any:
    """`value` (a tool's arguments) without the nulls strict mode made the model send."""
    return _drop(value, schema, schema, 0)


def _drop(value: Any, node: Any, root: Mapping[str, Any], depth: int) -> Any:
    if depth > MAX_DEPTH:
        return value
    node = resolve_ref(node, root)
    if not isinstance(node, Mapping):
        return value
    if isinstance(value, dict):
        return _drop_in_object(value, node, root, depth)
    if isinstance(value, list):
        items = node.get("items")
        if isinstance(items, Mapping):
            return [_drop(v, items, root, depth + 1) for v in value]
    return value


def _drop_in_object(value: dict[str, Any], node: Mapping[str, Any], root: Mapping[str, Any],
                    depth: int) -> dict[str, Any]:
    props = node.get("properties")
    if not isinstance(props, Mapping):
        alternative = _object_alternative(value, node, root)
        return value if alternative is None else _drop(value, alternative, root, depth + 1)
    required = node.get("required")
    asked = set(required) if isinstance(required, list) else set()
    out = {}
    for key, item in value.items():
        sub = props.get(key)
        if item is None and key not in asked and sub is not None and \
                not allows_null(sub, root):
            continue
        out[key] = _drop(item, sub, root, depth + 1) if sub is not None else item
    return out


def _object_alternative(value: Mapping[str, Any], node: Mapping[str, Any],
                        root: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The first object alternative of a union whose properties cover the value's keys."""
    for key in ("anyOf", "oneOf", "allOf"):
        parts = node.get(key)
        for alt in parts if isinstance(parts, list) else ():
            alt = resolve_ref(alt, root)
            if isinstance(alt, Mapping) and isinstance(alt.get("properties"), Mapping) \
                    and set(value) <= set(alt["properties"]):
                return alt
    return None
