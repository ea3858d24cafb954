"""JSON Schema's keywords, one step each, as `schema_check` applies them: a step says whether
the value fits, reading its sibling keywords where the specification ties them (`then` is
`if`'s). A keyword whose value is not JSON Schema is a note (`Run.bad`), never an exception."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any, Protocol

import attrs

from .schema_refs import Prepared, canonical, shown

__all__ = ["SchemaProblem", "Path", "Out", "Seen", "Step", "STEPS", "unevaluated",
           "describe_type", "is_type", "Run"]

Path = tuple[str | int, ...]


@attrs.frozen
class SchemaProblem:
    """One way the value does not fit: where (`path` into the value), which `keyword` says so,
    and `message`, written to follow the value's name ("must be a string, got 7"). `key`: the
    key a `required` misses or an `additionalProperties: false` refuses."""

    path: Path
    keyword: str
    message: str
    key: str | None = None


class Seen:
    """What a subschema evaluated at one value (for `unevaluated*`): keys and item indexes.
    Kept only when the schema uses `unevaluated*` (`Run.track`); else left empty."""

    __slots__ = ("keys", "all_keys", "upto", "indexes", "all_items")

    def __init__(self) -> None:
        self.keys: set[str] = _NONE
        self.all_keys = False
        self.upto = 0
        self.indexes: set[int] = _NONE
        self.all_items = False

    def merge(self, other: Seen) -> None:
        if other.keys:
            self.keys = set(other.keys) if self.keys is _NONE else self.keys | other.keys
        if other.indexes:
            self.indexes = set(other.indexes) if self.indexes is _NONE else \
                self.indexes | other.indexes
        self.all_keys = self.all_keys or other.all_keys
        self.upto = max(self.upto, other.upto)
        self.all_items = self.all_items or other.all_items


_NONE: Any = frozenset()  # an empty set never changed in place (`|` makes a new one)


class Run(Protocol):
    """The checker's run as the steps see it, declared here so they do not import the checker."""

    prepared: Prepared
    track: bool
    def canonical(self, value: Any) -> Any: ...
    def tick(self, cost: int = 1) -> None: ...
    def note(self, text: str) -> None: ...
    def bad(self, keyword: str, value: Any, why: str) -> None: ...
    def fail(self, out: Out, path: Path, keyword: str, message: str | Callable[[], str],
             key: str | None = None) -> bool: ...
    def fits(self, node: Any, value: Any, path: Path, base: str, depth: int) -> Seen | None: ...
    def apply(self, node: Any, value: Any, path: Path, base: str, depth: int, out: Out
              ) -> Seen | None: ...


Out = list[SchemaProblem] | None  # where problems go; None: only whether the value fits
Step = Callable[[Run, Mapping[str, Any], Any, Path, str, int, Out, Seen], bool]


# --- type, enum, const -----------------------------------------------------------------------

_TYPES = ("null", "boolean", "object", "array", "number", "string", "integer")
_ARTICLES = {"null": "null", "integer": "an integer", "array": "an array", "object": "an object"}


def describe_type(kind: str) -> str:
    return _ARTICLES.get(kind, f"a {kind}")


def is_type(kind: str, value: Any) -> bool:
    if kind == "null":
        return value is None
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "string":
        return isinstance(value, str)
    if kind == "object":
        return isinstance(value, Mapping)
    if kind == "array":
        return isinstance(value, (list, tuple))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return kind == "number" or isinstance(value, int) or value.is_integer()


def _type(run: Run, node: Mapping[str, Any], value: Any, path: Path, _base: str, _depth: int,
          out: Out, _seen: Seen) -> bool:
    kinds = node["type"]
    names = [kinds] if isinstance(kinds, str) else kinds
    if not isinstance(names, list) or not names or \
            any(not isinstance(k, str) or k not in _TYPES for k in names):
        run.bad("type", kinds, "not a JSON type name or a list of them")
        return True
    if any(is_type(k, value) for k in names):
        return True
    wanted = " or ".join(describe_type(k) for k in names)
    return run.fail(out, path, "type", lambda: f"must be {wanted}, got {shown(value)}")


