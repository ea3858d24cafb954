"""The `promptc` command line.

Exit codes: 0 ok; 1 findings (lint, strict diagnostics, snapshot differences, thresholds);
2 bad usage or bad input (one message on stderr, no traceback); 3 the budget cannot be met.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .._base.errors import (BudgetExceededError, ConfigError, ContextError, NoVariantError,
                            PromptcError)
from .._compile.result import CompiledPrompt
from .._model.provider import ProviderInfo, resolve_provider
from .args import (DOCS, Findings, Parser, UsageError, add_json, add_payload_options,
                   add_sources, add_target, compiler_from, epilog, non_negative,
                   print_diagnostics, print_json, read_input_text, target_from)
from .format import Styled, bound, clean, format_diagnostic, paint, table, terminal_width
from .results import (PayloadOptions, explain_data, native_tools, parse_data, payload,
                      render_data, unused_overrides, variant_rows)

__all__ = ["main", "build_parser", "TOPICS"]

TOPICS_DIR = Path(__file__).parent / "topics"
TOPICS = {"context": "the context file: every field, with an example",
          "folders": "override folders: built-ins, plugins, user and project, and their layout",
          "matrix": "the snapshot matrix: which cases `snapshot` and `diff --snapshots` render",
          "exit-codes": "what each exit code means",
          "session": "session scripts, the providers' caching rules, dynamic placement",
          "serve": "the `promptc serve` protocol: methods, params, results, errors"}


# --- budgets -------------------------------------------------------------------------------------

def budget_rows(present: Sequence[dict[str, Any]], dropped: Sequence[dict[str, Any]]
                ) -> list[dict[str, Any]]:
    """One row per section a budget touched or kept: what is left (in prompt order), then
    what was dropped (in the order it went)."""
    saved: dict[str, int] = {}
    for d in dropped:
        saved[d["id"]] = saved.get(d["id"], 0) + d["tokens"]
    rows = [{"id": s["id"], "status": "shortened" if s.get("form") == "short" else "kept",
             "required": bool(s.get("required")), "priority": s.get("priority"),
             "tokens": s.get("tokens") or 0, "saved": saved.get(s["id"], 0)} for s in present]
    gone = {d["id"]: d for d in dropped if d["action"] == "dropped"}
    rows += [{"id": sid, "status": "dropped", "required": False, "priority": d["priority"],
              "tokens": 0, "saved": saved[sid]} for sid, d in gone.items()]
    return rows


def budget_table(rows: Sequence[dict[str, Any]]) -> str:
    colour = {"dropped": "red", "shortened": "yellow"}
    return table(["section", "status", "priority", "tokens", "saved"],
                 [[r["id"], Styled(r["status"] + (" (required)" if r["required"] else ""),
                                   colour.get(r["status"])),
                   r["priority"], r["tokens"] if r["status"] != "dropped" else "",
                   r["saved"] or ""] for r in rows], "llrrr", stream=sys.stderr)


def _names(ids: Sequence[str], most: int = 6) -> str:
    shown = ", ".join(clean(i) for i in ids[:most])
    return shown + (f" and {len(ids) - most} more" if len(ids) > most else "")


def budget_summary(prompt: CompiledPrompt) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
    """(the sentence, the rows, the JSON report) for a prompt that a budget changed."""
    after = prompt.tokens.with_tools if prompt.tokens is not None else 0
    tools = prompt.tokens.tools if prompt.tokens is not None else 0
    before = after + sum(d.tokens for d in prompt.dropped)
    rows = budget_rows([s.to_dict() for s in prompt.sections],
                       [d.to_dict() for d in prompt.dropped])
    shortened = list(dict.fromkeys(d.id for d in prompt.dropped if d.action == "shortened"))
    dropped = [r["id"] for r in rows if r["status"] == "dropped"]
    did = []
    if shortened:
        did.append(f"shortened {len(shortened)} section(s)")
    if dropped:
        did.append(f"dropped {len(dropped)} ({_names(dropped)})")
    sentence = (f"the prompt needed {before:,} tokens, over the budget of {prompt.budget:,}: "
                f"{' and '.join(did)}; it now has {after:,}"
                f"{f' ({tools:,} of them native tool definitions)' if tools else ''}.")
    report = {"budget": prompt.budget, "tokens_before": before, "tokens_after": after,
              "sections": rows}
    return sentence, rows, report


def budget_failure(exc: BudgetExceededError) -> tuple[str, list[dict[str, Any]]]:
    """(the sentence, the rows) for a budget the required sections cannot meet."""
    report = exc.report if isinstance(exc.report, dict) else None
    if report is None:
        return bound(clean(exc.message)), []
    rows = budget_rows(report.get("sections", []), report.get("dropped", []))
    required = [r for r in rows if r["required"]]
    need = sum(r["tokens"] for r in required)
    total = report.get("total", 0)
    tools = report.get("tools", 0)
    rest = ""
    if tools:
        rest += f", {tools:,} of native tool definitions"
    if total > need + tools:
        rest += f", {total - need - tools:,} outside any section"
    sentence = (f"the prompt cannot fit the budget of {report.get('budget', 0):,} tokens: with "
                f"every shorter form used and every optional section dropped it still needs "
                f"{total:,}: {need:,} in the required sections "
                f"({_names([r['id'] for r in required])}){rest}.")
    return sentence, rows


def _report_budget(prompt: CompiledPrompt) -> None:
    if not prompt.dropped:
        return
    sentence, rows, _ = budget_summary(prompt)
    sys.stderr.write(f"promptc: budget: {sentence}\n{budget_table(rows)}\n")


# --- commands ------------------------------------------------------------------------------------

def cmd_render(args: argparse.Namespace) -> int:
    compiler = compiler_from(args)
    info, ctx = target_from(args, compiler.features)
    fmt = "json" if args.json else args.format
    prompt = compiler.compile(info, ctx, strict=args.strict, budget=args.budget,
                              count_tokens=fmt == "json" or args.budget is not None,
                              variant=args.variant, dynamic=args.dynamic)
    if fmt == "text":
        sys.stdout.write(prompt.text + "\n")
        if prompt.message:
            sys.stdout.write(f"\n--- first user message ---\n{prompt.message}\n")
    elif fmt == "json":
        print_json(render_data(prompt))
    else:
        print_json(payload(prompt, fmt, PayloadOptions.from_args(args)))
    if fmt != "json":
        _report_budget(prompt)
        print_diagnostics(prompt.diagnostics, skip=("budget-",))
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    compiler = compiler_from(args)
    info, ctx = target_from(args, compiler.features)
    explained = explain_data(compiler, info, ctx, args.variant)
    data, prompt, resolution = explained.data, explained.prompt, explained.resolution
    resolved = resolve_provider(info, compiler.registry.families, compiler.registry.user_models)
    v, choice = prompt.variant, prompt.tools.choice
    chosen_by, tools, capabilities = data["variant"]["chosen_by"], data["tools"], \
        data["capabilities"]
    if args.json:
        print_json(data)
        return 0
    out = sys.stdout
    out.write(f"{paint('provider', 'bold')}  {clean(info.provider)} / {clean(info.model)} "
              f"(normalized: {clean(resolved.normalized_model)}, family: "
              f"{clean(resolved.family)})\n")
    rows = [[name, "-" if fact["value"] is None else fact["value"], fact["source"]]
            for name, fact in capabilities.items()]
    out.write(table(["capability", "value", "source"], rows, "lll", max_lines=2) + "\n")
    out.write(f"{paint('variant', 'bold')}   {clean(v.id)} ({clean(v.source)}; chosen by "
              f"{chosen_by})\n")
    if choice is not None:
        import textwrap
        line = textwrap.fill(f"{choice.mode} (decided by {choice.decided_by}: "
                             f"{clean(choice.reason)})", terminal_width() - 10,
                             subsequent_indent=" " * 10, break_on_hyphens=False)
        out.write(f"{paint('tools', 'bold')}     {line}\n")
    out.write(f"{paint('sources', 'bold')}   " + ", ".join(
        f"{clean(layer)} {clean(path)}" for layer, path in compiler.sources) + "\n\n")
    rows = []
    for t in resolution.trace:
        mark = {True: Styled("matched", "green"), False: "no", None: Styled("raised", "red")}
        rows.append([t.variant, t.priority, mark[t.matched], t.reason])
    out.write(table(["variant", "priority", "matched", "why"], rows, "lrll", max_lines=3)
              + "\n\n")
    rows = [[s.id, s.cache, s.tokens, s.origin] for s in prompt.sections]
    out.write(table(["section", "cache", "tokens", "from"], rows, "llrl") + "\n\n")
    import textwrap
    by_source: dict[str, list[str]] = {}
    for tool in tools:
        by_source.setdefault(tool["source"], []).append(tool["name"])
    for source, names in by_source.items():
        out.write(textwrap.fill(f"tools from {clean(source)}: "
                                f"{', '.join(clean(n) for n in names)}", terminal_width(),
                                subsequent_indent="  ", break_on_hyphens=False) + "\n")
    for f in unused_overrides(compiler, v.id):
        out.write(textwrap.fill(f"not used here: {clean(f.message)}", terminal_width(),
                                subsequent_indent="  ", break_on_hyphens=False) + "\n")
    print_diagnostics(prompt.diagnostics)
    return 0


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
                                 r["match"]] for r in rows], "llrlll", max_lines=3) + "\n")
        for message in overrides:
            sys.stdout.write(f"override: {clean(message)}\n")
    print_diagnostics(compiler.load_diagnostics)
    return 0


def cmd_tools(args: argparse.Namespace) -> int:
    compiler = compiler_from(args)
    info, ctx = target_from(args, compiler.features)
    prompt = compiler.compile(info, ctx, variant=args.variant, strict=args.strict)
    tools = prompt.tools
    if args.format == "text":
        section = prompt.section("tools")
        if section is not None:
            sys.stdout.write(section.text + "\n")
        else:
            rows = [[n] for n in tools.names]
            sys.stdout.write(f"(variant {clean(prompt.variant.id)!r} sends tools natively; "
                             "names below)\n")
            sys.stdout.write(table(["tool"], rows) + "\n")
    else:
        print_json(native_tools(tools, args.format, PayloadOptions.from_args(args)))
    print_diagnostics(prompt.diagnostics)
    return 0


def cmd_parse(args: argparse.Namespace) -> int:
    compiler = compiler_from(args)
    info, ctx = target_from(args, compiler.features)
    prompt = compiler.compile(info, ctx, variant=args.variant)
    reply = read_input_text(args.reply)
    data, has_errors = parse_data(prompt, reply)
    print_json(data)
    return 1 if has_errors else 0


def cmd_lint(args: argparse.Namespace) -> int:
    from .._review.lint import lint
    compiler = compiler_from(args)
    findings = lint(compiler)
    failing = [f for f in findings if f.level == "error" or (args.strict and f.level != "info")]
    if args.json:
        print_json([f.to_dict() for f in findings])
    else:
        for f in findings:
            sys.stdout.write(format_diagnostic(f, sys.stdout) + "\n")
        n = len(compiler.registry.variants)
        summary = f"{len(findings)} finding(s) in {n} variant(s)"
        sys.stdout.write((paint(summary, "yellow") if findings else paint("ok: " + summary,
                                                                          "green")) + "\n")
    return 1 if failing else 0


def cmd_token_targets(args: argparse.Namespace) -> int:
    """Every case of the snapshot matrix in its full context, against its token targets."""
    from .._review.snapshot import load_matrix
    compiler = compiler_from(args)
    matrix = load_matrix(args.matrix, compiler)
    rows, data, missed = [], [], 0
    for t in matrix.targets:
        prompt = compiler.compile(t.provider, t.context, variant=t.variant, count_tokens=True)
        rep = prompt.tokens
        if rep is None:  # count_tokens=True above: never
            raise RuntimeError("the prompt was not counted")
        static = sum(s.tokens or 0 for s in prompt.sections if s.cache == "static")
        share = static / rep.total if rep.total else 0.0
        ok = (t.max_tokens is None or rep.with_tools <= t.max_tokens) and \
            (t.min_static_share is None or share >= t.min_static_share)
        missed += not ok
        target = " · ".join(x for x in (
            f"≤ {t.max_tokens:,}" if t.max_tokens is not None else "",
            f"static ≥ {t.min_static_share:.0%}" if t.min_static_share is not None else "")
            if x) or "-"
        rows.append([t.name, prompt.tools.mode, rep.total, rep.tools, rep.with_tools,
                     f"{share:.0%}", target,
                     "-" if target == "-" else Styled("ok", "green") if ok else
                     Styled("missed", "red")])
        data.append({"case": t.name, "variant": prompt.variant.id, "tool_mode": prompt.tools.mode,
                     "prompt": rep.total, "tools": rep.tools, "together": rep.with_tools,
                     "static_share": round(share, 4), "max_tokens": t.max_tokens,
                     "min_static_share": t.min_static_share, "ok": ok})
    if args.json:
        print_json(data)
    else:
        sys.stdout.write(table(["case", "tools", "prompt", "tool JSON", "together", "static",
                                "target", ""], rows, "llrrrrll") + "\n")
        sys.stdout.write(f"encoding as each model counts; context: the matrix's full context "
                         f"({clean(matrix.path)})\n")
    return 1 if missed else 0


def cmd_tokens(args: argparse.Namespace) -> int:
    if args.targets:
        return cmd_token_targets(args)
    compiler = compiler_from(args)
    info, ctx = target_from(args, compiler.features)
    prompt = compiler.compile(info, ctx, variant=args.variant, count_tokens=True,
                              budget=args.budget)
    rep = prompt.tokens
    if rep is None:  # count_tokens=True above: never
        raise RuntimeError("the prompt was not counted")
    if args.json:
        data = {"variant": prompt.variant.id, "tokens": rep.to_dict(),
                "sections": [{"id": s.id, "tokens": s.tokens, "chars": len(s.text),
                              "cache": s.cache} for s in prompt.sections],
                "dropped": [d.to_dict() for d in prompt.dropped]}
        if prompt.dropped:
            data["budget_report"] = budget_summary(prompt)[2]
        print_json(data)
        return 0
    rows = [[s.id, s.cache, s.tokens, len(s.text)] for s in prompt.sections]
    glue = rep.total - sum(s.tokens or 0 for s in prompt.sections)
    rows.append(["(template text and joins)", "", glue,
                 len(prompt.text) - sum(len(s.text) for s in prompt.sections)])
    rows.append(["total", "", rep.total, len(prompt.text)])
    if rep.tools:
        rows.append([f"tools ({rep.tools_format} JSON, sent beside the prompt)", "",
                     rep.tools, ""])
        rows.append(["sent before any message", "", rep.with_tools, ""])
    sys.stdout.write(table(["section", "cache", "tokens", "chars"], rows, "llrr") + "\n")
    sys.stdout.write(f"encoding: {rep.encoding}"
                     f"{' (estimate: this family has its own tokenizer)' if rep.estimated else ''}"
                     f"; variant: {clean(prompt.variant.id)}\n")
    _report_budget(prompt)
    print_diagnostics(prompt.diagnostics, skip=("budget-",))
    return 0


def cmd_inputs(args: argparse.Namespace) -> int:
    from .._model.inputs import inputs_schema
    compiler = compiler_from(args)
    if args.variant:
        variant = compiler.registry.get(args.variant)
    else:
        if not args.model:
            raise UsageError("give --variant, or --provider and --model")
        variant = compiler.resolve(ProviderInfo(args.provider or "", args.model)).variant
    schema = inputs_schema(variant.id, variant.inputs)
    if args.json:
        print_json(schema)
    else:
        rows = [[s.name, s.type, "yes" if s.required else "", "" if s.default is None else
                 s.default, ", ".join(s.options), s.label or s.description]
                for s in variant.inputs]
        sys.stdout.write(f"inputs of variant {clean(variant.id)}:\n")
        sys.stdout.write(table(["name", "type", "required", "default", "options", "label"],
                               rows, max_lines=3) + "\n" if rows else "(none)\n")
    return 0


def cmd_help(args: argparse.Namespace) -> int:
    topic = args.topic
    if topic is None:
        PARSERS[""].print_help()
        return 0
    command = topic in PARSERS and bool(topic)
    if command:
        PARSERS[topic].print_help()  # then the topic of the same name, if there is one
    if topic in TOPICS:
        sys.stdout.write(("\n" if command else "") +
                         (TOPICS_DIR / f"{topic}.md").read_text(encoding="utf-8"))
        if topic == "context":
            sys.stdout.write(_features_help())
    if command or topic in TOPICS:
        return 0
    from .._base.suggest import did_you_mean
    raise UsageError(f"no help topic {clean(topic)!r}"
                     f"{did_you_mean(topic, [*TOPICS, *COMMANDS])}; topics: "
                     f"{', '.join(TOPICS)}; or a command name")


def _features_help() -> str:
    """The feature switches this installation knows (built-ins, plugins, user and project
    folders), each with what it does and what reads it."""
    from .._compile.compiler import Compiler
    from .._model.features import builtin_features
    note = ""
    try:
        features = Compiler.default().features
    except PromptcError as exc:  # a broken folder or plugin: still list the built-ins
        features, note = builtin_features(), f"  (only the built-ins': {clean(str(exc))})"
    lines = ["", "Features (each true or false; a name nothing reads is an error):", note]
    width = max((len(n) for n in features.names), default=0)
    for f in features.features.values():
        readers = f"; read by {', '.join(f.readers)}" if f.readers else ""
        source = f" [{f.source}]" if f.source and f.source != "builtin" else ""
        lines.append(f"  {clean(f.name):<{width}}  {clean(f.description) or '(no description)'}"
                     f"{clean(readers)}{clean(source)}")
    return "\n" + "\n".join(line for line in lines if line) + "\n"


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {}
PARSERS: dict[str, argparse.ArgumentParser] = {}  # "" is the top-level parser


class _Version(argparse.Action):
    """`--version`: read from the package metadata only when asked (it costs an import)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: Any = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        from .. import __version__
        sys.stdout.write(f"promptc {__version__}\n")
        parser.exit()


