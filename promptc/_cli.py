"""The `promptc` command line.

Exit codes: 0 ok; 1 findings (lint, strict diagnostics, snapshot differences, thresholds);
2 bad usage or bad input (one message on stderr, no traceback); 3 the budget cannot be met.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from ._compiler import Compiler
from ._context import PromptContext
from ._errors import BudgetExceededError, NoVariantError, PromptcError
from ._provider import ProviderInfo
from ._report import format_diagnostic, paint, prompt_to_dict, table

__all__ = ["main"]


class UsageError(Exception):
    """Bad input on the command line (exit 2)."""


class Findings(Exception):
    """The command ran and found problems (exit 1); output was already printed."""


# --- shared options ----------------------------------------------------------------------------

def _add_sources(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("sources")
    g.add_argument("--project", metavar="DIR",
                   help="project folder (.promptc) to layer on top; default: found from the cwd")
    g.add_argument("--no-project", action="store_true", help="ignore any project .promptc/")
    g.add_argument("--no-user", action="store_true", help="ignore the user config folder")
    g.add_argument("--no-plugins", action="store_true", help="do not load installed plugins")
    g.add_argument("--builtins-only", action="store_true",
                   help="only the built-in variants (same as the three --no-… flags)")


def _add_target(p: argparse.ArgumentParser, variant: bool = True) -> None:
    p.add_argument("--provider", help="provider id, e.g. anthropic, openai, openrouter, ollama")
    p.add_argument("--model", help="model id as the provider spells it")
    p.add_argument("--context", metavar="FILE", help="context file (.json or .toml)")
    p.add_argument("--date", help="date for the prompt (YYYY-MM-DD); default: the context's, "
                                  "else today")
    p.add_argument("--cwd", help="override the context's working directory")
    p.add_argument("--mode", choices=("act", "plan"), help="override the context's mode")
    p.add_argument("--set", metavar="NAME=VALUE", action="append", default=[],
                   help="a runtime input value (repeatable)")
    caps = p.add_argument_group("model capabilities (default: inferred from the model id)")
    caps.add_argument("--native-tools", choices=("yes", "no"),
                      help="the client sends tools natively (function calling) or not")
    caps.add_argument("--images", choices=("yes", "no"), help="the model reads images")
    caps.add_argument("--context-window", type=_nonneg, metavar="N")
    caps.add_argument("--family", help="the model family, for deployments with custom names")
    if variant:
        p.add_argument("--variant", metavar="ID", help="use this variant instead of matching")
    _add_sources(p)


def _compiler(args: argparse.Namespace) -> Compiler:
    if getattr(args, "builtins_only", False):
        return Compiler.builtins()
    project: Any = None
    if getattr(args, "no_project", False):
        project = False
    elif getattr(args, "project", None):
        project = args.project
    return Compiler.default(project=project, user=not getattr(args, "no_user", False),
                            plugins=not getattr(args, "no_plugins", False))


def _context(args: argparse.Namespace) -> tuple[ProviderInfo, PromptContext]:
    ctx = PromptContext.load(args.context) if args.context else PromptContext()
    info = ctx.provider
    if args.provider or args.model:
        base = info or ProviderInfo()
        info = attrs.evolve(base, provider=args.provider or base.provider,
                            model=args.model or base.model)
        if info.model != base.model:  # capabilities given for another model no longer apply
            info = ProviderInfo(provider=info.provider, model=info.model)
    if info is None or not info.model:
        raise UsageError("no model: give --provider and --model, or a context file with a "
                         "`provider` table")
    caps: dict[str, Any] = {}
    if getattr(args, "native_tools", None):
        caps["native_tools"] = args.native_tools == "yes"
    if getattr(args, "images", None):
        caps["images"] = args.images == "yes"
    if getattr(args, "context_window", None) is not None:
        caps["context_window"] = args.context_window
    if getattr(args, "family", None):
        caps["family"] = args.family
    if caps:
        info = attrs.evolve(info, **caps)
    changes: dict[str, Any] = {"provider": info}
    if args.date:
        changes["date"] = args.date
    if getattr(args, "cwd", None):
        changes["cwd"] = args.cwd
    if getattr(args, "mode", None):
        changes["mode"] = args.mode
    if args.set:
        runtime = dict(ctx.runtime)
        for item in args.set:
            name, eq, value = item.partition("=")
            if not eq or not name:
                raise UsageError(f"--set expects NAME=VALUE, got {item!r}")
            runtime[name] = _parse_value(value)
        changes["runtime"] = runtime
    try:
        ctx = attrs.evolve(ctx, **changes)
    except PromptcError as exc:
        raise UsageError(f"--{exc.field or 'option'}: {exc.message}") from None
    return info, ctx


def _parse_value(text: str) -> Any:
    """`--set` values: JSON scalars (true, 3, "x") when they parse, else the text itself."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, (bool, int, float, str)) else text


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _print_diagnostics(diags: Sequence[Any]) -> None:
    for d in diags:
        sys.stderr.write("promptc: " + format_diagnostic(d) + "\n")


