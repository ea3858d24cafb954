"""Steps: each component of a variant, bound once per (variant, provider).

Binding decides which template a component uses (the variant's own text, else the component's),
its budget settings, exactly which request values its output is computed from (`reads`, the
standard placeholders and runtime names its templates use), hence its cache class and the key a
request's output is memoized by. A component that does not declare what it reads is request-class
and never memoized. A `Step` is built whole by `bind_step` and never changes.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Literal

import attrs

from .._base.suggest import did_you_mean
from .._load.component_defs import BUILTIN_COMPONENTS
from .._model.cache import RANK, CacheClass, most_volatile
from .._model.component import Component
from .._model.context import FIELD_CLASSES
from .._model.diagnostics import Diagnostic
from .._model.edits import SectionEdit
from .._model.placeholders import STANDARD
from .._model.request import Request, reader
from .._model.tools import per_session
from .._model.variant import Variant
from .._text.template import Template, Use
from .names import OPEN, SCALAR, ItemScope, input_scope, resolve_names

__all__ = ["Step", "bind_step", "class_of", "Form", "OFFERS", "unchecked_notes", "not_in"]

# The name a template tests to say something only when a tool is offered: `offers.<tool>` is
# true exactly when the request offers that tool (`{{#offers.ask_followup_question}}…`).
OFFERS = "offers"
SESSION_TOOLS = "session_tools"  # the section that lists the tools a session brings

Form = Literal["full", "short"]


def class_of(reads: frozenset[str], tools_class: CacheClass,
             stable_class: CacheClass = "static") -> CacheClass:
    """The cache class of an output computed from `reads` (`tools`: the offered tools, as
    volatile as what their conditions read; `stable_tools`: those that depend on no session
    value)."""
    classes = [tools_class if r == "tools" else stable_class if r == "stable_tools" else
               FIELD_CLASSES.get(r.split(".")[0], "request") for r in reads]
    return most_volatile(*classes)


@attrs.frozen(eq=False)
class Step:
    """One component of the variant, bound to a plan."""

    cid: str
    index: int
    component: Component | None
    template: Template | None  # None: a function component
    short: Template | None  # the shorter form a budget may use
    origin: str
    short_origin: str
    priority: int
    required: bool
    cache: CacheClass
    # The request values the output is computed from, sorted (the provider is fixed for a
    # plan and left out); None: undeclared, so computed on every request.
    reads: tuple[str, ...] | None
    runtime_names: frozenset[str] = frozenset()  # names a runtime value may override
    runtime_order: tuple[str, ...] = ()  # the same names, sorted once for keys
    std_names: tuple[str, ...] = ()  # standard placeholders its templates use
    offers: bool = False  # its templates test `offers.<tool>`: which tools are offered
    edits: tuple[SectionEdit, ...] = ()  # the variant's prepend/append edits of this section
    # The values of `reads` for a request, as its output's memo key (None: not memoized).
    key: Callable[[Request], Hashable] | None = attrs.field(default=None, eq=False, repr=False)


@attrs.frozen(eq=False)
class _Texts:
    """Which templates a step renders, and where each came from."""

    template: Template | None
    origin: str
    short: Template | None
    short_origin: str


def _texts(v: Variant, cid: str, comp: Component | None) -> _Texts:
    """The variant's own text wins over the component's; a variant that overrides the full
    text without a shorter form gets none (the component's would not match it)."""
    override: Template | None = v.component_templates.get(cid)
    short: Template | None = v.component_templates.get(cid + ".short")
    short_origin = short.source if short is not None else ""
    if override is not None:
        return _Texts(override, v.origins.get(f"component:{cid}", override.source), short,
                      short_origin)
    assert comp is not None  # bind_step refuses a component neither registered nor overridden
    if short is None and comp.parsed_short is not None:
        short, short_origin = comp.parsed_short, comp.short_origin
    if comp.parsed is not None:
        return _Texts(comp.parsed, comp.origin, short, short_origin)
    name = getattr(comp.function, "__qualname__", cid)
    return _Texts(None, f"{comp.source}: function {name}", short, short_origin)


def _budget(v: Variant, cid: str, comp: Component | None) -> tuple[int, bool]:
    """(priority, required): the component's, unless the variant's settings say otherwise."""
    priority = comp.priority if comp is not None else 50
    required = comp.required if comp is not None else False
    settings = v.component_settings.get(cid)
    if settings is not None:
        if settings.priority is not None:
            priority = settings.priority
        if settings.required is not None:
            required = settings.required
    return priority, required


def _undeclared(comp: Component | None) -> bool:
    """Python code that does not say what it reads: it runs on every request."""
    return comp is not None and comp.reads is None and (comp.function is not None or
                                                        comp.data is not None)


def _declared_reads(v: Variant, comp: Component | None) -> set[str]:
    reads: set[str] = set(comp.reads or ()) if comp is not None else set()
    if "stable_tools" in reads and SESSION_TOOLS not in v.components:
        # the static catalogue leaves the per-session tools to `session_tools`; a variant
        # without that section gets them all in this one (as volatile as they are)
        reads = (reads - {"stable_tools"}) | {"tools"}
    return reads


def _used_names(v: Variant, cid: str, comp: Component | None, templates: tuple[Template, ...],
                diags: list[Diagnostic], unchecked: list[Diagnostic]) -> set[str]:
    """The names the templates use, wherever they stand, that no data of the component
    provides; an unknown one is reported (lint reports it, strict refuses), and one inside a
    structured input without a schema is noted in `unchecked` (lint's information)."""
    provided = set(comp.provides) if comp is not None else set()
    inputs = {i.name: i for i in v.inputs}
    known = {*STANDARD, OFFERS, *v.placeholders, *inputs, *provided}
    # A data function that does not say what it provides may provide any name.
    open_data = comp is not None and (comp.data is not None or comp.request_data is not None) \
        and not provided
    opaque = provided | {OFFERS}

    def top_scope(name: str) -> ItemScope:
        head, *rest = name.split(".")
        if open_data or head in opaque:
            return OPEN
        spec = inputs.get(head)
        return SCALAR if spec is None else input_scope(spec, rest)

    names: set[str] = set()
    for tpl in templates:
        if open_data:
            names.update(use.name.split(".")[0] for use in tpl.uses)
            continue
        resolved = resolve_names(tpl, known, top_scope)
        names.update(resolved.top)
        for use, schemas, fields in resolved.unknown:
            diags.append(Diagnostic(
                "error", "placeholder-unknown",
                f"{tpl.source}:{use.line}: unknown placeholder {{{{{use.name}}}}} in "
                f"component {cid!r}{not_in(schemas)}; it renders empty" +
                did_you_mean(use.name.split(".")[0], [*fields, *known]), cid))
        unchecked.extend(unchecked_notes(tpl, resolved.unchecked, cid))
    return names - provided


def not_in(schemas: tuple[str, ...]) -> str:
    return f" (nor a field in the schema of input {schemas[0]!r})" if schemas else ""


def unchecked_notes(tpl: Template, found: tuple[tuple[str, Use], ...], source: str
                    ) -> list[Diagnostic]:
    """One note per structured input without a schema whose fields a template reads."""
    by_input: dict[str, list[Use]] = {}
    for owner, use in found:
        by_input.setdefault(owner, []).append(use)
    return [Diagnostic("info", "input-fields-unchecked",
                       f"{tpl.source}:{uses[0].line}: "
                       f"{', '.join('{{' + n + '}}' for n in sorted({u.name for u in uses}))} "
                       f"inside {{{{#{owner}}}}} cannot be checked: input {owner!r} declares no "
                       "schema (add one to have misspelled fields found)", source)
            for owner, uses in by_input.items()]


def _offered_tools(templates: tuple[Template, ...]) -> set[str] | None:
    """The tools `{{#offers.<tool>}}…` names in the templates (also where it is tested inside
    a section); None when no template tests `offers`."""
    names = [n.partition(".") for tpl in templates for n in tpl.all_names]
    if not any(head == OFFERS for head, _dot, _rest in names):
        return None
    return {rest.split(".")[0] for head, dot, rest in names if head == OFFERS and dot}


def _reads(v: Variant, comp: Component | None, names: set[str],
           templates: tuple[Template, ...]) -> tuple[set[str], tuple[str, ...], bool]:
    """(what the output is computed from, the standard placeholders used, whether it tests
    `offers`). `offers.<tool>` reads `tools` when a tool it names comes and goes with the
    session, else `stable_tools` (a tool the variant never offers is constantly absent)."""
    reads = _declared_reads(v, comp)
    named = _offered_tools(templates)
    if named is not None:
        per = {s.name for s in v.tool_specs if per_session(s)}
        reads.add("tools" if named & per else "stable_tools")
    std_names = tuple(sorted(n for n in names if n in STANDARD))
    reads.update(STANDARD[n][0] for n in std_names if STANDARD[n][0])
    # a declared input's value comes with the request (its default when none is given)
    reads.update(f"runtime.{i.name}" for i in v.inputs if i.name in names)
    return reads, std_names, named is not None


def _cache(reads: set[str], comp: Component | None, tools_class: CacheClass,
           stable_class: CacheClass) -> CacheClass:
    """The class of what the step reads, or the component's own when that is more volatile."""
    cache = class_of(frozenset(reads), tools_class, stable_class)
    if comp is not None and comp.cache is not None and RANK[comp.cache] > RANK[cache]:
        return comp.cache  # type: ignore[return-value]
    return cache


def _not_loaded(cid: str) -> str:
    """Why a name of the built-in pack is missing: the pack is left out (a project's
    `builtins = false`, `--no-builtins`), and a project names only its own sections."""
    if cid not in BUILTIN_COMPONENTS:
        return ""
    return (f" ({cid!r} is a section of the built-in coding pack, which is not loaded here: "
            f"`builtins = false` or --no-builtins; write components/{cid}.md of your own)")


def bind_step(v: Variant, cid: str, index: int, components: Mapping[str, Component],
              tools_class: CacheClass, diags: list[Diagnostic],
              stable_class: CacheClass = "static",
              unchecked: list[Diagnostic] | None = None) -> Step | None:
    """Resolve one component of the variant: its templates, settings, reads, class."""
    comp = components.get(cid)
    if comp is None and cid not in v.component_templates:
        diags.append(Diagnostic("error", "component-missing",
                                f"variant {v.id!r} lists component {cid!r}, which is not "
                                "registered; its section is skipped" + _not_loaded(cid) +
                                did_you_mean(cid, components), cid))
        return None
    texts = _texts(v, cid, comp)
    priority, required = _budget(v, cid, comp)
    edits = tuple(e for e in v.edits.get(cid, ()) if e.kind != "remove")
    added = tuple(e.template for e in edits if e.template is not None)
    if _undeclared(comp):
        std = tuple(sorted({n for t in added for n in t.all_names if n in STANDARD}))
        return Step(cid, index, comp, texts.template, texts.short, texts.origin,
                    texts.short_origin, priority, required, "request", None,
                    std_names=std, edits=edits)
    templates = tuple(t for t in (texts.template, texts.short) if t is not None) + added
    names = _used_names(v, cid, comp, templates, diags,
                        unchecked if unchecked is not None else []) - {OFFERS}
    reads, std_names, offers = _reads(v, comp, names, templates)
    ordered = tuple(sorted(reads - {"provider"}))
    return Step(cid, index, comp, texts.template, texts.short, texts.origin, texts.short_origin,
                priority, required, _cache(reads, comp, tools_class, stable_class), ordered,
                frozenset(names), tuple(sorted(names)), std_names, offers, edits,
                reader(ordered))
