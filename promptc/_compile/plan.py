"""A variant prepared for one resolved provider: everything that does not depend on the request.

Built once per (variant, provider): each component bound to its template, reads and cache class
(see steps.py), static sections rendered and cleaned, the base template's slots sorted by kind.
Per request the plan binds the request (inputs validated, tool conditions evaluated once), produces
the session and request sections (memoized by exactly the values each reads), joins the base
layout for that pattern of present sections, and names the tools. Every memo here is owned by the
plan, hence by one Compiler, and keyed by the complete, typed input of what it stores.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from itertools import accumulate
from typing import Any

from .._base.errors import PLUGIN_FAILURES
from .._base.frozen import EMPTY, FrozenDict
from .._base.memo import Memo
from .._base.suggest import did_you_mean
from .._calls.checker import USE_MCP_TOOL
from .._emit.toolset import NativeTools, ToolSet, native_key
from .._load.builtin_data import DataCache
from .._model.cache import CacheClass
from .._model.component import Component
from .._model.context import McpServer, PromptContext
from .._model.diagnostics import Diagnostic, Reporter
from .._model.inputs import resolve_inputs
from .._model.placeholders import STANDARD
from .._model.provider import ProviderInfo
from .._model.request import Request
from .._model.tools import McpBinding, ToolSpec, enum_sources, mcp_bindings, per_session
from .._model.variant import Variant, choose_tool_mode
from .._text.fence import element
from .._text.cleanup import clean
from .._text.layout import laid_out, render_clean
from .result import Section
from .steps import OFFERS, Form, Step, bind_step, class_of

__all__ = ["Plan", "Produced"]

Produced = tuple[Section | None, tuple[Diagnostic, ...]]  # a step's output and what it noticed


class Plan:
    """A variant bound to a resolved provider, ready to build prompts."""

    def __init__(self, variant: Variant, provider: ProviderInfo,
                 components: Mapping[str, Component], reserved: frozenset[str] = frozenset(),
                 memo_size: int = 512, client_choice: bool | None = None,
                 shared_tools: bool = False) -> None:
        self.variant = variant
        self.provider = provider
        self.reserved = reserved
        # The tool-mode chain: the client's explicit choice, the variant's pinned mode, the
        # model's capability, text (`client_choice`: native_tools as the client gave it).
        self.tool_choice = choose_tool_mode(variant, provider, client_choice)
        self.tool_mode = self.tool_choice.mode
        # dynamic="message": session tools in their generic form (see Request; text mode
        # already calls MCP tools through use_mcp_tool, so it changes nothing there)
        self.shared_tools = shared_tools
        specs: tuple[ToolSpec, ...] = variant.tool_specs
        # Built-in block first, per-session tools after it (both in the variant's order), so the
        # tools every session shares come first on the wire.
        self.tool_order: tuple[ToolSpec, ...] = (
            *(s for s in specs if not per_session(s)), *(s for s in specs if per_session(s)))
        tool_reads = {r for spec in specs for r in spec.when.reads}
        if any(p.enum_from for spec in specs for p in spec.parameters):
            tool_reads.add("skills")
        self.tools_class: CacheClass = class_of(frozenset(tool_reads), "static")
        self.stable_class: CacheClass = class_of(frozenset(
            r for spec in specs if not per_session(spec) for r in spec.when.reads), "static")
        self.data_cache = DataCache(mcp_names=lambda servers: self.mcp_bindings(servers)[0])
        self._outputs = Memo(memo_size)  # (step, form, values read) -> Produced
        self._layouts = Memo(4 * memo_size)  # (step or -1 for the base, form, shape) -> layout
        self._inputs = Memo(memo_size)  # runtime's typed key -> (values, diagnostics)
        self._bindings = Memo(memo_size)  # MCP servers' keys -> (bindings, diagnostics)
        self._native = Memo(memo_size)  # native_key -> NativeTools
        # one tool's Shape, or one schema's forms, by its complete input (see NativeTools)
        self._shapes = Memo(4 * memo_size)
        diags: list[Diagnostic] = []
        if self.tool_choice.overrides_variant:
            if self.tool_mode == "text" and "tools" not in variant.components:
                diags.append(Diagnostic(
                    "warning", "tool-mode-unsupported",
                    f"tool mode text: {self.tool_choice.reason}, but the variant has no "
                    "`tools` component to list them in the prompt: the model sees no tools",
                    variant.id))
            else:
                diags.append(Diagnostic(
                    "info", "tool-mode-client",
                    f"tool mode {self.tool_mode}: {self.tool_choice.reason}; the client's "
                    "choice wins", variant.id))
        self.steps: list[Step] = []
        for index, cid in enumerate(variant.components):
            step = bind_step(variant, cid, index, components, self.tools_class, diags,
                             self.stable_class)
            if step is not None:
                self.steps.append(step)
        self._classify_base(components, diags)
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diags)
        # The feature switches something of this variant reads (a tool's condition, a section's
        # data): a context that turns on any other one is told so (`feature-unsupported`).
        self.features_read = features_read(specs, self.steps)
        # A whole result may be reused for an equal request only when every step says what it
        # reads: code that does not may depend on anything, so it runs on every request.
        self.pure = all(step.reads is not None for step in self.steps)
        report = Reporter(False)
        empty = self.bind(PromptContext(), "", report)
        for step in self.steps:
            # Computed once, now: a section that reads nothing but the provider (a static
            # section may also read the client's settings, such as its features)
            if step.reads == ():
                step.static = self._produce(step, empty, "full")
                if step.short is not None:
                    step.static_short = self._produce(step, empty, "short")

    # --- plan time -----------------------------------------------------------------------

    def _classify_base(self, components: Mapping[str, Component],
                       diags: list[Diagnostic]) -> None:
        """Sort every name the base template uses into section / standard / default / input."""
        v = self.variant
        inputs = {i.name for i in v.inputs}
        by_id = {s.cid: i for i, s in enumerate(self.steps)}
        slots: list[tuple[str, str, int]] = []
        used: set[str] = set()
        for name in v.template.top_names:
            if name in by_id:
                slots.append((name, "section", by_id[name]))
                used.add(name)
            elif name in v.components:
                slots.append((name, "missing", -1))  # listed but unregistered
            elif name in components:
                diags.append(Diagnostic(
                    "error", "component-not-in-order",
                    f"template of variant {v.id!r} uses component {name!r}, which is not in "
                    "its component order; it renders empty", name))
                slots.append((name, "missing", -1))
            elif name in STANDARD:
                slots.append((name, "standard", -1))
            elif name in v.placeholders:
                slots.append((name, "default", -1))
            elif name in inputs:
                slots.append((name, "input", -1))
            else:
                line = v.template.name_lines.get(name)
                where = f"{v.template.source}:{line}" if line else v.template.source
                diags.append(Diagnostic(
                    "error", "placeholder-unknown",
                    f"{where}: template names {{{{{name}}}}}, which is no component, standard "
                    "placeholder, default or declared input; it renders empty" +
                    did_you_mean(name, [*v.components, *STANDARD, *v.placeholders, *inputs]),
                    name))
                slots.append((name, "missing", -1))
        for step in self.steps:
            if step.cid not in used:
                diags.append(Diagnostic(
                    "error", "component-not-in-template",
                    f"component {step.cid!r} is in the order of variant {v.id!r} but its "
                    "template has no {{" + step.cid + "}}; the section is dropped", step.cid))
        self.base_slots = tuple(slots)
        self.slot_names = slot_names = frozenset(n for n, _, _ in slots)
        self.sections_only = all(kind == "section" for _, kind, _ in slots)
        self.section_slots = {name: idx for name, kind, idx in slots if kind == "section"}
        self.component_layers = FrozenDict({n: "component" for n, _, _ in slots})
        # What a runtime value that is not a declared input would replace (it is reported).
        overridable = {n: f"the variant's default for {{{{{n}}}}}" for n in v.placeholders}
        overridable.update((n, f"the standard placeholder {{{{{n}}}}}") for n in STANDARD)
        overridable.update((n, f"the value of {{{{{n}}}}} in the template") for n in slot_names
                           if n not in overridable)
        overridable.update((s.cid, f"the section of component {s.cid!r}") for s in self.steps)
        self.overridable: Mapping[str, str] = overridable

    # --- bind: the request record ----------------------------------------------------------

    def bind(self, context: PromptContext, date: str, report: Reporter) -> Request:
        """Bind a request: validate its runtime values, evaluate every tool condition once."""
        inputs = self._runtime_inputs(context.runtime, report)
        tools = self._enabled_tools(context, report)
        return Request(context=context, provider=self.provider, variant=self.variant,
                       tool_mode=self.tool_mode, date=date, tools=tools,
                       enum_sources=enum_sources(tools, context.skills), inputs=inputs,
                       shared_tools=self.shared_tools)

    def _runtime_inputs(self, runtime: FrozenDict, report: Reporter) -> Mapping[str, str]:
        key = runtime.flat  # typed: `true`, `1` and `1.0` are three keys
        hit = self._inputs.get(key)
        if hit is None:
            local = Reporter(False)
            values = resolve_inputs(self.variant.inputs, runtime, self.overridable, local)
            hit = self._inputs.put(key, (FrozenDict(values), tuple(local.items)))
        values, diags = hit
        if diags:
            report.extend(diags)
        return values  # type: ignore[no-any-return]

    def _enabled_tools(self, context: PromptContext, report: Reporter
                       ) -> tuple[ToolSpec, ...]:
        out = []
        for spec in self.tool_order:
            # shared tools: MCP calls go through use_mcp_tool, as in text mode
            mode = "text" if self.shared_tools and spec.name == USE_MCP_TOOL else self.tool_mode
            try:
                ok = spec.when.test(context, self.provider, mode)
            except PLUGIN_FAILURES as exc:  # a plugin's condition: it must not break the build
                report("error", "tool-condition-raised",
                       f"condition of tool {spec.name!r} raised {type(exc).__name__}: {exc}; "
                       "the tool is not offered", spec.name)
                continue
            if ok:
                out.append(spec)
        return tuple(out)

    # --- sections ----------------------------------------------------------------------------

    def sections(self, request: Request, report: Reporter,
                 forms: Mapping[str, Form] | None = None,
                 dropped: frozenset[str] = frozenset()) -> list[Section | None]:
        """Every step's section for this request (the per-request hot loop)."""
        out: list[Section | None] = []
        for step in self.steps:
            if step.cid in dropped:
                out.append(None)
                continue
            section, diags = self.section(step, request, forms.get(step.cid, "full")
                                          if forms else "full")
            if diags:
                report.extend(diags)
            out.append(section)
        return out

    def section(self, step: Step, request: Request, form: Form = "full") -> Produced:
        """One step's section: static, memoized by the values it reads, or produced."""
        inputs = request.inputs
        overridden = bool(inputs) and bool(step.runtime_names) and \
            not step.runtime_names.isdisjoint(inputs)
        if not overridden:
            static = step.static if form == "full" else step.static_short
            if static is not None:
                return static
        if step.reads is None:
            return self._produce(step, request, form)
        read = request.read
        key: Hashable = (step.index, form, tuple(read(r) for r in step.reads),
                         tuple(inputs.get(n) for n in step.runtime_order) if overridden else None)
        result: Produced | None = self._outputs.get(key)
        if result is None:
            result = self._outputs.put(key, self._produce(step, request, form))
        return result

    def _produce(self, step: Step, request: Request, form: Form) -> Produced:
        """Run one component; a component's own failure is reported, never raised."""
        report = Reporter(False)
        comp = step.component
        template = step.short if form == "short" else step.template
        text: str | None = None
        try:
            if template is None:
                if comp is not None and comp.function is not None:
                    out = comp.function(self.variant, request.plugin_context())
                    if out is not None and not isinstance(out, str):
                        report("error", "component-not-text",
                               f"component {step.cid!r} returned {type(out).__name__}, not "
                               "text; its section is skipped", step.cid)
                    elif out is not None:
                        text = clean([out.replace("\r\n", "\n")])
            else:
                data = self._data(comp, request)
                if data is not None:
                    text = self._render(step, form, template, request, data, report)
        except PLUGIN_FAILURES as exc:  # a component's bug must not break the client's request
            owner = f" ({comp.source})" if comp is not None and comp.source != "builtin" else ""
            report("error", "component-raised",
                   f"component {step.cid!r}{owner} raised {type(exc).__name__}: {exc}; its "
                   "section is skipped", step.cid)
            text = None
        if not text or text.isspace():
            return None, tuple(report.items)
        cache = step.cache
        if cache != "request" and step.runtime_names and \
                not step.runtime_names.isdisjoint(request.context.runtime):
            cache = "request"
        return Section(step.cid, text, cache, step.origin if form == "full" else
                       step.short_origin, step.priority, step.required, None,
                       form), tuple(report.items)

    def _data(self, comp: Component | None, request: Request) -> Mapping[str, Any] | None:
        if comp is None:
            return EMPTY
        if comp.request_data is not None:
            return comp.request_data(request, self.data_cache)
        if comp.data is not None:
            data = comp.data(self.variant, request.plugin_context())
            if data is not None and not isinstance(data, Mapping):
                raise TypeError(f"data function returned {type(data).__name__}")
            return data
        return EMPTY

    def _render(self, step: Step, form: Form, template: Any, request: Request,
                data: Mapping[str, Any], report: Reporter) -> str:
        std: dict[str, Any] = {n: STANDARD[n][1](request) for n in step.std_names}
        if step.offers:
            std[OFFERS] = {t.name: True for t in request.tools}
        scopes: list[Any] = [self.variant.placeholders, std, request.inputs, data]

        def problem(name: str, message: str, line: int) -> None:
            report("error", "placeholder-not-text",
                   f"{template.source}:{line}: {{{{{name}}}}} {message}; rendered empty",
                   step.cid)
        layouts = self._layouts
        return render_clean(template, scopes,
                            lambda shape: layouts.get((step.index, form, shape)),
                            lambda shape, layout: layouts.put((step.index, form, shape), layout),
                            problem)

    # --- assemble: the base template -----------------------------------------------------

    def assemble(self, sections: list[Section | None], request: Request
                 ) -> tuple[str, list[tuple[Section, tuple[int, int]]], Mapping[str, str]]:
        """Join the base template for these sections: the text, the sections placed in it (in
        text order, with their spans), and which layer supplied each placeholder.

        A runtime value that replaces a slot is placed as a request-class section of its own
        (origin "runtime"), so it can never sit inside the static or session block.
        """
        inputs = request.inputs
        override = bool(inputs) and not self.slot_names.isdisjoint(inputs)
        if self.sections_only and not override:
            scope: dict[str, Any] = {}
            for name, _kind, idx in self.base_slots:
                s = sections[idx]
                if s is not None:
                    scope[name] = s.text
            layers: Mapping[str, str] = self.component_layers
        else:
            scope, layers = self._slot_values(sections, request)
        template = self.variant.template
        layouts = self._layouts
        found = laid_out(template, [scope], lambda shape: layouts.get((-1, "base", shape)),
                         lambda shape, made: layouts.put((-1, "base", shape), made))
        if found is None:  # never: every slot value is text (inputs are checked as text)
            raise RuntimeError(f"internal error: variant {self.variant.id!r}'s template got a "
                               "value that is not text")
        layout, (texts, names, _shape) = found
        parts = [op if op.__class__ is str else texts[op] for op in layout]
        ends = list(accumulate(map(len, parts)))
        placed: list[tuple[Section, tuple[int, int]]] = []
        seen: set[str] = set()
        slot_of = self.section_slots
        for i, op in enumerate(layout):
            if op.__class__ is str:
                continue
            name = names[op]
            if name in seen:
                continue  # a slot used twice: the first place is the section's
            seen.add(name)
            span = (ends[i - 1] if i else 0, ends[i])
            if override and layers.get(name) == "runtime":
                placed.append((Section(name, texts[op], "request", "runtime", 0, False), span))
                continue
            idx = slot_of.get(name, -1)
            section = sections[idx] if idx >= 0 else None
            if section is not None:
                placed.append((section, span))
        return "".join(parts), placed, layers

    def _slot_values(self, sections: list[Section | None], request: Request
                     ) -> tuple[dict[str, Any], dict[str, str]]:
        inputs = request.inputs
        runtime = request.context.runtime
        scope: dict[str, Any] = {}
        layers: dict[str, str] = {}
        for name, kind, idx in self.base_slots:
            value: str | None
            if kind == "section":
                s = sections[idx]
                value = s.text if s is not None else None
                layer = "component"
            elif kind == "standard":
                value = STANDARD[name][1](request)
                layer = "standard"
            elif kind == "default":
                value = self.variant.placeholders[name]
                layer = "default"
            else:
                value = None
                layer = "missing"
            if name in inputs:
                value = inputs[name]
                layer = "runtime" if name in runtime else "default"
                if layer == "runtime" and kind == "section":  # the client's text, fenced
                    value = element("runtime_value", value, name=name)
            if value is not None:
                scope[name] = value
            layers[name] = layer
        return scope, layers

    # --- tools ---------------------------------------------------------------------------

    def toolset(self, request: Request, report: Reporter) -> ToolSet:
        """The request's tools: MCP tools named for native calling (memoized by the servers),
        and the native definitions (memoized by the complete tool set)."""
        servers = request.context.mcp_servers
        bindings: tuple[McpBinding, ...] = ()
        if self.tool_mode == "native" and servers and not self.shared_tools:
            bindings, diags = self.mcp_bindings(servers)
            if diags:
                report.extend(diags)
        # shared tools: no option lists from the session in the schemas (the checker still
        # holds a call to the session's skills)
        sources = () if self.shared_tools else request.enum_sources
        nkey = native_key(request.tools, sources, bindings)
        native = self._native.get(nkey)
        if native is None:
            native = self._native.put(nkey, NativeTools(request.tools, sources, bindings,
                                                        self._shapes))
        return ToolSet(self.tool_mode, request.tools, bindings, request.context.skills, native,
                       self.tool_choice, request.context, self.provider,
                       shared=self.shared_tools)

    def mcp_bindings(self, servers: Sequence[McpServer]
                     ) -> tuple[tuple[McpBinding, ...], tuple[Diagnostic, ...]]:
        """The function names of the servers' tools (`mcp__<server>__<tool>`), and the renames
        reported; memoized by the servers' keys. The text of the MCP section uses the same."""
        key = tuple(s.key for s in servers)
        hit = self._bindings.get(key)
        if hit is None:
            local = Reporter(False)
            taken = {s.name for s in self.variant.tool_specs} | set(self.reserved)
            found = mcp_bindings(servers, taken,
                                 lambda src, msg: local("warning", "mcp-renamed", msg, src))
            hit = self._bindings.put(key, (found, tuple(local.items)))
        return hit  # type: ignore[no-any-return]


def features_read(specs: Sequence[ToolSpec], steps: Sequence[Step]) -> frozenset[str]:
    """The feature switches something of a variant reads: a tool's condition, or a section's
    data (`features.<name>` among a step's reads)."""
    by_tools = {name for spec in specs for name in spec.when.features}
    reads = [r for step in steps for r in step.reads or ()]
    return frozenset(by_tools | {r.split(".", 1)[1] for r in reads if r.startswith("features.")})
