"""`promptc diff`: two renders compared section by section (another model, provider, variant,
context, date or cwd), or the working tree's renders against a snapshot folder; with a token
growth gate for CI."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any

import attrs

from .args import (COMMANDS, Command, CommandFactory, UsageError, add_command, add_target,
                   compiler_from, print_json, target_from)
from .format import table
from .review import prefix_note, render_snapshot_text, render_text, signed
from .review_options import (add_review_output, chosen_matrix, emit_review, expected_renders,
                             output_format, snapshot_command, snapshot_folder)

if TYPE_CHECKING:
    from .._compile.compiler import Compiler
    from .._compile.compiled import CompiledPrompt
    from .._model.context import PromptContext
    from .._model.provider import ProviderInfo
    from .._review.diff import CaseReview

__all__ = ["cmd_diff", "add_diff_command", "provider_for"]

_OTHER_SIDE = ("to_provider", "to_model", "to_variant", "to_context", "to_date", "to_cwd")


def cmd_diff(args: argparse.Namespace) -> int:
    from .._review.diff import diff_prompts, review_prompts
    compiler = compiler_from(args)
    other_side = any(getattr(args, name) for name in _OTHER_SIDE)
    if args.snapshots or (not other_side and compiler.project.snapshots is not None):
        return _diff_snapshots(args, compiler)
    if not other_side:
        raise UsageError("diff needs something to compare: --to-model, --to-provider, "
                         "--to-variant, --to-context, --to-date, --to-cwd, or --snapshots DIR")
    a, b = _both_sides(args, compiler)
    review = review_prompts(a, b)
    if output_format(args) == "json":
        print_json(diff_prompts(a, b, review))
    elif not emit_review(args, [review], "promptc diff: " + review.name):
        render_text(sys.stdout, [review], args.lines)
    return _threshold(args, review.tokens_delta)


def _both_sides(args: argparse.Namespace, compiler: Compiler
                ) -> tuple[CompiledPrompt, CompiledPrompt]:
    """The request the options describe, and the same with the --to-… options applied."""
    info, ctx = target_from(args, compiler.features, compiler.default_model)
    info_b, ctx_b = _other_side(args, compiler, info)
    a = compiler.compile(info, ctx, variant=args.variant, count_tokens=True, strict=False)
    b = compiler.compile(info_b, ctx_b, variant=_other_variant(args), count_tokens=True,
                         strict=False)
    return a, b


def _other_side(args: argparse.Namespace, compiler: Compiler, info: ProviderInfo
                ) -> tuple[ProviderInfo, PromptContext]:
    to_args = argparse.Namespace(**vars(args))
    to_args.provider = args.to_provider or (provider_for(args.to_model, info.provider)
                                            if args.to_model else info.provider)
    to_args.model = args.to_model or info.model
    to_args.context = args.to_context or args.context
    info_b, ctx_b = target_from(to_args, compiler.features, compiler.default_model)
    changes = {name: value for name, value in (("date", args.to_date), ("cwd", args.to_cwd))
               if value}
    return info_b, attrs.evolve(ctx_b, **changes) if changes else ctx_b


def _other_variant(args: argparse.Namespace) -> str | None:
    """--to-variant; else the first side's --variant, unless the model or provider changes
    (the other model routes to its own variant)."""
    if args.to_variant:
        return str(args.to_variant)
    return None if args.to_model or args.to_provider else args.variant


def provider_for(model: str, current: str) -> str:
    """The provider for `--to-model` alone: the current one when it is a router or local
    server, else the vendor of the new model's line (UsageError when that is unknown)."""
    from .._model.provider.vendors import shipped_vendors
    vendors = shipped_vendors()
    if not vendors.is_vendor(current):
        return current
    vendor = vendors.vendor_of(model)
    if vendor is None:
        raise UsageError(f"--to-model {model!r}: which provider serves it? add --to-provider "
                         f"(the first side is {current!r})")
    return vendor


