"""Lint: what can be known about the registered prompts before any request.

Finds placeholders no layer can supply (with file:line and did-you-mean), components used in a
template but not in the order (and the reverse), unregistered components, shadowed or duplicate
matchers, sections placed out of cache order, tools offered only in some modes, prose that
disagrees with the tools it is sent with (see consistency.py), variants without the note the
split placement needs (their prompts go as one string), and whatever loading noticed (ignored
files, plugin conflicts, plugin failures).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from .._base.errors import PLUGIN_FAILURES, InputError
from .._compile.compiler import Compiler
from .._compile.dynamic import NOTE, note_text
from .._compile.plan import Plan
from .._model.cache import RANK, most_volatile
from .._model.component import Component
from .._model.context import FIELD_CLASSES, PromptContext
from .._model.diagnostics import Diagnostic
from .._model.inputs import stand_in_values
from .._model.placeholders import STANDARD
from .._model.provider import ProviderInfo, model_data, model_table, resolve_provider
from .._model.variant import Variant
from .consistency import variant_matrix

__all__ = ["lint"]


def lint(compiler: Compiler) -> list[Diagnostic]:
    """Every finding. With a project file, the project is judged on its own sources: the
    variants of other sources (built-ins, plugins) that the project does not change are not
    linted (one info line says how many), while what loading found and every conflict between
    sources over which variant a model gets still count."""
    reg = compiler.registry
    judged = [v for v in reg.variants.values() if _judged(compiler, v)]
    out: list[Diagnostic] = list(compiler.load_diagnostics) + list(reg.findings)
    full = _full_context()
    for variant in judged:
        out.extend(_variant_findings(compiler, variant))
        out.extend(_consistency_findings(compiler, variant, full))
        out.extend(_note_findings(compiler, variant))
    out.extend(_matcher_findings(compiler))
    out.extend(_family_findings(compiler, judged))
    out.extend(_tool_findings(compiler, judged))
    if len(judged) < len(reg.variants):
        others = sorted({v.source for v in reg.variants.values() if v not in judged})
        out.append(Diagnostic(
            "info", "other-sources",
            f"{len(reg.variants) - len(judged)} variant(s) of {', '.join(others)} that the "
            "project does not change are not linted here (`promptc lint --no-project` lints "
            "them)", compiler.project.file))
    seen: set[tuple[str, str, str]] = set()
    unique = []
    for d in out:
        key = (d.code, d.message, d.source)
        if key not in seen:
            seen.add(key)
            unique.append(d)
    return unique


# The sources of a project's own prompts (a folder given to `from_folders` counts as one).
_OWN = ("user", "project", "folder:")


def _own(source: str) -> bool:
    return source.startswith(_OWN)


def _judged(compiler: Compiler, v: Variant) -> bool:
    """Without a project file, every variant; with one, those the project's own sources
    define or change: the variant itself, a variant it extends, its template, a section or
    a tool it uses, or an edit of it."""
    if not compiler.project.file or _own(v.source):
        return True
    reg = compiler.registry
    return any(_own(src) for _vid, src, _path in v.lineage) or \
        any(_own(str(origin).split(":", 1)[0]) for origin in v.origins.values()) or \
        any(cid in reg.components and _own(reg.components[cid].source)
            for cid in v.components) or \
        any(_own(getattr(spec, "source", "")) for spec in v.tool_specs) or \
        any(_own(e.origin.split(":", 1)[0]) for edits in v.edits.values() for e in edits)


def _full_context() -> PromptContext:
    """The snapshot matrix's full context: several rules files, MCP servers, skills."""
    from pathlib import Path
    return PromptContext.load(Path(__file__).parent.parent / "_data" / "snapshot" / "contexts" /
                              "full.json")


