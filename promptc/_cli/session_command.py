"""`promptc session SCRIPT`: replay a scripted session under its provider's caching rules,
print what each request reads from and writes to the cache and costs, and fail CI gates."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from .._session.replay import replay
from .._session.report import ALIGN, HEADERS, markdown, notes, request_rows, summary
from .._session.result import SessionReport
from .args import Findings, UsageError, add_sources, compiler_from, print_json
from .format import clean, table

__all__ = ["add_session_command", "cmd_session"]

DESCRIPTION = (
    "Replay a session script (TOML: provider, model, context, turn_tokens and one [[request]] "
    "per step, with repeat, new_session, model and any context field) through the compiler "
    "and the provider's prompt-caching rules (Anthropic's explicit markers, OpenAI's automatic "
    "prefix caching, Gemini's implicit caching). For each request: the input tokens read from "
    "the cache, written to it and sent uncached, the cost at the model's prices (from LiteLLM's "
    "map), and where the cached prefix broke and why; then the conversation's own floor (its "
    "cost with a prompt that never changes) and the prompt's share above it. A break inside "
    "the static class (other than at a model switch), a request Anthropic would reject (more "
    "than 4 markers, or a 1-hour marker after a 5-minute one), and the conversation written "
    "again other than at a model switch or an expired cache (each named with its request and "
    "cause) always fail; --max-breaks and --min-cached-share add gates. `promptc help "
    "session` describes the script format and the rules.")
EXAMPLES = ["promptc session benchmarks/sessions/day-anthropic.toml",
            "promptc session day.toml --dynamic system --format markdown",
            "promptc session day.toml --max-breaks 5 --min-cached-share 0.8 --format json"]
CODES = "0 ok · 1 a gate failed · 2 bad usage or a bad script"


def _share(text: str) -> float:
    """0.8, or 80%."""
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a share: {text!r} (0.8 or 80%)") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError("must be between 0 and 1 (or 0% and 100%)")
    return value


def add_session_command(sub: Any, commands: dict[str, Callable[[argparse.Namespace], int]],
                        command: Callable[..., argparse.ArgumentParser]) -> None:
    p = command(sub, "session", "replay a session: cache reads, writes, breaks and cost",
                DESCRIPTION, EXAMPLES, CODES)
    p.add_argument("script", metavar="SCRIPT", help="the session script (.toml)")
    p.add_argument("--format", default="text", choices=("text", "json", "markdown"),
                   help="text: a table and a summary (default); json: every value; "
                        "markdown: for a PR comment")
    p.add_argument("--dynamic", choices=("system", "message"),
                   help="where session and request text goes (default: the script's, else "
                        "the split, message: the static part as the system prompt, the rest "
                        "as a first user message); system: all in the system prompt")
    p.add_argument("--breakpoints", type=int, choices=(0, 1, 2, 3, 4),
                   help="promptc's cache markers for Anthropic (default: the script's, else 4 "
                        "minus the client's markers)")
    p.add_argument("--max-breaks", type=int, metavar="N",
                   help="fail (exit 1) when the cached prefix breaks more than N times")
    p.add_argument("--min-cached-share", type=_share, metavar="X",
                   help="fail (exit 1) when less than X of the input tokens (0.8 or 80%%) are "
                        "read from the cache")
    p.add_argument("--max-rewrites", type=int, metavar="N", default=0,
                   help="allow N requests that write the conversation again other than at a "
                        "model switch or an expired cache (default 0: any fails, exit 1)")
    add_sources(p)
    commands["session"] = cmd_session


def cmd_session(args: argparse.Namespace) -> int:
    if args.max_breaks is not None and args.max_breaks < 0:
        raise UsageError("--max-breaks must be ≥ 0")
    if args.max_rewrites < 0:
        raise UsageError("--max-rewrites must be ≥ 0")
    report = replay(args.script, compiler=compiler_from(args), dynamic=args.dynamic,
                    breakpoints=args.breakpoints, floor=True)
    gates = report.gates(args.max_breaks, args.min_cached_share, args.max_rewrites)
    if args.format == "json":
        print_json(report.to_dict(args.max_breaks, args.min_cached_share, args.max_rewrites))
    elif args.format == "markdown":
        sys.stdout.write(markdown(report, gates))
    else:
        _text(report, gates)
    if not all(g.ok for g in gates):
        raise Findings()
    return 0


def _text(report: SessionReport, gates: Any) -> None:
    out = sys.stdout
    out.write(table(HEADERS, request_rows(report), ALIGN) + "\n\n")
    out.write("".join(f"{clean(line)}\n" for line in summary(report, gates)))
    extra = notes(report)
    if extra:
        out.write("\n" + "".join(f"{clean(n)}\n" for n in extra))