TARGET = "--provider anthropic --model claude-sonnet-4-5"
ALL_CODES = ("0 ok · 1 findings (lint, --strict, snapshot differences, thresholds) · "
             "2 bad usage or input · 3 the budget cannot be met")


def _command(sub: Any, name: str, summary: str, description: str, examples: Sequence[str],
             codes: str, see: str = "") -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        name, help=summary, description=description,
        epilog=epilog(examples, codes, see or f"promptc help exit-codes · {DOCS}"))
    # the global option also after the command (`promptc render … --debug`); SUPPRESS keeps
    # the top-level value when it is not given here
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                   help=argparse.SUPPRESS)
    PARSERS[name] = p
    return p


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="promptc",
        description="Compile system prompts for LLM clients: pick the variant written for a "
                    "model family, render its sections for a request, count tokens, and "
                    "review prompt changes like code.",
        epilog=epilog(
            [f"promptc render {TARGET} --date 2026-01-01",
             "promptc explain --provider openai --model gpt-4.1",
             "promptc diff --snapshots snapshots --format html > review.html"],
            ALL_CODES,
            "promptc COMMAND --help · promptc help TOPIC (" + ", ".join(TOPICS) + ") · "
            + DOCS))
    PARSERS[""] = parser
    parser.add_argument("-V", "--version", action=_Version, help="print the version and exit")
    parser.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=Parser,
                                help="one of these (promptc help COMMAND for its options)")

    p = _command(sub, "render", "render the prompt for a provider/model",
                 "Render the system prompt for one request and print it: as text, as JSON with "
                 "its sections, tokens and diagnostics, or as a ready request payload for "
                 "a provider's SDK.",
                 [f"promptc render {TARGET} --date 2026-01-01",
                  "promptc render --provider openai --model gpt-5 --context context.json "
                  "--format openai",
                  "promptc render --provider ollama --model qwen3-coder:30b --budget 4000 "
                  "--format json"],
                 "0 ok · 1 a diagnostic under --strict · 2 bad usage or input · "
                 "3 the budget cannot be met")
    add_target(p)
    p.add_argument("--strict", action="store_true",
                   help="any warning or error diagnostic fails the render (exit 1)")
    p.add_argument("--budget", type=non_negative, metavar="N",
                   help="fit the prompt into N tokens: shorter forms first, then optional "
                        "sections dropped, lowest priority first (a table on stderr says "
                        "which)")
    p.add_argument("--json", action="store_true", help="the same as --format json")
    p.add_argument("--format", default="text",
                   choices=("text", "json", "anthropic", "openai", "gemini"),
                   help="text: the prompt (default); json: the prompt with sections, tokens, "
                        "fingerprints and diagnostics; anthropic|openai|gemini: a request "
                        "payload (system prompt + native tools)")
    p.add_argument("--breakpoints", type=int, default=2, choices=(0, 1, 2, 3, 4),
                   help="cache breakpoints for --format anthropic (default 2): the end of the "
                        "built-in tools, of the static, session and request blocks, first "
                        "places first, each only once its prefix reaches the model's minimum")
    p.add_argument("--dynamic", choices=("system", "message"), default="system",
                   help="system: the whole prompt in the system prompt (default); message: "
                        "only the static part there, the session and request text as a first "
                        "user message (in the payloads' `messages`; text: after a marker line)")
    add_payload_options(p)
    COMMANDS["render"] = cmd_render

    p = _command(sub, "explain", "why this variant, and where each section came from",
                 "Show every variant tried for a provider/model and why it matched or not, "
                 "the inferred capabilities, each section's cache class, tokens and source "
                 "file, and where each tool came from.",
                 ["promptc explain --provider openai --model gpt-4.1",
                  f"promptc explain {TARGET} --context context.json",
                  "promptc explain --provider ollama --model qwen3-coder:30b --json"],
                 "0 ok · 2 bad usage or input")
    add_target(p)
    add_json(p, "provider, variant, trace, sections, tools, placeholders, diagnostics")
    COMMANDS["explain"] = cmd_explain

    p = _command(sub, "variants", "list the registered variants",
                 "List every registered variant in the order they are tried, with its family, "
                 "priority, source (builtin, plugin:NAME, user, project) and matcher.",
                 ["promptc variants", "promptc variants --builtins-only",
                  "promptc variants --json"],
                 "0 ok · 2 bad usage or input")
    add_sources(p)
    add_json(p, "one object per variant (id, family, priority, source, extends, match, …)")
    COMMANDS["variants"] = cmd_variants

    p = _command(sub, "tools", "the tools a request gets, as text or native JSON",
                 "Show the tools a request gets: the prompt's tools section for text-tool "
                 "variants, or the native tool definitions in a provider's format.",
                 ["promptc tools --provider openai --model gpt-4.1",
                  f"promptc tools {TARGET} --context context.json --format anthropic",
                  "promptc tools --provider openai --model gpt-5 --format openai "
                  "--openai-api responses"],
                 "0 ok · 1 a diagnostic under --strict · 2 bad usage or input")
    add_target(p)
    p.add_argument("--strict", action="store_true",
                   help="any warning or error diagnostic fails (exit 1)")
    p.add_argument("--format", default="text", choices=("text", "openai", "anthropic", "gemini"),
                   help="text: the tools section, or the tool names for a native variant "
                        "(default); openai|anthropic|gemini: native definitions as JSON")
    add_payload_options(p)
    COMMANDS["tools"] = cmd_tools

    p = _command(sub, "parse", "read the tool calls in a model's reply",
                 "Parse a reply written in the text tool-call format against the tools a "
                 "request offers: prose, calls (arguments typed by their schema) and errors "
                 "(unknown tool, missing or unknown parameter, wrong type, unclosed call), in "
                 "order, as JSON. An error's message is written to be sent back to the model.",
                 [f"promptc parse {TARGET} --native-tools no reply.txt",
                  "promptc parse --provider ollama --model qwen3-coder:30b -"],
                 "0 every call is valid · 1 a call has errors · 2 bad usage or input")
    add_target(p)
    p.add_argument("reply", metavar="FILE", help="the reply's text (- for stdin)")
    p.add_argument("--json", action="store_true",
                   help="accepted for symmetry: the output is always JSON")
    COMMANDS["parse"] = cmd_parse

    p = _command(sub, "lint", "check every registered variant before any request",
                 "Check every registered variant before any request: templates, components, "
                 "tools, inputs, plugins, and every override (info level), so nothing is "
                 "replaced silently.",
                 ["promptc lint", "promptc lint --strict --builtins-only",
                  "promptc lint --json"],
                 "0 no errors (warnings and infos allowed) · 1 an error, or a warning with "
                 "--strict · 2 bad usage")
    add_sources(p)
    p.add_argument("--strict", action="store_true", help="warnings fail too (exit 1)")
    add_json(p, "one object per finding (level, code, message, source)")
    COMMANDS["lint"] = cmd_lint

    p = _command(sub, "tokens", "per-section token counts",
                 "Count the prompt's tokens per section (the rows add up to the total), with "
                 "the encoding used; with --budget, also what a budget would shorten or drop.",
                 ["promptc tokens --provider openai --model gpt-5 --context context.json",
                  f"promptc tokens {TARGET} --budget 3000",
                  "promptc tokens --targets --builtins-only"],
                 "0 ok · 1 a token target missed (--targets) · 2 bad usage or input · "
                 "3 the budget cannot be met")
    add_target(p)
    p.add_argument("--budget", type=non_negative, metavar="N",
                   help="count the prompt as fitted into N tokens (see render --budget)")
    p.add_argument("--targets", action="store_true",
                   help="instead: every case of the snapshot matrix in its full context, "
                        "prompt and native tool JSON, against the case's token targets")
    p.add_argument("--matrix", metavar="FILE",
                   help="with --targets: the matrix file (default: the built-in one)")
    add_json(p, "variant, tokens, sections, dropped")
    COMMANDS["tokens"] = cmd_tokens

    p = _command(sub, "inputs", "a variant's runtime inputs (as JSON Schema with --json)",
                 "Show the runtime inputs a variant declares (pass them with --set NAME=VALUE "
                 "or the context's `runtime` table), or their JSON Schema for a client's "
                 "settings form.",
                 ["promptc inputs --variant generic",
                  "promptc inputs --provider openai --model gpt-5",
                  "promptc inputs --variant generic --json"],
                 "0 ok · 2 bad usage or an unknown variant")
    g = p.add_argument_group("which variant")
    g.add_argument("--provider", metavar="P", help="provider id (with --model: the variant "
                                                   "this model routes to)")
    g.add_argument("--model", metavar="M", help="model id as the provider spells it")
    g.add_argument("--variant", metavar="ID", help="the variant's id (`promptc variants`)")
    add_json(p, "a JSON Schema (additionalProperties: false)")
    add_sources(p)
    COMMANDS["inputs"] = cmd_inputs

    from .review import add_review_commands
    add_review_commands(sub, COMMANDS, _command)
    from .models import add_models_command
    add_models_command(sub, COMMANDS, _command)
    from .session import add_session_command
    add_session_command(sub, COMMANDS, _command)
    from .serve import add_serve_command
    add_serve_command(sub, COMMANDS, _command)

    p = _command(sub, "help", "help on a command or a topic",
                 "Help on a command (the same as COMMAND --help) or a topic: "
                 + ", ".join(f"{k} ({v})" for k, v in TOPICS.items()) + ".",
                 ["promptc help context", "promptc help folders", "promptc help diff"],
                 "0 ok · 2 an unknown topic")
    p.add_argument("topic", nargs="?", metavar="TOPIC",
                   help="a command name or one of: " + ", ".join(TOPICS))
    COMMANDS["help"] = cmd_help
    return parser


