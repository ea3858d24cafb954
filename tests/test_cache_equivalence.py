"""Caches are invisible (README, "Performance"), and one compiler serves many threads (README,
"Use it from Python": it is frozen after load and thread-safe).

A `Compiler` memoizes a lot per request (resolution, plans, component outputs, runtime values,
tool sets, whole results). None of that may ever show: a cache key is the complete,
*typed* input of what it caches (`""`, `" "` and absent differ; `True`, `1` and `1.0` differ), it
is owned by one compiler, and a shared compiler gives byte-identical results to a fresh one per
request, in any order, on any thread.

So the property test draws a sequence of requests and compiles it four ways:

    (a) one shared compiler, in the drawn order
    (b) a fresh compiler for every request: the reference, nothing cached
    (c) one shared compiler, in a shuffled order
    (d) one shared compiler, from four threads at once

and requires every request's result in (a), (c) and (d) to be identical to (b). Results are
compared through a plain-data fingerprint: text, sections, blocks, tools in every format, skills,
trace, diagnostics, variant, fingerprints and token report; the JSON-like parts by `repr`, so that
`True`, `1` and `1.0` count as different values, as the README says.

The request generator aims at what breaks cache keys: a later request is often a small edit of an
earlier one (a runtime value or feature flag swapped for a look-alike: `True`/`1`/`1.0`,
`""`/`" "`/`"\\n"`/absent; a skill re-described under the same name; a variant pin added or
dropped; token counting toggled), drawn from small pools so that equal-but-not-identical inputs
meet on one compiler.

The deterministic tests after it pin the bugs a reviewer reported, one concern per test, each as
"shared == fresh".

Only public names are used (`promptc` and `promptc.testing`): the internals are being restructured.

Speed: `Compiler.builtins()` reads and parses every built-in file (~20 ms, several compiles'
worth), so apart from test 6 (two real instances) and the guard test, the compilers here, fresh
ones included, are `new_compiler()`: a new `Compiler` over the registry of one
`Compiler.builtins()` that never compiles anything itself. Such a compiler has no request history,
since the registry is immutable after load and every cache belongs to one compiler; the guard test
`test_a_new_compiler_over_a_used_registry_is_fresh` checks exactly that against real
`Compiler.builtins()`, so a cache living in the registry would be reported there. Reference
results are remembered per complete typed request (see `fresh`).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from promptc import (CompiledPrompt, Compiler, PromptcError, PromptContext, ProviderInfo,
                     Registry)
from promptc.testing import make_context

from .conftest import variant_providers

# --- the inputs ----------------------------------------------------------------------------------

# One provider per built-in variant, by its id (the snapshot matrix's, tests/conftest.py), and
# the ones the tests below name.
PROVIDERS: dict[str, ProviderInfo] = {
    **variant_providers(),
    "gpt-4.1": ProviderInfo("openai", "gpt-4.1"),                     # generic, native tools
    "sonnet": ProviderInfo("anthropic", "claude-sonnet-4-5"),        # native-next-gen
    "ollama": ProviderInfo("ollama", "qwen2.5-coder:7b"),             # compact
}
VARIANT_IDS = tuple(variant_providers())

# Runtime names a template uses: a standard placeholder, component ids (a runtime value named
# like a component replaces that section), and one name nothing declares.
RUNTIME_NAMES = ("CWD", "rules", "objective", "system_info", "UNDECLARED_NAME")
# Values that are equal (or all falsy) under `==` but must not share a cache entry.
RUNTIME_VALUES: tuple[Any, ...] = ("", " ", "\n", "real text", True, 1, 1.0)
FEATURE_NAMES = ("browser", "web_fetch", "task_progress", "autonomous")
FEATURE_VALUES: tuple[Any, ...] = (True, False)  # features are booleans only
# Look-alikes: a value is retyped to another of its family (None: the name removed).
LOOKALIKES: tuple[tuple[Any, ...], ...] = (
    (True, 1, 1.0), (False, 0, 0.0, "", None), ("", " ", "\n", None), ("real text", "real text "))

CWDS = ("", "/home/dev/project", "/srv/other place", "C:\\work\\proj")
DATES = ("2026-01-01", "2027-07-07")

_TABS = {"name": "project", "origin": ".agents/rules.md", "text": "Use tabs."}
_SPACES = {"name": "project", "origin": ".agents/rules.md", "text": "Use four spaces."}
_SEPARATOR = {"name": "team", "origin": "~/.config/agents/team.md",
              "text": "Commit in the imperative mood.\n====\nNever push to main directly."}
_HEADERS = {"name": "headers", "origin": "AGENTS.md",
            "text": "# Style\nShort functions.\n\n# Tests\nAlways run pytest.\n\n====\n"}
_VERBATIM = {"name": "verbatim", "origin": "CLAUDE.md",
             "text": "Keep {{CWD}} and <tags> & \"quotes\" as they are."}
RULE_LISTS: tuple[list[dict[str, str]], ...] = (
    [], [_TABS], [_SPACES], [_SEPARATOR], [_HEADERS, _TABS], [_TABS, _SEPARATOR, _HEADERS],
    [_VERBATIM, _SPACES],
)

_PATH = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
# `read_file` and `write_to_file` collide with built-in tools; `query` and `read_file` also collide
# between servers.
_GITHUB = {"name": "github", "command": "gh-mcp --stdio",
           "tools": [{"name": "read_file", "description": "Read a file from a repository.",
                      "input_schema": _PATH},
                     {"name": "query", "description": "Search issues."}],
           "resources": [{"uri": "repo://readme", "name": "README"}]}
_POSTGRES = {"name": "postgres", "url": "http://localhost:8931/mcp",
             "tools": [{"name": "query", "description": "Run a read-only SQL query.",
                        "input_schema": {"type": "object",
                                         "properties": {"sql": {"type": "string"}}}}],
             "resource_templates": [{"uri_template": "db://{table}", "name": "Table"}]}
_FILES = {"name": "files", "command": "fs-mcp",
          "tools": [{"name": "read_file", "description": "Another server's read_file."},
                    {"name": "write_to_file", "description": "Write a file."}]}
MCP_LISTS: tuple[list[dict[str, Any]], ...] = (
    [], [_GITHUB], [_POSTGRES], [_GITHUB, _POSTGRES], [_GITHUB, _FILES])

# Skills with equal names but different descriptions/content between requests.
SKILL_NAMES = ("release", "db-migrations")
SKILL_DESCRIPTIONS = ("How we cut a release.", "Release steps, reworded.", "")
SKILL_CONTENTS = ("1. Bump.\n2. Tag.", "Other content.")


@dataclass(frozen=True)
class Request:
    """One compile call: a provider (by label), the context as plain data, an optional variant
    pin, and whether to count tokens. Plain data, so hypothesis prints it readably."""

    provider: str
    context: dict[str, Any] = field(default_factory=dict)
    variant: str | None = None
    count_tokens: bool = False
    label: str = ""  # a short name for the context in messages (see `full` below)

    def __repr__(self) -> str:
        ctx = self.label or repr(self.context)
        return (f"Request({self.provider!r}, {ctx}, variant={self.variant!r}, "
                f"count_tokens={self.count_tokens!r})")


def build_context(req: Request) -> PromptContext:
    """A new context object for every call, from a copy of the data (as a client builds one)."""
    return PromptContext.from_dict(copy.deepcopy(req.context))


def compile_request(compiler: Compiler, req: Request) -> CompiledPrompt:
    return compiler.compile(PROVIDERS[req.provider], build_context(req), strict=False,
                            count_tokens=req.count_tokens, variant=req.variant)


# --- compilers, fingerprints, comparison ---------------------------------------------------------

@functools.cache
def _builtin_registry() -> Registry:
    """The frozen registry of one `Compiler.builtins()` that is never compiled on."""
    return Compiler.builtins().registry


def new_compiler() -> Compiler:
    """A compiler with no request history, without re-reading the built-in files."""
    return Compiler(_builtin_registry())


# A fingerprint maps each observable part of a result to an immutable value: strings and tuples
# of strings/ints as they are, JSON-like parts (lists, dicts) as their `repr`.
Fingerprint = dict[str, Any]


def fingerprint(prompt: CompiledPrompt) -> Fingerprint:
    """Everything observable about a result, holding no reference to anything mutable in it."""
    tools = prompt.tools
    skills = getattr(tools, "skills", None)
    return {
        "text": prompt.text,
        "sections": tuple((s.id, s.text, s.cache, s.origin, s.tokens) for s in prompt.sections),
        "blocks": tuple((b.cache, b.text, tuple(b.sections)) for b in prompt.blocks),
        "tools.names": tuple(tools.names),
        "tools.mode": tools.mode,
        "tools.anthropic": repr(tools.anthropic()),
        "tools.openai": repr(tools.openai()),
        "tools.gemini": repr(tools.gemini()),
        "tools.skills": None if skills is None else
        tuple((sk.name, sk.description, sk.content, tuple(sk.references)) for sk in skills),
        "trace": repr([t.to_dict() for t in prompt.trace]),
        "diagnostics": repr([d.to_dict() for d in prompt.diagnostics]),
        "variant": prompt.variant.id,
        "fingerprints": repr(dict(prompt.fingerprints)),
        "tokens": None if prompt.tokens is None else repr(prompt.tokens.to_dict()),
    }


def run(compiler: Compiler, req: Request) -> Fingerprint:
    return fingerprint(compile_request(compiler, req))


_FRESH: dict[tuple[bool, str], Fingerprint] = {}


def fresh(req: Request, *, load: bool = False) -> Fingerprint:
    """The reference: `req` compiled on a compiler that has never seen a request, a
    `new_compiler()` (or, with `load=True`, a new `Compiler.builtins()`).

    Remembered per complete, typed request (`repr` tells `True`, `1` and `1.0` apart, and `""`
    from `" "`): a fresh build is a pure function of it (rule 6; a request without a date reads
    the same day everywhere within one run)."""
    key = (load, repr((req.provider, req.context, req.variant, req.count_tokens)))
    if key not in _FRESH:
        _FRESH[key] = run(Compiler.builtins() if load else new_compiler(), req)
    return _FRESH[key]


def differences(expected: Fingerprint, got: Fingerprint) -> list[str]:
    """The parts that differ, each with an excerpt around the first differing character."""
    out = []
    for key in sorted(expected.keys() | got.keys()):
        a, b = expected.get(key, "(missing)"), got.get(key, "(missing)")
        if a != b:
            a, b = (x if isinstance(x, str) else repr(x) for x in (a, b))
            at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            lo = max(0, at - 50)
            out.append(f"{key}: fresh …{a[lo:at + 70]!r}… / got …{b[lo:at + 70]!r}…")
    return out


def assert_same(expected: Fingerprint, got: Fingerprint, what: str) -> None:
    diff = differences(expected, got)
    assert not diff, f"{what} differs from a fresh compiler:\n  " + "\n  ".join(diff)


# --- strategies ----------------------------------------------------------------------------------

def _optional(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), strategy)


skill_lists = st.lists(
    st.fixed_dictionaries({"name": st.sampled_from(SKILL_NAMES),
                           "description": st.sampled_from(SKILL_DESCRIPTIONS),
                           "content": st.sampled_from(SKILL_CONTENTS)}),
    max_size=2, unique_by=lambda s: s["name"])
runtimes = st.dictionaries(st.sampled_from(RUNTIME_NAMES), st.sampled_from(RUNTIME_VALUES),
                           max_size=3)
feature_maps = st.dictionaries(st.sampled_from(FEATURE_NAMES), st.sampled_from(FEATURE_VALUES),
                               max_size=4)


@st.composite
def contexts(draw: st.DrawFn) -> dict[str, Any]:
    """Context data in README's shape; a field drawn as None is left out."""
    fields = {
        "cwd": draw(_optional(st.sampled_from(CWDS))),
        "os": draw(_optional(st.just("Linux 6.8"))),
        "shell": draw(_optional(st.just("/bin/bash"))),
        "mode": draw(_optional(st.sampled_from(("act", "plan")))),
        "date": draw(_optional(st.sampled_from(DATES))),
        "rules": draw(_optional(st.sampled_from(RULE_LISTS))),
        "mcp_servers": draw(_optional(st.sampled_from(MCP_LISTS))),
        "skills": draw(_optional(skill_lists)),
        "features": draw(_optional(feature_maps)),
        "runtime": draw(_optional(runtimes)),
    }
    return {k: v for k, v in fields.items() if v is not None}


