"""Steps: each component of a variant, bound at plan time.

Binding decides, once per (variant, provider): which template a component uses (the variant's own
text, else the component's), its budget settings, which context fields its output depends on,
hence its cache class and the memo key a request is looked up by.
"""

from __future__ import annotations

import datetime
import operator
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from ._component import Component
from ._context import FIELD_CLASSES, PromptContext
from ._memo import Memo
from ._placeholders import STANDARD
from ._result import Diagnostic, Section
from ._template import Template, compile_template
from ._variant import Variant

__all__ = ["Step", "bind_step", "class_of", "RANK"]

RANK = {"static": 0, "session": 1, "request": 2}
_RANK = RANK


def _date_key(ctx: PromptContext) -> str:
    return ctx.date if ctx.date is not None else datetime.date.today().isoformat()


def _getter(read: str) -> Callable[[PromptContext], Any]:
    root, _, sub = read.partition(".")
    if root == "date":
        return _date_key
    if sub and root in ("features", "runtime"):
        return lambda c: getattr(c, root).get(sub)
    return operator.attrgetter(root)


def _key_function(reads: frozenset[str], custom: Callable[[PromptContext], Hashable] | None
                  ) -> Callable[[PromptContext], Hashable] | None:
    """A key over exactly the values read; None when nothing per-request is read (static)."""
    if custom is not None:
        return custom
    dynamic = sorted(r for r in reads if r.split(".")[0] != "provider")
    if not dynamic:
        return None
    plain = [r for r in dynamic if "." not in r and r != "date"]
    others = [_getter(r) for r in dynamic if "." in r or r == "date"]
    if not others:
        if len(plain) == 1:
            get = operator.attrgetter(plain[0])
            return lambda c: (get(c),)
        return operator.attrgetter(*plain)
    getters = [_getter(r) for r in dynamic]
    return lambda c: tuple(g(c) for g in getters)


def class_of(reads: frozenset[str] | None) -> str:
    if reads is None:
        return "request"
    rank = 0
    for r in reads:
        rank = max(rank, _RANK[FIELD_CLASSES.get(r.split(".")[0], "request")])
    return ("static", "session", "request")[rank]


class Step:
    """One component of the variant, bound to this plan."""

    __slots__ = ("cid", "index", "component", "template", "short", "origin", "short_origin",
                 "cache", "priority", "required", "key", "runtime_names", "runtime_order", "std_names",
                 "static", "static_short", "content_key")

    def __init__(self, cid: str, index: int) -> None:
        self.cid = cid
        self.index = index
        self.component: Component | None = None
        self.template: Template | None = None
        self.short: Template | None = None
        self.origin = ""
        self.short_origin = ""
        self.cache = "static"
        self.priority = 50
        self.required = False
        self.key: Callable[[PromptContext], Hashable] | None = None
        self.runtime_names: frozenset[str] = frozenset()
        self.runtime_order: tuple[str, ...] = ()  # the same names, sorted once for memo keys
        self.std_names: tuple[str, ...] = ()
        # (Section | None, diagnostics) for static steps, computed once
        self.static: tuple[Section | None, tuple[Diagnostic, ...]] | None = None
        self.static_short: tuple[Section | None, tuple[Diagnostic, ...]] | None = None
        self.content_key: Callable[[PromptContext], Hashable] | None = None


def bind_step(v: Variant, cid: str, index: int, components: Mapping[str, Any],
              diags: list[Diagnostic]) -> Step | None:
    """Resolve one component of the variant: its template, settings, reads, class and key."""
    comp: Component | None = components.get(cid)
    override = v.component_templates.get(cid)
    if comp is None and override is None:
        from ._suggest import did_you_mean
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
    elif comp is not None and comp.template is not None:
        step.template = _compiled(comp.template, comp.path or comp.origin or cid)
        step.origin = comp.origin
    elif comp is not None:  # always: with no override, a missing component returned above
        step.origin = f"{comp.source}: function {getattr(comp.function, '__qualname__', cid)}"
    short_override = v.component_templates.get(cid + ".short")
    if short_override is not None:
        step.short = short_override
        step.short_origin = short_override.source
    elif comp is not None and comp.short_template is not None and override is None:
        step.short = _compiled(comp.short_template,
                               comp.short_path or comp.short_origin or f"{cid}.short")
        step.short_origin = comp.short_origin
    settings = v.component_settings.get(cid)
    step.priority = comp.priority if comp else 50
    step.required = comp.required if comp else False
    if settings is not None:
        if settings.priority is not None:
            step.priority = settings.priority
        if settings.required is not None:
            step.required = settings.required
    # What the step reads: the data function's fields, plus the standard placeholders and
    # runtime-overridable names its template uses.
    reads: set[str] | None = set(comp.reads) if comp and comp.reads is not None else None
    custom = comp.key if comp is not None else None
    declared = set(comp.reads or ()) if comp is not None else set()
    if comp is not None and comp.key_factory is not None:
        custom, extra = comp.key_factory(v)
        reads = (reads or set()) | set(extra)
        declared = declared | set(extra)
    if comp is not None and comp.function is not None and step.template is None:
        if reads is None:
            step.cache = "request"
            step.key = None
            return step
    if reads is None:
        reads = set()
    provided = set(comp.provides) if comp else set()
    names: set[str] = set()
    for tpl in (step.template, step.short):
        if tpl is not None:
            names.update(tpl.top_names)
    names -= provided
    step.std_names = tuple(sorted(n for n in names if n in STANDARD))
    for n in step.std_names:
        field = STANDARD[n][0]
        if field:
            reads.add(field)
    step.runtime_names = frozenset(names)
    step.runtime_order = tuple(sorted(names))
    step.cache = class_of(frozenset(reads))
    if comp is not None and comp.cache is not None and _RANK[comp.cache] > _RANK[step.cache]:
        step.cache = comp.cache
    if comp is not None and comp.content_key_factory is not None and \
            not (frozenset(reads) - declared):
        step.content_key = comp.content_key_factory(v)
    if custom is not None and not (frozenset(reads) - declared):
        step.key = custom
    else:
        step.key = _key_function(frozenset(reads), None)
    if step.cache == "request" and step.key is None:
        step.key = lambda c: ()
    return step


_template_cache = Memo(4096)


def _compiled(text: str, source: str) -> Template:
    """Parse a component template once per (text, file), bounded for long-lived processes."""
    key = (text, source)
    t = _template_cache.get(key)
    if t is None:
        t = _template_cache.put(key, compile_template(text, source))
    return t