def _consistency_findings(compiler: Compiler, variant: Variant,
                          full: PromptContext) -> list[Diagnostic]:
    """Every situation the variant can render in (plan and act, every two feature flags in
    all four combinations, native and text tools): the prompt may name only tools it offers, must say which offered
    tools the mode rules out, and text examples show one call each."""
    provider = ProviderInfo("lint", "lint", images=True, parallel_tools=True)
    if variant.inputs:  # the inputs' examples (or plain stand-ins for required ones)
        full = attrs.evolve(full, runtime={**full.runtime, **stand_in_values(variant.inputs)})
    try:
        return variant_matrix(compiler, variant.id, provider, full, every=False)
    except InputError as exc:
        return [Diagnostic("info", "input-example-missing",
                           f"variant {variant.id!r} was not rendered to check its prose: "
                           f"{exc.message}; give the input an `example` lint can use",
                           variant.id)]
    except PLUGIN_FAILURES as exc:  # reported, not raised
        return [Diagnostic("error", "render-failed", f"variant {variant.id!r}: {exc}",
                           variant.id)]


def _note_findings(compiler: Compiler, variant: Variant) -> list[Diagnostic]:
    """A variant without an `environment_note` cannot take the split placement by default:
    its prompts go as one string, so a mode switch or a new day rewrites the cached
    conversation (info: the prompt is right, it just costs more). A project whose file says
    `placement = "system"` chose the single string: nothing to say."""
    if compiler.project.placement == "system" or \
            note_text(variant, compiler.registry.components)[0]:
        return []
    return [Diagnostic(
        "info", "placement-without-note",
        f"variant {variant.id!r} has no {NOTE!r} component (components/{NOTE}.md, or one in "
        f"the variant's folder): its prompts are sent as one string, so anything that changes "
        f"during a session (the mode, the date, a rules file) rewrites the cached conversation; "
        f"write the note (where the model finds its environment details and updates) to send "
        f"the session's details as messages of their own", variant.id)]


def _family_findings(compiler: Compiler, judged: Sequence[Variant] | None = None
                     ) -> list[Diagnostic]:
    """A variant that matches a model family nobody defines never matches through it."""
    from .._base.suggest import did_you_mean
    rules = (*compiler.registry.families, *model_data().overlay.families)
    known = {name for r in rules for name in (r.id, *r.aliases)}
    out = []
    for variant in compiler.registry.variants.values() if judged is None else judged:
        vid = variant.id
        for name in sorted(variant.matcher.families - known):
            out.append(Diagnostic(
                "warning", "family-unknown",
                f"variant {vid!r} matches model family {name!r}, which neither the built-in "
                f"model data nor any models.toml defines, so no model reaches it that way"
                f"{did_you_mean(name, sorted(known))}; define it in a models.toml [[family]] "
                "row of the variant's folder (promptc help folders)", variant.path or vid))
    return out


def _tool_findings(compiler: Compiler, judged: Sequence[Variant]) -> list[Diagnostic]:
    """A tool whose presence depends on the mode changes the tool list on every mode switch,
    and with it the prefix providers cache (tools come first): it should declare `modes`.
    (Every tool, or with a project file the tools of the variants it is judged on.)"""
    out = []
    used = {name for v in judged for name in v.tools} if compiler.project.file else None
    for name, spec in compiler.registry.tools.items():
        if used is not None and name not in used:
            continue
        if "mode" in spec.when.reads:
            out.append(Diagnostic(
                "warning", "tool-mode-condition",
                f"tool {name!r} is offered only in some modes (`when` reads the mode): every "
                "plan/act switch then changes the tool list, and providers cache tools first, "
                "so the whole conversation misses the cache. Offer it in both modes and declare "
                "where the model may call it: modes = [\"act\"] (the prompt's mode section "
                "says so, and a client refuses other calls with prompt.tools.allowed_in(mode))",
                spec.origin or name))
    return out


def _variant_findings(compiler: Compiler, variant: Variant) -> list[Diagnostic]:
    """What building the variant's plan finds (the same diagnostics a strict render raises on:
    unknown placeholders in the base and component templates, components missing from the order
    or the template), plus the cache order of its sections."""
    # cache order: static → session → request (as built for a typical provider)
    try:
        plan = compiler.plan(ProviderInfo("lint", "lint"), variant.id)
    except PLUGIN_FAILURES as exc:  # reported, not raised
        return [Diagnostic("error", "plan-failed", f"variant {variant.id!r}: {exc}",
                           variant.id)]
    positions = {name: i for i, (name, _kind, _index) in enumerate(plan.base.slots)}
    return [*plan.diagnostics, *plan.unchecked, *_volatile_placeholders_before_static(variant, plan, positions),
            *_cache_order_findings(compiler, variant, plan, positions)]


