"""`promptc tokens`: a prompt's tokens per section (with what a budget would change), or with
`--targets` every case of the snapshot matrix against its token targets."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

import attrs

from .._compile.compiled import CompiledPrompt
from .._text.tokens import TokenReport
from .args import (COMMANDS, Command, CommandFactory, UsageError, add_command, add_json,
                   add_target, compiler_from, context_from, non_negative, print_diagnostics,
                   print_json, target_from)
from .budget_report import budget_summary, report_budget
from .format import Styled, clean, table

if TYPE_CHECKING:
    from .._compile.compiler import Compiler
    from .._review.snapshot import Target

__all__ = ["cmd_tokens", "cmd_token_targets", "add_tokens_command"]


def cmd_tokens(args: argparse.Namespace) -> int:
    if args.targets:
        return cmd_token_targets(args)
    if args.all_variants or args.models:
        if not (args.all_variants and args.models):
            raise UsageError("--all-variants and --models go together: every variant for "
                             "each of the models")
        from .catalogue import cmd_token_catalogue
        compiler = compiler_from(args)
        return cmd_token_catalogue(args, compiler, context_from(args, compiler.features))
    compiler = compiler_from(args)
    info, ctx = target_from(args, compiler.features, compiler.default_model)
    prompt = compiler.compile(info, ctx, variant=args.variant, count_tokens=True,
                              budget=args.budget, strict=False)
    rep = _counted(prompt)
    if args.json:
        print_json(_tokens_data(prompt, rep))
        return 0
    sys.stdout.write(table(["section", "cache", "tokens", "chars"], _token_rows(prompt, rep),
                           "llrr") + "\n")
    sys.stdout.write(f"encoding: {rep.encoding}"
                     f"{' (estimate: this family has its own tokenizer)' if rep.estimated else ''}"
                     f"; variant: {clean(prompt.variant.id)}\n")
    report_budget(prompt)
    print_diagnostics(prompt.diagnostics, skip=("budget-",))
    return 0


def _counted(prompt: CompiledPrompt) -> TokenReport:
    if prompt.tokens is None:  # compiled with count_tokens=True: never
        raise RuntimeError("the prompt was not counted")
    return prompt.tokens


def _tokens_data(prompt: CompiledPrompt, rep: TokenReport) -> dict[str, Any]:
    data = {"variant": prompt.variant.id, "tokens": rep.to_dict(),
            "sections": [{"id": s.id, "tokens": s.tokens, "chars": len(s.text),
                          "cache": s.cache} for s in prompt.sections],
            "dropped": [d.to_dict() for d in prompt.dropped]}
    if prompt.dropped:
        data["budget_report"] = budget_summary(prompt)[2]
    return data


def _token_rows(prompt: CompiledPrompt, rep: TokenReport) -> list[list[Any]]:
    """Each section, the text between them, the total, and the native tools beside it."""
    rows: list[list[Any]] = [[s.id, s.cache, s.tokens, len(s.text)] for s in prompt.sections]
    glue = rep.total - sum(s.tokens or 0 for s in prompt.sections)
    rows.append(["(template text and joins)", "", glue,
                 len(prompt.text) - sum(len(s.text) for s in prompt.sections)])
    rows.append(["total", "", rep.total, len(prompt.text)])
    if rep.tools:
        rows.append([f"tools ({rep.tools_format} JSON, sent beside the prompt)", "",
                     rep.tools, ""])
        rows.append(["sent before any message", "", rep.with_tools, ""])
    return rows


# --- the matrix's token targets ----------------------------------------------------------------

@attrs.frozen
class TargetCheck:
    """One matrix case in its full context, counted, against its targets."""

    target: Target
    prompt: CompiledPrompt
    tokens: TokenReport
    static_share: float
    ok: bool

    @property
    def wanted(self) -> str:
        """The targets as shown (`≤ 9,000 · static ≥ 60%`), or `-` when there are none."""
        t = self.target
        return " · ".join(x for x in (
            f"≤ {t.max_tokens:,}" if t.max_tokens is not None else "",
            f"static ≥ {t.min_static_share:.0%}" if t.min_static_share is not None else "")
            if x) or "-"

    def row(self) -> list[Any]:
        rep, wanted = self.tokens, self.wanted
        verdict = "-" if wanted == "-" else Styled("ok", "green") if self.ok else \
            Styled("missed", "red")
        return [self.target.name, self.prompt.tools.mode, rep.total, rep.tools, rep.with_tools,
                f"{self.static_share:.0%}", wanted, verdict]

    def to_dict(self) -> dict[str, Any]:
        t, rep = self.target, self.tokens
        return {"case": t.name, "variant": self.prompt.variant.id,
                "tool_mode": self.prompt.tools.mode, "prompt": rep.total, "tools": rep.tools,
                "together": rep.with_tools, "static_share": round(self.static_share, 4),
                "max_tokens": t.max_tokens, "min_static_share": t.min_static_share,
                "ok": self.ok}


def check_target(compiler: Compiler, t: Target) -> TargetCheck:
    """One case counted in its own full context, strictly (a prompt missing a section, an
    input left out or a component that failed, would be counted short), on the prompt as one
    string (the placement the targets were set for: the session's MCP tools as functions of
    their own, the whole text counted)."""
    prompt = compiler.compile(t.provider, t.context, variant=t.variant, count_tokens=True,
                              strict=True, dynamic="system")
    rep = _counted(prompt)
    static = sum(s.tokens or 0 for s in prompt.sections if s.cache == "static")
    share = static / rep.total if rep.total else 0.0
    ok = (t.max_tokens is None or rep.with_tools <= t.max_tokens) and \
        (t.min_static_share is None or share >= t.min_static_share)
    return TargetCheck(t, prompt, rep, share, ok)


def cmd_token_targets(args: argparse.Namespace) -> int:
    """Every case of the snapshot matrix in its own full context, against its token
    targets."""
    from .._review.snapshot import load_matrix
    compiler = compiler_from(args)
    matrix = load_matrix(args.matrix or compiler.project.matrix, compiler)
    checks = [check_target(compiler, t) for t in matrix.targets]
    if args.json:
        print_json([c.to_dict() for c in checks])
    else:
        sys.stdout.write(table(["case", "tools", "prompt", "tool JSON", "together", "static",
                                "target", ""], [c.row() for c in checks], "llrrrrll") + "\n")
        sys.stdout.write(f"encoding as each model counts; context: each case's full context, "
                         f"rendered strictly ({clean(matrix.path)})\n")
    return 0 if all(c.ok for c in checks) else 1


def add_tokens_command(sub: Any, commands: dict[str, Command] = COMMANDS,
                       command: CommandFactory = add_command) -> None:
    p = command(sub, "tokens", "per-section token counts",
                "Count the prompt's tokens per section (the rows add up to the total), with "
                "the encoding used; with --budget, also what a budget would shorten or drop.",
                ["promptc tokens --provider openai --model gpt-5 --context context.json",
                 "promptc tokens --targets --builtins-only",
                 "promptc tokens --all-variants --models anthropic/claude-sonnet-4-5 "
                 "openai/gpt-4.1 ollama/qwen3:8b"],
                "0 ok · 1 a token target missed (--targets) · 2 bad usage or input · "
                "3 the budget cannot be met")
    add_target(p)
    p.add_argument("--budget", type=non_negative, metavar="N",
                   help="count the prompt as fitted into N tokens (see render --budget)")
    p.add_argument("--targets", action="store_true",
                   help="instead: every case of the snapshot matrix in its own full context "
                        "(`full`, else its first), rendered strictly, prompt and native tool "
                        "JSON, against the case's token targets")
    p.add_argument("--matrix", metavar="FILE",
                   help="with --targets: the matrix file (default: the project file's "
                        "`matrix`, else the built-in one)")
    p.add_argument("--all-variants", action="store_true",
                   help="instead: every variant (with its inputs' example values) for each "
                        "model of --models, counted as one string and as the split for "
                        "caching (system + first message)")
    p.add_argument("--models", nargs="+", metavar="PROVIDER/MODEL",
                   help="with --all-variants: the models to count for")
    p.add_argument("--strict", action="store_true",
                   help="with --all-variants: any warning or error diagnostic fails (exit 1)")
    add_json(p, "variant, tokens, sections, dropped")
    commands["tokens"] = cmd_tokens
