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
from typing import Any

from .._base.errors import PLUGIN_FAILURES
from .._base.frozen import EMPTY, FrozenDict, thaw
from .._base.memo import Memo
from .._emit.schemas.clean import carried_numbers
from .._emit.toolset import NativeTools, ToolBlock, ToolSet, wire_format
from .._model.cache import CacheClass
from .._model.component import Component
from .._model.context import McpServer, McpTool, PromptContext
from .._model.diagnostics import Diagnostic, Reporter
from .._model.input_values import REFUSED, resolve_inputs
from .._model.placeholders import STANDARD
from .._model.provider import ProviderInfo
from .._model.request import Request
from .._model.conditions import ALWAYS
from .._model.tools import (McpBinding, ToolSpec, mcp_bindings, per_session, sources_of,
                            with_carried)
from .._model.variant import ToolModeChoice, Variant, choose_tool_mode
from .._text.cleanup import clean
from .._text.fence import OWN_TAGS
from .._text.layout import Layout, laid_out, layout_of, render_clean
from .builtin_data import BUILTIN_DATA, DataCache
from .outside import fenced_data
from .compiled import Section
from .base import (Assembled, FlatLayout, base_scope, base_slots, flat_layout, join_flat,
                   place_sections)
from .steps import OFFERS, Form, Step, bind_step, class_of

__all__ = ["Plan", "Produced"]

Produced = tuple[Section | None, tuple[Diagnostic, ...]]  # a step's output and what it noticed
Bindings = tuple[tuple[McpBinding, ...], tuple[Diagnostic, ...]]  # MCP names, renames reported


def _tool_classes(specs: Sequence[ToolSpec], per: frozenset[str]
                  ) -> tuple[CacheClass, CacheClass]:
    """The cache class of which tools are offered (as volatile as what their conditions read,
    and the skills when an option list comes from them), and of the built-in block alone."""
    reads = {r for spec in specs for r in spec.when.reads}
    if any(p.enum_from for spec in specs for p in spec.parameters):
        reads.add("skills")
    stable = frozenset(r for spec in specs if spec.name not in per for r in spec.when.reads)
    return class_of(frozenset(reads), "static"), class_of(stable, "static")


def _tool_links(specs: Sequence[ToolSpec]
                ) -> tuple[dict[str, frozenset[str]], dict[str, tuple[str, ...]]]:
    """Per spec, the tools its parameters depend on; and what the option lists of each spec
    that has some come from."""
    depends = {s.name: frozenset(d for p in s.parameters for d in p.depends_on) for s in specs}
    enum_from = {s.name: kinds for s in specs
                 if (kinds := tuple(p.enum_from for p in s.parameters if p.enum_from))}
    return depends, enum_from


def _step_memos(steps: Sequence[Step], size: int
                ) -> tuple[dict[int, Memo[Hashable, Produced]], dict[int, Memo[Hashable, Layout]]]:
    """Each step's own memos, so a section that changes with every session never pushes out
    one that stays: its outputs by (form, values read, runtime overrides), kept from their
    second time, and its layouts by (form, shape)."""
    outputs: dict[int, Memo[Hashable, Produced]] = {
        step.index: Memo(size, second_sight=True) for step in steps if step.key is not None}
    return outputs, {step.index: Memo(size) for step in steps}


def _tool_order(specs: Sequence[ToolSpec], per: frozenset[str]) -> tuple[ToolSpec, ...]:
    """Built-in block first, per-session tools after it (both in the variant's order), so the
    tools every session shares come first on the wire."""
    return (*(s for s in specs if s.name not in per), *(s for s in specs if s.name in per))


def _use_mcp_tool() -> str:
    from .._calls.checker import USE_MCP_TOOL  # the call checker loads on first use
    return USE_MCP_TOOL


def _tool_mode_notes(variant: Variant, choice: ToolModeChoice) -> list[Diagnostic]:
    """What the client's tool-mode choice does to a variant that pins another mode."""
    if not choice.overrides_variant:
        return []
    if choice.mode == "text" and "tools" not in variant.components:
        return [Diagnostic("warning", "tool-mode-unsupported",
                           f"tool mode text: {choice.reason}, but the variant has no `tools` "
                           "component to list them in the prompt: the model sees no tools",
                           variant.id)]
    return [Diagnostic("info", "tool-mode-client",
                       f"tool mode {choice.mode}: {choice.reason}; the client's choice wins",
                       variant.id)]


