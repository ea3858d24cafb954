"""A schema as Gemini's `parameters` take it: the OpenAPI subset of google-genai's `Schema`.

A type list becomes `nullable`, `anyOf` with `null` too, only the keywords Gemini knows are kept,
and an object without properties at the root means "no parameters". `$ref`s are copied in
(`parameters` has no shared definitions: `parameters_json_schema` does, and takes the schema as
it is): a recursive one ends in a plain object, and a `required` list beside a `$ref` adds to
the definition's. Copying references can grow a schema exponentially (each definition using
the next one twice), so the copy has a budget linear in the schema's size; past it, a
reference is sent as its type and description only, and that is reported.

`required` names with no property are left out (Gemini refuses them) and reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._model.json_schema import lookup_ref
from .clean import TYPES
from .root import checked_root
from .strict import MAX_DEPTH, REQUIRED_UNKNOWN
from .visitor import ALWAYS, At, Converted, KeywordVisitor, Visit, unique

__all__ = ["gemini_schema", "gemini_form", "EXPANSION_GROWTH", "EXPANSION_FLOOR",
           "TOO_LARGE", "schema_size"]

TOO_LARGE = "schema-too-large"
EXPANSION_GROWTH = 8  # the copy may be this many times the schema's own size …
EXPANSION_FLOOR = 20_000  # … or this size, whichever is larger (see schema_size)

_KEEP = frozenset({"description", "title", "nullable", "minItems", "maxItems", "minimum",
                   "maximum", "minLength", "maxLength", "pattern", "minProperties",
                   "maxProperties"})
_FORMATS = {"string": frozenset({"enum", "date-time"}),
            "integer": frozenset({"int32", "int64"}),
            "number": frozenset({"float", "double"})}
_VALUE_TYPES = TYPES - {"null"}


def _node_size(node: Mapping[str, Any]) -> int:
    """One node's own size, its subschemas apart: about the length of its JSON text."""
    size = 2
    for key, value in node.items():
        if isinstance(value, str):
            size += len(value) + 2
        elif isinstance(value, list):
            size += 2 + sum(len(x) + 4 if isinstance(x, str) else 6 for x in value)
        else:
            size += 6
        size += len(key) + 4
    return size


def schema_size(schema: Any) -> int:
    """The size of a whole schema, counted as `_node_size` counts the nodes (no recursion)."""
    total, stack = 0, [schema]
    while stack:
        current = stack.pop()
        if isinstance(current, Mapping):
            total += _node_size(current)
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return total


def _typed_only(node: Mapping[str, Any]) -> dict[str, Any]:
    kind = node.get("type")
    return {"type": kind} if isinstance(kind, str) and kind in _VALUE_TYPES else {}


def _with_siblings(target: Mapping[str, Any], local: Mapping[str, Any]) -> dict[str, Any]:
    """A definition with the keywords beside its `$ref` applied: `required` and `properties`
    added to the definition's, the others in place of its."""
    merged = dict(target)
    for key, value in local.items():
        mine = merged.get(key)
        if key == "required" and isinstance(mine, list) and isinstance(value, list):
            merged[key] = [*mine, *(r for r in value if r not in mine)]
        elif key == "properties" and isinstance(mine, Mapping) and isinstance(value, Mapping):
            merged[key] = {**mine, **value}
        else:
            merged[key] = value
    return merged


def _merge_into(out: dict[str, Any], key: str, value: Any) -> None:
    """An `allOf` part's keyword merged into the node: properties and required added."""
    if key == "properties" and isinstance(out.get(key), dict):
        out[key] = {**out[key], **value}
    elif key == "required" and isinstance(out.get(key), list):
        out[key] = [*out[key], *(r for r in value if r not in out[key])]
    else:
        out.setdefault(key, value)


def _type_list(v: Visit, kinds: list[Any]) -> None:
    v.nullable = "null" in kinds
    values = [k for k in kinds if isinstance(k, str) and k in _VALUE_TYPES]
    if len(values) == 1:
        v.kind = values[0]
    elif values:
        v.out["anyOf"] = [{"type": k} for k in values]


def _names(required: Any) -> list[str]:
    return [r for r in required if isinstance(r, str)] if isinstance(required, list) else []


def _is_null(part: Any) -> bool:
    return isinstance(part, Mapping) and part.get("type") == "null" and len(part) == 1