# --- commands ----------------------------------------------------------------------------------

def cmd_render(args: argparse.Namespace) -> int:
    compiler = _compiler(args)
    info, ctx = _context(args)
    fmt = args.format
    prompt = compiler.compile(info, ctx, strict=args.strict, budget=args.budget,
                              count_tokens=fmt == "json", variant=args.variant)
    if fmt == "text":
        sys.stdout.write(prompt.text + "\n")
    elif fmt == "json":
        _print_json(prompt_to_dict(prompt))
    elif fmt == "anthropic":
        _print_json(prompt.to_anthropic(breakpoints=args.breakpoints))
    elif fmt == "openai":
        _print_json(prompt.to_openai(api=args.openai_api))
    elif fmt == "gemini":
        _print_json(prompt.to_gemini())
    if fmt != "json":
        _print_diagnostics(prompt.diagnostics)
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    compiler = _compiler(args)
    info, ctx = _context(args)
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
        _print_json(data)
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
    _print_diagnostics(prompt.diagnostics)
    return 0


def cmd_variants(args: argparse.Namespace) -> int:
    compiler = _compiler(args)
    reg = compiler.registry
    order = {v.id: i for i, v in enumerate(reg.order)}
    rows = []
    for v in sorted(reg.variants.values(), key=lambda v: (order.get(v.id, 1 << 30), v.id)):
        rows.append({"id": v.id, "family": v.family, "priority": v.priority, "source": v.source,
                     "extends": v.extends, "fallback": v.fallback, "tool_mode": v.tool_mode,
                     "match": v.matcher.description, "path": v.path,
                     "description": v.description})
    if args.json:
        _print_json(rows)
    else:
        sys.stdout.write(table(["id", "family", "priority", "source", "extends", "match"],
                               [[r["id"], r["family"], r["priority"], r["source"],
                                 r["extends"] or "", ("fallback; " if r["fallback"] else "") +
                                 r["match"]] for r in rows], "llrlll") + "\n")
    _print_diagnostics(compiler.load_diagnostics)
    return 0


def cmd_tools(args: argparse.Namespace) -> int:
    compiler = _compiler(args)
    info, ctx = _context(args)
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
        _print_json(tools.openai(api=args.openai_api))
    elif args.format == "anthropic":
        _print_json(tools.anthropic())
    elif args.format == "gemini":
        _print_json(tools.gemini())
    _print_diagnostics(prompt.diagnostics)
    return 0


