"""A variant prepared for one provider: everything that does not depend on the request, done once.

At plan time: component templates are resolved and tokenized, each step's cache class and memo key
are derived from what it reads, static sections are rendered and cleaned, the base template's slots
are classified. Per request only session/request sections are produced (memoized by the values
they read), then the base layout for the pattern of present sections is looked up and joined.
"""

from __future__ import annotations

import datetime
import operator
from itertools import accumulate

import attrs
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from ._cleanup import clean, clean_pieces
from ._component import Component
from ._context import FIELD_CLASSES, PromptContext
from ._errors import (ComponentError, InputError, MatcherError, PlaceholderError, PluginError,
                      PromptcError, StrictModeError, ToolSpecError)
from ._frozen import EMPTY
from ._inputs import resolve_inputs
from ._memo import Memo
from ._placeholders import STANDARD, tool_mode_of
from ._provider import ProviderInfo
from ._result import Diagnostic, Reporter, Section
from ._template import Template, Value, compile_template, render
from ._tools import enabled_tools, mcp_bindings
from ._toolset import ToolSet
from ._variant import Variant

__all__ = ["Plan", "Step", "ERRORS"]

_RANK = {"static": 0, "session": 1, "request": 2}

# Which typed error strict mode raises for a diagnostic code.
ERRORS: dict[str, type[PromptcError]] = {
    "component-raised": ComponentError, "component-not-text": ComponentError,
    "component-missing": ComponentError, "component-not-in-template": ComponentError,
    "placeholder-unknown": PlaceholderError, "placeholder-not-text": PlaceholderError,
    "matcher-raised": MatcherError, "plugin-import": PluginError, "plugin-hook": PluginError,
    "plugin-invalid": PluginError, "tool-condition-raised": ToolSpecError,
    "mcp-renamed": ToolSpecError, "input-missing": InputError, "input-invalid": InputError,
    "input-undeclared": InputError, "file-ignored": StrictModeError,
}


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
                 "cache", "priority", "required", "key", "runtime_names", "std_names",
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
        self.std_names: tuple[str, ...] = ()
        # (Section | None, diagnostics) for static steps, computed once
        self.static: tuple[Section | None, tuple[Diagnostic, ...]] | None = None
        self.static_short: tuple[Section | None, tuple[Diagnostic, ...]] | None = None
        self.content_key: Callable[[PromptContext], Hashable] | None = None


