"""One JSON Schema, normalized for each provider's function calling.

The same schema (a built-in tool's, or an MCP server's as it arrived) is shaped once per tool set:

* `object_root`: every provider wants an object at the root, without `anyOf`/`oneOf`/`allOf`
  there (Anthropic and OpenAI reject them): a root union of objects becomes one object whose
  properties are the union (required: those every alternative requires).
* `openai_strict`: OpenAI's strict mode (Structured Outputs): every property listed in
  `required`, the optional ones made nullable, `additionalProperties: false` on every object, no
  `default`, a `$ref` never beside other keywords. A schema strict mode cannot express (an open
  object, an untyped value, `not`, `if`, more than one `allOf` entry, more than 10 levels of
  objects…) gives None: the caller then sends it as it is with `strict: false`.
* `gemini_schema`: the OpenAPI subset of Gemini's `parameters`: a type list becomes `nullable`,
  `$ref` is resolved (a recursive one ends in a plain object), `anyOf` with `null` becomes
  `nullable`, only the keywords Gemini knows are kept, and an object without properties at the
  root means "no parameters".
* `drop_unasked_nulls`: the other half of strict mode: a model fills an optional argument it
  does not use with null; the client removes those nulls before running the tool.

Recursion is bounded (`MAX_DEPTH`), so a schema nested hundreds of levels deep costs nothing
special: strict mode gives up on it and Gemini gets it cut at that depth.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._calls.nulls import drop_unasked_nulls
from .._model.json_schema import allows_null, lookup_ref, resolve_ref

__all__ = ["object_root", "openai_strict", "gemini_schema", "drop_unasked_nulls",
           "allows_null", "MAX_DEPTH", "STRICT_MAX_OBJECT_DEPTH"]

MAX_DEPTH = 48  # schema nodes deeper than this are cut (Gemini) or refused (strict)
STRICT_MAX_OBJECT_DEPTH = 10  # OpenAI: objects nest at most 10 levels in strict mode
STRICT_MAX_PROPERTIES = 5000
STRICT_MAX_ENUM = 1000

# Keywords strict mode refuses although they only narrow a value: dropped (the model still sees
# the description); `default` is refused by strict mode and means nothing once all is required.
_STRICT_DROP = frozenset({"default", "examples", "example", "$schema", "$id", "$comment",
                          "minLength", "maxLength", "uniqueItems", "minProperties",
                          "maxProperties", "readOnly", "writeOnly", "deprecated",
                          "contentEncoding", "contentMediaType"})
# Keywords that change what is valid in a way strict mode cannot say: the schema is not strict.
_STRICT_REFUSE = frozenset({"not", "if", "then", "else", "patternProperties",
                            "dependentRequired", "dependentSchemas", "dependencies",
                            "unevaluatedProperties", "unevaluatedItems", "propertyNames",
                            "contains", "minContains", "maxContains", "prefixItems",
                            "additionalItems"})
_STRICT_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname",
                             "ipv4", "ipv6", "uuid"})
_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})


class _NotStrict(Exception):
    """Raised inside the strict conversion: the schema cannot be made strict."""


# --- the root ------------------------------------------------------------------------------

def object_root(schema: Any) -> dict[str, Any]:
    """The schema with a plain object at its root (a fresh top-level dict; deeper nodes shared).

    Not a mapping, or not an object: no parameters. A root union (`anyOf`/`oneOf`/`allOf`) of
    objects is flattened into one object (properties merged; required: for `allOf` all, for the
    others those every alternative requires)."""
    if not isinstance(schema, Mapping):
        return {"type": "object", "properties": {}}
    out = dict(schema)
    ref = out.get("$ref")
    if isinstance(ref, str):  # a root that only points at a definition
        target = _resolve(out, schema)
        if isinstance(target, Mapping) and target is not out:
            del out["$ref"]
            out = {**target, **out}
    for key in ("allOf", "anyOf", "oneOf"):
        parts = out.pop(key, None)
        if not isinstance(parts, list):
            continue
        alternatives = [_resolve(p, schema) for p in parts if isinstance(p, Mapping)]
        alternatives = [a for a in alternatives if isinstance(a, Mapping)]
        props: dict[str, Any] = dict(out.get("properties") or {}) \
            if isinstance(out.get("properties"), Mapping) else {}
        required: list[str] = [r for r in out.get("required") or () if isinstance(r, str)] \
            if isinstance(out.get("required"), list) else []
        each: list[set[str]] = []
        for alt in alternatives:
            alt_props = alt.get("properties")
            if isinstance(alt_props, Mapping):
                for name, sub in alt_props.items():
                    props.setdefault(name, sub)
            alt_required = alt.get("required")
            each.append({r for r in alt_required if isinstance(r, str)}
                        if isinstance(alt_required, list) else set())
        if key == "allOf":
            extra = [r for s in each for r in sorted(s)]
        else:
            common = set.intersection(*each) if each else set()
            extra = [r for r in props if r in common]
        for name in extra:
            if name not in required:
                required.append(name)
        out["properties"] = props
        if required:
            out["required"] = required
        else:
            out.pop("required", None)
    kind = out.get("type")
    if kind != "object" and not (isinstance(kind, list) and "object" in kind):
        if kind is not None or not isinstance(out.get("properties"), Mapping):
            return {"type": "object", "properties": {}}
    out["type"] = "object"
    if not isinstance(out.get("properties"), Mapping):
        out["properties"] = {}
    return out


_resolve = resolve_ref
_lookup = lookup_ref


# --- OpenAI strict ----------------------------------------------------------------------------

def openai_strict(schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """The schema in the form OpenAI's strict mode accepts, or None when it cannot be."""
    root = object_root(schema)
    try:
        state = _Strict(root)
        out = state.node(root, 0, 0)
        defs_out: dict[str, dict[str, Any]] = {}
        for table in ("$defs", "definitions"):
            defs = root.get(table)
            if isinstance(defs, Mapping):
                converted = {name: state.node(sub, 1, 0) for name, sub in defs.items()}
                if table == "$defs":
                    defs_out.update(converted)
                else:
                    out["definitions"] = converted
        if defs_out:
            out["$defs"] = defs_out
        if out.get("type") != "object" or "anyOf" in out:
            return None
        if state.properties > STRICT_MAX_PROPERTIES:
            return None
        return out
    except _NotStrict:
        return None


