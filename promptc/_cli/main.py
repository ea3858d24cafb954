"""`promptc`: parse the command line, run the command, and turn what went wrong into an exit
code and one line on stderr.

Exit codes: 0 ok; 1 findings (lint, strict diagnostics, snapshot differences, thresholds);
2 bad usage or bad input (one message on stderr, no traceback); 3 the budget cannot be met;
70 an internal error (a bug); 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .._base.errors import (BudgetExceededError, ConfigError, ContextError, NoVariantError,
                            PromptcError)
from .args import COMMANDS, PARSERS, Findings, UsageError
from .budget_report import report_budget_failure
from .commands import build_parser
from .format import bound, clean

__all__ = ["main"]


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
        return report_budget_failure(exc, args)
    except (UsageError, NoVariantError) as exc:
        _fail(str(exc))
        return 2
    except PromptcError as exc:
        return _failed(exc)
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if args.debug:
            raise
        return _internal_error(exc)


def _unrecognized(args: argparse.Namespace, extra: Sequence[str]) -> None:
    """Options the command does not take: its own one-line error, with a did-you-mean."""
    from .._base.suggest import did_you_mean
    command = PARSERS.get(getattr(args, "command", "") or "", PARSERS[""])
    known = [o for a in command._actions for o in a.option_strings]
    hint = did_you_mean(extra[0], known) if extra[0].startswith("-") else ""
    command.error(f"unrecognized arguments: {' '.join(extra)}{hint}")


def _fail(message: str) -> None:
    sys.stderr.write(f"promptc: error: {bound(clean(message))}\n")


def _failed(exc: PromptcError) -> int:
    """Load-time problems (files, contexts) are bad input (2); strict-mode build errors are
    findings (1)."""
    load_time = isinstance(exc, (ConfigError, ContextError)) and exc.diagnostic is None
    _fail(str(exc))
    return 2 if load_time else 1


def _internal_error(exc: Exception) -> int:
    sys.stderr.write(f"promptc: internal error: {type(exc).__name__}: "
                     f"{bound(clean(str(exc)))} "
                     "(run with --debug for a traceback; please report it)\n")
    return 70