class Plan:
    """A variant bound to a resolved provider, ready to build prompts."""

    def __init__(self, variant: Variant, provider: ProviderInfo,
                 components: Mapping[str, Component], reserved: frozenset[str] = frozenset(),
                 memo_size: int = 512, client_choice: bool | None = None,
                 shared_tools: bool = False, own_tags: frozenset[str] = OWN_TAGS) -> None:
        self.variant = variant
        self.provider = provider
        self.reserved = reserved
        # the elements outside text may not open or close (the registry's: fence.body's tags)
        self.own_tags = own_tags
        # The tool-mode chain: the client's explicit choice, the variant's pinned mode, the
        # model's capability, text (`client_choice`: native_tools as the client gave it).
        self.tool_choice = choose_tool_mode(variant, provider, client_choice)
        self.tool_mode = self.tool_choice.mode
        # dynamic="message": session tools in their generic form (see Request; text mode
        # already calls MCP tools through use_mcp_tool, so it changes nothing there)
        self.shared_tools = shared_tools
        # shared tools: MCP calls go through use_mcp_tool, so its condition is tested as in
        # text mode
        self._text_tool = _use_mcp_tool() if shared_tools else None
        specs: tuple[ToolSpec, ...] = variant.tool_specs
        self.per_session = frozenset(s.name for s in specs if per_session(s))
        self.tool_order = _tool_order(specs, self.per_session)
        self._depends, self._enum_from = _tool_links(specs)
        self.tools_class, self.stable_class = _tool_classes(specs, self.per_session)
        self.data_cache = DataCache(own_tags=own_tags)
        self._base_layouts: Memo[Hashable, Layout] = Memo(memo_size)  # the base's, by shape
        self._flat: Memo[tuple[int, ...], FlatLayout] = Memo(memo_size)  # base, by shape
        self._inputs: Memo[Hashable, tuple[FrozenDict, tuple[Diagnostic, ...]]] = \
            Memo(memo_size)  # runtime's typed key -> (values, diagnostics)
        self._bindings: Memo[Hashable, Bindings] = Memo(  # MCP servers' keys ->
            memo_size, second_sight=True)
        # the tool set without MCP tools, by the tools offered and their option sources
        self._natives: Memo[Hashable, NativeTools] = Memo(memo_size)
        # text mode: a tool with the parameters of the tools every call carries, by its name
        # and theirs (see ToolSpec.text_parameter)
        self._carrying: dict[tuple[str, ...], ToolSpec] = {}
        # the tools whose offer a request's values decide, and what each outcome offers
        self._conditional = tuple(s for s in self.tool_order if s.when is not ALWAYS)
        self._offered: Memo[tuple[bool, ...], Offered] = Memo(memo_size)
        # an MCP schema's forms by its JSON text (see NativeTools), a call checker's validators
        self._shapes: Memo[Hashable, Any] = Memo(4 * memo_size)
        # the numbers a text prompt's schemas leave out, by a server's tools: kept from a
        # list's second sight, as the context memo keeps that list's records (so a hit finds
        # the very tuple, not an equal one compared record by record)
        self._unwritable: Memo[tuple[McpTool, ...], tuple[tuple[str, Any], ...]] = Memo(
            memo_size, second_sight=True)
        diags = _tool_mode_notes(variant, self.tool_choice)
        unchecked: list[Diagnostic] = []
        self.steps = self._bind_steps(components, diags, unchecked)
        self._outputs, self._layouts = _step_memos(self.steps, memo_size)
        self.base = base_slots(variant, self.steps, components, diags, unchecked)
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diags)
        # names inside structured inputs without a schema: lint's information, not a build's
        self.unchecked: tuple[Diagnostic, ...] = tuple(unchecked)
        # The feature switches something of this variant reads (a tool's condition, a section's
        # data): a context that turns on any other one is told so (`feature-unsupported`).
        self.features_read = features_read(specs, self.steps)
        # the notes on features a context turns on and this plan does not read, by those
        # features and the compiler's known names (see compiler.py, _unsupported_features)
        self.unsupported: Memo[tuple[FrozenDict, frozenset[str]], tuple[Diagnostic, ...]] = \
            Memo(memo_size)
        # A whole result may be reused for an equal request only when every step says what it
        # reads: code that does not may depend on anything, so it runs on every request.
        self.pure = all(step.reads is not None for step in self.steps)
        self._static = self._static_sections()
        self._full = [(step, self._static.get((step.index, "full")), self._outputs.get(step.index))
                      for step in self.steps]

    def _bind_steps(self, components: Mapping[str, Component], diags: list[Diagnostic],
                    unchecked: list[Diagnostic]) -> tuple[Step, ...]:
        steps = (bind_step(self.variant, cid, index, components, self.tools_class, diags,
                           self.stable_class, unchecked)
                 for index, cid in enumerate(self.variant.components))
        return tuple(step for step in steps if step is not None)

    def _static_sections(self) -> dict[tuple[int, Form], Produced]:
        """The sections that read nothing but the provider (a static section may also read the
        client's settings, such as its features), computed once, now."""
        empty = self.bind(PromptContext(), "", Reporter(False), refuse=False)
        out: dict[tuple[int, Form], Produced] = {}
        for step in self.steps:
            if step.reads == ():
                out[step.index, "full"] = self._produce(step, empty, "full")
                if step.short is not None:
                    out[step.index, "short"] = self._produce(step, empty, "short")
        return out

    # --- bind: the request record ----------------------------------------------------------

    def bind(self, context: PromptContext, date: str, report: Reporter, refuse: bool = True
             ) -> Request:
        """Bind a request: validate its runtime values, evaluate every tool condition once."""
        inputs = self._runtime_inputs(context.runtime, report, refuse)
        tools, names, stable = self._enabled_tools(context, report)
        enum_from = self._enum_from
        sources = sources_of([kind for t in tools if t.name in enum_from
                              for kind in enum_from[t.name]], context.skills)
        bindings: tuple[McpBinding, ...] = ()
        if self.tool_mode == "native" and context.mcp_servers and not self.shared_tools:
            bindings = self._named(context.mcp_servers, report)
        return Request(context=context, provider=self.provider, variant=self.variant,
                       tool_mode=self.tool_mode, date=date, tools=tools, enum_sources=sources,
                       inputs=inputs, shared_tools=self.shared_tools, bindings=bindings,
                       offered=(names, sources), stable=stable, own_tags=self.own_tags)

    def _stable(self, tools: tuple[ToolSpec, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The read `stable_tools`: the offered tools whose presence depends on no session
        value, and which offered tools their parameters depend on."""
        per = self.per_session
        stable = tuple(t.name for t in tools if t.name not in per)
        wanted = frozenset().union(*(self._depends[name] for name in stable))
        return stable, tuple(t.name for t in tools if t.name in wanted)

    def _runtime_inputs(self, runtime: FrozenDict, report: Reporter, refuse: bool = True
                        ) -> Mapping[str, Any]:
        """The request's input values. A missing required value, or one that breaks its
        declaration, is refused in every mode (`refuse`: unless the plan itself binds an
        empty request to make its static sections)."""
        key = runtime.flat  # typed: `true`, `1` and `1.0` are three keys
        hit = self._inputs.get(key)
        if hit is None:
            local = Reporter(False)
            resolved = resolve_inputs(self.variant.inputs, runtime, self.base.overridable, local,
                                      self.own_tags)
            hit = self._inputs.put(key, (FrozenDict(resolved), tuple(local.items)))
        values, diags = hit
        if diags:
            if refuse:
                declared = {spec.name for spec in self.variant.inputs}
                for d in diags:
                    if d.code in REFUSED and d.source in declared:
                        raise d.error()
            report.extend(diags)
        return values

    def _enabled_tools(self, context: PromptContext, report: Reporter) -> Offered:
        """The offered tools, their names and the read `stable_tools`: each condition is
        tested for this request, and what follows from which ones hold is made once per
        outcome (a client's requests mostly repeat one)."""
        flags = tuple([self._holds(spec, context, report) for spec in self._conditional])
        found = self._offered.get(flags)
        if found is None:
            found = self._offered.put(flags, self._offer(flags))
        return found

    def _holds(self, spec: ToolSpec, context: PromptContext, report: Reporter) -> bool:
        # shared tools: MCP calls go through use_mcp_tool, as in text mode
        mode = "text" if spec.name == self._text_tool else self.tool_mode
        try:
            return bool(spec.when.test(context, self.provider, mode))
        except PLUGIN_FAILURES as exc:  # a plugin's condition: it must not break the build
            report("error", "tool-condition-raised",
                   f"condition of tool {spec.name!r} raised {type(exc).__name__}: {exc}; "
                   "the tool is not offered", spec.name)
            return False

    def _offer(self, flags: tuple[bool, ...]) -> Offered:
        """The offered tools when the conditional ones' tests came out as `flags`."""
        held = iter(flags)
        out = [spec for spec in self.tool_order if spec.when is ALWAYS or next(held)]
        tools = self._carrying_tools(out) if self.tool_mode == "text" and \
            any(s.text_parameter for s in out) else tuple(out)
        return tools, tuple(t.name for t in tools), self._stable(tools)

    def _carrying_tools(self, offered: list[ToolSpec]) -> tuple[ToolSpec, ...]:
        """Text mode: the tools a call carries (`text_parameter`) are not offered on their
        own; every other offered tool takes their parameter instead (made once per tool)."""
        carried = [s for s in offered if s.text_parameter]
        names = tuple(c.name for c in carried)
        out = []
        for spec in offered:
            if spec.text_parameter:
                continue
            made = self._carrying.get((spec.name, *names))
            if made is None:
                made = self._carrying[(spec.name, *names)] = with_carried(spec, carried)
            out.append(made)
        return tuple(out)

    # --- sections ----------------------------------------------------------------------------

    def sections(self, request: Request, report: Reporter,
                 forms: Mapping[str, Form] | None = None,
                 dropped: frozenset[str] = frozenset()) -> list[Section | None]:
        """Every step's section for this request (the per-request hot loop)."""
        if forms is None and not dropped and not request.inputs:
            return self._full_sections(request, report)
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

    def _full_sections(self, request: Request, report: Reporter) -> list[Section | None]:
        """The usual request (every section in its full form, no runtime value replacing
        one): static sections as computed with the plan, the others through the memo."""
        out: list[Section | None] = []
        for step, produced, outputs in self._full:
            if produced is None:
                if outputs is None or step.key is None:
                    produced = self._produce(step, request, "full")
                else:
                    key = ("full", step.key(request), None)
                    produced = outputs.get(key)
                    if produced is None:
                        produced = outputs.put(key, self._produce(step, request, "full"))
            if produced[1]:
                report.extend(produced[1])
            out.append(produced[0])
        return out

    def section(self, step: Step, request: Request, form: Form = "full") -> Produced:
        """One step's section: static, memoized by the values it reads, or produced."""
        inputs = request.inputs
        overridden = bool(inputs) and bool(step.runtime_names) and \
            not step.runtime_names.isdisjoint(inputs)
        if not overridden:
            static = self._static.get((step.index, form))
            if static is not None:
                return static
        outputs = self._outputs.get(step.index)
        if outputs is None or step.key is None:
            return self._produce(step, request, form)
        key: Hashable = (form, step.key(request),
                         tuple(inputs.get(n) for n in step.runtime_order) if overridden else None)
        result: Produced | None = outputs.get(key)
        if result is None:
            result = outputs.put(key, self._produce(step, request, form))
        return result

    def _produce(self, step: Step, request: Request, form: Form) -> Produced:
        """Run one component; a component's own failure is reported, never raised."""
        report = Reporter(False)
        try:
            text = self._text(step, request, form, report)
        except PLUGIN_FAILURES as exc:  # a component's bug must not break the client's request
            comp = step.component
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

    def _text(self, step: Step, request: Request, form: Form, report: Reporter) -> str | None:
        template = step.short if form == "short" else step.template
        data: Mapping[str, Any] | None = EMPTY
        if template is None:
            text = self._function_text(step, request, report)
        else:
            data = self._data(step.component, request)
            if data is None:
                return None
            text = self._render(step, form, template, request, data, report)
        if step.edits and text and not text.isspace():
            return self._edited(step, text, request, data or EMPTY, report)
        return text

    def _edited(self, step: Step, text: str, request: Request, data: Mapping[str, Any],
                report: Reporter) -> str:
        """The section with the variant's edits (see _model/edits.py): each prepend before
        what came before it, each append after; a file's template rendered like the section."""
        before: list[str] = []
        after: list[str] = []
        for i, edit in enumerate(step.edits):
            added = edit.text if edit.template is None else \
                self._render(step, ("edit", i), edit.template, request, data, report)
            if added.strip():
                (before if edit.kind == "prepend" else after).append(added.strip("\n"))
        return "\n\n".join([*reversed(before), text.strip("\n"), *after])

    def _function_text(self, step: Step, request: Request, report: Reporter) -> str | None:
        """A function component's text (from a plugin), line endings folded to LF."""
        comp = step.component
        if comp is None or comp.function is None:
            return None
        out = comp.function(self.variant, request.plugin_context())
        if out is not None and not isinstance(out, str):
            report("error", "component-not-text", f"component {step.cid!r} returned "
                   f"{type(out).__name__}, not text; its section is skipped", step.cid)
            return None
        return None if out is None else clean([out.replace("\r\n", "\n")])

    def _data(self, comp: Component | None, request: Request) -> Mapping[str, Any] | None:
        if comp is None:
            return EMPTY
        if comp.request_data is not None:
            return BUILTIN_DATA[comp.request_data](request, self.data_cache)
        if comp.data is not None:
            data = comp.data(self.variant, request.plugin_context())
            if data is None:
                return None
            if not isinstance(data, Mapping):
                raise TypeError(f"data function returned {type(data).__name__}")
            return fenced_data(data, self.own_tags)  # its strings are outside text
        return EMPTY

    def _render(self, step: Step, form: Hashable, template: Any, request: Request,
                data: Mapping[str, Any], report: Reporter) -> str:
        std: dict[str, Any] = {n: STANDARD[n][1](request) for n in step.std_names}
        if step.offers:
            std[OFFERS] = {t.name: True for t in request.tools}
        scopes: list[Any] = [self.variant.placeholders, std, request.inputs, data]

        def problem(name: str, message: str, line: int) -> None:
            report("error", "placeholder-not-text",
                   f"{template.source}:{line}: {{{{{name}}}}} {message}; rendered empty",
                   step.cid)
        layouts = self._layouts[step.index]
        return render_clean(template, scopes, lambda shape: layouts.get((form, shape)),
                            lambda shape, layout: layouts.put((form, shape), layout), problem)

    # --- assemble: the base template -----------------------------------------------------

    def assemble(self, sections: list[Section | None], request: Request) -> Assembled:
        """Join the base template for these sections: the text, the sections placed in it (in
        text order, with their spans), and which layer supplied each placeholder."""
        flat = self.base.flat
        if flat is not None and (not request.inputs or self.base.names.isdisjoint(
                request.inputs)):
            return self._assemble_flat(flat, sections)
        scope, layers, override = base_scope(self.base, self.variant, sections, request)
        layouts = self._base_layouts
        found = laid_out(self.variant.template, [scope], layouts.get, layouts.put)
        if found is None:  # never: every slot value is text (inputs are checked as text)
            raise RuntimeError(f"internal error: variant {self.variant.id!r}'s template got a "
                               "value that is not text")
        layout, (texts, names, _shape) = found
        text, placed = place_sections(self.base, layout, texts, names, sections, layers,
                                      override)
        return Assembled(text, placed, layers)

    def _assemble_flat(self, flat: tuple[int, ...], sections: list[Section | None]
                       ) -> Assembled:
        """A base template of section names only: which sections are present is its whole
        shape, so its layout (and where each section lands in it) is made once per shape."""
        present = [i for i in flat if sections[i] is not None]
        shape = tuple([0 if sections[i] is None else 1 for i in flat])
        made = self._flat.get(shape)
        if made is None:
            scope = {s.id: s.text for i in present if (s := sections[i]) is not None}
            found = layout_of(self.variant.template, [scope])
            assert found is not None  # every value is a section's text
            made = self._flat.put(shape, flat_layout(found[0], present))
        text, placed = join_flat(made, sections, present)
        return Assembled(text, placed, self.base.component_layers)

    # --- tools ---------------------------------------------------------------------------

    def toolset(self, request: Request, report: Reporter) -> ToolSet:
        """The request's tools: the built-in block (made once per distinct block) and the MCP
        tools named for native calling. With shared tools, the schemas take no option lists
        from the session (the checker still holds a call to the session's skills)."""
        key: tuple[Hashable, ...] = request.offered if not self.shared_tools else \
            (request.offered[0], ())
        if self.tool_mode == "text":  # the same tools, with or without a carried parameter
            key = (*key, next((p.name for t in request.tools for p in t.parameters
                               if p.shared), ""))
        native = self._natives.get(key)
        if native is None:
            sources = request.enum_sources if not self.shared_tools else ()
            native = self._natives.put(key, NativeTools(
                request.tools, sources, (), self._shapes, ToolBlock(request.tools, sources)))
        if request.bindings:  # the session's MCP tools: new with the session, not kept
            native = native.with_mcp(request.bindings)
            # what the servers' schemas hold that the provider's format cannot take
            report.extend(native.diagnostics(wire_format(self.provider)))
        if not request.mcp_functions:  # the schemas are written into the prompt's text
            report.extend(self._unwritable_numbers(request.context.mcp_servers))
        return ToolSet(self.tool_mode, request.tools, request.bindings, request.context.skills,
                       native, self.tool_choice, request.context, self.provider,
                       shared=self.shared_tools)

    def _unwritable_numbers(self, servers: Sequence[McpServer]) -> list[Diagnostic]:
        """The numbers a text prompt's schemas leave out (`1e400`, NaN: no JSON says them),
        each a warning naming the tool; worked out once per server's tool list (a new session
        brings its servers' lists back under new names)."""
        out: list[Diagnostic] = []
        for server in servers:
            key = server.tools
            found = self._unwritable.get(key)
            if found is None:
                found = self._unwritable.put(key, tuple(
                    (tool.name, problem) for tool in server.tools for problem in carried_numbers(
                        thaw(tool.input_schema) if tool.input_schema else {})[1]))
            out.extend(Diagnostic("warning", p.code, f"MCP tool {tool!r} of server "
                                  f"{server.name!r}, input schema: {p.message()}",
                                  f"{server.name}/{tool}") for tool, p in found)
        return out

    def _named(self, servers: Sequence[McpServer], report: Reporter
               ) -> tuple[McpBinding, ...]:
        bindings, diags = self.mcp_bindings(servers)
        if diags:
            report.extend(diags)
        return bindings

    def mcp_bindings(self, servers: Sequence[McpServer]
                     ) -> tuple[tuple[McpBinding, ...], tuple[Diagnostic, ...]]:
        """The function names of the servers' tools (`mcp__<server>__<tool>`), and the renames
        reported; memoized by the servers. The text of the MCP section uses the same."""
        key = tuple(servers)
        hit = self._bindings.get(key)
        if hit is None:
            local = Reporter(False)
            taken = {s.name for s in self.variant.tool_specs} | set(self.reserved)
            found = mcp_bindings(servers, taken,
                                 lambda src, msg: local("warning", "mcp-renamed", msg, src))
            hit = self._bindings.put(key, (found, tuple(local.items)))
        return hit


# The offered tools, their names, and the read `stable_tools` (see Plan._stable).
Offered = tuple[tuple[ToolSpec, ...], tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]]]


def features_read(specs: Sequence[ToolSpec], steps: Sequence[Step]) -> frozenset[str]:
    """The feature switches something of a variant reads: a tool's condition, or a section's
    data (`features.<name>` among a step's reads)."""
    by_tools = {name for spec in specs for name in spec.when.features}
    reads = [r for step in steps for r in step.reads or ()]
    return frozenset(by_tools | {r.split(".", 1)[1] for r in reads if r.startswith("features.")})