def _cache_order_findings(compiler: Compiler, variant: Variant, plan: Plan,
                          positions: dict[str, int]) -> list[Diagnostic]:
    """Sections in template order: each no less volatile than the one before, and each
    component's declared cache class no more stable than what it reads."""
    out: list[Diagnostic] = []
    highest = "static"
    for step in sorted(plan.steps, key=lambda s: positions.get(s.cid, 1 << 30)):
        if RANK[step.cache] < RANK[highest]:
            out.append(Diagnostic("warning", "cache-order",
                                  f"variant {variant.id!r}: {step.cache} section {step.cid!r} "
                                  f"comes after a {highest} one, so it is cached as {highest}; "
                                  "order static → session → request", variant.id))
        elif RANK[step.cache] > RANK[highest]:
            highest = step.cache
        out.extend(_cache_class_findings(compiler.registry.components.get(step.cid), step.cid))
    return out


def _cache_class_findings(comp: Component | None, cid: str) -> list[Diagnostic]:
    """A component that declares a cache class more stable than the values it reads."""
    if comp is None or comp.cache is None or comp.reads is None:
        return []
    derived = most_volatile(*(FIELD_CLASSES.get(r.split(".")[0], "request") for r in comp.reads))
    if RANK[comp.cache] >= RANK[derived]:
        return []
    return [Diagnostic("warning", "cache-class",
                       f"component {cid!r} declares cache {comp.cache!r} but reads "
                       f"{derived}-class values ({', '.join(sorted(comp.reads))})", cid)]


def _volatile_placeholders_before_static(variant: Variant, plan: Plan,
                                         positions: dict[str, int]) -> list[Diagnostic]:
    """A session or request value placed in the base template ahead of a static section breaks
    the cacheable prefix for every request."""
    steps = plan.steps
    static_at = [positions[s.cid] for s in steps if s.cache == "static" and s.cid in positions]
    if not static_at:
        return []
    last_static = max(static_at)
    out = []
    inputs = {i.name for i in variant.inputs}
    for name, pos in positions.items():
        cls = _value_class(name, inputs) if pos < last_static else None
        if cls is None:
            continue
        line = variant.template.name_lines.get(name, 0)
        out.append(Diagnostic("warning", "cache-order",
                              f"{variant.template.source}:{line}: {{{{{name}}}}} is a {cls} "
                              "value placed before static sections: the cacheable prefix "
                              "changes with it; move it after the static sections", variant.id))
    return out


def _value_class(name: str, inputs: set[str]) -> str | None:
    """The cache class of a placeholder's value: a standard one's field, a declared input's
    request (None: neither, e.g. a section)."""
    if name in STANDARD and STANDARD[name][0]:
        return FIELD_CLASSES.get(STANDARD[name][0], "request")
    if name in inputs:
        return "request"
    return None


def _probe_models(variant: Variant) -> list[str]:
    models = variant.matcher.models
    if not models:  # capability-only matchers: probe with every model family promptc knows
        models = tuple(p for p, _fam in model_table()["families"]) + (("unknown", "model"),)
    return ["-".join(p).replace("*", "x") for p in models]


Resolve = Callable[[ProviderInfo], ProviderInfo]


def _probes(variant: Variant, resolve: Resolve) -> list[ProviderInfo]:
    """Requests the variant is written for, with the capabilities a client may state, each
    resolved by `resolve`."""
    providers = sorted(variant.matcher.providers or {"probe", "ollama"})
    out = []
    for model in _probe_models(variant):
        for provider in providers:
            for native in (None, True, False):
                for window in (None, 8192):
                    out.append(resolve(ProviderInfo(provider, model, native_tools=native,
                                                    context_window=window)))
    return out