class Gemini(KeywordVisitor):
    """Gemini conversion, one keyword group at a time."""

    GROUPS = (("keep", ALWAYS), ("type", ALWAYS), ("all_of", frozenset({"allOf"})),
              ("alternatives", frozenset({"anyOf", "oneOf"})), ("settle", ALWAYS),
              ("enum", frozenset({"enum", "const"})), ("format", frozenset({"format"})),
              ("object", ALWAYS), ("array", ALWAYS), ("finish", ALWAYS))

    __slots__ = ("root", "budget", "limit")

    def __init__(self, root: Mapping[str, Any]) -> None:
        super().__init__()
        self.root = root
        self.limit = max(EXPANSION_FLOOR, EXPANSION_GROWTH * schema_size(root))
        self.budget = self.limit

    def node(self, node: Any, at: At) -> dict[str, Any]:
        if not isinstance(node, Mapping):
            return {}
        if isinstance(node.get("$ref"), str):
            return self._reference(node, at)
        if at.depth > MAX_DEPTH:
            return _typed_only(node)
        self.budget -= _node_size(node)
        return self.visit(node, at)

    def _reference(self, node: Mapping[str, Any], at: At) -> dict[str, Any]:
        """The definition copied in, with the keywords beside the `$ref`; a recursive or
        unknown reference ends in a plain object, one past the budget in its type."""
        ref = node["$ref"]
        target = lookup_ref(ref, self.root)
        local = {k: v for k, v in node.items() if k != "$ref"}
        if target is not None and ref not in at.refs and at.depth <= MAX_DEPTH:
            if self.budget > 0:
                return self.node(_with_siblings(target, local), at.deeper(ref=ref))
            stand_in = self._cut(target, at)
        else:
            stand_in = {"type": "object"}
        return {**stand_in, **self.node(local, at)} if local else stand_in

    def _cut(self, target: Mapping[str, Any], at: At) -> dict[str, Any]:
        if not any(p.code == TOO_LARGE for p in self.problems):
            self.problem(TOO_LARGE, "$ref", at, (
                f"copying its references in grows the schema past {self.limit} characters "
                "(Gemini's `parameters` have no shared definitions): the references past "
                "that are sent as their type only; gemini(schema=\"json\") sends the "
                "schema with its definitions shared"))
        description = target.get("description")
        cut = _typed_only(target)
        return {**cut, "description": description} if isinstance(description, str) else cut

    def visit_keep(self, v: Visit) -> None:
        v.out.update((k, x) for k, x in v.node.items() if k in _KEEP)

    def visit_type(self, v: Visit) -> None:
        """The type; a list of them: null makes the node nullable, several others become
        alternatives."""
        kind = v.node.get("type")
        if kind == "null":
            v.nullable = True
        elif isinstance(kind, str):
            v.kind = kind if kind in TYPES else None
        elif isinstance(kind, list):
            _type_list(v, kind)

    def visit_all_of(self, v: Visit) -> None:
        parts = v.node["allOf"]
        if isinstance(parts, list):
            for part in parts:
                for key, value in self.node(part, v.at.deeper("allOf")).items():
                    _merge_into(v.out, key, value)

    def visit_alternatives(self, v: Visit) -> None:
        """`anyOf`/`oneOf`: a null alternative makes the node nullable; one other alternative
        merges into an untyped node, several become `anyOf`."""
        found: list[dict[str, Any]] = []
        for key in ("anyOf", "oneOf"):
            parts = v.node.get(key)
            for part in parts if isinstance(parts, list) else ():
                if _is_null(part):
                    v.nullable = True
                else:
                    found.append(self.node(part, v.at.deeper(key)))
        if len(found) == 1 and v.kind is None:
            for key, value in found[0].items():
                v.out.setdefault(key, value)
        elif found:
            v.out["anyOf"] = [*v.out.get("anyOf", []), *found]

    def visit_settle(self, v: Visit) -> None:
        if v.kind is not None:
            v.out["type"] = v.kind
        v.kind = v.out.get("type")

    def visit_enum(self, v: Visit) -> None:
        """String values become an enum (Gemini's `format: enum`); null makes it nullable."""
        enum = [v.node["const"]] if "const" in v.node else v.node.get("enum")
        if not isinstance(enum, list):
            return
        if None in enum:
            v.nullable = True
        values = [x for x in enum if x is not None]
        if values and all(isinstance(x, str) for x in values):
            v.out["enum"] = values
            v.out.setdefault("type", "string")
            if v.out["type"] == "string":
                v.out["format"] = "enum"

    def visit_format(self, v: Visit) -> None:
        fmt = v.node["format"]
        if "format" not in v.out and isinstance(fmt, str) and \
                fmt in _FORMATS.get(str(v.kind), ()):
            v.out["format"] = fmt

    def visit_object(self, v: Visit) -> None:
        props = v.node.get("properties")
        if not (v.kind == "object" or (v.kind is None and isinstance(props, Mapping))):
            return
        if isinstance(props, Mapping) and props:
            v.out["type"] = "object"
            v.out["properties"] = {**v.out.get("properties", {}), **{
                name: self.node(sub, v.at.deeper("properties", name))
                for name, sub in props.items()}}
        elif "properties" not in v.out:
            v.out["type"] = "object"
        self._required(v)

    def _required(self, v: Visit) -> None:
        """The node's `required` names that have a property (the others reported)."""
        names = _names(v.node.get("required"))
        have = v.out.get("properties") or {}
        missing = [r for r in names if r not in have]
        if missing:
            self.problem(REQUIRED_UNKNOWN, "required", v.at,
                         f"{', '.join(map(repr, missing))} named without a property: left "
                         "out for Gemini")
        sent = v.out.get("required", [])
        asked = [r for r in names if r in have and r not in sent]
        if asked:
            v.out["required"] = [*sent, *asked]

    def visit_array(self, v: Visit) -> None:
        if v.out.get("type") != "array":
            return
        items = v.node.get("items")
        converted = self.node(items, v.at.deeper("items")) if isinstance(items, Mapping) else {}
        v.out["items"] = converted or {"type": "string"}

    def visit_finish(self, v: Visit) -> None:
        """Null admitted; the source's key order kept (a reviewer diffs these), new keys
        after."""
        if v.nullable:
            v.out["nullable"] = True
        out = v.out
        v.out = {**{k: out[k] for k in v.node if k in out}, **out}


def gemini_form(schema: Any) -> Converted:
    """`parameters` (None: the tool takes no arguments) and the problems met on the way."""
    checked = checked_root(schema)
    root = checked.schema
    assert root is not None
    state = Gemini(root)
    out = state.node(root, At())
    return Converted(out if out.get("properties") else None,
                     unique([*checked.problems, *state.problems]))


def gemini_schema(schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """`parameters` for a Gemini function declaration, or None when it takes no arguments."""
    return gemini_form(schema).schema
