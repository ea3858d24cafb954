"""The Compiler: a frozen registry plus per-(variant, provider) plans, serving many threads.

`compile()` is the per-request path, five stages in one direction:

1. route    provider (+ pinned variant) → variant, resolved provider, plan; memoized per provider
2. bind     context + route → one `Request` record (inputs checked, tool conditions evaluated)
3. sections each component's section, memoized by exactly the values it reads
4. assemble the base template joined for the present sections; with a budget, steps 3–4 loop
            (shorter forms, then optional sections dropped) before anything is wrapped
5. wrap     the `CompiledPrompt`: text, sections, tools, trace, diagnostics (+ token counts)

Every cache belongs to this Compiler (or one of its plans), is bounded, and is keyed by the
complete, typed input of what it stores, so a shared Compiler gives byte-identical results to a
fresh one, in any order of requests and on any thread.
"""

from __future__ import annotations

import datetime
import threading
from collections.abc import Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from .._base.errors import (PLUGIN_FAILURES, ConfigError, ContextError, NoVariantError,
                            PromptcError)
from .._base.memo import Memo
from .._emit.toolset import ToolSet, wire_format
from .._load.folders import Layer, read_layer
from .._load.plugins import PluginSet, bounded_items, load_plugins
from .._load.project import NO_PROJECT, Project, project_for
from .._load.registry import Registry, Resolution, build_registry
from .._load.sources import builtin_root, project_outside_note, user_folder
from .._load.stacking import stacked_registry
from .._model.context import PromptContext
from .._model.diagnostics import Diagnostic, Reporter, first_failure
from .._model.provider import ProviderInfo, encoding_for, model_data, resolve_provider
from .._model.variant import Variant
from .._text.tokens import TokenCounter, TokenReport
from .base import Assembled
from .contexts import ContextMemo
from .dynamic import (DEFAULT_PLACEMENT, MESSAGE_TAG, NOTE, PLACEMENTS, Placement,
                      note_text, place_in_message)
from .plan import Plan
from .compiled import CompiledPrompt, Section


__all__ = ["Compiler", "Route"]

GENERIC_MCP_TOOL = "use_mcp_tool"  # what the generic form calls MCP tools through


@attrs.frozen(eq=False)
class Route:
    """Stage 1's result: the variant chosen for a provider, and its plan. Shared by requests,
    one per (provider, pinned variant): it stands for them in a result's key, by identity."""

    resolution: Resolution
    plan: Plan
    diagnostics: tuple[Diagnostic, ...]  # load + resolution + plan, merged once
    failure: Diagnostic | None  # the first of them strict mode refuses


def _model_table_notes(user: bool) -> list[Diagnostic]:
    """Rows of the user's model table that were left out (they do not decode): a warning each,
    so the renders go on and the table still gets fixed. A table that does not load at all is
    left for the first resolution to report."""
    if not user:
        return []
    try:
        problems = model_data(True).problems
    except PromptcError:
        return []
    return [Diagnostic("warning", "model-table-row", f"{problem}; the row is skipped", "models")
            for problem in problems]


def _project_layer(project: Project, start: str | Path | None) -> list[Layer]:
    """The project's prompt folder as a layer (none without one); a `.promptc` found by
    walking up without a project file is warned about when it lies outside the repository."""
    if project.folder is None:
        return []
    layer = read_layer(project.folder, "project")
    note = project_outside_note(project.folder, start if start is not None else Path.cwd()) \
        if project.discovered else None
    if note is not None:
        layer = attrs.evolve(layer, notes=(*layer.notes, Diagnostic(
            "warning", "project-outside-repository", note, str(project.folder))))
    return [layer]


def _plugin_set(plugins: bool | Sequence[str], where: str) -> PluginSet | None:
    """The installed plugins to load: all (True), none (False) or those named."""
    if plugins is False:
        return None
    if plugins is True:
        return load_plugins()
    if isinstance(plugins, str):
        raise TypeError("plugins must be true, false or a list of plugin names, not a string")
    return load_plugins(names=tuple(plugins), where=where)


def _provider_of(provider: ProviderInfo | None, ctx: PromptContext) -> ProviderInfo:
    if provider is not None:
        return provider
    if ctx.provider is None:
        raise NoVariantError("no provider: pass a ProviderInfo or set context.provider")
    return ctx.provider