@st.composite
def requests(draw: st.DrawFn) -> Request:
    return Request(provider=draw(st.sampled_from(sorted(PROVIDERS))),
                   context=draw(contexts()),
                   # mostly unpinned; sometimes pinned to any built-in variant
                   variant=draw(st.one_of(st.none(), st.none(), st.sampled_from(VARIANT_IDS))),
                   count_tokens=draw(st.booleans()))


def _with(data: dict[str, Any], key: str, name: str, value: Any) -> dict[str, Any]:
    """`data` with `data[key][name] = value` (value None: the name removed)."""
    inner = dict(data.get(key) or {})
    if value is None:
        inner.pop(name, None)
    else:
        inner[name] = value
    return {**data, key: inner}


def _lookalike(draw: st.DrawFn, value: Any) -> Any:
    """Another value of `value`'s look-alike family (equal or equally falsy, but not the same)."""
    for family in LOOKALIKES:
        if any(value is v or (type(value) is type(v) and value == v) for v in family):
            others = [v for v in family if not (type(value) is type(v) and value == v)]
            return draw(st.sampled_from(others))
    return draw(st.sampled_from(LOOKALIKES[0]))


@st.composite
def edit_of(draw: st.DrawFn, req: Request) -> Request:
    """`req` with one small change: the inputs a cache key most easily gets wrong."""
    ctx = req.context
    kind = draw(st.sampled_from(("retype", "retype", "runtime", "feature", "skills", "variant",
                                 "tokens", "provider", "date", "cwd", "mode")))
    if kind == "retype":  # one runtime value swapped for a look-alike (features: bool only)
        names = sorted(ctx.get("runtime") or {}) or list(RUNTIME_NAMES)
        name = draw(st.sampled_from(names))
        old = (ctx.get("runtime") or {}).get(name)
        return replace(req, context=_with(ctx, "runtime", name, _lookalike(draw, old)))
    if kind == "runtime":
        name = draw(st.sampled_from(RUNTIME_NAMES))
        return replace(req, context=_with(ctx, "runtime", name,
                                          draw(_optional(st.sampled_from(RUNTIME_VALUES)))))
    if kind == "feature":
        name = draw(st.sampled_from(FEATURE_NAMES))
        return replace(req, context=_with(ctx, "features", name,
                                          draw(_optional(st.sampled_from(FEATURE_VALUES)))))
    if kind == "skills":  # the same names, new descriptions/content
        names = [s["name"] for s in ctx.get("skills") or []] or [SKILL_NAMES[0]]
        skills = [{"name": n, "description": draw(st.sampled_from(SKILL_DESCRIPTIONS)),
                   "content": draw(st.sampled_from(SKILL_CONTENTS))} for n in names]
        return replace(req, context={**ctx, "skills": skills})
    if kind == "variant":
        return replace(req, variant=draw(_optional(st.sampled_from(VARIANT_IDS))))
    if kind == "tokens":
        return replace(req, count_tokens=not req.count_tokens)
    if kind == "provider":
        return replace(req, provider=draw(st.sampled_from(sorted(PROVIDERS))))
    if kind == "date":
        date = draw(_optional(st.sampled_from(DATES)))
        rest = {k: v for k, v in ctx.items() if k != "date"}
        return replace(req, context=rest if date is None else {**rest, "date": date})
    if kind == "cwd":
        return replace(req, context={**ctx, "cwd": draw(st.sampled_from(CWDS))})
    return replace(req, context={**ctx, "mode": draw(st.sampled_from(("act", "plan")))})