def _fail(message: str) -> None:
    sys.stderr.write(f"promptc: error: {bound(clean(message))}\n")


def _budget_failed(exc: BudgetExceededError, args: argparse.Namespace) -> int:
    sentence, rows = budget_failure(exc)
    if getattr(args, "json", False) or getattr(args, "format", None) == "json":
        report = exc.report if isinstance(exc.report, dict) else {}
        print_json({"error": "budget", "message": sentence, "budget": report.get("budget"),
                    "tokens": report.get("total"), "sections": rows})
        sys.stderr.write(f"promptc: budget: {sentence}\n")
    else:
        sys.stderr.write(f"promptc: budget: {sentence}\n")
        if rows:
            sys.stderr.write(budget_table(rows) + "\n")
    return 3


_parser = build_parser  # the name the parser had before


def _unrecognized(args: argparse.Namespace, extra: Sequence[str]) -> None:
    """Options the command does not take: its own one-line error, with a did-you-mean."""
    from .._base.suggest import did_you_mean
    command = PARSERS.get(getattr(args, "command", "") or "", PARSERS[""])
    known = [o for a in command._actions for o in a.option_strings]
    hint = did_you_mean(extra[0], known) if extra[0].startswith("-") else ""
    command.error(f"unrecognized arguments: {' '.join(extra)}{hint}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        _unrecognized(args, extra)
    try:
        return COMMANDS[args.command](args)
    except Findings:
        return 1
    except BudgetExceededError as exc:
        return _budget_failed(exc, args)
    except UsageError as exc:
        _fail(str(exc))
        return 2
    except NoVariantError as exc:
        _fail(str(exc))
        return 2
    except PromptcError as exc:
        # Load-time problems (files, contexts) are bad input; strict-mode build errors are
        # findings.
        load_time = isinstance(exc, (ConfigError, ContextError)) and exc.diagnostic is None
        _fail(str(exc))
        return 2 if load_time else 1
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if args.debug:
            raise
        sys.stderr.write(f"promptc: internal error: {type(exc).__name__}: "
                         f"{bound(clean(str(exc)))} "
                         "(run with --debug for a traceback; please report it)\n")
        return 70
