"""A variant prepared for one provider: everything that does not depend on the request, done once.

At plan time: component templates are resolved and tokenized, each step's cache class and memo key
are derived from what it reads, static sections are rendered and cleaned, the base template's slots
are classified. Per request only session/request sections are produced (memoized by the values
they read), then the base layout for the pattern of present sections is looked up and joined.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from itertools import accumulate
from typing import Any

import attrs

from ._cleanup import clean
from ._context import PromptContext
from ._errors import (ComponentError, InputError, MatcherError, PlaceholderError, PluginError,
                      PromptcError, StrictModeError, ToolSpecError)
from ._frozen import EMPTY
from ._inputs import resolve_inputs
from ._layout import Slot, flat_scope, flat_values, join, layout_of
from ._memo import Memo
from ._placeholders import STANDARD, tool_mode_of
from ._provider import ProviderInfo
from ._result import Diagnostic, Reporter, Section
from ._steps import Step, bind_step
from ._template import Template, render
from ._tools import enabled_tools, mcp_bindings
from ._toolset import ToolSet
from ._variant import Variant

__all__ = ["Plan", "Step", "ERRORS"]

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
            step = bind_step(variant, cid, index, components, diags)
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
        """Render through a memoized layout when every value is plain text (see _layout)."""
        flat = flat_values(template, scopes)
        if flat is None:
            return None
        values, presence = flat
        key = (index, form, presence)
        layout = self.flat_layouts.get(key)
        if layout is None:
            layout = self.flat_layouts.put(key, layout_of(template, flat_scope(template,
                                                                               values)))
        return join(layout, values)

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
                base = (base, tuple(runtime_values.get(n) for n in step.runtime_order))
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
        """The base template's layout for this pattern of present slots, and where the sections
        sit among its parts."""
        scope = {name: Slot(values[i] or "", i) for i, (name, _k, _x) in
                 enumerate(self.base_slots)}
        layout = layout_of(self.variant.template, scope)
        section_parts = tuple((i, self.base_slots[op][2]) for i, op in enumerate(layout)
                              if op.__class__ is not str and self.base_slots[op][1] == "section")
        return layout, section_parts