@st.composite
def request_sequences(draw: st.DrawFn) -> list[Request]:
    """2-3 requests (one alone cannot meet a cache); each later one is new (1 in 3) or an edit
    of an earlier one."""
    out = [draw(requests())]
    for _ in range(draw(st.integers(1, 2))):
        if draw(st.integers(0, 2)) == 0:
            out.append(draw(requests()))
        else:
            out.append(draw(edit_of(draw(st.sampled_from(out)))))
    return out


# --- the property --------------------------------------------------------------------------------

def compile_in_order(compiler: Compiler, reqs: Sequence[Request], order: Iterable[int]
                     ) -> dict[int, Fingerprint]:
    return {i: run(compiler, reqs[i]) for i in order}


def compile_threaded(compiler: Compiler, reqs: Sequence[Request], workers: int = 4
                     ) -> dict[int, Fingerprint]:
    """All requests at once, taken from a queue by `workers` threads."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return dict(enumerate(pool.map(lambda req: run(compiler, req), reqs)))


# Each example compiles several requests four ways: the deep pass (.ci/run) draws 400, not 2000.
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow],
          max_examples=min(400, settings.default.max_examples // 2))  # quick 6, deep 400
@given(reqs=request_sequences(), data=st.data())
def test_shared_compiler_equals_fresh_in_any_order_on_any_thread(
        reqs: list[Request], data: st.DataObject) -> None:
    for req in reqs:
        try:
            build_context(req)
        except PromptcError:
            assume(False)
    drawn = list(range(len(reqs)))
    shuffled = data.draw(st.permutations(drawn), label="shuffled order")
    expected = [fresh(req) for req in reqs]                                          # (b)
    ways = {"(a) shared, drawn order": compile_in_order(new_compiler(), reqs, drawn)}
    if shuffled != drawn:  # the same order would only repeat (a)
        ways[f"(c) shared, order {shuffled}"] = compile_in_order(new_compiler(), reqs, shuffled)
    ways["(d) shared, 4 threads"] = compile_threaded(new_compiler(), reqs)
    for way, results in ways.items():
        for i, req in enumerate(reqs):
            assert_same(expected[i], results[i], f"{way}: request #{i} {req!r}")


# --- regression tests for the reported bugs ------------------------------------------------------
# Each compiles on a compiler with no history of its own (`new_compiler()`, or two real
# `Compiler.builtins()` in test 6) and compares with a fresh compiler's result.

def full(provider: str = "gpt-4.1", variant: str | None = None, count_tokens: bool = False,
         **changes: Any) -> Request:
    """A request for the standard `full` context (date given), with context fields changed."""
    label = "full" + "".join(f", {k}={v!r}" for k, v in changes.items())
    return Request(provider, make_context("full", **changes).to_dict(), variant=variant,
                   count_tokens=count_tokens, label=label)


BOTH_WAYS = [(0, 1, 2), (2, 1, 0)]  # every pair of requests in both orders


def check_orders(reqs: Sequence[Request], orders: Iterable[Sequence[int]]) -> None:
    """For each order, compile `reqs` in that order on one new compiler; every result must equal
    the request's result on a fresh compiler."""
    expected = [fresh(req) for req in reqs]
    for order in orders:
        shared = new_compiler()
        for i in order:
            assert_same(expected[i], run(shared, reqs[i]),
                        f"order {list(order)}: request #{i} {reqs[i]!r}")


