"""The `promptc` command line.

Exit codes: 0 ok; 1 findings (lint, strict diagnostics, snapshot differences, thresholds);
2 bad usage or bad input (one message on stderr, no traceback); 3 the budget cannot be met.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from .._base.errors import (BudgetExceededError, ConfigError, ContextError, NoVariantError,
                            PromptcError)
from .._compile.result import prompt_to_dict
from .._model.provider import ProviderInfo
from .args import (Findings, UsageError, add_sources, add_target, compiler_from, non_negative,
                   print_diagnostics, print_json, target_from)
from .format import format_diagnostic, paint, table

__all__ = ["main"]


# --- commands ----------------------------------------------------------------------------------

def cmd_render(args: argparse.Namespace) -> int:
    compiler = compiler_from(args)
    info, ctx = target_from(args)
    fmt = args.format
    prompt = compiler.compile(info, ctx, strict=args.strict, budget=args.budget,
                              count_tokens=fmt == "json", variant=args.variant)
    if fmt == "text":
        sys.stdout.write(prompt.text + "\n")
    elif fmt == "json":
        print_json(prompt_to_dict(prompt))
    elif fmt == "anthropic":
        print_json(prompt.to_anthropic(breakpoints=args.breakpoints))
    elif fmt == "openai":
        print_json(prompt.to_openai(api=args.openai_api))
    elif fmt == "gemini":
        print_json(prompt.to_gemini())
    if fmt != "json":
        print_diagnostics(prompt.diagnostics)
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    compiler = compiler_from(args)
    info, ctx = target_from(args)
    resolved = info.resolved()
    resolution = compiler.resolve(resolved, full_trace=True)
    prompt = compiler.compile(info, ctx, variant=args.variant, count_tokens=True)
    v = prompt.variant
    chosen_by = "id" if args.variant else resolution.by
    tools = [{"name": t.name, "source": t.source, "origin": t.origin}
             for t in prompt.tools.specs] + \
        [{"name": b.native_name, "source": f"mcp:{b.server}", "origin": b.tool}
         for b in prompt.tools.mcp]
    data = {
        "provider": {k: getattr(resolved, k) for k in (
            "provider", "model", "family", "context_window", "native_tools", "images",
            "prompt_caching", "cache_min_tokens", "encoding")},
        "normalized_model": resolved.normalized_model,
        "variant": {"id": v.id, "family": v.family, "source": v.source, "path": v.path,
                    "extends": v.extends, "chosen_by": chosen_by,
                    "tool_mode": prompt.tools.mode},
        "trace": [t.to_dict() for t in resolution.trace],
        "sections": [s.to_dict() for s in prompt.sections],
        "tools": tools,
        "placeholders": dict(sorted(prompt.placeholders.items())),
        "diagnostics": [d.to_dict() for d in prompt.diagnostics],
    }
    if args.json:
        print_json(data)
        return 0
    out = sys.stdout
    out.write(f"{paint('provider', 'bold')}  {info.provider} / {info.model} "
              f"(normalized: {resolved.normalized_model}, family: {resolved.family})\n")
    out.write(f"{paint('variant', 'bold')}   {v.id} ({v.source}; chosen by "
              f"{chosen_by}; tools: {prompt.tools.mode})\n\n")
    rows = []
    for t in resolution.trace:
        mark = {True: paint("matched", "green"), False: "no", None: paint("raised", "red")}
        rows.append([t.variant, t.priority, mark[t.matched], t.reason])
    out.write(table(["variant", "priority", "matched", "why"], rows, "lrll") + "\n\n")
    rows = [[s.id, s.cache, s.tokens, len(s.text), s.origin] for s in prompt.sections]
    out.write(table(["section", "cache", "tokens", "chars", "from"], rows, "llrrl") + "\n\n")
    by_source: dict[str, list[str]] = {}
    for tool in tools:
        by_source.setdefault(tool["source"], []).append(tool["name"])
    for source, names in by_source.items():
        out.write(f"tools from {source}: {', '.join(names)}\n")
    print_diagnostics(prompt.diagnostics)
    return 0


def cmd_variants(args: argparse.Namespace) -> int:
    compiler = compiler_from(args)
    reg = compiler.registry
    order = {v.id: i for i, v in enumerate(reg.order)}
    rows = []
    for v in sorted(reg.variants.values(), key=lambda v: (order.get(v.id, 1 << 30), v.id)):
        rows.append({"id": v.id, "family": v.family, "priority": v.priority, "source": v.source,
                     "extends": v.extends, "fallback": v.fallback, "tool_mode": v.tool_mode,
                     "match": v.matcher.description, "path": v.path,
                     "description": v.description})
    if args.json:
        print_json(rows)
    else:
        sys.stdout.write(table(["id", "family", "priority", "source", "extends", "match"],
                               [[r["id"], r["family"], r["priority"], r["source"],
                                 r["extends"] or "", ("fallback; " if r["fallback"] else "") +
                                 r["match"]] for r in rows], "llrlll") + "\n")
    print_diagnostics(compiler.load_diagnostics)
    return 0


def cmd_tools(args: argparse.Namespace) -> int:
    compiler = compiler_from(args)
    info, ctx = target_from(args)
    prompt = compiler.compile(info, ctx, variant=args.variant, strict=args.strict)
    tools = prompt.tools
    if args.format == "text":
        section = prompt.section("tools")
        if section is not None:
            sys.stdout.write(section.text + "\n")
        else:
            rows = [[n] for n in tools.names]
            sys.stdout.write(f"(variant {prompt.variant.id!r} sends tools natively; names below)\n")
            sys.stdout.write(table(["tool"], rows) + "\n")
    elif args.format == "openai":
        print_json(tools.openai(api=args.openai_api))
    elif args.format == "anthropic":
        print_json(tools.anthropic())
    elif args.format == "gemini":
        print_json(tools.gemini())
    print_diagnostics(prompt.diagnostics)
    return 0


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


def cmd_tokens(args: argparse.Namespace) -> int:
    compiler = compiler_from(args)
    info, ctx = target_from(args)
    prompt = compiler.compile(info, ctx, variant=args.variant, count_tokens=True,
                              budget=args.budget)
    rep = prompt.tokens
    if rep is None:  # count_tokens=True above: never
        raise RuntimeError("the prompt was not counted")
    if args.json:
        print_json({"variant": prompt.variant.id, "tokens": rep.to_dict(),
                     "sections": [{"id": s.id, "tokens": s.tokens, "chars": len(s.text),
                                   "cache": s.cache} for s in prompt.sections],
                     "dropped": [d.to_dict() for d in prompt.dropped]})
        return 0
    rows = [[s.id, s.cache, s.tokens, len(s.text)] for s in prompt.sections]
    glue = rep.total - sum(s.tokens or 0 for s in prompt.sections)
    rows.append(["(template text and joins)", "", glue,
                 len(prompt.text) - sum(len(s.text) for s in prompt.sections)])
    rows.append(["total", "", rep.total, len(prompt.text)])
    sys.stdout.write(table(["section", "cache", "tokens", "chars"], rows, "llrr") + "\n")
    sys.stdout.write(f"encoding: {rep.encoding}"
                     f"{' (estimate: this family has its own tokenizer)' if rep.estimated else ''}"
                     f"; variant: {prompt.variant.id}\n")
    print_diagnostics(prompt.diagnostics)
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
        sys.stdout.write(f"inputs of variant {variant.id}:\n")
        sys.stdout.write(table(["name", "type", "required", "default", "options", "label"],
                               rows) + "\n" if rows else "(none)\n")
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="promptc", description=__doc__.splitlines()[0])
    parser.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("render", help="render the prompt for a provider/model")
    add_target(p)
    p.add_argument("--strict", action="store_true", help="any diagnostic is an error (exit 1)")
    p.add_argument("--budget", type=non_negative, metavar="N", help="fit the prompt into N tokens")
    p.add_argument("--format", default="text",
                   choices=("text", "json", "anthropic", "openai", "gemini"))
    p.add_argument("--breakpoints", type=int, default=2, choices=(1, 2, 3, 4),
                   help="cache breakpoints for --format anthropic (default 2)")
    p.add_argument("--openai-api", choices=("chat", "responses"), default="chat")
    COMMANDS["render"] = cmd_render

    p = sub.add_parser("explain", help="why this variant, and where each section came from")
    add_target(p)
    p.add_argument("--json", action="store_true")
    COMMANDS["explain"] = cmd_explain

    p = sub.add_parser("variants", help="list the registered variants")
    add_sources(p)
    p.add_argument("--json", action="store_true")
    COMMANDS["variants"] = cmd_variants

    p = sub.add_parser("tools", help="the tools a request gets, as text or native JSON")
    add_target(p)
    p.add_argument("--strict", action="store_true")
    p.add_argument("--format", default="text", choices=("text", "openai", "anthropic", "gemini"))
    p.add_argument("--openai-api", choices=("chat", "responses"), default="chat")
    COMMANDS["tools"] = cmd_tools

    p = sub.add_parser("lint", help="check every registered variant before any request")
    add_sources(p)
    p.add_argument("--strict", action="store_true", help="warnings fail too")
    p.add_argument("--json", action="store_true")
    COMMANDS["lint"] = cmd_lint

    p = sub.add_parser("tokens", help="per-section token counts")
    add_target(p)
    p.add_argument("--budget", type=non_negative, metavar="N")
    p.add_argument("--json", action="store_true")
    COMMANDS["tokens"] = cmd_tokens

    p = sub.add_parser("inputs", help="a variant's runtime inputs (as JSON Schema with --json)")
    p.add_argument("--provider")
    p.add_argument("--model")
    p.add_argument("--variant", metavar="ID")
    p.add_argument("--json", action="store_true")
    add_sources(p)
    COMMANDS["inputs"] = cmd_inputs

    from .review import add_review_commands
    add_review_commands(sub, COMMANDS)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except Findings:
        return 1
    except BudgetExceededError as exc:
        sys.stderr.write(f"promptc: budget: {exc}\n")
        return 3
    except UsageError as exc:
        sys.stderr.write(f"promptc: error: {exc}\n")
        return 2
    except NoVariantError as exc:
        sys.stderr.write(f"promptc: error: {exc}\n")
        return 2
    except PromptcError as exc:
        # Load-time problems (files, contexts) are bad input; strict-mode build errors are
        # findings.
        load_time = isinstance(exc, (ConfigError, ContextError)) and exc.diagnostic is None
        sys.stderr.write(f"promptc: error: {exc}\n")
        return 2 if load_time else 1
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if args.debug:
            raise
        sys.stderr.write(f"promptc: internal error: {type(exc).__name__}: {exc} "
                         "(run with --debug for a traceback; please report it)\n")
        return 70