class _Strict:
    __slots__ = ("root", "properties")

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.properties = 0

    def node(self, node: Any, depth: int, objects: int) -> dict[str, Any]:
        if depth > MAX_DEPTH or not isinstance(node, Mapping):
            raise _NotStrict
        if _STRICT_REFUSE.intersection(node):
            raise _NotStrict
        all_of = node.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1 and "$ref" not in node and \
                isinstance(all_of[0], Mapping) and set(all_of[0]) == {"$ref"}:
            # pydantic v1's way to describe a reference: allOf around it, siblings beside
            node = {**{k: v for k, v in node.items() if k != "allOf"}, "$ref": all_of[0]["$ref"]}
        ref = node.get("$ref")
        if ref is not None:
            if not isinstance(ref, str) or _lookup(ref, self.root) is None:
                raise _NotStrict
            rest = {k: v for k, v in node.items() if k not in _STRICT_DROP and k != "$ref"}
            if set(rest) - {"description", "title"}:
                raise _NotStrict  # a $ref narrowed by siblings
            if not rest:
                return {"$ref": ref}
            return {**rest, "anyOf": [{"$ref": ref}]}
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _STRICT_DROP or key in ("$defs", "definitions"):
                continue
            if key == "format" and value not in _STRICT_FORMATS:
                continue
            out[key] = value
        if "const" in out:
            out["enum"] = [out.pop("const")]
        all_of = out.pop("allOf", None)
        if all_of is not None:
            if not isinstance(all_of, list) or len(all_of) != 1:
                raise _NotStrict
            merged = self.node(all_of[0], depth + 1, objects)
            for key, value in merged.items():
                if key in out and out[key] != value and key not in ("description", "title"):
                    raise _NotStrict
                out.setdefault(key, value)
        one_of = out.pop("oneOf", None)
        if one_of is not None:
            if not isinstance(one_of, list) or "anyOf" in out:
                raise _NotStrict
            out["anyOf"] = one_of
        any_of = out.get("anyOf")
        if any_of is not None:
            if not isinstance(any_of, list) or not any_of:
                raise _NotStrict
            out["anyOf"] = [self.node(p, depth + 1, objects) for p in any_of]
        enum = out.get("enum")
        if enum is not None and (not isinstance(enum, list) or len(enum) > STRICT_MAX_ENUM):
            raise _NotStrict
        kind = out.get("type")
        if kind is None:
            if isinstance(out.get("properties"), Mapping):
                kind = out["type"] = "object"
            elif "anyOf" in out or enum is not None:
                return out
            else:
                raise _NotStrict  # any value at all: strict mode needs a type
        kinds = kind if isinstance(kind, list) else [kind]
        if not kinds or any(k not in _TYPES for k in kinds):
            raise _NotStrict
        non_null = [k for k in kinds if k != "null"]
        if len(non_null) > 1:  # several types: one alternative each
            del out["type"]
            if "anyOf" in out:
                raise _NotStrict
            out["anyOf"] = [self.node({"type": k}, depth + 1, objects) for k in kinds]
            return out
        if "object" in kinds:
            self._object(out, depth, objects + 1)
        elif "additionalProperties" in out:
            del out["additionalProperties"]
        if "array" in kinds:
            items = out.get("items")
            if not isinstance(items, Mapping):
                raise _NotStrict
            out["items"] = self.node(items, depth + 1, objects)
        return out

    def _object(self, out: dict[str, Any], depth: int, objects: int) -> None:
        if objects > STRICT_MAX_OBJECT_DEPTH:
            raise _NotStrict
        closed = "additionalProperties" in out
        if out.get("additionalProperties", False) is not False:
            raise _NotStrict  # an open map: strict mode cannot say "any keys"
        props = out.get("properties")
        if props is None:
            props = {}
        if not isinstance(props, Mapping):
            raise _NotStrict
        if not props and not closed and depth > 0:
            raise _NotStrict  # any object at all (the root's "no arguments" is fine)
        required = out.get("required")
        asked = {r for r in required if isinstance(r, str)} if isinstance(required, list) else set()
        new_props: dict[str, Any] = {}
        for name, sub in props.items():
            converted = self.node(sub, depth + 1, objects)
            if name not in asked and not allows_null(converted):
                converted = _nullable(converted)
            new_props[name] = converted
        self.properties += len(new_props)
        out["properties"] = new_props
        out["required"] = list(new_props)
        out["additionalProperties"] = False


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    """The node, also admitting null (an optional property in strict mode)."""
    out = dict(node)
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"]
        if isinstance(out.get("enum"), list):
            out["enum"] = [*out["enum"], None]
        return out
    if isinstance(kind, list):
        out["type"] = [*kind, "null"]
        if isinstance(out.get("enum"), list):
            out["enum"] = [*out["enum"], None]
        return out
    if isinstance(out.get("anyOf"), list):
        out["anyOf"] = [*out["anyOf"], {"type": "null"}]
        return out
    if "$ref" in out:
        ref = out.pop("$ref")
        out["anyOf"] = [{"$ref": ref}, {"type": "null"}]
        return out
    if isinstance(out.get("enum"), list):
        out["enum"] = [*out["enum"], None]
        return out
    raise _NotStrict


