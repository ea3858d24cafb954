"""`promptc explain` and `variants`: why a request gets the variant it gets (every variant
tried, the inferred capabilities and their sources, where each section and tool came from),
and the variants there are to get."""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Iterable, Sequence
from typing import IO, Any

from .._compile.compiler import Compiler
from .._compile.compiled import CompiledPrompt
from .args import (COMMANDS, Command, CommandFactory, add_command, add_json, add_sources,
                   add_target, compiler_from, print_diagnostics, print_json, target_from)
from .format import Styled, clean, paint, table, terminal_width
from .render import TARGET
from .results import Explained, explain_data, unused_overrides, variant_rows

__all__ = ["cmd_explain", "cmd_variants", "add_explain_command", "add_variants_command"]


def cmd_explain(args: argparse.Namespace) -> int:
    compiler = compiler_from(args)
    info, ctx = target_from(args, compiler.features, compiler.default_model)
    explained = explain_data(compiler, info, ctx, args.variant)
    if args.json:
        print_json(explained.data)
        return 0
    out = sys.stdout
    _write_request(out, explained.data)
    _write_choice(out, explained, compiler)
    _write_trace(out, explained)
    _write_sections(out, explained.prompt)
    _write_tool_sources(out, explained.data["tools"])
    _write_wrapped(out, (f"not used here: {clean(f.message)}"
                         for f in unused_overrides(compiler, explained.prompt.variant.id)))
    print_diagnostics(explained.prompt.diagnostics)
    return 0


def _write_request(out: IO[str], data: dict[str, Any]) -> None:
    """The provider and model, and each capability with its source."""
    provider = data["provider"]
    out.write(f"{paint('provider', 'bold')}  {clean(provider['provider'])} / "
              f"{clean(provider['model'])} (normalized: {clean(data['normalized_model'])}, "
              f"family: {clean(provider['family'])})\n")
    rows = [[name, "-" if fact["value"] is None else fact["value"], fact["source"]]
            for name, fact in data["capabilities"].items()]
    out.write(table(["capability", "value", "source"], rows, "lll", max_lines=2) + "\n")


def _write_choice(out: IO[str], explained: Explained, compiler: Compiler) -> None:
    """The variant and what chose it, the tool mode and what decided it, the sources read."""
    v, choice = explained.prompt.variant, explained.prompt.tools.choice
    out.write(f"{paint('variant', 'bold')}   {clean(v.id)} ({clean(v.source)}; chosen by "
              f"{explained.data['variant']['chosen_by']})\n")
    if len(v.lineage) > 1:
        _write_wrapped(out, ["extends   " + " → ".join(f"{clean(vid)} ({clean(src)})"
                                                      for vid, src, _path in v.lineage[1:])])
    for edits in v.edits.values():
        _write_wrapped(out, [f"edit      {e.kind} section {clean(e.component)} "
                             f"({clean(e.file or e.origin)})" for e in edits])
    if choice is not None:
        line = textwrap.fill(f"{choice.mode} (decided by {choice.decided_by}: "
                             f"{clean(choice.reason)})", terminal_width() - 10,
                             subsequent_indent=" " * 10, break_on_hyphens=False)
        out.write(f"{paint('tools', 'bold')}     {line}\n")
    out.write(f"{paint('sources', 'bold')}   " + ", ".join(
        f"{clean(layer)} {clean(path)}" for layer, path in compiler.sources) + "\n\n")


_MATCHED = {True: Styled("matched", "green"), False: "no", None: Styled("raised", "red")}


def _write_trace(out: IO[str], explained: Explained) -> None:
    rows = [[t.variant, t.priority, _MATCHED[t.matched], t.reason]
            for t in explained.resolution.trace]
    out.write(table(["variant", "priority", "matched", "why"], rows, "lrll", max_lines=3)
              + "\n\n")


def _write_sections(out: IO[str], prompt: CompiledPrompt) -> None:
    rows = [[s.id, s.cache, s.tokens, s.origin] for s in prompt.sections]
    out.write(table(["section", "cache", "tokens", "from"], rows, "llrl") + "\n\n")


def _write_tool_sources(out: IO[str], tools: Sequence[dict[str, Any]]) -> None:
    by_source: dict[str, list[str]] = {}
    for tool in tools:
        by_source.setdefault(tool["source"], []).append(tool["name"])
    _write_wrapped(out, (f"tools from {clean(source)}: {', '.join(clean(n) for n in names)}"
                         for source, names in by_source.items()))


def _write_wrapped(out: IO[str], paragraphs: Iterable[str]) -> None:
    """Each paragraph filled to the terminal, continued lines indented."""
    for text in paragraphs:
        out.write(textwrap.fill(text, terminal_width(), subsequent_indent="  ",
                                break_on_hyphens=False) + "\n")


def cmd_variants(args: argparse.Namespace) -> int:
    compiler = compiler_from(args)
    rows = variant_rows(compiler)
    overrides = [f.message for f in compiler.registry.findings if f.code == "overridden"]
    if args.json:
        print_json(rows)
    else:
        sys.stdout.write(table(["id", "family", "priority", "source", "extends", "match"],
                               [[r["id"], r["family"], r["priority"], r["source"],
                                 r["extends"] or "", ("fallback; " if r["fallback"] else "") +
                                 r["match"]] for r in rows], "llrlll", max_lines=3,
                               whole=(0,)) + "\n")
        for message in overrides:
            sys.stdout.write(f"override: {clean(message)}\n")
    print_diagnostics(compiler.load_diagnostics)
    return 0


def add_explain_command(sub: Any, commands: dict[str, Command] = COMMANDS,
                        command: CommandFactory = add_command) -> None:
    p = command(sub, "explain", "why this variant, and where each section came from",
                "Show every variant tried for a provider/model and why it matched or not, "
                "the inferred capabilities, each section's cache class, tokens and source "
                "file, and where each tool came from.",
                ["promptc explain --provider openai --model gpt-4.1",
                 f"promptc explain {TARGET} --context context.json",
                 "promptc explain --provider ollama --model qwen3-coder:30b --json"],
                "0 ok · 2 bad usage or input")
    add_target(p)
    add_json(p, "provider, variant, trace, sections, tools, placeholders, diagnostics")
    commands["explain"] = cmd_explain


def add_variants_command(sub: Any, commands: dict[str, Command] = COMMANDS,
                         command: CommandFactory = add_command) -> None:
    p = command(sub, "variants", "list the registered variants",
                "List every registered variant in the order they are tried, with its family, "
                "priority, source (builtin, plugin:NAME, user, project) and matcher.",
                ["promptc variants", "promptc variants --builtins-only",
                 "promptc variants --json"],
                "0 ok · 2 bad usage or input")
    add_sources(p)
    add_json(p, "one object per variant (id, family, priority, source, extends, match, …)")
    commands["variants"] = cmd_variants