def cmd_lint(args: argparse.Namespace) -> int:
    from ._lint import lint
    compiler = _compiler(args)
    findings = lint(compiler)
    failing = [f for f in findings if f.level == "error" or (args.strict and f.level != "info")]
    if args.json:
        _print_json([f.to_dict() for f in findings])
    else:
        for f in findings:
            sys.stdout.write(format_diagnostic(f, sys.stdout) + "\n")
        n = len(compiler.registry.variants)
        summary = f"{len(findings)} finding(s) in {n} variant(s)"
        sys.stdout.write((paint(summary, "yellow") if findings else paint("ok: " + summary,
                                                                          "green")) + "\n")
    return 1 if failing else 0


def cmd_tokens(args: argparse.Namespace) -> int:
    from ._budget import token_report
    compiler = _compiler(args)
    info, ctx = _context(args)
    prompt = compiler.compile(info, ctx, variant=args.variant, count_tokens=True,
                              budget=args.budget)
    rep = token_report(prompt)  # counted: count_tokens=True
    if args.json:
        _print_json({"variant": prompt.variant.id, "tokens": rep.to_dict(),
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
    _print_diagnostics(prompt.diagnostics)
    return 0


def cmd_inputs(args: argparse.Namespace) -> int:
    from ._inputs import inputs_schema
    compiler = _compiler(args)
    if args.variant:
        variant = compiler.registry.get(args.variant)
    else:
        if not args.model:
            raise UsageError("give --variant, or --provider and --model")
        variant = compiler.resolve(ProviderInfo(args.provider or "", args.model)).variant
    schema = inputs_schema(variant.id, variant.inputs)
    if args.json:
        _print_json(schema)
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
    _add_target(p)
    p.add_argument("--strict", action="store_true", help="any diagnostic is an error (exit 1)")
    p.add_argument("--budget", type=_nonneg, metavar="N", help="fit the prompt into N tokens")
    p.add_argument("--format", default="text",
                   choices=("text", "json", "anthropic", "openai", "gemini"))
    p.add_argument("--breakpoints", type=int, default=2, choices=(1, 2, 3, 4),
                   help="cache breakpoints for --format anthropic (default 2)")
    p.add_argument("--openai-api", choices=("chat", "responses"), default="chat")
    COMMANDS["render"] = cmd_render

    p = sub.add_parser("explain", help="why this variant, and where each section came from")
    _add_target(p)
    p.add_argument("--json", action="store_true")
    COMMANDS["explain"] = cmd_explain

    p = sub.add_parser("variants", help="list the registered variants")
    _add_sources(p)
    p.add_argument("--json", action="store_true")
    COMMANDS["variants"] = cmd_variants

    p = sub.add_parser("tools", help="the tools a request gets, as text or native JSON")
    _add_target(p)
    p.add_argument("--strict", action="store_true")
    p.add_argument("--format", default="text", choices=("text", "openai", "anthropic", "gemini"))
    p.add_argument("--openai-api", choices=("chat", "responses"), default="chat")
    COMMANDS["tools"] = cmd_tools

    p = sub.add_parser("lint", help="check every registered variant before any request")
    _add_sources(p)
    p.add_argument("--strict", action="store_true", help="warnings fail too")
    p.add_argument("--json", action="store_true")
    COMMANDS["lint"] = cmd_lint

    p = sub.add_parser("tokens", help="per-section token counts")
    _add_target(p)
    p.add_argument("--budget", type=_nonneg, metavar="N")
    p.add_argument("--json", action="store_true")
    COMMANDS["tokens"] = cmd_tokens

    p = sub.add_parser("inputs", help="a variant's runtime inputs (as JSON Schema with --json)")
    p.add_argument("--provider")
    p.add_argument("--model")
    p.add_argument("--variant", metavar="ID")
    p.add_argument("--json", action="store_true")
    _add_sources(p)
    COMMANDS["inputs"] = cmd_inputs

    from ._cli_review import add_review_commands
    add_review_commands(sub, COMMANDS, _add_target, _add_sources)
    return parser


def _nonneg(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError("must be ≥ 0")
    return n


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
        from ._errors import ConfigError, ContextError
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

