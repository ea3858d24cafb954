"""Steps: each component of a variant, bound once per (variant, provider).

Binding decides which template a component uses (the variant's own text, else the component's),
its budget settings, exactly which request values its output is computed from (`reads`, the
standard placeholders and runtime names its templates use), hence its cache class and the key a
request's output is memoized by. A component that does not declare what it reads is request-class
and never memoized.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from .._base.suggest import did_you_mean
from .._model.cache import RANK, CacheClass, most_volatile
from .._model.component import Component
from .._model.context import FIELD_CLASSES
from .._model.diagnostics import Diagnostic
from .._model.placeholders import STANDARD
from .._model.tools import per_session
from .._model.variant import Variant
from .._text.template import Template

__all__ = ["Step", "bind_step", "class_of", "Form", "OFFERS"]

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


class Step:
    """One component of the variant, bound to a plan (read-only once the plan is built)."""

    __slots__ = ("cid", "index", "component", "template", "short", "origin", "short_origin",
                 "cache", "priority", "required", "reads", "runtime_names", "runtime_order",
                 "std_names", "static", "static_short", "offers")

    def __init__(self, cid: str, index: int) -> None:
        self.cid = cid
        self.index = index
        self.component: Component | None = None
        self.template: Template | None = None
        self.short: Template | None = None
        self.origin = ""
        self.short_origin = ""
        self.cache: CacheClass = "static"
        self.priority = 50
        self.required = False
        # The request values the output is computed from, sorted (the provider is fixed for a
        # plan and left out); None: undeclared, so computed on every request.
        self.reads: tuple[str, ...] | None = ()
        self.runtime_names: frozenset[str] = frozenset()  # names a runtime value may override
        self.runtime_order: tuple[str, ...] = ()  # the same names, sorted once for keys
        self.std_names: tuple[str, ...] = ()  # standard placeholders its templates use
        # (Section | None, diagnostics) of a static step, computed when the plan is built
        self.static: tuple[Any, tuple[Diagnostic, ...]] | None = None
        self.static_short: tuple[Any, tuple[Diagnostic, ...]] | None = None
        self.offers = False  # its templates test `offers.<tool>`: which tools are offered


def bind_step(v: Variant, cid: str, index: int, components: Mapping[str, Component],
              tools_class: CacheClass, diags: list[Diagnostic],
              stable_class: CacheClass = "static") -> Step | None:
    """Resolve one component of the variant: its templates, settings, reads, class."""
    comp = components.get(cid)
    override: Template | None = v.component_templates.get(cid)
    if comp is None and override is None:
        diags.append(Diagnostic("error", "component-missing",
                                f"variant {v.id!r} lists component {cid!r}, which is not "
                                "registered; its section is skipped" +
                                did_you_mean(cid, components), cid))
        return None
    step = Step(cid, index)
    step.component = comp
    if override is not None:
        step.template = override
        step.origin = v.origins.get(f"component:{cid}", override.source)
    elif comp is not None and comp.parsed is not None:
        step.template = comp.parsed
        step.origin = comp.origin
    elif comp is not None:  # a function component
        step.origin = f"{comp.source}: function {getattr(comp.function, '__qualname__', cid)}"
    short_override: Template | None = v.component_templates.get(cid + ".short")
    if short_override is not None:
        step.short = short_override
        step.short_origin = short_override.source
    elif comp is not None and comp.parsed_short is not None and override is None:
        step.short = comp.parsed_short
        step.short_origin = comp.short_origin
    settings = v.component_settings.get(cid)
    step.priority = comp.priority if comp else 50
    step.required = comp.required if comp else False
    if settings is not None:
        if settings.priority is not None:
            step.priority = settings.priority
        if settings.required is not None:
            step.required = settings.required
    if comp is not None and comp.reads is None and (comp.function is not None or
                                                    comp.data is not None):
        # Python code that does not say what it reads: run it on every request.
        step.reads = None
        step.cache = "request"
        return step
    reads: set[str] = set(comp.reads or ()) if comp is not None else set()
    if "stable_tools" in reads and SESSION_TOOLS not in v.components:
        # the static catalogue leaves the per-session tools to `session_tools`; a variant
        # without that section gets them all in this one (as volatile as they are)
        reads = (reads - {"stable_tools"}) | {"tools"}
    provided = set(comp.provides) if comp is not None else set()
    names: set[str] = set()
    known = {*STANDARD, OFFERS, *v.placeholders, *(i.name for i in v.inputs), *provided}
    # A data function that does not say what it provides may provide any name.
    open_data = comp is not None and (comp.data is not None or comp.request_data is not None) \
        and not provided
    for tpl in (step.template, step.short):
        if tpl is not None:
            names.update(tpl.top_names)
            for name in tpl.top_names:
                if name not in known and not open_data:  # lint reports it, strict refuses
                    line = tpl.name_lines.get(name, 0)
                    diags.append(Diagnostic(
                        "error", "placeholder-unknown",
                        f"{tpl.source}:{line}: unknown placeholder {{{{{name}}}}} in component "
                        f"{cid!r}; it renders empty" + did_you_mean(name, known), cid))
    names -= provided
    if any(n == OFFERS or n.startswith(OFFERS + ".") for tpl in (step.template, step.short)
           if tpl is not None for n in tpl.all_names):
        names.add(OFFERS)  # also where it is tested inside a section, `{{#plan}}…{{/plan}}`
    if OFFERS in names:  # `{{#offers.read_file}}…`: text that depends on a tool being offered
        names.discard(OFFERS)
        step.offers = True
        named = {n.split(".")[1] for tpl in (step.template, step.short) if tpl is not None
                 for n in tpl.all_names if n.startswith(OFFERS + ".") and n.count(".") >= 1}
        # a tool the variant never offers is constantly absent: it reads nothing
        per = {s.name for s in v.tool_specs if per_session(s)}
        reads.add("tools" if named & per else "stable_tools")
    step.std_names = tuple(sorted(n for n in names if n in STANDARD))
    for n in step.std_names:
        if STANDARD[n][0]:
            reads.add(STANDARD[n][0])
    step.runtime_names = frozenset(names)
    step.runtime_order = tuple(sorted(names))
    step.cache = class_of(frozenset(reads), tools_class, stable_class)
    if comp is not None and comp.cache is not None and RANK[comp.cache] > RANK[step.cache]:
        step.cache = comp.cache  # type: ignore[assignment]
    step.reads = tuple(sorted(r for r in reads if r != "provider"))
    return step
