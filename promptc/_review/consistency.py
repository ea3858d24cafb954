"""Consistency: does a rendered prompt agree with the tools it is sent with?

A prompt that teaches a tool the request does not offer makes the model call something that
does not exist; a prompt that offers a tool the current mode forbids, without saying so, makes
it call something the client will refuse, and so does one that tells the model to call such a
tool (to finish, to hand over, to record progress) without saying for which mode; a text
catalogue that lists a tool without an example call leaves its format to guessing; a prompt
that points at a section, or at a tool's example, that this render lacks sends the model
looking for text that is not there; native tools without a function-calling section (or text
tools without the call format) leave the model to guess how to call. All are found here, in
the pack's own words only (fenced outside text, such as a rules file that mentions a tool,
does not count), for one render (`inconsistencies`) or for every built-in situation of a
variant (`variant_matrix`: plan and act, the feature flags, native and text tools).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable, Iterator

import attrs

from .._compile.compiler import Compiler
from .._compile.compiled import CompiledPrompt
from .._model.context import PromptContext
from .._model.diagnostics import Diagnostic
from .._model.provider import ProviderInfo
from .._text.fence import mask
from .references import CATALOGUES, dangling_references, matches_in, pack_headings

__all__ = ["inconsistencies", "variant_matrix", "FEATURE_FLAGS", "pack_headings"]

#: The feature flags the built-in prose depends on; each is checked on and off.
FEATURE_FLAGS = ("browser", "web_fetch", "task_progress", "autonomous")

_FENCE = re.compile(r"^(```|~~~)", re.MULTILINE)


def inconsistencies(prompt: CompiledPrompt, tool_names: Iterable[str],
                    where: str = "", headings: frozenset[str] = frozenset(),
                    examples: ExampleCalls | None = None) -> list[Diagnostic]:
    """What `prompt` says that its own tool list or layout contradicts. `tool_names`: every
    tool name the prompt could mention (the registry's tools), so that a name it mentions but
    does not offer is caught; `headings`: every section title the pack's templates write
    (`pack_headings`), so that a reference to one this render lacks is caught; `examples`:
    the example calls already read, shared by renders that repeat a catalogue."""
    label = f"{prompt.variant.id}{' ' + where if where else ''}"
    by_section = [(s.id, mask(s.text)) for s in prompt.sections]
    out = _missing_tools(prompt, tool_names, label, by_section)
    out += _mode_unsaid(prompt, label, by_section)
    out += _forbidden_advised(prompt, label, by_section)
    if prompt.tools.mode == "text":
        examples = examples if examples is not None else ExampleCalls()
        out.extend(_examples_with_several_calls(prompt, label, by_section, examples))
        out.extend(_examples_missing(prompt, label, by_section, examples))
    out += dangling_references(prompt, label, by_section, headings)
    return out


def _missing_tools(prompt: CompiledPrompt, tool_names: Iterable[str], label: str,
                   by_section: list[tuple[str, str]]) -> list[Diagnostic]:
    """A tool the prompt's own words name but the render does not offer."""
    offered = set(prompt.tools.names)
    out: list[Diagnostic] = []
    missing = sorted(set(tool_names) - offered, key=lambda n: (-len(n), n))
    if missing:  # one pass per section over every name the render does not offer
        pattern = _names_pattern(tuple(missing))
        found: dict[tuple[str, str], int] = {}
        for sid, text in by_section:
            for name, start in matches_in(pattern, text):
                found.setdefault((name, sid), text.count("\n", 0, start) + 1)
        for (name, sid), line in sorted(found.items()):
            out.append(Diagnostic(
                "error", "names-missing-tool",
                f"{label}: section {sid!r} (line {line}) names tool {name!r}, which this "
                "render does not offer", sid))
    return out


def _mode_unsaid(prompt: CompiledPrompt, label: str,
                 by_section: list[tuple[str, str]]) -> list[Diagnostic]:
    """An offered tool the current mode rules out, which the mode section does not name."""
    out: list[Diagnostic] = []
    offered = set(prompt.tools.names)
    context = prompt.tools.context
    mode = context.mode if context is not None else "act"
    if mode in ("plan", "act"):
        refused = offered - prompt.tools.allowed_in(mode)
        mode_text = "\n".join(text for sid, text in by_section if sid == "act_vs_plan_mode")
        if not mode_text:
            # A variant with no mode section says nothing about modes; what MCP tools plan mode
            # allows comes from the servers at run time, so only its own tools are held to it.
            refused = {n for n in refused if prompt.tools.mcp_target(n) is None}
        for name in sorted(refused):
            if not re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", mode_text):
                out.append(Diagnostic(
                    "error", "mode-unsaid",
                    f"{label}: tool {name!r} is offered but not allowed in {mode} mode, and the "
                    "mode section does not say so", "act_vs_plan_mode"))
    return out


# Sections that document how tools work rather than what to do next: the catalogue, the
# editing section and the mode section itself. They are the same in both modes (so a mode switch
# keeps the cached prefix), and the mode section says which tools may be called now.
_TOOL_DOCS = frozenset(("tools", "session_tools", "editing_files", "act_vs_plan_mode"))
# One sentence of prose: up to a full stop, question or exclamation mark before a space, or the
# end of a line.
_SENTENCE = re.compile(r"[^\n]+?(?:[.!?](?=\s)|$)", re.MULTILINE)
_MODE_WORD = re.compile(r"\bmodes?\b", re.IGNORECASE)


def _forbidden_advised(prompt: CompiledPrompt, label: str,
                       by_section: list[tuple[str, str]]) -> list[Diagnostic]:
    """A sentence telling the model to call a tool the current mode forbids ("call X", "use
    X", "with X", "via X", "before X"), without saying for which mode it holds: the model is
    told to do what the client will refuse. The sections that document tools are exempt."""
    context = prompt.tools.context
    mode = context.mode if context is not None else "act"
    if mode not in ("plan", "act"):
        return []
    refused = tuple(sorted(set(prompt.tools.names) - prompt.tools.allowed_in(mode),
                           key=lambda n: (-len(n), n)))
    if not refused:
        return []
    advice = _advice_pattern(refused)
    out: list[Diagnostic] = []
    for sid, text in by_section:
        if sid in _TOOL_DOCS:
            continue
        for sentence in _SENTENCE.finditer(text):
            said = sentence.group(0)
            hit = advice.search(said)
            if hit is None or _MODE_WORD.search(said):
                continue
            out.append(Diagnostic(
                "error", "advises-forbidden-tool",
                f"{label}: section {sid!r} (line {text.count(chr(10), 0, sentence.start()) + 1})"
                f" tells the model to use {hit.group('tool')!r}, which {mode} mode does not "
                f"allow, without saying which mode the advice is for: {said.strip()!r}", sid))
    return out


@functools.lru_cache(maxsize=256)
def _advice_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"\b(?:call|use|with|via|before)\s+(?:the\s+)?(?P<tool>" +
                      "|".join(map(re.escape, names)) + r")(?![\w-])", re.IGNORECASE)


