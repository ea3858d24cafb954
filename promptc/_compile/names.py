"""Every name a template uses, resolved wherever it stands (issue 35).

A name inside `{{#X}}…{{/X}}` is looked up in X's item first when that item is a table (a list
of objects, an object), then in the scopes around it, as mustache does; a name inside an
inverted section, or a section over plain text or a switch, is looked up around it. So each
use is resolved through the sections that enclose it: a field of a structured input's item (known
from the input's `schema`, or unchecked when it has none), a value of a component's data (whose
shape only its function knows), or a name of the template's own scope, which some layer must
supply (else it is unknown: reported with its file, line and a did-you-mean).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

import attrs

from .._model.inputs import InputSpec
from .._text.template import Template, Use

__all__ = ["ItemScope", "OPEN", "SCALAR", "Fields", "Resolved", "resolve_names", "input_scope"]


@attrs.frozen
class Fields:
    """A section over items that are tables: their field names and each one's schema
    (`props` None: the input has no schema, so the names inside it are unchecked)."""

    owner: str  # the input whose items these are
    props: Mapping[str, Any] | None


class _Kind:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


OPEN = _Kind("OPEN")  # items of a shape only code knows (a component's data): any name may be one
SCALAR = _Kind("SCALAR")  # text, a number, a switch: the section pushes no table
ItemScope = Fields | _Kind
TopScope = Callable[[str], ItemScope]  # what a section over a name of the template's scope pushes


@attrs.frozen
class Resolved:
    """A template's names: those its own scope must supply (heads, in order of first use),
    those nothing supplies, and those inside a schema-less structured input (unchecked)."""

    top: tuple[str, ...]
    # (use, the inputs whose schemas lack it, their fields: for a did-you-mean)
    unknown: tuple[tuple[Use, tuple[str, ...], tuple[str, ...]], ...]
    unchecked: tuple[tuple[str, Use], ...]  # (input, use)


def schema_scope(owner: str, schema: Any) -> ItemScope:
    """What a section over a value of `schema` pushes: each item of an array, the fields of
    an object; text and numbers push nothing."""
    if not isinstance(schema, Mapping):
        return Fields(owner, None)
    kind = schema.get("type")
    if kind == "array" or "items" in schema:
        return schema_scope(owner, schema.get("items")) if "items" in schema else \
            Fields(owner, None)
    props = schema.get("properties")
    if isinstance(props, Mapping):
        return Fields(owner, props)
    if kind in ("string", "number", "integer", "boolean", "null"):
        return SCALAR
    return Fields(owner, None)


def _field(schema: Any, parts: list[str]) -> Any:
    """The schema of `parts` below `schema` (None: not known)."""
    for part in parts:
        props = schema.get("properties") if isinstance(schema, Mapping) else None
        if not isinstance(props, Mapping) or part not in props:
            return None
        schema = props[part]
    return schema


def input_scope(spec: InputSpec, rest: list[str]) -> ItemScope:
    """What a section over a structured input (or a field of it, `rest`) pushes."""
    if spec.type not in ("list", "object"):
        return SCALAR
    if spec.schema is None:
        return Fields(spec.name, None)
    if spec.type == "list":
        if rest:
            return Fields(spec.name, None)  # an item by its index: unusual, not checked
        return schema_scope(spec.name, spec.schema)
    sub = _field(spec.schema, rest)
    return Fields(spec.name, None) if sub is None else schema_scope(spec.name, sub)


class _Resolver:
    def __init__(self, known: Collection[str], top_scope: TopScope) -> None:
        self.known = known
        self.top_scope = top_scope
        self.chains: dict[tuple[str, ...], tuple[ItemScope, ...]] = {(): ()}

    def chain(self, within: tuple[str, ...]) -> tuple[ItemScope, ...]:
        """The scopes the sections `within` push, outermost first."""
        found = self.chains.get(within)
        if found is None:
            outer = self.chain(within[:-1])
            found = self.chains[within] = (*outer, self.pushed(within[-1], outer))
        return found

    def pushed(self, name: str, chain: tuple[ItemScope, ...]) -> ItemScope:
        """What a section over `name`, seen through `chain`, pushes."""
        head, *rest = name.split(".")
        for scope in reversed(chain):
            if scope is OPEN:
                return OPEN
            if isinstance(scope, Fields):
                if scope.props is None:
                    return scope if head not in self.known else self.top_scope(name)
                if head in scope.props:
                    sub = _field(scope.props[head], rest)
                    return Fields(scope.owner, None) if sub is None else \
                        schema_scope(scope.owner, sub)
        return self.top_scope(name) if head in self.known else SCALAR

    def where(self, use: Use) -> tuple[str, Any]:
        """("top", head), ("item", None), ("unchecked", input) or ("unknown", (schemas,
        fields))."""
        head = use.name.split(".")[0]
        schemas: list[str] = []
        fields: list[str] = []
        for scope in reversed(self.chain(use.within)):
            if scope is OPEN:  # a name the template's scope knows is supplied all the same
                return ("top", head) if head in self.known else ("item", None)
            if isinstance(scope, Fields):
                if scope.props is None:
                    return ("top", head) if head in self.known else ("unchecked", scope.owner)
                if head in scope.props:
                    return "item", None
                schemas.append(scope.owner)
                fields.extend(scope.props)
        if head in self.known:
            return "top", head
        return "unknown", (tuple(schemas), tuple(fields))


def resolve_names(template: Template, known: Collection[str], top_scope: TopScope) -> Resolved:
    """Resolve every use of `template`: `known` are the names the template's own scope can
    supply, `top_scope` says what a section over one of them pushes."""
    resolver = _Resolver(known, top_scope)
    top: dict[str, None] = {}
    unknown: list[tuple[Use, tuple[str, ...], tuple[str, ...]]] = []
    unchecked: list[tuple[str, Use]] = []
    reported: set[str] = set()
    for use in template.uses:
        kind, what = resolver.where(use)
        if kind == "top":
            top[what] = None
        elif kind == "unknown" and use.name not in reported:
            reported.add(use.name)
            top[use.name.split(".")[0]] = None  # supplied by nothing: rendered empty
            unknown.append((use, *what))
        elif kind == "unchecked":
            unchecked.append((what, use))
    return Resolved(tuple(top), tuple(unknown), tuple(unchecked))
