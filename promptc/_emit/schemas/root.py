"""The root every provider wants: a plain object, without a union around it.

Anthropic and OpenAI reject `anyOf`/`oneOf`/`allOf` at the root of a tool's parameters, and all
three take only an object there. `object_root` makes one: a root `$ref` is followed, a root
union of objects becomes one object whose properties are the union (required: for `allOf`
all, for `anyOf`/`oneOf` those every alternative requires), and anything that is not an object
means "no parameters". `checked_root` does the same to a schema from outside, after taking out
its malformed keyword values (clean.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._model.json_schema import resolve_ref
from .clean import clean
from .visitor import Converted

__all__ = ["object_root", "checked_root", "NO_PARAMETERS"]

NO_PARAMETERS: Mapping[str, Any] = {"type": "object", "properties": {}}
_UNIONS = ("allOf", "anyOf", "oneOf")


def _inline_ref(out: dict[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """A root that only points at a definition: the definition, the root's own keywords on
    top."""
    if not isinstance(out.get("$ref"), str):
        return out
    target = resolve_ref(out, schema)
    if not isinstance(target, Mapping) or target is out:
        return out
    del out["$ref"]
    return {**target, **out}


def _own_required(out: Mapping[str, Any]) -> list[str]:
    required = out.get("required")
    return [r for r in required if isinstance(r, str)] if isinstance(required, list) else []


def _alternatives(parts: list[Any], schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    found = (resolve_ref(p, schema) for p in parts if isinstance(p, Mapping))
    return [a for a in found if isinstance(a, Mapping)]


def _required_by(alternative: Mapping[str, Any]) -> set[str]:
    required = alternative.get("required")
    return {r for r in required if isinstance(r, str)} if isinstance(required, list) else set()


def _union_required(key: str, each: list[set[str]], props: Mapping[str, Any]) -> list[str]:
    """What a union makes required: for `allOf` what any part requires; for the others what
    every alternative does."""
    if key == "allOf":
        return [r for s in each for r in sorted(s)]
    common = set.intersection(*each) if each else set()
    return [r for r in props if r in common]


def _flatten(out: dict[str, Any], key: str, schema: Mapping[str, Any]) -> None:
    """One root union merged into the object: properties and required."""
    parts = out.pop(key, None)
    if not isinstance(parts, list):
        return
    alternatives = _alternatives(parts, schema)
    own = out.get("properties")
    props: dict[str, Any] = dict(own) if isinstance(own, Mapping) else {}
    for alternative in alternatives:
        alt_props = alternative.get("properties")
        if isinstance(alt_props, Mapping):
            for name, sub in alt_props.items():
                props.setdefault(name, sub)
    required = _own_required(out)
    for name in _union_required(key, [_required_by(a) for a in alternatives], props):
        if name not in required:
            required.append(name)
    out["properties"] = props
    if required:
        out["required"] = required
    else:
        out.pop("required", None)


def _is_object(out: Mapping[str, Any]) -> bool:
    kind = out.get("type")
    if kind == "object" or (isinstance(kind, list) and "object" in kind):
        return True
    return kind is None and isinstance(out.get("properties"), Mapping)


def object_root(schema: Any) -> dict[str, Any]:
    """The schema with a plain object at its root (a fresh top-level dict; deeper nodes
    shared). Not a mapping, or not an object: no parameters."""
    if not isinstance(schema, Mapping):
        return dict(NO_PARAMETERS, properties={})
    out = _inline_ref(dict(schema), schema)
    for key in _UNIONS:
        _flatten(out, key, schema)
    if not _is_object(out):
        return dict(NO_PARAMETERS, properties={})
    out["type"] = "object"
    if not isinstance(out.get("properties"), Mapping):
        out["properties"] = {}
    return out


def checked_root(schema: Any) -> Converted:
    """A schema from outside as an object root, its malformed keyword values dropped (each a
    problem)."""
    cleaned, problems = clean(schema)
    return Converted(object_root(cleaned), problems)
