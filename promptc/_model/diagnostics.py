"""Diagnostics: what a load or a build noticed, and the strict-mode policy that raises on them.

A leaf: it imports only the error classes, and every stage reports through it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

import attrs

from .._base.errors import (ComponentError, ConfigError, ContextError, InputError, MatcherError,
                            PlaceholderError, PluginError, PromptcError, StrictModeError,
                            ToolSpecError)

__all__ = ["Diagnostic", "Reporter", "Level", "ERRORS", "first_failure"]

Level = Literal["error", "warning", "info"]

# Which typed error strict mode raises for a diagnostic code (else StrictModeError).
ERRORS: dict[str, type[PromptcError]] = {
    "component-raised": ComponentError, "component-not-text": ComponentError,
    "component-missing": ComponentError, "component-not-in-template": ComponentError,
    "component-not-in-order": ComponentError,
    "placeholder-unknown": PlaceholderError, "placeholder-not-text": PlaceholderError,
    "matcher-raised": MatcherError, "plugin-import": PluginError, "plugin-hook": PluginError,
    "plugin-invalid": PluginError, "plugin-finding": PluginError,
    "tool-condition-raised": ToolSpecError, "mcp-renamed": ToolSpecError,
    "input-missing": InputError, "input-invalid": InputError, "input-undeclared": InputError,
    "feature-unknown": ContextError, "family-conflict": ConfigError,
}


@attrs.frozen
class Diagnostic:
    """Something a build or load noticed. `source` names the component, plugin, file or input."""

    level: Level
    code: str
    message: str
    source: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"level": self.level, "code": self.code, "message": self.message,
                "source": self.source}

    def error(self) -> PromptcError:
        """The typed error strict mode raises for this diagnostic."""
        err = ERRORS.get(self.code, StrictModeError)(self.message, source=self.source or None)
        err.diagnostic = self
        return err


class Reporter:
    """Collects diagnostics; in strict mode a warning or error raises its typed error."""

    __slots__ = ("strict", "items")

    def __init__(self, strict: bool, items: Iterable[Diagnostic] = ()) -> None:
        self.strict = strict
        self.items: list[Diagnostic] = list(items)

    def __call__(self, level: Level, code: str, message: str, source: str = "") -> None:
        self.add(Diagnostic(level, code, message, source))

    def add(self, diagnostic: Diagnostic) -> None:
        if self.strict and diagnostic.level != "info":
            raise diagnostic.error()
        self.items.append(diagnostic)

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        for d in diagnostics:
            self.add(d)

    def __len__(self) -> int:
        return len(self.items)


def first_failure(diagnostics: Iterable[Diagnostic]) -> Any:
    """The first diagnostic strict mode refuses (a warning or an error), or None."""
    return next((d for d in diagnostics if d.level != "info"), None)
