"""Review commands: `snapshot`, `diff` and `new-variant`, registered on the main parser."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from .args import UsageError, add_sources, add_target, compiler_from, target_from
from .format import paint, table

__all__ = ["add_review_commands"]


def cmd_snapshot(args: argparse.Namespace) -> int:
    from .._review.snapshot import check_dir, expected_files, load_matrix, update_dir
    compiler = compiler_from(args)
    matrix = load_matrix(args.matrix, compiler)
    folder = Path(args.dir)
    expected = expected_files(compiler, matrix)
    if args.update:
        diff = update_dir(folder, expected)
        if args.json:
            _json({"updated": True, "added": list(diff.added), "removed": list(diff.removed),
                   "changed": [c[0] for c in diff.changed]})
        else:
            sys.stdout.write(f"{len(expected)} snapshot(s) in {folder}: {len(diff.added)} added, "
                             f"{len(diff.changed)} changed, {len(diff.removed)} removed\n")
        return 0
    diff = check_dir(folder, expected)
    if args.json:
        _json({"clean": diff.clean, "added": list(diff.added), "removed": list(diff.removed),
               "changed": [{"case": n, "sections": list(s), "diff": d}
                           for n, d, s in diff.changed]})
        return 0 if diff.clean else 1
    out = sys.stdout
    for name in diff.added:
        out.write(paint(f"added:   {name}", "green") + " (not in the snapshot folder yet)\n")
    for name in diff.removed:
        out.write(paint(f"removed: {name}", "red") + " (no longer rendered)\n")
    for name, text, sections in diff.changed:
        touched = f" (sections: {', '.join(sections)})" if sections else ""
        out.write(paint(f"changed: {name}", "yellow") + touched + "\n")
        for line in text.splitlines():
            colour = "green" if line.startswith("+") else "red" if line.startswith("-") else None
            out.write((paint(line, colour) if colour else line) + "\n")
    if diff.clean:
        out.write(paint(f"ok: {len(expected)} snapshot(s) match {folder}", "green") + "\n")
        return 0
    out.write(f"{len(diff.added)} added, {len(diff.changed)} changed, {len(diff.removed)} "
              f"removed; run `promptc snapshot --update` to accept\n")
    return 1


def _json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def cmd_diff(args: argparse.Namespace) -> int:
    from .._review.diff import diff_prompts, diff_snapshot_dir
    compiler = compiler_from(args)
    if args.snapshots:
        from .._review.snapshot import load_matrix
        matrix = load_matrix(args.matrix, compiler)
        report = diff_snapshot_dir(compiler, matrix, Path(args.snapshots))
        growth = max((c["tokens_delta"] for c in report["cases"]), default=0)
        if args.json:
            _json(report)
        else:
            rows = [[c["case"], c["status"], c["tokens_before"], c["tokens_after"],
                     _signed(c["tokens_delta"]), ", ".join(c["sections"])]
                    for c in report["cases"] if c["status"] != "same"]
            if rows:
                sys.stdout.write(table(["case", "status", "before", "after", "delta",
                                        "sections"], rows, "llrrrl") + "\n")
            else:
                sys.stdout.write("no differences\n")
        return _threshold(args, growth)
    info, ctx = target_from(args)
    to_args = argparse.Namespace(**vars(args))
    to_args.provider = args.to_provider or args.provider
    to_args.model = args.to_model or args.model
    to_args.context = args.to_context or args.context
    if not (args.to_provider or args.to_model or args.to_context or args.to_variant or
            args.to_date or args.to_cwd):
        raise UsageError("diff needs something to compare: --to-model, --to-provider, "
                         "--to-variant, --to-context, --to-date, --to-cwd, or --snapshots DIR")
    info_b, ctx_b = target_from(to_args)
    changes = {}
    if args.to_date:
        changes["date"] = args.to_date
    if args.to_cwd:
        changes["cwd"] = args.to_cwd
    if changes:
        ctx_b = attrs.evolve(ctx_b, **changes)
    a = compiler.compile(info, ctx, variant=args.variant, count_tokens=True)
    b = compiler.compile(info_b, ctx_b, variant=args.to_variant or (
        args.variant if not (args.to_model or args.to_provider) else None), count_tokens=True)
    report = diff_prompts(a, b)
    if args.json:
        _json(report)
    else:
        out = sys.stdout
        out.write(f"from {report['from']['variant']} ({report['from']['model']}) "
                  f"to {report['to']['variant']} ({report['to']['model']})\n\n")
        rows = [[s["id"], s["status"], s["chars_before"], s["chars_after"],
                 s["tokens_before"], s["tokens_after"], _signed(s["tokens_delta"])]
                for s in report["sections"]]
        rows.append(["total", "", report["chars_before"], report["chars_after"],
                     report["tokens_before"], report["tokens_after"],
                     _signed(report["tokens_delta"])])
        out.write(table(["section", "status", "chars", "→ chars", "tokens", "→ tokens",
                         "delta"], rows, "llrrrrr") + "\n\n")
        prefix = report["static_prefix"]
        out.write("cache-stable prefix: " + (
            paint("unchanged", "green") if not prefix["changed"] else
            paint(f"changed ({prefix['tokens_before']} → {prefix['tokens_after']} tokens)",
                  "yellow")) + "\n")
    return _threshold(args, report["tokens_delta"])


def _threshold(args: argparse.Namespace, growth: int) -> int:
    if args.max_growth_tokens is not None and growth > args.max_growth_tokens:
        sys.stderr.write(f"promptc: prompt grew by {growth} tokens, over the limit of "
                         f"{args.max_growth_tokens}\n")
        return 1
    return 0


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def cmd_new_variant(args: argparse.Namespace) -> int:
    from .._review.scaffold import new_variant
    compiler = compiler_from(args)
    path = new_variant(compiler, args.id, args.base, Path(args.dir) if args.dir else None,
                       force=args.force)
    sys.stdout.write(f"wrote {path}\n")
    sys.stdout.write(f"try: promptc render --variant {args.id} --provider P --model M\n")
    return 0


def add_review_commands(sub: Any, commands: dict[str, Callable[[argparse.Namespace], int]]
                        ) -> None:
    p = sub.add_parser("snapshot", help="render the snapshot matrix; check or update a folder")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="compare with the folder (the default); exit 1 on differences")
    mode.add_argument("--update", action="store_true", help="rewrite the folder")
    p.add_argument("--matrix", metavar="FILE", help="matrix TOML (default: the built-in one)")
    p.add_argument("--dir", default="snapshots", help="snapshot folder (default: snapshots)")
    p.add_argument("--json", action="store_true")
    add_sources(p)
    commands["snapshot"] = cmd_snapshot

    p = sub.add_parser("diff", help="section-aware diff between two renders, or against "
                                    "a snapshot folder")
    add_target(p)
    g = p.add_argument_group("the other side")
    g.add_argument("--to-provider")
    g.add_argument("--to-model")
    g.add_argument("--to-variant", metavar="ID")
    g.add_argument("--to-context", metavar="FILE")
    g.add_argument("--to-date")
    g.add_argument("--to-cwd")
    p.add_argument("--snapshots", metavar="DIR",
                   help="compare the working tree's renders with this snapshot folder")
    p.add_argument("--matrix", metavar="FILE", help="with --snapshots: the matrix")
    p.add_argument("--max-growth-tokens", type=int, metavar="N",
                   help="exit 1 when the prompt grows by more than N tokens")
    p.add_argument("--json", action="store_true")
    commands["diff"] = cmd_diff

    p = sub.add_parser("new-variant", help="scaffold a variant that extends another")
    p.add_argument("id", help="the new variant's id")
    p.add_argument("--from", dest="base", required=True, metavar="BASE",
                   help="the variant to extend")
    p.add_argument("--dir", help="folder to write into (default: the project's .promptc/)")
    p.add_argument("--force", action="store_true", help="overwrite an existing variant.toml")
    add_sources(p)
    commands["new-variant"] = cmd_new_variant