class Compiler:
    """Compiles prompts. Build one per process (`Compiler.default()`), share it across threads."""

    def __init__(self, registry: Registry, *, plugins: PluginSet | None = None,
                 sources: Sequence[tuple[str, str]] = (), memo_size: int = 512,
                 project: Project | None = None) -> None:
        self.registry = registry
        # the project file's settings (the defaults without one): its placement, default
        # model and strictness are the defaults of the commands and `serve`
        self.project = project if project is not None else NO_PROJECT
        self.features = registry.features  # the feature switches a context may set
        # the elements outside text may not open or close (promptc.fence takes the compiler)
        self.own_tags: frozenset[str] = registry.own_tags
        self.plugins = plugins
        self.sources = tuple(sources)
        self._memo_size = memo_size
        diags = list(registry.diagnostics)
        if plugins is not None:
            diags.extend(plugins.diagnostics)
        diags.extend(_model_table_notes(registry.user_models))
        self.load_diagnostics: tuple[Diagnostic, ...] = tuple(diags)
        self._routes: Memo[tuple[ProviderInfo, str | None], Route] = Memo(1024)  # -> Route
        self._plans: dict[tuple[str, ProviderInfo, bool | None, bool], Plan] = {}
        self._plans_lock = threading.Lock()
        self._contexts = ContextMemo(self.features, memo_size)  # contexts from plain data
        # complete request key -> CompiledPrompt, kept from its second time
        self._results: Memo[Hashable, CompiledPrompt] = Memo(memo_size, second_sight=True)
        self.tokens = TokenCounter()
        self._notes: dict[str, tuple[str, str]] = {}  # variant id -> its note (dynamic.py)
        self._context_hooks = plugins.context_hooks if plugins else ()
        self._inspect_hooks = plugins.inspect_hooks if plugins else ()

    # --- construction ------------------------------------------------------------------------

    @classmethod
    def default(cls, *, project: str | Path | bool | None = True, user: bool | None = None,
                plugins: bool | Sequence[str] | None = None, builtins: bool | None = None,
                start: str | Path | None = None) -> Compiler:
        """The sources a project's prompts come from, stacked and frozen: the built-in pack,
        installed plugins, the user's folder and the project's prompt folder.

        `project`: True to find the project from `start` (default: the working directory,
        read once here): `$PROMPTC_PROJECT` when set, else the nearest project file
        (`promptc.toml`, or `pyproject.toml` with `[tool.promptc]`; not past the repository
        root), else the nearest `.promptc/` folder. A path names a project root (a folder
        holding a project file or a `.promptc/`), a project file, or a prompt folder. False:
        no project. (None, the spelling of True before 0.2, still looks.)

        `builtins`, `user`, `plugins` (True, False or entry-point names): None leaves them
        to the project file (default: all three on); a value given here wins over it.
        """
        settings = project_for(project, start)
        use_user = settings.user if user is None else user
        use_builtins = settings.builtins if builtins is None else builtins
        lower = [read_layer(builtin_root(), "builtin")] if use_builtins else []
        plugin_set = _plugin_set(settings.plugins if plugins is None else plugins, settings.file)
        upper = [read_layer(user_folder(), "user")] if use_user and user_folder().is_dir() \
            else []
        upper.extend(_project_layer(settings, start))
        registry, plugin_set = stacked_registry(lower, plugin_set, upper, user_models=use_user)
        layers = [*lower, *(plugin_set.layers if plugin_set else ()), *upper]
        return cls(registry, plugins=plugin_set,
                   sources=[(layer.source, layer.root) for layer in layers], project=settings)

    @classmethod
    def builtins(cls) -> Compiler:
        """Only the built-in variants: no plugins, no user or project folder (tests, snapshots)."""
        return cls.default(project=False, user=False, plugins=False, builtins=True)

    @classmethod
    def from_layers(cls, layers: Iterable[Layer]) -> Compiler:
        return cls(build_registry(layers))

    @classmethod
    def from_folders(cls, *folders: str | Path, builtins: bool = True,
                     plugins: bool | Sequence[str] = False) -> Compiler:
        """Built-ins (optionally), installed plugins (optionally: none by default, True for
        all, or a list of entry-point names) and the given folders, later ones overriding
        earlier ones. No project file, user folder or working directory is consulted."""
        lower = [read_layer(builtin_root(), "builtin")] if builtins else []
        upper = []
        for f in folders:
            if not Path(f).is_dir():
                raise ConfigError("prompt folder not found", source=str(f))
            upper.append(read_layer(Path(f), f"folder:{f}"))
        registry, plugin_set = stacked_registry(lower, _plugin_set(plugins, ""), upper)
        layers = [*lower, *(plugin_set.layers if plugin_set else ()), *upper]
        return cls(registry, plugins=plugin_set,
                   sources=[(layer.source, layer.root) for layer in layers])

    @property
    def placement(self) -> Placement | None:
        """The project's default placement of the session and request text ("system" or
        "message"; None: the project file does not say)."""
        return self.project.placement

    @property
    def default_model(self) -> tuple[str, str] | None:
        """The project's default (provider, model) for requests that name none."""
        return self.project.model

    # --- stage 1: route ------------------------------------------------------------------

    def resolve(self, provider: ProviderInfo, *, strict: bool = False,
                full_trace: bool = False) -> Resolution:
        return self.registry.resolve(provider, strict=strict, full_trace=full_trace)

    def route(self, provider: ProviderInfo, variant: str | None = None) -> Route:
        """The variant and plan for a provider (memoized: one resolution per provider)."""
        key = (provider, variant)
        hit: Route | None = self._routes.get(key)
        if hit is not None:
            return hit
        info = resolve_provider(provider, self.registry.families, self.registry.user_models)
        resolution = self.registry.variant_for(variant) if variant is not None else \
            self.registry.resolve(info)
        # The client's own `native_tools` (before resolution filled it in) is the first link
        # of the tool-mode chain, so the plan knows whether the client chose.
        plan = self._plan(resolution.variant, info, provider.native_tools)
        diags = (*self.load_diagnostics, *resolution.diagnostics, *plan.diagnostics)
        route = Route(resolution, plan, diags, first_failure(diags))
        return self._routes.put(key, route)

    def _plan(self, variant: Variant, info: ProviderInfo,
              client_choice: bool | None = None, shared_tools: bool = False) -> Plan:
        key = (variant.id, info, client_choice, shared_tools)
        plan = self._plans.get(key)
        if plan is None:
            with self._plans_lock:
                plan = self._plans.get(key)
                if plan is None:
                    plan = self._plans[key] = Plan(variant, info, self.registry.components,
                                                   self.registry.reserved_tools,
                                                   self._memo_size, client_choice,
                                                   shared_tools, self.own_tags)
        return plan

    def _placed_plan(self, plan: Plan, provider: ProviderInfo, dynamic: str) -> Plan:
        """dynamic="message" with native tools: the plan that offers the session's tools in
        their generic form, so that tools are shared like the system prompt (see Request); a
        variant without `use_mcp_tool` keeps MCP tools as functions of their own."""
        if dynamic != "message" or plan.tool_mode != "native" or \
                GENERIC_MCP_TOOL not in plan.variant.tools:
            return plan
        return self._plan(plan.variant, plan.provider, provider.native_tools, True)

    def plan(self, provider: ProviderInfo, variant: str | None = None) -> Plan:
        return self.route(provider, variant).plan

    # --- contexts from plain data -----------------------------------------------------------

    def context(self, data: PromptContext | Mapping[str, Any] | None) -> PromptContext:
        """A PromptContext from a context or its plain data (the context-file shape).

        Equal data gives the same, already validated context: the memo is keyed by the data's
        `marshal` bytes, which are typed (`1`, `1.0` and `true` differ) and complete (see
        contexts.py).
        """
        return self._context(data)[0]

    def _context(self, data: PromptContext | Mapping[str, Any] | None
                 ) -> tuple[PromptContext, bool]:
        """Stage 0: the context, and whether it may have been seen before (data new to the
        memo is a new context: no result can be kept for it yet). Plain data, what a client
        sends on every request, is tested first: the abstract `Mapping` check is slow."""
        if isinstance(data, dict):
            return self._contexts.context(data)
        if isinstance(data, PromptContext):
            return data, True
        if data is None:
            return PromptContext(), True
        if not isinstance(data, Mapping):
            raise ContextError("the context must be a PromptContext or a table/object")
        return self._contexts.context(data)

    # --- the per-request path --------------------------------------------------------------

    def compile(self, provider: ProviderInfo | None = None,
                context: PromptContext | Mapping[str, Any] | None = None, *,
                strict: bool | None = None, budget: int | None = None,
                count_tokens: bool = False, variant: str | None = None,
                dynamic: Placement | None = None) -> CompiledPrompt:
        """Build the prompt for one request.

        `context` is a PromptContext or its plain data. Lenient: failing matchers,
        components, plugins and tool conditions are skipped and reported in `diagnostics`.
        Strict: the first warning or error raises a typed error. `strict=None` (the default)
        takes the project file's `strict` (lenient without one); True or False wins over it.
        `dynamic`: where the text that can change during a session is sent (`prompt.text` is
        the whole prompt either way). "message", the default: the system prompt
        (`prompt.system`) is the static block and a note saying where the rest is, and the
        session- and request-class text is the first user message (`prompt.message`);
        "system": `prompt.text` as the system prompt. By default (None) the project file's
        `placement`, else "message"; a pack without the note keeps the single string (see
        dynamic.py).
        """
        ctx, seen = self._context(context)                                      # 0. context
        provider = _provider_of(provider, ctx)
        strict = self.project.strict if strict is None else bool(strict)
        route = self._routed(provider, variant, strict)                         # 1. route
        date = ctx.date if ctx.date is not None else datetime.date.today().isoformat()
        counted = bool(count_tokens)
        placement, note = self._placement(route, dynamic)
        key = self._result_key(route, budget, seen, (route, ctx, date, counted, placement))
        done = self._stored(key, strict)
        if done is not None:
            return done
        plan = self._placed_plan(route.plan, provider, placement)
        report = Reporter(strict, route.diagnostics)
        if placement == "message" and not note[0]:
            report("warning", "placement-without-note",
                   f"variant {plan.variant.id!r} has no {NOTE!r} component: with "
                   "dynamic=\"message\" the model is not told where its environment details "
                   "went", f"variant:{plan.variant.id}")
        extra = self._split_tokens(plan, note[0]) \
            if placement == "message" and budget is not None else 0
        prompt = self._build(route, plan, ctx, date, budget, counted, report, extra)  # 2.–5.
        prompt = self._place(self._inspected(prompt, report), placement, note)
        if key is not None:
            self._results.put(key, prompt)
        return prompt

    def _routed(self, provider: ProviderInfo, variant: str | None, strict: bool) -> Route:
        """Stage 1; strict mode refuses a route whose load or resolution was not clean."""
        route = self.route(provider, variant)
        if strict and route.failure is not None:
            raise route.failure.error()
        return route

    def _result_key(self, route: Route, budget: int | None, seen: bool, request: Hashable
                    ) -> Hashable | None:
        """The key a whole result is kept under, or None when it is not kept: a budget, code
        that does not declare what it reads, or plugin hooks make every build count; and a
        context met for the first time is kept only when it comes again (most are new
        sessions that never do)."""
        if not seen or budget is not None or not route.plan.pure or self._context_hooks or \
                self._inspect_hooks:
            return None
        return request

    def _stored(self, key: Hashable | None, strict: bool) -> CompiledPrompt | None:
        """A result built before for this complete request (strict refuses it as it would
        have refused the build)."""
        done = self._results.get(key) if key is not None else None
        if done is not None and strict and (failure := first_failure(done.diagnostics)):
            raise failure.error()
        return done

    def _build(self, route: Route, plan: Plan, ctx: PromptContext, date: str,
               budget: int | None, counted: bool, report: Reporter, extra: int = 0
               ) -> CompiledPrompt:
        """Stages 2–5: bind the request, its tools, sections and their assembly (within the
        budget), and the result."""
        ctx = self._checked(ctx, plan, report)
        request = plan.bind(ctx, date, report)                                  # 2. bind
        tools = plan.toolset(request, report)
        if budget is None:                                                      # 3.–4.
            laid = plan.assemble(plan.sections(request, report), request)
        else:
            from .budget import fit_budget
            laid = fit_budget(plan, request, self.tokens, budget, report,
                              self._tool_tokens(tools, plan.provider), extra)
        return self._wrap(route, plan, laid, tools, report, counted, budget)    # 5. wrap

    def _checked(self, ctx: PromptContext, plan: Plan, report: Reporter) -> PromptContext:
        """Features no one reads reported; plugins' contributions to the context added."""
        if ctx.features and not self.features.names.issuperset(ctx.features):
            self._unknown_features(ctx, report)
        _unsupported_features(ctx, plan, self.features.names, report)
        if self._context_hooks:
            ctx = self._contribute(ctx, plan.provider, report)
        return ctx

    def _wrap(self, route: Route, plan: Plan, laid: Assembled, tools: ToolSet,
              report: Reporter, counted: bool, budget: int | None) -> CompiledPrompt:
        kept = [section for section, _span in laid.placed]
        spans = [span for _section, span in laid.placed]
        tokens = None
        if counted or budget is not None:
            kept, tokens = self._count(kept, laid.text, spans, plan.provider, tools)
        return CompiledPrompt(text=laid.text, variant=plan.variant, provider=plan.provider,
                              sections=tuple(kept), spans=tuple(spans), tools=tools,
                              diagnostics=tuple(report.items), trace=route.resolution.trace,
                              placeholders=laid.layers, dropped=laid.dropped, tokens=tokens,
                              budget=budget, _counter=self.tokens)

    def _placement(self, route: Route, dynamic: str | None) -> tuple[Placement, tuple[str, str]]:
        """The placement a request gets, and the variant's note (see dynamic.py): the one
        asked for, else the project file's `placement`, else the library's default, which a
        variant without a note cannot take."""
        if dynamic is None:
            dynamic = self.project.placement
        if dynamic is not None and dynamic not in PLACEMENTS:
            raise ValueError(f"dynamic must be one of {', '.join(PLACEMENTS)}, got {dynamic!r}")
        variant = route.plan.variant
        note = self._notes.get(variant.id)
        if note is None:
            note = self._notes[variant.id] = note_text(variant, self.registry.components)
        if dynamic is None:
            return (DEFAULT_PLACEMENT if note[0] else "system"), note
        return ("message" if dynamic == "message" else "system"), note

    def _split_tokens(self, plan: Plan, note: str) -> int:
        """What the split sends besides the prompt's text: the note and the element's tags
        (a budget counts them, so that what is sent fits it)."""
        tags = f"<{MESSAGE_TAG}>\n\n</{MESSAGE_TAG}>"
        return self.tokens.count(note + "\n\n" + tags, encoding_for(plan.provider)[0])

    def _place(self, prompt: CompiledPrompt, placement: str, note: tuple[str, str]
               ) -> CompiledPrompt:
        """The split (see dynamic.py): "system" leaves the prompt as it is."""
        if placement == "system":
            return prompt
        return place_in_message(prompt, note[0], note[1], self.tokens, self.registry.components)

    def _count(self, sections: list[Section], text: str, spans: list[tuple[int, int]],
               provider: ProviderInfo, tools: ToolSet | None = None
               ) -> tuple[list[Section], TokenReport]:
        """Each section counted (memoized by text), the whole, summed over pieces cut where
        counts add up exactly, and the native tool JSON sent with it."""
        encoding, estimated = encoding_for(provider)
        count = self.tokens.count
        counted = [s if s.tokens is not None else
                   Section(s.id, s.text, s.cache, s.origin, s.priority, s.required,
                           count(s.text, encoding), s.form) for s in sections]
        total = self.tokens.total(text, [a for a, _b in spans], encoding)
        if tools is None or tools.mode != "native":
            return counted, TokenReport(total, encoding, estimated)
        fmt = wire_format(provider)
        return counted, TokenReport(total, encoding, estimated,
                                    self._tool_tokens(tools, provider), fmt)

    def _tool_tokens(self, tools: ToolSet, provider: ProviderInfo) -> int:
        """Tokens of the native tool definitions as this provider's API takes them (0 in text
        mode, where the tools are part of the prompt's text), in the model's encoding."""
        if tools.mode != "native" or not tools.names:
            return 0
        fmt = wire_format(provider)
        return self.tokens.count(tools.json_text(fmt), encoding_for(provider)[0])

    def _unknown_features(self, ctx: PromptContext, report: Reporter) -> None:
        """A context built in Python names a feature nothing reads: it switches nothing on,
        which lenient mode says (a warning) and strict mode refuses (ContextError)."""
        for name in self.features.unknown(ctx.features):
            report("warning", "feature-unknown", self.features.problem(name) +
                   "; it switches nothing on", f"features.{name}")

    def _contribute(self, ctx: PromptContext, provider: ProviderInfo, report: Reporter
                    ) -> PromptContext:
        """Plugins fill context fields the client left empty (plugin code sees the resolved
        provider, in `provider` and in `context.provider`)."""
        from .._base.record_builder import field_names
        allowed = set(field_names(PromptContext)) - {"provider"}
        client_provider = ctx.provider
        ctx = ctx.with_provider(provider)
        for name, hook in self._context_hooks:
            try:
                extra = hook(context=ctx, provider=provider)
                if not extra:
                    continue
                if not isinstance(extra, Mapping):
                    raise TypeError(f"returned {type(extra).__name__}, not a table")
                fill = {}
                for field, value in bounded_items(extra.items(), "promptc_contribute_context"):
                    if field not in allowed:
                        raise ContextError(f"unknown context field {field!r}")
                    if not getattr(ctx, field):
                        fill[field] = value
                if fill:
                    base = ctx.to_dict()
                    base.pop("provider", None)
                    base.update(fill)
                    ctx = PromptContext.from_dict(base, source=f"plugin:{name}").with_provider(
                        provider)
            except PLUGIN_FAILURES as exc:
                report("error", "plugin-hook",
                       f"plugin {name!r}: promptc_contribute_context raised "
                       f"{type(exc).__name__}: {exc}; its contribution is skipped",
                       f"plugin:{name}")
        return ctx.with_provider(client_provider)

    def _inspected(self, prompt: CompiledPrompt, report: Reporter) -> CompiledPrompt:
        """Plugins' findings on the finished prompt, added to its diagnostics."""
        if not self._inspect_hooks:
            return prompt
        before = len(report)
        for name, hook in self._inspect_hooks:
            try:
                result = hook(prompt=prompt) or ()
                notes = [result] if isinstance(result, str) else bounded_items(
                    result, "promptc_inspect_prompt")
            except PLUGIN_FAILURES as exc:  # a PromptcError from the plugin's own code too
                report("error", "plugin-hook",
                       f"plugin {name!r}: promptc_inspect_prompt raised "
                       f"{type(exc).__name__}: {exc}", f"plugin:{name}")
                continue
            for note in notes:
                report("warning", "plugin-finding", f"plugin {name!r}: {note}",
                       f"plugin:{name}")
        if len(report) == before:
            return prompt
        return attrs.evolve(prompt, diagnostics=tuple(report.items))

    # --- introspection -----------------------------------------------------------------------

    @property
    def variants(self) -> Mapping[str, Variant]:
        variants: Mapping[str, Variant] = self.registry.variants
        return variants


def _unsupported_features(ctx: PromptContext, plan: Plan, known: frozenset[str],
                          report: Reporter) -> None:
    """A known feature the context turns on but nothing of the chosen variant reads (compact
    offers no web fetch, for one): the client believes the model has it, so say it does not
    (info: the prompt is still right, it just leaves the feature out)."""
    features = ctx.features
    if not features or plan.features_read.issuperset(features):
        return  # the usual case, found in C
    key = (features, known)  # a client sends the same features with every request
    found = plan.unsupported.get(key)
    if found is None:
        wanted = {n for n in features if features[n]} & known
        found = plan.unsupported.put(key, tuple(Diagnostic(
            "info", "feature-unsupported",
            f"feature {name!r} is on, but variant {plan.variant.id!r} does not support it: "
            "no tool or section of it uses the feature, so the model is not told of it",
            f"features.{name}") for name in sorted(wanted - plan.features_read)))
    report.extend(found)