def _matcher_findings(compiler: Compiler) -> list[Diagnostic]:
    """A variant is shadowed when every model it is written for is taken by an earlier one."""
    out: list[Diagnostic] = []
    reg = compiler.registry
    by_description: dict[str, str] = {}
    resolved: dict[ProviderInfo, ProviderInfo] = {}  # variants probe the same requests

    def resolve(info: ProviderInfo) -> ProviderInfo:
        if info not in resolved:
            resolved[info] = resolve_provider(info, reg.families, reg.user_models)
        return resolved[info]

    by_design: list[Variant] = []
    for i, v in enumerate(reg.order):
        desc = v.matcher.description
        if desc in by_description and not _overrides(reg.variants[by_description[desc]], v):
            out.append(Diagnostic("warning", "matcher-duplicate",
                                  f"variant {v.id!r} has the same matcher as "
                                  f"{by_description[desc]!r} ({desc}); only the first can match",
                                  v.path))
        by_description.setdefault(desc, v.id)
        finding, shadowers = _shadowing(v, reg.order[:i], resolve)
        if finding is None:
            continue
        if all(_overrides(reg.variants[s], v) for s in shadowers):
            by_design.append(v)
        else:
            out.append(finding)
    return out + _shadowed_by_design(by_design)


# Sources by precedence (a later one overrides an earlier one); a folder given to
# `from_folders` ranks with the project.
_RANK = {"builtin": 0, "plugin": 1, "user": 2}


def _rank(source: str) -> int:
    return _RANK.get(source.split(":", 1)[0], 3)


def _overrides(winner: Variant, loser: Variant) -> bool:
    """The winner is the user's or the project's, over a variant of a lower source: that is
    what a project's own variants are for."""
    return _rank(winner.source) >= _RANK["user"] and _rank(winner.source) > _rank(loser.source)


def _shadowed_by_design(variants: Sequence[Variant]) -> list[Diagnostic]:
    """The variants of lower sources the project's (or user's) own take every model of: one
    line of information, never a failure."""
    if not variants:
        return []
    by_source: dict[str, list[str]] = {}
    for v in variants:
        by_source.setdefault(v.source, []).append(v.id)
    named = "; ".join(f"{src}: {', '.join(ids)}" for src, ids in sorted(by_source.items()))
    return [Diagnostic("info", "sources-shadowed",
                       f"the project's own variants take every model of {len(variants)} "
                       f"variant(s) of other sources ({named}), which are never chosen by "
                       "matching; that is what overriding them means", "project")]


def _shadowing(v: Variant, earlier: Sequence[Variant], resolve: Resolve
               ) -> tuple[Diagnostic | None, list[str]]:
    """Whether the variants tried before `v` leave it any model (probed) to match: the
    finding, and the variants that take its models."""
    first = next((e for e in earlier if e.matcher.unconditional), None)
    if first is not None:
        return Diagnostic("warning", "matcher-shadowed",
                          f"variant {v.id!r} can never match: {first.id!r} (earlier) "
                          "matches every model", v.path), [first.id]
    taken_by = _taken_by(v, earlier, _probes(v, resolve))
    if not taken_by:
        return None, []
    return Diagnostic("warning", "matcher-shadowed",
                      f"variant {v.id!r} is shadowed: every model it names is "
                      f"matched first by {sorted(taken_by)}", v.path), sorted(taken_by)


def _taken_by(v: Variant, earlier: Sequence[Variant],
              probes: Sequence[ProviderInfo]) -> set[str]:
    """The earlier variants that take each probe `v` matches; empty when some probe would
    reach `v`, or `v` matches none."""
    taken_by: set[str] = set()
    for info in probes:
        if not _matches(v, info):
            continue
        winner = _first_match(earlier, info)
        if winner is None:
            return set()
        taken_by.add(winner)
    return taken_by


def _matches(v: Variant, info: ProviderInfo) -> bool:
    try:
        ok, _ = v.matcher(info)
    except PLUGIN_FAILURES:  # matcher faults are reported elsewhere
        return False
    return bool(ok)


def _first_match(variants: Sequence[Variant], info: ProviderInfo) -> str | None:
    """The id of the first variant whose matcher takes `info` (a raising one is passed over)."""
    for e in variants:
        try:
            if e.matcher(info)[0]:
                return e.id
        except PLUGIN_FAILURES:
            continue
    return None