class ExampleCalls:
    """The calls read in example text, by the tools that read them and the text. The
    situations of one variant repeat most of their catalogue, and reading its examples is
    most of what checking a render costs; a reading depends on the offered tools (`ToolSet`
    equality: the specs, MCP bindings, skills, tool mode), the mode and the MCP servers."""

    def __init__(self) -> None:
        self._readers: dict[object, int] = {}
        self._calls: dict[tuple[int, str], tuple[str, ...]] = {}
        self._last: tuple[CompiledPrompt | None, int] = (None, 0)

    def names(self, prompt: CompiledPrompt, text: str) -> tuple[str, ...]:
        """The name of each call (or refused call) in `text`, in order."""
        tools = prompt.tools
        key = (self._reader(prompt), text)
        names = self._calls.get(key)
        if names is None:
            names = tuple(p.name for p in tools.parse(text).parts if not isinstance(p, str))
            self._calls[key] = names
        return names

    def _reader(self, prompt: CompiledPrompt) -> int:
        """Which reading `prompt`'s tools make (hashing a tool set costs: once per render)."""
        last, reader = self._last
        if last is not prompt:
            context = prompt.tools.context
            key = (prompt.tools, context.mode, context.mcp_servers) if context is not None \
                else prompt.tools
            reader = self._readers.setdefault(key, len(self._readers))
            self._last = (prompt, reader)
        return reader