class Plan:
    """A variant bound to a resolved provider, ready to build prompts."""

    def __init__(self, variant: Variant, provider: ProviderInfo, components: Mapping[str, Any],
                 memo_size: int = 512, reserved: frozenset[str] = frozenset()) -> None:
        self.variant = variant
        self.reserved = reserved
        self.provider = provider
        self.tool_mode = tool_mode_of(variant, provider)
        self.memo = Memo(memo_size)
        self.layouts = Memo(256)
        self.toolsets = Memo(memo_size)
        self.runtime_memo = Memo(memo_size)
        # Equal contexts collapse to one canonical object, so every memo lookup after this one
        # is an identity hit instead of a deep comparison (clients build a new, equal context
        # for every request).
        self.contexts = Memo(32)
        self.results = Memo(32)
        self.flat_layouts = Memo(1024)
        self.content_memo = Memo(64)
        diags: list[Diagnostic] = []
        self.steps: list[Step] = []
        for index, cid in enumerate(variant.components):
            step = self._bind(cid, index, components, diags)
            if step is not None:
                self.steps.append(step)
        self.by_id = {s.cid: s for s in self.steps}
        self._classify_base(components, diags)
        self.diagnostics = tuple(diags)
        from ._builtin_components import tool_key_for, tool_vector_for
        self.tool_key = tool_key_for(variant)[0] or (lambda c: ())
        self.tool_vector = tool_vector_for(variant)
        empty = PromptContext(provider=provider)
        self.default_inputs, _ = self._runtime_values(EMPTY)
        for step in self.steps:
            if step.key is None and step.cache != "request":
                step.static = self._produce(step, empty, self.default_inputs, "full")
                if step.short is not None:
                    step.static_short = self._produce(step, empty, self.default_inputs, "short")

    # --- plan-time ---------------------------------------------------------------------------

    def _bind(self, cid: str, index: int, components: Mapping[str, Any],
              diags: list[Diagnostic]) -> Step | None:
        v = self.variant
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
        else:
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

    def _classify_base(self, components: Mapping[str, Any], diags: list[Diagnostic]) -> None:
        """Sort every name the base template uses into section / standard / default / input."""
        v = self.variant
        inputs = {i.name for i in v.inputs}
        self.base_slots: list[tuple[str, str, int]] = []
        used_sections = set()
        for name in v.template.top_names:
            if name in self.by_id:
                self.base_slots.append((name, "section", self.steps.index(self.by_id[name])))
                used_sections.add(name)
            elif name in v.components:
                self.base_slots.append((name, "missing", -1))  # listed but unregistered
            elif name in components:
                diags.append(Diagnostic(
                    "error", "component-not-in-order",
                    f"template of variant {v.id!r} uses component {name!r}, which is not in "
                    "its component order; it renders empty", name))
                self.base_slots.append((name, "missing", -1))
            elif name in STANDARD:
                self.base_slots.append((name, "standard", -1))
            elif name in v.placeholders:
                self.base_slots.append((name, "default", -1))
            elif name in inputs:
                self.base_slots.append((name, "input", -1))
            else:
                from ._suggest import did_you_mean
                line = v.template.name_lines.get(name)
                where = f"{v.template.source}:{line}" if line else v.template.source
                diags.append(Diagnostic(
                    "error", "placeholder-unknown",
                    f"{where}: template names {{{{{name}}}}}, which is no component, standard "
                    "placeholder, default or declared input; it renders empty" +
                    did_you_mean(name, [*v.components, *STANDARD, *v.placeholders, *inputs]),
                    name))
                self.base_slots.append((name, "missing", -1))
        for step in self.steps:
            if step.cid not in used_sections:
                diags.append(Diagnostic(
                    "error", "component-not-in-template",
                    f"component {step.cid!r} is in the order of variant {v.id!r} but its "
                    "template has no {{" + step.cid + "}}; the section is dropped", step.cid))
        self.slot_names = tuple(n for n, _, _ in self.base_slots)
        self.slot_name_set = frozenset(self.slot_names)
        self.sections_only = all(kind == "section" for _, kind, _ in self.base_slots)
        self.slot_section_index = tuple(idx for _, _, idx in self.base_slots)
        from ._frozen import FrozenDict
        self.component_layers = FrozenDict({n: "component" for n in self.slot_names})

    # --- per request -------------------------------------------------------------------------

    def canonical(self, ctx: PromptContext) -> PromptContext:
        """The context with this plan's resolved provider, shared by all equal contexts."""
        hit = self.contexts.get(ctx)
        if hit is not None:
            return hit
        canon = ctx if ctx.provider is self.provider else attrs.evolve(ctx,
                                                                         provider=self.provider)
        return self.contexts.put(ctx, canon)

    def _runtime_values(self, runtime: Mapping[str, Any]) -> tuple[dict[str, str],
                                                                    tuple[Diagnostic, ...]]:
        overridable = frozenset(STANDARD) | frozenset(self.variant.placeholders) | frozenset(
            self.by_id) | frozenset(n for n, _, _ in self.base_slots)
        report = Reporter(False)
        values = resolve_inputs(self.variant.inputs, runtime, overridable, report)
        return values, tuple(report.items)

    def runtime_values(self, ctx: PromptContext, report: Reporter) -> dict[str, str]:
        runtime = ctx.runtime
        if not runtime and not self.variant.inputs:
            return self.default_inputs
        hit = self.runtime_memo.get(runtime)
        if hit is None:
            hit = self.runtime_memo.put(runtime, self._runtime_values(runtime))
        values, diags = hit
        if diags:
            report.extend(diags, ERRORS)
        return values

    def _produce(self, step: Step, ctx: PromptContext, runtime_values: Mapping[str, str],
                 form: str) -> tuple[Section | None, tuple[Diagnostic, ...]]:
        """Run one component; never raises for a component's own failure (reports instead)."""
        report = Reporter(False)
        comp = step.component
        template = step.short if form == "short" else step.template
        text: str | None = None
        try:
            if template is None and comp is not None and comp.function is not None:
                out = comp.function(self.variant, ctx)
                if out is not None and not isinstance(out, str):
                    report("error", "component-not-text",
                           f"component {step.cid!r} returned {type(out).__name__}, not text; "
                           "its section is skipped", step.cid, ComponentError)
                elif out is not None:
                    text = clean([out.replace("\r\n", "\n")])
            elif template is not None:
                data = comp.data(self.variant, ctx) if comp is not None and comp.data else {}
                if data is not None:
                    if not isinstance(data, Mapping):
                        raise TypeError(f"data function returned {type(data).__name__}")
                    std = {n: STANDARD[n][1](self.variant, ctx, self.provider)
                           for n in step.std_names}
                    scopes: list[Any] = [self.variant.placeholders, std, runtime_values, data]

                    def problem(name: str, message: str, line: int) -> None:
                        report("error", "placeholder-not-text",
                               f"{template.source}:{line}: {{{{{name}}}}} {message}; rendered "
                               "empty", step.cid, PlaceholderError)
                    text = self._render_flat(step.index, form, template, scopes)
                    if text is None:
                        text = clean(render(template, scopes, [], problem))
        except Exception as exc:  # a component's bug must not break the client's request
            report("error", "component-raised",
                   f"component {step.cid!r} raised {type(exc).__name__}: {exc}; its section "
                   "is skipped", step.cid, ComponentError)
            text = None
        if not text or text.isspace():
            return None, tuple(report.items)
        cache = step.cache
        if cache != "request" and step.runtime_names and ctx.runtime and \
                not step.runtime_names.isdisjoint(ctx.runtime):
            cache = "request"
        return Section(step.cid, text, cache, step.origin if form == "full" else
                       step.short_origin, step.priority, step.required, None,
                       "full" if form == "full" else "short"), tuple(report.items)

    def _render_flat(self, index: int, form: str, template: Template,
                     scopes: list[Any]) -> str | None:
        """Render a template whose values are all scalars through a memoized layout.

        With no lists or tables in play, the rendered structure, and so what cleanup keeps,
        depends only on which values are present: the cleaned layout is computed once per
        pattern and later renders only join. Returns None when the fast path does not apply.
        """
        names = template.all_names
        values: list[Any] = []
        presence: list[bool] = []
        for name in names:
            if "." in name:
                return None
            value = None
            for scope in reversed(scopes):
                if name in scope:
                    value = scope[name]
                    break
            cls = value.__class__
            if cls is str:
                presence.append(not value.isspace() and value != "")
            elif value is None:
                presence.append(False)
            elif cls is bool:
                if name in template.variables:
                    return None  # the full render reports a boolean used as text
                presence.append(value)
            elif cls is int or cls is float:
                value = str(value)
                presence.append(True)
            else:
                return None
            values.append(value)
        key = (index, form, tuple(presence))
        layout = self.flat_layouts.get(key)
        if layout is None:
            scope = {n: (v if v is None or v.__class__ is bool else _Slot(v, i))
                     for i, (n, v) in enumerate(zip(names, values))}
            ops: list[Any] = []
            for piece in clean_pieces(render(template, [scope], [])):
                if piece.__class__ is str:
                    if ops and ops[-1].__class__ is str:
                        ops[-1] += piece
                    else:
                        ops.append(piece)
                else:
                    ops.append(piece.index)
            layout = self.flat_layouts.put(key, tuple(ops))
        return "".join(op if op.__class__ is str else values[op] for op in layout)

    def sections(self, ctx: PromptContext, runtime_values: Mapping[str, str],
                 report: Reporter) -> list[Section | None]:
        """Every step's section for this request (the per-request hot loop)."""
        if ctx.runtime or self.variant.inputs:
            return [self.section(step, ctx, runtime_values, report) for step in self.steps]
        out: list[Section | None] = []
        memo_get = self.memo.get
        for step in self.steps:
            result = step.static
            if result is None:
                if step.key is None:
                    result = self._produce(step, ctx, runtime_values, "full")
                else:
                    key = (step.index, "full", step.key(ctx))
                    result = memo_get(key)
                    if result is None:
                        result = self.memo.put(key, self._by_content(step, ctx, runtime_values,
                                                                     "full"))
            if result[1]:
                report.extend(result[1], ERRORS)
            out.append(result[0])
        return out

    def _by_content(self, step: Step, ctx: PromptContext, runtime_values: Mapping[str, str],
                    form: str) -> tuple[Section | None, tuple[Diagnostic, ...]]:
        """After a miss on the field key: look the output up by value (when the step has a
        content key), else produce it."""
        if step.content_key is None:
            return self._produce(step, ctx, runtime_values, form)
        key = (step.index, form, "content", step.content_key(ctx))
        result = self.content_memo.get(key)
        if result is None:
            result = self.content_memo.put(key, self._produce(step, ctx, runtime_values, form))
        return result

    def section(self, step: Step, ctx: PromptContext, runtime_values: Mapping[str, str],
                report: Reporter, form: str = "full") -> Section | None:
        runtime = ctx.runtime
        overridden = bool(runtime) and bool(step.runtime_names) and \
            not step.runtime_names.isdisjoint(runtime)
        static = step.static if form == "full" else step.static_short
        if static is not None and not overridden:
            result = static
        else:
            key: Hashable
            if step.key is None and step.cache == "request":
                result = self._produce(step, ctx, runtime_values, form)
                if result[1]:
                    report.extend(result[1], ERRORS)
                return result[0]
            base = step.key(ctx) if step.key is not None else ()
            if overridden:
                base = (base, tuple(runtime_values.get(n) for n in sorted(step.runtime_names)))
            key = (step.index, form, base)
            result = self.memo.get(key)
            if result is None:
                if overridden:
                    result = self._produce(step, ctx, runtime_values, form)
                else:
                    result = self._by_content(step, ctx, runtime_values, form)
                self.memo.put(key, result)
        if result[1]:
            report.extend(result[1], ERRORS)
        return result[0]

    def toolset(self, ctx: PromptContext, report: Reporter) -> ToolSet:
        mcp = ctx.mcp_servers if self.tool_mode == "native" else None
        key = (self.tool_key(ctx), mcp)
        hit = self.toolsets.get(key)
        if hit is None:
            by_value = ("vector", self.tool_vector(ctx), mcp)
            hit = self.toolsets.get(by_value)
            if hit is not None:
                self.toolsets.put(key, hit)
        if hit is None:
            local = Reporter(False)

            def condition_failed(spec: Any, exc: Exception) -> None:
                local("error", "tool-condition-raised",
                      f"condition of tool {spec.name!r} raised {type(exc).__name__}: {exc}; the "
                      "tool is not offered", spec.name, ToolSpecError)
            specs = enabled_tools(self.variant.tool_specs, ctx, self.provider, self.tool_mode,
                                  condition_failed)
            bindings: tuple[Any, ...] = ()
            if self.tool_mode == "native" and ctx.mcp_servers:
                taken = {s.name for s in self.variant.tool_specs} | set(self.reserved)
                bindings = mcp_bindings(ctx.mcp_servers, taken,
                                   lambda src, msg: local("warning", "mcp-renamed", msg, src,
                                                          ToolSpecError))
            hit = self.toolsets.put(key, (ToolSet(self.tool_mode, specs, bindings, ctx.skills),
                                          tuple(local.items)))
            self.toolsets.put(by_value, hit)
        toolset, diags = hit
        if diags:
            report.extend(diags, ERRORS)
        return toolset

    def assemble(self, sections: list[Section | None], ctx: PromptContext,
                 runtime_values: Mapping[str, str]) -> tuple[str, list[tuple[int, int] | None],
                                                             Mapping[str, str]]:
        """Join the base template for these sections; spans of each present section; and which
        layer supplied each placeholder."""
        override = bool(runtime_values) and not self.runtime_free(runtime_values)
        if self.sections_only and not override:
            values: list[str | None] = [None if (x := sections[i]) is None else x.text
                                        for i in self.slot_section_index]
            layers: Mapping[str, str] = self.component_layers
        else:
            values, layers = self._slot_values(sections, ctx, runtime_values)
        key = tuple(v is not None and not v.isspace() for v in values)
        layout = self.layouts.get(key)
        if layout is None:
            layout = self.layouts.put(key, self._layout(values))
        ops, section_parts = layout
        parts = [op if op.__class__ is str else values[op] for op in ops]
        ends = list(accumulate(map(len, parts)))
        spans: list[tuple[int, int] | None] = [None] * len(sections)
        for part, idx in section_parts:
            if spans[idx] is None:
                spans[idx] = (ends[part - 1] if part else 0, ends[part])
        return "".join(parts), spans, layers

    def runtime_free(self, runtime_values: Mapping[str, str]) -> bool:
        """True when no runtime value names a slot of the base template."""
        return self.slot_name_set.isdisjoint(runtime_values)

    def _slot_values(self, sections: list[Section | None], ctx: PromptContext,
                     runtime_values: Mapping[str, str]) -> tuple[list[str | None],
                                                                 dict[str, str]]:
        values: list[str | None] = []
        layers: dict[str, str] = {}
        for name, kind, idx in self.base_slots:
            if kind == "section":
                s = sections[idx]
                value = s.text if s is not None else None
                layer = "component"
            elif kind == "standard":
                value = STANDARD[name][1](self.variant, ctx, self.provider)
                layer = "standard"
            elif kind == "default":
                value = self.variant.placeholders[name]
                layer = "default"
            else:
                value = None
                layer = "missing"
            if name in runtime_values:
                value = runtime_values[name]
                layer = "runtime" if name in ctx.runtime else "default"
            values.append(value)
            layers[name] = layer
        return values, layers

    def _layout(self, values: list[str | None]) -> tuple[tuple[str | int, ...],
                                                        tuple[tuple[int, int], ...]]:
        """Render and clean the base template once per pattern of present slots: the parts to
        join (literal text, or the index of a slot) and where the sections sit among them."""
        scope: dict[str, Any] = {}
        for i, (name, _kind, _idx) in enumerate(self.base_slots):
            v = values[i]
            scope[name] = _Slot(v if v is not None else "", i)
        pieces = clean_pieces(render(self.variant.template, [scope], []))
        layout: list[str | int] = []
        for p in pieces:
            if p.__class__ is str:
                if layout and layout[-1].__class__ is str:
                    layout[-1] += p  # type: ignore[operator]
                else:
                    layout.append(p)
            else:
                layout.append(p.index)
        section_parts = tuple((i, self.base_slots[op][2]) for i, op in enumerate(layout)
                              if op.__class__ is not str and self.base_slots[op][1] == "section")
        return tuple(layout), section_parts


class _Slot(Value):
    """A base-template atom that remembers which slot it stands for."""

    __slots__ = ("index",)

    def __init__(self, text: str, index: int) -> None:
        super().__init__(text)
        self.index = index


_template_cache = Memo(4096)


def _compiled(text: str, source: str) -> Template:
    """Parse a component template once per (text, file), bounded for long-lived processes."""
    key = (text, source)
    t = _template_cache.get(key)
    if t is None:
        t = _template_cache.put(key, compile_template(text, source))
    return t
