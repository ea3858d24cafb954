"""The `promptc` command line's parser: the top level, then each command from its own
module's `add_…_command`, in the order `promptc --help` lists them."""

from __future__ import annotations

import argparse
import functools

from .args import COMMANDS, PARSERS, DOCS, Parser, VersionAction, add_command, epilog
from .authoring import add_init_command, add_inputs_command, add_new_variant_command
from .diff_command import add_diff_command
from .explain import add_explain_command, add_variants_command
from .help import TOPICS, add_help_command
from .lint_command import add_lint_command
from .models import add_models_command
from .render import TARGET, add_parse_command, add_render_command, add_tools_command
from .serve import add_serve_command
from .session_command import add_session_command
from .snapshot_command import add_snapshot_command
from .tokens_command import add_tokens_command

__all__ = ["build_parser", "ALL_CODES"]

ALL_CODES = ("0 ok · 1 findings (lint, --strict, snapshot differences, thresholds) · "
             "2 bad usage or input · 3 the budget cannot be met")

_IN_ORDER = (add_render_command, add_explain_command, add_variants_command, add_tools_command,
             add_parse_command, add_lint_command, add_tokens_command, add_inputs_command,
             add_snapshot_command, add_diff_command, add_new_variant_command, add_init_command,
             add_models_command, add_session_command, add_serve_command, add_help_command)


@functools.cache
def build_parser() -> argparse.ArgumentParser:
    """The whole parser; each command's function lands in COMMANDS, its parser in PARSERS.
    Built once per process: it depends on nothing but this code (no environment, no working
    directory), argparse never changes a parser while parsing, and building its sixteen
    commands costs milliseconds that a process calling `main` again (a test, a script) would
    pay every time."""
    parser = _top_level()
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=Parser,
                                help="one of these (promptc help COMMAND for its options)")
    for add in _IN_ORDER:
        add(sub, COMMANDS, add_command)
    return parser


def _top_level() -> argparse.ArgumentParser:
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
    parser.add_argument("-V", "--version", action=VersionAction, help="print the version and exit")
    parser.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    return parser
