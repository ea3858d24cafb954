"""promptc's own errors as JSON-RPC errors: one code per error class in -32000…-32099, and
`data` with what the command line prints about it."""

from __future__ import annotations

from typing import Any

from .._base.errors import (BudgetExceededError, ComponentError, ConfigError, ContextError,
                            InputError, MatcherError, NoVariantError, OfflineDataError,
                            PlaceholderError, PluginError, PromptcError, StrictModeError)
from .._calls.call_objects import CallShapeError
from .jsonrpc import RpcError

__all__ = ["ERROR_CODES", "rpc_error"]

# The most specific class in an error's MRO decides its code; a class not listed here (a new
# one, or a subclass such as TemplateError of ConfigError) answers with its nearest listed base,
# and `data.type` still names it exactly.
ERROR_CODES: dict[type[PromptcError], int] = {
    PromptcError: -32000,
    ContextError: -32001,
    NoVariantError: -32002,
    BudgetExceededError: -32003,
    StrictModeError: -32004,
    InputError: -32005,
    PlaceholderError: -32006,
    ComponentError: -32007,
    ConfigError: -32008,
    PluginError: -32009,
    MatcherError: -32010,
    OfflineDataError: -32011,
    CallShapeError: -32012,
}


def _code(exc: PromptcError) -> int:
    for cls in type(exc).__mro__:
        if cls in ERROR_CODES:
            return ERROR_CODES[cls]
    return ERROR_CODES[PromptcError]


def _budget_data(exc: BudgetExceededError) -> dict[str, Any]:
    from .budget_report import budget_failure
    sentence, rows = budget_failure(exc)
    report = exc.report if isinstance(exc.report, dict) else {}
    return {"message": sentence, "budget": report.get("budget"), "tokens": report.get("total"),
            "sections": rows}


def rpc_error(exc: PromptcError) -> RpcError:
    """The answer for a promptc error: `data` {type, message, field, source, line} (message as
    the CLI prints it after `promptc: error: `), with `diagnostic` when strict mode raised it
    for one, and the budget report (`budget`, `tokens`, `sections`) for a budget."""
    data: dict[str, Any] = {"type": type(exc).__name__, "message": str(exc),
                            "field": exc.field, "source": exc.source, "line": exc.line}
    if exc.diagnostic is not None:
        data["diagnostic"] = exc.diagnostic.to_dict()
    if isinstance(exc, BudgetExceededError):
        data.update(_budget_data(exc))
    return RpcError(_code(exc), data["message"], data)