def test_a_new_compiler_over_a_used_registry_is_fresh() -> None:
    """Guard for this file: a fresh `Compiler.builtins()` is deterministic, and a new `Compiler`
    over a registry that other compilers have used gives the same results (what the property
    test relies on); so any difference reported in this file comes from a cache."""
    reqs = [full(runtime={"CWD": 1.0}), full(runtime={"objective": ""}),
            full("sonnet", count_tokens=True, skills=[{"name": "release"}]),
            full("sonnet", variant="generic"),
            Request("gemini-3", {"runtime": {"objective": " "}}),  # no date: today's
            Request("ollama", {"features": {"browser": True}, "mcp_servers": MCP_LISTS[-1]})]
    used = Compiler.builtins()
    for req in reqs:
        run(used, req)
        run(new_compiler(), req)  # on the registry the property test shares
    for req in reqs:
        expected = run(Compiler.builtins(), req)
        assert differences(expected, run(Compiler.builtins(), req)) == []
        assert differences(expected, run(Compiler(used.registry), req)) == []
        assert differences(expected, run(new_compiler(), req)) == []


@pytest.mark.parametrize("runtime", [{"objective": ""}, {"rules": ""}, {"objective": " "},
                                     {"system_info": "\n"}, {"rules": "real text"}],
                         ids=lambda r: ",".join(f"{k}={v!r}" for k, v in r.items()))