def _diff_snapshots(args: argparse.Namespace, compiler: Compiler) -> int:
    from .._review.diff import review_snapshots, snapshot_report
    from .._review.snapshot import load_matrix
    folder = snapshot_folder(args.snapshots, compiler)
    if not folder.is_dir():
        raise UsageError(f"--snapshots {str(folder)!r}: no such folder (write one with "
                         f"`{snapshot_command(args, '--update', folder=str(folder))}`)")
    chosen = chosen_matrix(args, compiler, folder)
    if chosen.why == "recorded" and output_format(args) == "text":
        sys.stderr.write(f"promptc: comparing with {folder} as {chosen.name} renders it (the "
                         "matrix that wrote the folder)\n")
    matrix = load_matrix(chosen.path, compiler)
    cases = review_snapshots(folder, expected_renders(args, compiler, matrix, strict=False))
    growth = max((c.tokens_delta for c in cases if c.status != "same"), default=0)
    if output_format(args) == "json":
        print_json({**snapshot_report(folder, cases), "matrix": chosen.name})
    elif not emit_review(args, cases, f"promptc review: {folder}"):
        _write_snapshot_diff(sys.stdout, cases, args.lines)
    return _threshold(args, growth)


def _write_snapshot_diff(out: IO[str], cases: Sequence[CaseReview], lines: int | None) -> None:
    """A row per changed file, then the changed lines of each changed one."""
    changed = [c for c in cases if c.status != "same"]
    if not changed:
        out.write("no differences\n")
        return
    out.write(table(["case", "status", "before", "after", "delta", "cached prefix",
                     "sections"], [_snapshot_row(c) for c in changed], "llrrrll", max_lines=2)
              + "\n\n")
    render_snapshot_text(out, [c for c in changed if c.status == "changed"], lines)


def _snapshot_row(case: CaseReview) -> list[Any]:
    tokens = ("", "", "") if case.name.endswith(".json") else (
        f"{case.tokens_before:,}", f"{case.tokens_after:,}", signed(case.tokens_delta))
    return [case.name, case.status, *tokens, prefix_note(case),
            ", ".join(s.id for s in case.changes)]


def _threshold(args: argparse.Namespace, growth: int) -> int:
    if args.max_growth_tokens is not None and growth > args.max_growth_tokens:
        sys.stderr.write(f"promptc: prompt grew by {growth} tokens, over the limit of "
                         f"{args.max_growth_tokens}\n")
        return 1
    return 0


def add_diff_command(sub: Any, commands: dict[str, Command] = COMMANDS,
                     command: CommandFactory = add_command) -> None:
    p = command(sub, "diff", "section-aware diff between two renders, or against a snapshot "
                             "folder",
                "Compare two renders section by section (change the model, provider, variant, "
                "context, date or cwd with the --to-… options), or the working tree's "
                "renders with a snapshot folder: per section the changed lines, the token "
                "delta, and whether the cached prefix moved.",
                ["promptc diff --provider anthropic --model claude-sonnet-4-5 "
                 "--to-model claude-opus-4-5",
                 "promptc diff --provider openai --model gpt-4.1 --variant generic "
                 "--to-variant compact",
                 "promptc diff --snapshots snapshots --max-growth-tokens 200 --format html "
                 "> review.html"],
                "0 ok (differences are not failures) · 1 --max-growth-tokens crossed · 2 bad "
                "usage, bad input or a missing folder")
    add_target(p)
    g = p.add_argument_group("the other side (unset: the same as the first)")
    g.add_argument("--to-provider", metavar="P",
                   help="provider id (default with --to-model: the new model's vendor, or "
                        "the same router or local server)")
    g.add_argument("--to-model", metavar="M", help="model id")
    g.add_argument("--to-variant", metavar="ID", help="variant id instead of matching")
    g.add_argument("--to-context", metavar="FILE", help="another context file")
    g.add_argument("--to-date", metavar="YYYY-MM-DD", help="another date")
    g.add_argument("--to-cwd", metavar="DIR", help="another working directory")
    g = p.add_argument_group("against a snapshot folder")
    g.add_argument("--snapshots", metavar="DIR",
                   help="compare the working tree's renders with this snapshot folder "
                        "(default without --to-… options: the project file's `snapshots`)")
    g.add_argument("--matrix", metavar="FILE",
                   help="with --snapshots: the matrix (default: the one that wrote the folder, "
                        "else the project file's `matrix`, else the built-in one)")
    p.add_argument("--max-growth-tokens", type=int, metavar="N",
                   help="exit 1 when a prompt grows by more than N tokens (a CI gate)")
    add_review_output(p)
    commands["diff"] = cmd_diff