# --- Gemini (OpenAPI subset) ------------------------------------------------------------------

_GEMINI_KEEP = frozenset({"description", "title", "nullable", "minItems", "maxItems", "minimum",
                          "maximum", "minLength", "maxLength", "pattern", "minProperties",
                          "maxProperties"})
_GEMINI_FORMATS = {"string": frozenset({"enum", "date-time"}),
                   "integer": frozenset({"int32", "int64"}),
                   "number": frozenset({"float", "double"})}


def gemini_schema(schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """`parameters` for a Gemini function declaration, or None when it takes no arguments."""
    root = object_root(schema)
    out = _Gemini(root).node(root, 0, ())
    if not out.get("properties"):
        return None
    return out


class _Gemini:
    __slots__ = ("root",)

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root

    def node(self, node: Any, depth: int, refs: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(node, Mapping):
            return {}
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = _lookup(ref, self.root)
            local = {k: v for k, v in node.items() if k != "$ref"}
            if target is None or ref in refs or depth > MAX_DEPTH:
                resolved: dict[str, Any] = {"type": "object"}  # recursion (or unknown): cut
            else:
                resolved = self.node(target, depth + 1, (*refs, ref))
            if local:
                resolved = {**resolved, **self.node(local, depth, refs)}
            return resolved
        if depth > MAX_DEPTH:
            kind = node.get("type")
            return {"type": kind} if isinstance(kind, str) and kind in _TYPES - {"null"} else {}
        out: dict[str, Any] = {k: v for k, v in node.items() if k in _GEMINI_KEEP}
        nullable = False
        kind = node.get("type")
        if isinstance(kind, list):
            nullable = "null" in kind
            kinds = [k for k in kind if isinstance(k, str) and k in _TYPES and k != "null"]
            if len(kinds) == 1:
                kind = kinds[0]
            elif kinds:
                out["anyOf"] = [{"type": k} for k in kinds]
                kind = None
            else:
                kind = None
        elif kind == "null":
            kind, nullable = None, True
        elif not (isinstance(kind, str) and kind in _TYPES):
            kind = None
        for key in ("allOf",):
            parts = node.get(key)
            if isinstance(parts, list):
                for part in parts:
                    merged = self.node(part, depth + 1, refs)
                    for k, v in merged.items():
                        if k == "properties" and isinstance(out.get(k), dict):
                            out[k] = {**out[k], **v}
                        elif k == "required" and isinstance(out.get(k), list):
                            out[k] = [*out[k], *(r for r in v if r not in out[k])]
                        else:
                            out.setdefault(k, v)
        alternatives: list[dict[str, Any]] = []
        for key in ("anyOf", "oneOf"):
            parts = node.get(key)
            if isinstance(parts, list):
                for part in parts:
                    if isinstance(part, Mapping) and part.get("type") == "null" and \
                            len(part) == 1:
                        nullable = True
                        continue
                    alternatives.append(self.node(part, depth + 1, refs))
        if alternatives:
            if len(alternatives) == 1 and kind is None:
                single = alternatives[0]
                for k, v in single.items():
                    out.setdefault(k, v)
            else:
                out["anyOf"] = [*out.get("anyOf", []), *alternatives]
        if kind is not None:
            out["type"] = kind
        kind = out.get("type")
        enum = node.get("enum")
        if "const" in node:
            enum = [node["const"]]
        if isinstance(enum, list):
            if None in enum:
                nullable = True
            values = [v for v in enum if v is not None]
            if values and all(isinstance(v, str) for v in values):
                out["enum"] = values
                out.setdefault("type", "string")
                if out["type"] == "string":
                    out["format"] = "enum"
        fmt = node.get("format")
        if "format" not in out and isinstance(fmt, str) and \
                fmt in _GEMINI_FORMATS.get(str(kind), ()):
            out["format"] = fmt
        if kind == "object" or (kind is None and isinstance(node.get("properties"), Mapping)):
            props = node.get("properties")
            if isinstance(props, Mapping) and props:
                out["type"] = "object"
                out["properties"] = {**out.get("properties", {}), **{
                    name: self.node(sub, depth + 1, refs) for name, sub in props.items()}}
                required = node.get("required")
                if isinstance(required, list):
                    asked = [r for r in required if isinstance(r, str) and r in out["properties"]]
                    if asked:
                        out["required"] = [*out.get("required", []),
                                           *(r for r in asked if r not in out.get("required", []))]
            elif "properties" not in out:
                out["type"] = "object"
        if out.get("type") == "array":
            items = node.get("items")
            out["items"] = self.node(items, depth + 1, refs) if isinstance(items, Mapping) \
                else {"type": "string"}
            if not out["items"]:
                out["items"] = {"type": "string"}
        if nullable:
            out["nullable"] = True
        # keep the source's key order (a reviewer diffs these), new keys after
        return {**{k: out[k] for k in node if k in out}, **out}