@pytest.mark.parametrize("provider", ["gpt-4.1", "sonnet"])
def test_runtime_section_override_does_not_leak(runtime: dict[str, Any], provider: str) -> None:
    """(1) A runtime value that replaces a section must not change the render of a request
    without it, nor the other way round."""
    check_orders([full(provider, runtime=runtime), full(provider)], [(0, 1), (1, 0)])


@pytest.mark.parametrize("name", ["CWD", "objective", "rules", "UNDECLARED_NAME"])
def test_runtime_true_one_and_one_point_zero_render_as_fresh(name: str) -> None:
    """(2) `True`, `1` and `1.0` are equal in Python but render differently: separate entries."""
    check_orders([full(runtime={name: value}) for value in (True, 1, 1.0)], BOTH_WAYS)


@pytest.mark.parametrize("name", ["browser", "web_fetch", "task_progress"])
def test_feature_on_off_and_absent_render_as_fresh(name: str) -> None:
    """(3) A feature flag on, off and absent (features are booleans only: `1` is refused)."""
    check_orders([full(features={name: True}), full(features={name: False}), full()],
                 BOTH_WAYS)


def _skills(description: str, content: str) -> list[dict[str, str]]:
    return [{"name": "release", "description": f"Release: {description}", "content": content},
            {"name": "deploy", "description": f"Deploy: {description}", "content": content}]


