"""A schema in the form OpenAI's strict mode (Structured Outputs) takes, or None.

Strict mode wants every property listed in `required` (the optional ones made nullable),
`additionalProperties: false` on every object, no `default`, and a `$ref` never beside other
keywords. A schema it cannot express (an open object, an untyped value, `not`, `if`, more than
one `allOf` entry, more than 10 levels of objects, a `required` name with no property…) gives
None, and the caller sends the schema as it is with `strict: false`. Of those, a `required`
name with no property is also a problem to report: the server's schema contradicts itself.

`reword` (the built-in tools only) rewrites the description of each optional parameter: where
a pack's instruction says to leave a parameter out, strict mode's says to send null
(promptc/_emit/wording.py, components/wire.toml).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..._model.json_schema import allows_null, lookup_ref
from .clean import TYPES
from .root import checked_root
from .visitor import ALWAYS, At, Converted, KeywordVisitor, Visit, unique

__all__ = ["openai_strict", "strict_form", "MAX_DEPTH", "STRICT_MAX_OBJECT_DEPTH",
           "REQUIRED_UNKNOWN"]

MAX_DEPTH = 48  # schema nodes deeper than this are refused (strict) or cut (Gemini)
STRICT_MAX_OBJECT_DEPTH = 10  # OpenAI: objects nest at most 10 levels in strict mode
STRICT_MAX_PROPERTIES = 5000
STRICT_MAX_ENUM = 1000
REQUIRED_UNKNOWN = "schema-required-unknown"

# Keywords that change what is valid in a way strict mode cannot say: the schema is not strict.
_REFUSE = frozenset({"not", "if", "then", "else", "patternProperties", "dependentRequired",
                     "dependentSchemas", "dependencies", "unevaluatedProperties",
                     "unevaluatedItems", "propertyNames", "contains", "minContains",
                     "maxContains", "prefixItems", "additionalItems"})
# What strict mode takes (OpenAI's supported subset). The others are left out of the strict form
# only: keywords that merely narrow a value (`minLength`, `uniqueItems`…: the model still sees
# the description), `default` (refused, and meaningless once all is required), annotations
# (`examples`, `$comment`, `x-order`, `nullable`…).
_KNOWN = frozenset({"type", "properties", "required", "additionalProperties", "items", "enum",
                    "anyOf", "oneOf", "allOf", "$ref", "$defs", "definitions", "description",
                    "title", "pattern", "format", "minimum", "maximum", "exclusiveMinimum",
                    "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "const"})
_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4",
                      "ipv6", "uuid"})
_NAMES = frozenset({"description", "title"})

Reword = Callable[[str], str]


class NotStrict(Exception):
    """Raised inside the strict conversion: the schema cannot be made strict."""


def _kinds(out: Mapping[str, Any]) -> list[Any]:
    kind = out.get("type")
    return kind if isinstance(kind, list) else [kind]


def _known_kinds(out: Mapping[str, Any]) -> list[str]:
    kinds = _kinds(out)
    if not kinds or not all(isinstance(k, str) and k in TYPES for k in kinds):
        raise NotStrict
    return kinds


def _inferred(out: dict[str, Any]) -> bool:
    """An untyped node: an object when it has properties (True); complete as it is when an
    enum or alternatives say what it holds (False); else strict mode cannot say it."""
    if isinstance(out.get("properties"), Mapping):
        out["type"] = "object"
        return True
    if "anyOf" in out or "enum" in out:
        return False
    raise NotStrict  # any value at all: strict mode needs a type


def _pydantic_ref(node: Mapping[str, Any]) -> Mapping[str, Any]:
    """pydantic v1's way to describe a reference (`allOf` around it, siblings beside) as a
    plain `$ref` with siblings."""
    all_of = node.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and "$ref" not in node and \
            isinstance(all_of[0], Mapping) and set(all_of[0]) == {"$ref"}:
        return {**{k: v for k, v in node.items() if k != "allOf"}, "$ref": all_of[0]["$ref"]}
    return node


class Strict(KeywordVisitor):
    """Strict conversion, one keyword group at a time."""

    GROUPS = (("refused", _REFUSE), ("reference", frozenset({"$ref"})), ("keywords", ALWAYS),
              ("const", frozenset({"const"})), ("all_of", frozenset({"allOf"})),
              ("alternatives", ALWAYS), ("enum", frozenset({"enum", "const"})),
              ("type", ALWAYS), ("object", ALWAYS), ("array", ALWAYS))

    __slots__ = ("root", "properties", "reword")

    def __init__(self, root: Mapping[str, Any], reword: Reword | None = None) -> None:
        super().__init__()
        self.root = root
        self.properties = 0
        self.reword = reword

    def node(self, node: Any, at: At) -> dict[str, Any]:
        if at.depth > MAX_DEPTH or not isinstance(node, Mapping):
            raise NotStrict
        return self.visit(_pydantic_ref(node), at)

    def visit_refused(self, v: Visit) -> None:
        raise NotStrict

    def visit_reference(self, v: Visit) -> bool:
        """A `$ref` stands for the whole node; only a description or title may sit beside it
        (then the reference moves into a one-entry `anyOf`)."""
        ref = v.node["$ref"]
        if not isinstance(ref, str) or lookup_ref(ref, self.root) is None:
            raise NotStrict
        rest = {k: x for k, x in v.node.items() if k in _KNOWN and k != "$ref"}
        if set(rest) - _NAMES:
            raise NotStrict  # a $ref narrowed by siblings
        v.out.update(rest)
        if rest:
            v.out["anyOf"] = [{"$ref": ref}]
        else:
            v.out["$ref"] = ref
        return True

    def visit_keywords(self, v: Visit) -> None:
        for key, value in v.node.items():
            if key not in _KNOWN or key in ("$defs", "definitions"):
                continue
            if key == "format" and value not in _FORMATS:
                continue
            v.out[key] = value

    def visit_const(self, v: Visit) -> None:
        v.out["enum"] = [v.out.pop("const")]

    def visit_all_of(self, v: Visit) -> None:
        """One `allOf` entry merged into the node (more than one: not strict)."""
        all_of = v.out.pop("allOf")
        if not isinstance(all_of, list) or len(all_of) != 1:
            raise NotStrict
        for key, value in self.node(all_of[0], v.at.deeper("allOf")).items():
            if key in v.out and v.out[key] != value and key not in _NAMES:
                raise NotStrict
            v.out.setdefault(key, value)

    def visit_alternatives(self, v: Visit) -> None:
        one_of = v.out.pop("oneOf", None)
        if one_of is not None:
            if not isinstance(one_of, list) or "anyOf" in v.out:
                raise NotStrict
            v.out["anyOf"] = one_of
        any_of = v.out.get("anyOf")
        if any_of is not None:
            if not isinstance(any_of, list) or not any_of:
                raise NotStrict
            v.out["anyOf"] = [self.node(p, v.at.deeper("anyOf")) for p in any_of]

    def visit_enum(self, v: Visit) -> None:
        enum = v.out.get("enum")
        if not isinstance(enum, list) or len(enum) > STRICT_MAX_ENUM:
            raise NotStrict

    def visit_type(self, v: Visit) -> bool:
        """A type strict mode knows (an object when there are properties); several types
        become one alternative each."""
        out = v.out
        if out.get("type") is None and not _inferred(out):
            return True  # an enum or alternatives say it all
        kinds = _known_kinds(out)
        if len([k for k in kinds if k != "null"]) <= 1:
            return False
        del out["type"]
        if "anyOf" in out:
            raise NotStrict
        out["anyOf"] = [self.node({"type": k}, v.at.deeper()) for k in kinds]
        return True

    def visit_object(self, v: Visit) -> None:
        if "object" in _kinds(v.out):
            self._object(v)
        else:
            v.out.pop("additionalProperties", None)

    def visit_array(self, v: Visit) -> None:
        if "array" in _kinds(v.out):
            items = v.out.get("items")
            if not isinstance(items, Mapping):
                raise NotStrict
            v.out["items"] = self.node(items, v.at.deeper("items"))

    # --- objects -------------------------------------------------------------------------

    def _object(self, v: Visit) -> None:
        """Every property required (the optional ones nullable), no others allowed."""
        out, at = v.out, v.at
        if at.objects + 1 > STRICT_MAX_OBJECT_DEPTH:
            raise NotStrict
        props = self._properties(out, at)
        asked = self._asked(out, props, at)
        new_props = {name: self._property(sub, name in asked,
                                          at.deeper("properties", name, objects=1))
                     for name, sub in props.items()}
        self.properties += len(new_props)
        out["properties"] = new_props
        out["required"] = list(new_props)
        out["additionalProperties"] = False

    def _properties(self, out: Mapping[str, Any], at: At) -> Mapping[str, Any]:
        closed = "additionalProperties" in out
        if out.get("additionalProperties", False) is not False:
            raise NotStrict  # an open map: strict mode cannot say "any keys"
        props = out.get("properties")
        if props is None:
            props = {}
        if not isinstance(props, Mapping):
            raise NotStrict
        if not props and not closed and at.depth > 0:
            raise NotStrict  # any object at all (the root's "no arguments" is fine)
        return props

    def _asked(self, out: Mapping[str, Any], props: Mapping[str, Any], at: At) -> set[str]:
        """The required names; one with no property is a problem, and not strict."""
        required = out.get("required")
        names = [r for r in required if isinstance(r, str)] if isinstance(required, list) else []
        missing = [r for r in names if r not in props]
        if missing:
            self.problem(REQUIRED_UNKNOWN, "required", at,
                         f"{', '.join(map(repr, missing))} named without a property: the tool "
                         "is sent without strict mode")
            raise NotStrict
        return set(names)

    def _property(self, sub: Any, asked: bool, at: At) -> dict[str, Any]:
        converted = self.node(sub, at)
        if asked:
            return converted
        if not allows_null(converted):
            converted = _nullable(converted)
        text = converted.get("description")
        if self.reword is not None and isinstance(text, str):
            converted["description"] = self.reword(text)
        return converted


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    """The node, also admitting null (an optional property in strict mode)."""
    out = dict(node)
    kind = out.get("type")
    if isinstance(kind, (str, list)):
        out["type"] = [*kind, "null"] if isinstance(kind, list) else [kind, "null"]
        if isinstance(out.get("enum"), list):
            out["enum"] = [*out["enum"], None]
    elif isinstance(out.get("anyOf"), list):
        out["anyOf"] = [*out["anyOf"], {"type": "null"}]
    elif "$ref" in out:
        out["anyOf"] = [{"$ref": out.pop("$ref")}, {"type": "null"}]
    elif isinstance(out.get("enum"), list):
        out["enum"] = [*out["enum"], None]
    else:
        raise NotStrict
    return out


def _definitions(state: Strict, root: Mapping[str, Any], out: dict[str, Any]) -> None:
    """`$defs` and `definitions`, each definition converted like a property's schema."""
    for table in ("$defs", "definitions"):
        defs = root.get(table)
        if isinstance(defs, Mapping) and defs:
            out[table] = {name: state.node(sub, At(1, 0, (), (table, name)))
                          for name, sub in defs.items()}


def strict_form(schema: Any, reword: Reword | None = None) -> Converted:
    """The schema in strict form (None when strict mode cannot say it), with the problems of
    the schema met on the way (malformed keyword values, which are dropped first; `required`
    names without a property)."""
    checked = checked_root(schema)
    root = checked.schema
    assert root is not None
    state = Strict(root, reword)
    try:
        out = state.node(root, At())
        _definitions(state, root, out)
    except NotStrict:
        return Converted(None, unique([*checked.problems, *state.problems]))
    acceptable = out.get("type") == "object" and "anyOf" not in out and \
        state.properties <= STRICT_MAX_PROPERTIES
    return Converted(out if acceptable else None, unique([*checked.problems, *state.problems]))


def openai_strict(schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """The schema in the form OpenAI's strict mode accepts, or None when it cannot be."""
    return strict_form(schema).schema