def _examples_missing(prompt: CompiledPrompt, label: str, sections: list[tuple[str, str]],
                      examples: ExampleCalls) -> list[Diagnostic]:
    """Text tools: every offered tool has an example call in the catalogue (fenced or written
    bare), so the model sees the format of each one. A render without a catalogue is left to
    the calling-section check."""
    catalogue = [text for sid, text in sections if sid in CATALOGUES]
    if not catalogue:
        return []
    shown: set[str] = set()
    for text in catalogue:
        parts = _FENCE.split(text)  # [outside, ```, inside, ```, outside, …]
        for i, part in enumerate(parts):
            if i % 4 in (0, 2):
                shown.update(examples.names(prompt, part))
    return [Diagnostic("error", "example-missing",
                       f"{label}: tool {name!r} is offered, but the tool catalogue shows no "
                       "example call of it", "tools")
            for name in (s.name for s in prompt.tools.specs) if name not in shown]


@functools.lru_cache(maxsize=256)
def _names_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, names)) + r")(?![\w-])")


def _examples_with_several_calls(prompt: CompiledPrompt, label: str,
                                 sections: list[tuple[str, str]],
                                 examples: ExampleCalls) -> list[Diagnostic]:
    """Text tools are called one per message: an example showing two calls in one block
    teaches the opposite."""
    out = []
    for sid, text in sections:
        parts = _FENCE.split(text)
        # split keeps the fence markers: [before, ```, inside, ```, after, …]
        for i in range(2, len(parts), 4):
            calls = examples.names(prompt, parts[i])  # the second call is an error: count both
            if len(calls) > 1:
                out.append(Diagnostic(
                    "error", "example-several-calls",
                    f"{label}: an example in section {sid!r} shows {len(calls)} tool calls in "
                    "one message, but text tools are called one per message", sid))
    return out


def _flag_sets(every: bool) -> Iterator[tuple[bool, ...]]:
    """Every combination of the feature flags, or (`every=False`, as lint does) all off, all
    on, and each flag alone off: every two flags are seen in all four combinations of theirs
    (a problem that takes two flags to show is found), in n + 2 renders instead of 2^n."""
    n = len(FEATURE_FLAGS)
    if every:
        yield from itertools.product((False, True), repeat=n)
        return
    yield (False,) * n
    yield (True,) * n
    for i in range(n):
        yield tuple(j != i for j in range(n))


def _situations(base: PromptContext, every: bool) -> Iterator[tuple[str, PromptContext]]:
    """Plan and act × the feature flag combinations."""
    for mode in ("act", "plan"):
        for flags in _flag_sets(every):
            features = {**base.features, **dict(zip(FEATURE_FLAGS, flags))}
            on = ",".join(f for f, v in zip(FEATURE_FLAGS, flags) if v) or "no features"
            yield f"({mode}, {on})", attrs.evolve(base, mode=mode, features=features)


def _tool_modes(components: tuple[str, ...]) -> list[bool]:
    """The tool modes a variant can be rendered in: native (a client may ask for it, whatever
    the variant pins) and text where it has a text catalogue (`tools`) to fall back on."""
    return [True, False] if "tools" in components else [True]


def variant_matrix(compiler: Compiler, variant_id: str, provider: ProviderInfo,
                   base: PromptContext, every: bool = True) -> list[Diagnostic]:
    """`inconsistencies` of one variant in every situation: plan and act, the feature flags
    (every combination, or with `every=False` every pair of flags both ways, as lint does),
    native and text tools (text only where the variant has a text
    catalogue: a client may force either mode on a variant that pins one)."""
    variant = compiler.registry.get(variant_id)
    modes = _tool_modes(variant.components)
    names = set(compiler.registry.tools)
    headings = pack_headings(compiler.registry)
    out: list[Diagnostic] = []
    seen: set[tuple[str, str]] = set()
    examples = ExampleCalls()
    for native in modes:
        info = attrs.evolve(provider, native_tools=native)
        for where, ctx in _situations(base, every):
            prompt = compiler.compile(info, ctx, variant=variant_id, strict=False)
            tools = " native" if native else " text"
            for d in inconsistencies(prompt, names, where[:-1] + tools + ")", headings,
                                     examples):
                key = (d.code, d.message.split(": ", 1)[1])
                if key not in seen:  # one line per problem, with the first situation it shows
                    seen.add(key)
                    out.append(d)
    return out