@pytest.mark.parametrize("new", [("new wording", "new"), ("old wording", "new")],
                         ids=["description-and-content", "content-only"])
@pytest.mark.parametrize("provider", ["gpt-4.1", "sonnet", "gpt-5"])
def test_toolset_skills_belong_to_their_own_session(provider: str, new: tuple[str, str]) -> None:
    """(4) Same skill names, new descriptions (or only new content): the second session's
    `prompt.tools.skills` are the second session's records."""
    first = full(provider, skills=_skills("old wording", "old"))
    second = full(provider, skills=_skills(*new))
    compiler = new_compiler()
    run(compiler, first)
    prompt = compile_request(compiler, second)
    assert [(s.name, s.description, s.content) for s in prompt.tools.skills] == \
        [(s["name"], s["description"], s["content"]) for s in _skills(*new)]
    assert_same(fresh(second), fingerprint(prompt), "second session")


@pytest.mark.parametrize(("provider", "pinned"), [
    ("sonnet", "generic"),            # the reported case
    ("gpt-4.1", "generic"),           # pinned to the variant resolution picks anyway
    ("sonnet", "native-next-gen"),
    ("ollama", "compact"),
])
def test_pinned_call_does_not_erase_the_trace_of_an_unpinned_one(provider: str,
                                                                 pinned: str) -> None:
    """(5) `compile(..., variant=pinned)` then `compile(...)`: the second keeps its full
    resolution trace (and the reverse order is right too)."""
    reqs = [full(provider, variant=pinned), full(provider)]
    compiler = new_compiler()
    run(compiler, reqs[0])
    assert run(compiler, reqs[1])["trace"] != "[]", "the unpinned call lost its trace"
    check_orders(reqs, [(0, 1), (1, 0)])


@pytest.mark.parametrize(("first", "second"), [
    (full(runtime={"CWD": True}), full(runtime={"CWD": 1})),
    (full(runtime={"objective": ""}), full()),
    (full(features={"browser": True}), full(features={"browser": False})),
    (full(skills=_skills("old", "old")), full(skills=_skills("new", "new"))),
    (full("gpt-4.1", variant="generic"), full("gpt-4.1")),
], ids=["runtime-typed", "runtime-section", "feature-on-off", "skills", "pinned"])
def test_two_compilers_do_not_share_results(first: Request, second: Request) -> None:
    """(6) Caches are owned by one compiler: B after A equals a fresh compiler."""
    a, b = Compiler.builtins(), Compiler.builtins()
    run(a, first)
    assert_same(fresh(second, load=True), run(b, second), "compiler B after compiler A")


@pytest.mark.parametrize("provider", ["sonnet", "gpt-5", "gemini-3", "gpt-4.1", "ollama"])
def test_renamed_servers_render_as_fresh_from_plain_data(provider: str) -> None:
    """(5) A new session often brings the same MCP servers under new names: the shared
    compiler keeps what the servers offer and fills in each session's names (the MCP section,
    the function names, the native entries). Names that are blank, need escaping, clash with a
    built-in tool or with each other must come out as on a fresh compiler. Plain data (as a
    client sends it), each session three times, so contexts, parts and sections come back."""
    names = [("github", "postgres"), ("", " "), ('gi"t<h>ub', "post\ngres"),
             ("read_file", "read_file"), ("github", "postgres")]
    shared = new_compiler()

    def data(first: str, second: str) -> dict[str, Any]:
        return {"cwd": "/w", "date": DATES[0],
                "mcp_servers": [{**copy.deepcopy(_GITHUB), "name": first},
                                {**copy.deepcopy(_POSTGRES), "name": second}]}
    for pair in names:
        expected = fingerprint(new_compiler().compile(PROVIDERS[provider], data(*pair)))
        for _ in range(3):
            got = fingerprint(shared.compile(PROVIDERS[provider], data(*pair)))
            assert differences(expected, got) == [], pair
