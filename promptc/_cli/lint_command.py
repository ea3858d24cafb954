"""`promptc lint`: every registered variant checked before any request."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .args import (COMMANDS, Command, CommandFactory, add_command, add_json, add_sources,
                   compiler_from, print_json, strict_from)
from .format import format_diagnostic, paint

__all__ = ["cmd_lint", "add_lint_command"]


def cmd_lint(args: argparse.Namespace) -> int:
    from .._review.lint import lint
    compiler = compiler_from(args)
    findings = lint(compiler)
    strict = strict_from(args, compiler)
    failing = [f for f in findings if f.level == "error" or (strict and f.level != "info")]
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


def add_lint_command(sub: Any, commands: dict[str, Command] = COMMANDS,
                     command: CommandFactory = add_command) -> None:
    p = command(sub, "lint", "check every registered variant before any request",
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
    commands["lint"] = cmd_lint