def _enum(run: Run, node: Mapping[str, Any], value: Any, path: Path, _base: str, _depth: int,
          out: Out, _seen: Seen) -> bool:
    options = node["enum"]
    if not isinstance(options, list):
        run.bad("enum", options, "not a list")
        return True
    forms = run.prepared.options(options)
    if forms is None:
        run.bad("enum", options, "it holds a value that is not JSON")
        return True
    run.tick(1 + len(options) // 64)
    return run.canonical(value) in forms or run.fail(
        out, path, "enum", lambda: f"must be one of {_listed(options)}; got {shown(value)}")


def _listed(options: list[Any]) -> str:
    return ", ".join(shown(o) for o in options[:20]) + (", …" if len(options) > 20 else "")


def _const(run: Run, node: Mapping[str, Any], value: Any, path: Path, _base: str, _depth: int,
           out: Out, _seen: Seen) -> bool:
    wanted = canonical(node["const"])
    if wanted is None:
        run.bad("const", node["const"], "not a JSON value")
        return True
    if run.canonical(value) == wanted:
        return True
    return run.fail(out, path, "const",
                    lambda: f"must be {shown(node['const'])}; got {shown(value)}")


# --- numbers and strings ---------------------------------------------------------------------

def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and \
        (not isinstance(x, float) or math.isfinite(x))


_BOUNDS: tuple[tuple[str, str, Callable[[Any, Any], bool]], ...] = (
    ("minimum", "at least", operator.ge), ("exclusiveMinimum", "more than", operator.gt),
    ("maximum", "at most", operator.le), ("exclusiveMaximum", "less than", operator.lt))


def _numeric(run: Run, node: Mapping[str, Any], value: Any, path: Path, _base: str,
             _depth: int, out: Out, _seen: Seen) -> bool:
    if not _number(value):
        return True
    ok = True
    for keyword, words, holds in _BOUNDS:
        bound = node.get(keyword)
        if bound is None or isinstance(bound, bool):  # draft 4's boolean exclusive*: below
            continue
        if not _number(bound):
            run.bad(keyword, bound, "not a finite number")
        elif not holds(value, bound):
            ok = run.fail(out, path, keyword, lambda: f"must be {words} {shown(bound)} "
                                                      f"({keyword}), got {shown(value)}")
    for keyword, limit, words in (("exclusiveMinimum", "minimum", "more than"),
                                  ("exclusiveMaximum", "maximum", "less than")):
        if node.get(keyword) is True and _number(node.get(limit)) and value == node[limit]:
            ok = run.fail(out, path, keyword, lambda: f"must be {words} {shown(node[limit])} "
                                              f"({keyword}), got {shown(value)}")
    if "multipleOf" in node:
        ok = _multiple_of(run, node["multipleOf"], value, path, out) and ok
    return ok


def _multiple_of(run: Run, step: Any, value: Any, path: Path, out: Out) -> bool:
    if not _number(step) or step <= 0:
        run.bad("multipleOf", step, "not a number above 0")
        return True
    # Exact decimal arithmetic on the numbers as written (0.3 is a multiple of 0.1); a float
    # has at most a few hundred digits and an integer at most 4,300, so this is bounded.
    return (_exact(value) / _exact(step)).denominator == 1 or run.fail(
        out, path, "multipleOf",
        lambda: f"must be a multiple of {shown(step)} (multipleOf), got {shown(value)}")


def _exact(x: int | float) -> Fraction:
    return Fraction(x) if isinstance(x, int) else Fraction(Decimal(repr(x)))


def _count(run: Run, node: Mapping[str, Any], keyword: str) -> int | None:
    limit = node.get(keyword)
    if limit is None:
        return None
    if isinstance(limit, float) and limit.is_integer():
        limit = int(limit)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        run.bad(keyword, limit, "not a whole number of at least 0")
        return None
    return limit


def _string(run: Run, node: Mapping[str, Any], value: Any, path: Path, _base: str,
            _depth: int, out: Out, _seen: Seen) -> bool:
    if not isinstance(value, str):
        return True
    ok = True
    least, most = _count(run, node, "minLength"), _count(run, node, "maxLength")
    if least is not None and len(value) < least:
        ok = run.fail(out, path, "minLength", lambda: f"must be at least {shown(least)} characters "
                                              f"long (minLength), got {len(value)}")
    if most is not None and len(value) > most:
        ok = run.fail(out, path, "maxLength", lambda: f"must be at most {shown(most)} characters "
                                              f"long (maxLength), got {len(value)}")
    if "pattern" in node:
        source = node["pattern"]
        matched = _search(run, "pattern", source, value)
        if matched is False:
            ok = run.fail(out, path, "pattern", lambda: f"must match the pattern {shown(source)} "
                                                f"(pattern), got {shown(value)}")
    return ok


def _search(run: Run, keyword: str, source: Any, text: str) -> bool | None:
    """Whether the pattern matches somewhere in `text`; None when it cannot be run."""
    if not isinstance(source, str):
        run.bad(keyword, source, "not a string")
        return None
    program = run.prepared.pattern(source)
    if isinstance(program, str):
        run.note(f"{program}, so it was not checked")
        return None
    run.tick(1 + len(text) // 256)
    return program.search(text) is not None


# --- arrays ----------------------------------------------------------------------------------

def _items(run: Run, node: Mapping[str, Any], value: Any, path: Path, base: str, depth: int,
           out: Out, seen: Seen) -> bool:
    """`prefixItems`, `items` (a schema, or draft 7's list) and `additionalItems`."""
    if not isinstance(value, (list, tuple)):
        return True
    items = node.get("items")
    prefix = node.get("prefixItems")
    if isinstance(items, list):  # draft 7: a list of item schemas, then additionalItems
        prefix, rest = items, node.get("additionalItems")
    else:
        rest = items
    if prefix is not None and not isinstance(prefix, list):
        run.bad("prefixItems", prefix, "not a list of schemas")
        prefix = None
    ok = True
    for i, (schema, item) in enumerate(zip(prefix or (), value)):
        ok = _item(run, schema, item, (*path, i), base, depth, out) and ok
    done = min(len(prefix or ()), len(value))
    seen.upto = max(seen.upto, done)
    if rest is not None:
        for i in range(done, len(value)):
            ok = _item(run, rest, value[i], (*path, i), base, depth, out) and ok
            if not ok and out is None:
                return False
        seen.all_items = True
    return ok


def _item(run: Run, schema: Any, item: Any, path: Path, base: str, depth: int, out: Out) -> bool:
    return run.apply(schema, item, path, base, depth + 1, out) is not None


def _sizes(run: Run, node: Mapping[str, Any], value: Any, path: Path, _base: str,
           _depth: int, out: Out, _seen: Seen) -> bool:
    """minItems/maxItems on arrays, minProperties/maxProperties on objects."""
    if isinstance(value, (list, tuple)):
        keys, noun = ("minItems", "maxItems"), "items"
    elif isinstance(value, Mapping):
        keys, noun = ("minProperties", "maxProperties"), "keys"
    else:
        return True
    ok = True
    least, most = _count(run, node, keys[0]), _count(run, node, keys[1])
    if least is not None and len(value) < least:
        ok = run.fail(out, path, keys[0], lambda: f"must have at least {shown(least)} {noun} "
                                                  f"({keys[0]}), got {len(value)}")
    if most is not None and len(value) > most:
        ok = run.fail(out, path, keys[1], lambda: f"must have at most {shown(most)} {noun} "
                                                  f"({keys[1]}), got {len(value)}")
    return ok


def _unique(run: Run, node: Mapping[str, Any], value: Any, path: Path, _base: str,
            _depth: int, out: Out, _seen: Seen) -> bool:
    if node["uniqueItems"] is not True or not isinstance(value, (list, tuple)):
        if not isinstance(node["uniqueItems"], bool):
            run.bad("uniqueItems", node["uniqueItems"], "not true or false")
        return True
    first: dict[Any, int] = {}
    run.tick(1 + len(value) // 16)
    for i, item in enumerate(value):
        form = run.canonical(item)
        if form in first:
            return run.fail(out, path, "uniqueItems", f"must hold no item twice (uniqueItems); "
                                                      f"items {first[form]} and {i} are equal")
        first[form] = i
    return True


def _contains(run: Run, node: Mapping[str, Any], value: Any, path: Path, base: str,
              depth: int, out: Out, seen: Seen) -> bool:
    if not isinstance(value, (list, tuple)) or "contains" not in node:
        return True
    least, most = _count(run, node, "minContains"), _count(run, node, "maxContains")
    least = 1 if least is None else least
    matched = [i for i, item in enumerate(value)
               if run.fits(node["contains"], item, (*path, i), base, depth + 1) is not None]
    if run.track:
        seen.indexes = seen.indexes | set(matched)
    if len(matched) < least:
        return run.fail(out, path, "contains", lambda: f"must hold at least {shown(least)} "
                        f'item(s) that fit its "contains" schema, got {len(matched)}')
    if most is not None and len(matched) > most:
        return run.fail(out, path, "maxContains", lambda: f"must hold at most {shown(most)} "
                        f'item(s) that fit its "contains" schema, got {len(matched)}')
    return True


# --- objects ---------------------------------------------------------------------------------

def _properties(run: Run, node: Mapping[str, Any], value: Any, path: Path, base: str,
                depth: int, out: Out, seen: Seen) -> bool:
    """`properties`, `patternProperties` and `additionalProperties`, which reads both."""
    if not isinstance(value, Mapping):
        return True
    props = _table(run, node, "properties")
    patterns = _table(run, node, "patternProperties")
    extra = node.get("additionalProperties")
    ok = True
    evaluated: list[str] = []
    for key, item in value.items():
        run.tick()
        covered = False
        if key in props:
            covered = True
            ok = _item(run, props[key], item, (*path, key), base, depth, out) and ok
        for source, schema in patterns.items():
            if isinstance(key, str) and _search(run, "patternProperties", source, key):
                covered = True
                ok = _item(run, schema, item, (*path, key), base, depth, out) and ok
        if covered:
            evaluated.append(key)
        elif extra is False:
            ok = run.fail(out, path, "additionalProperties", f"has no key {key!r}", key)
        elif extra is not None:
            ok = _item(run, extra, item, (*path, key), base, depth, out) and ok
        if not ok and out is None:
            return False
    if extra is not None:
        seen.all_keys = True
    elif evaluated and run.track:
        seen.keys = seen.keys | set(evaluated)
    return ok


def _table(run: Run, node: Mapping[str, Any], keyword: str) -> Mapping[str, Any]:
    table = node.get(keyword)
    if table is not None and not isinstance(table, Mapping):
        run.bad(keyword, table, "not an object of schemas")
    return table if isinstance(table, Mapping) else {}


def _required(run: Run, node: Mapping[str, Any], value: Any, path: Path, _base: str,
              _depth: int, out: Out, _seen: Seen) -> bool:
    names = node["required"]
    if not isinstance(names, list) or any(not isinstance(n, str) for n in names):
        run.bad("required", names, "not a list of names")
        return True
    if not isinstance(value, Mapping):
        return True
    ok = True
    for name in names:
        if name not in value:
            ok = run.fail(out, path, "required", f"is missing its required key {name!r}", name)
    return ok


def _dependencies(run: Run, node: Mapping[str, Any], value: Any, path: Path, base: str,
                  depth: int, out: Out, seen: Seen) -> bool:
    """`dependentRequired`, `dependentSchemas` and draft 7's `dependencies` (either kind)."""
    if not isinstance(value, Mapping):
        return True
    ok = True
    for keyword in ("dependentRequired", "dependentSchemas", "dependencies"):
        table = _table(run, node, keyword)
        for key, then in table.items():
            if key not in value:
                continue
            if isinstance(then, list) and keyword != "dependentSchemas":
                for name in then:
                    if isinstance(name, str) and name not in value:
                        ok = run.fail(out, path, keyword, f"has the key {key!r}, so it must "
                                                          f"also have {name!r}", name)
            elif keyword != "dependentRequired":
                found = run.apply(then, value, path, base, depth + 1, out)
                if found is None:
                    ok = False
                else:
                    seen.merge(found)
            else:
                run.bad(keyword, then, "not a list of names")
    return ok


def _property_names(run: Run, node: Mapping[str, Any], value: Any, path: Path, base: str,
                    depth: int, out: Out, _seen: Seen) -> bool:
    if not isinstance(value, Mapping):
        return True
    ok = True
    for key in value:
        if run.fits(node["propertyNames"], key, path, base, depth + 1) is None:
            ok = run.fail(out, path, "propertyNames", f"has the key {key!r}, which its "
                                                      "propertyNames schema refuses", key)
    return ok


# --- combining -------------------------------------------------------------------------------

def _parts(run: Run, node: Mapping[str, Any], keyword: str) -> list[Any] | None:
    parts = node[keyword]
    if not isinstance(parts, list) or not parts:
        run.bad(keyword, parts, "not a non-empty list of schemas")
        return None
    return parts


def _all_of(run: Run, node: Mapping[str, Any], value: Any, path: Path, base: str, depth: int,
            out: Out, seen: Seen) -> bool:
    parts = _parts(run, node, "allOf")
    ok = True
    for part in parts or ():
        found = run.apply(part, value, path, base, depth + 1, out)
        if found is None:
            ok = False
            if out is None:
                return False
        else:
            seen.merge(found)
    return ok


def _any_of(run: Run, node: Mapping[str, Any], value: Any, path: Path, base: str, depth: int,
            out: Out, seen: Seen) -> bool:
    parts = _parts(run, node, "anyOf")
    if parts is None:
        return True
    ok = False
    for part in parts:
        found = run.fits(part, value, path, base, depth + 1)
        if found is not None:
            ok = True
            seen.merge(found)
            if not run.track:
                break
    return ok or run.fail(out, path, "anyOf", lambda: f"fits none of its anyOf alternatives"
                                              f"{_kinds(parts)}, got {shown(value)}")


def _one_of(run: Run, node: Mapping[str, Any], value: Any, path: Path, base: str, depth: int,
            out: Out, seen: Seen) -> bool:
    parts = _parts(run, node, "oneOf")
    if parts is None:
        return True
    fitting: list[int] = []
    kept = Seen()
    for i, part in enumerate(parts):
        found = run.fits(part, value, path, base, depth + 1)
        if found is not None:
            fitting.append(i)
            if len(fitting) > 1:
                return run.fail(out, path, "oneOf", "fits more than one of its oneOf "
                                                    f"alternatives ({fitting[0]} and {i})")
            kept = found
    if fitting:
        seen.merge(kept)
        return True
    return run.fail(out, path, "oneOf", lambda: f"fits none of its oneOf alternatives"
                                                f"{_kinds(parts)}, got {shown(value)}")


def _kinds(parts: list[Any]) -> str:
    """For alternatives that each name their types: which types they take."""
    kinds: list[str] = []
    for part in parts:
        kind = part.get("type") if isinstance(part, Mapping) else None
        names = [kind] if isinstance(kind, str) else kind
        if not isinstance(names, list) or not all(n in _TYPES for n in names):
            return ""
        kinds.extend(describe_type(n) for n in names if describe_type(n) not in kinds)
    return f" (it must be {' or '.join(kinds)})"


def _not(run: Run, node: Mapping[str, Any], value: Any, path: Path, base: str, depth: int,
         out: Out, _seen: Seen) -> bool:
    return run.fits(node["not"], value, path, base, depth + 1) is None or \
        run.fail(out, path, "not", 'must not fit its "not" schema')


def _if(run: Run, node: Mapping[str, Any], value: Any, path: Path, base: str, depth: int,
        out: Out, seen: Seen) -> bool:
    found = run.fits(node["if"], value, path, base, depth + 1)
    branch = node.get("then") if found is not None else node.get("else")
    if found is not None:
        seen.merge(found)
    if branch is None:
        return True
    after = run.apply(branch, value, path, base, depth + 1, out)
    if after is None:
        return False
    seen.merge(after)
    return True


def _ref(run: Run, node: Mapping[str, Any], value: Any, path: Path, base: str, depth: int,
         out: Out, seen: Seen) -> bool:
    ref = node["$ref"]
    if not isinstance(ref, str):
        run.bad("$ref", ref, "not a string")
        return True
    target = run.prepared.follow(base, ref)
    if isinstance(target, str):
        run.note(f"{target}, so what it names was not checked")
        return True
    found = run.apply(target[0], value, path, target[1], depth + 1, out)
    if found is None:
        return False
    seen.merge(found)
    return True


def _dynamic(run: Run, node: Mapping[str, Any], _value: Any, _path: Path, _base: str,
             _depth: int, _out: Out, _seen: Seen) -> bool:
    keyword = "$dynamicRef" if "$dynamicRef" in node else "$recursiveRef"
    run.note(f'"{keyword}": {shown(node[keyword])} is not followed by this checker, so what '
             "it names was not checked")
    return True


def unevaluated(run: Run, node: Mapping[str, Any], value: Any, path: Path, base: str,
                 depth: int, out: Out, seen: Seen) -> bool:
    ok = True
    if "unevaluatedProperties" in node and isinstance(value, Mapping) and not seen.all_keys:
        schema = node["unevaluatedProperties"]
        for key, item in value.items():
            if key in seen.keys:
                continue
            if schema is False:
                ok = run.fail(out, path, "unevaluatedProperties", f"has no key {key!r}", key)
            elif not _item(run, schema, item, (*path, key), base, depth, out):
                ok = False
        seen.all_keys = True
    if "unevaluatedItems" in node and isinstance(value, (list, tuple)) and not seen.all_items:
        schema = node["unevaluatedItems"]
        for i in range(seen.upto, len(value)):
            if i not in seen.indexes and not _item(run, schema, value[i], (*path, i), base,
                                                   depth, out):
                ok = False
        seen.all_items = True
    return ok


STEPS: dict[str, Step] = {
    "$ref": _ref, "$dynamicRef": _dynamic, "$recursiveRef": _dynamic,
    "type": _type, "enum": _enum, "const": _const,
    "minimum": _numeric, "maximum": _numeric, "exclusiveMinimum": _numeric,
    "exclusiveMaximum": _numeric, "multipleOf": _numeric,
    "minLength": _string, "maxLength": _string, "pattern": _string,
    "prefixItems": _items, "items": _items, "additionalItems": _items,
    "minItems": _sizes, "maxItems": _sizes, "minProperties": _sizes, "maxProperties": _sizes,
    "uniqueItems": _unique, "contains": _contains,
    "properties": _properties, "patternProperties": _properties,
    "additionalProperties": _properties,
    "required": _required, "dependentRequired": _dependencies,
    "dependentSchemas": _dependencies, "dependencies": _dependencies,
    "propertyNames": _property_names,
    "allOf": _all_of, "anyOf": _any_of, "oneOf": _one_of, "not": _not, "if": _if,
}
