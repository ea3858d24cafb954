"""The error hierarchy: one base class, each specific error also a matching built-in.

Every error names what is at fault (a file, a field, a component, a plugin) in its message, so a
client can log it as-is and a person can act on it without a traceback.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "PromptcError",
    "ConfigError",
    "VariantConfigError",
    "TemplateError",
    "ContextError",
    "ToolSpecError",
    "NoVariantError",
    "ComponentError",
    "MatcherError",
    "PluginError",
    "PlaceholderError",
    "InputError",
    "BudgetExceededError",
    "StrictModeError",
    "OfflineDataError",
    "MissingExtraError",
    "CacheMarkerError",
    "PLUGIN_FAILURES",
]


class PromptcError(Exception):
    """Base class of every error promptc raises on purpose."""

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.source = source
        self.line = line
        self.field = field
        self.message = message
        self.diagnostic: Any = None  # set when strict mode raised this for a diagnostic
        super().__init__(self._compose())

    def _compose(self) -> str:
        where = ""
        if self.source:
            where = self.source + (f":{self.line}" if self.line else "")
        if self.field:
            where = f"{where} [{self.field}]" if where else f"[{self.field}]"
        return f"{where}: {self.message}" if where else self.message

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.message, self.source, self.line, self.field))


def _rebuild(cls: type[PromptcError], message: str, source: str | None, line: int | None,
             field: str | None) -> PromptcError:
    err = cls.__new__(cls)
    PromptcError.__init__(err, message, source=source, line=line, field=field)
    return err


class ConfigError(PromptcError, ValueError):
    """A data file (variant, component, tool, matrix) is malformed."""


class VariantConfigError(ConfigError):
    """A variant's files are malformed: bad TOML, unknown key, wrong type, bad `extends`."""


class TemplateError(VariantConfigError):
    """A mustache template does not parse or uses a tag promptc refuses (partials, delimiters)."""


class ToolSpecError(ConfigError):
    """A tool spec is malformed or takes a reserved name."""


class ContextError(PromptcError, ValueError):
    """A context file or dict has an unknown or mistyped field."""


class NoVariantError(PromptcError, LookupError):
    """No variant matched the provider/model and there is no fallback, or an id is unknown."""


class ComponentError(PromptcError, RuntimeError):
    """A component raised, returned a non-string, or is missing."""


class MatcherError(PromptcError, RuntimeError):
    """A variant's matcher raised while being tried."""


class PluginError(PromptcError, RuntimeError):
    """A plugin failed to import, its hook raised, or it registered something invalid."""


class PlaceholderError(PromptcError, LookupError):
    """A placeholder has no value, or a value of the wrong kind, or leaked into the output."""


class InputError(PromptcError, ValueError):
    """A runtime input is missing, mistyped, outside its options or undeclared."""


class BudgetExceededError(PromptcError, ValueError):
    """The required sections alone do not fit the token budget."""

    def __init__(self, message: str, *, report: Any = None, source: str | None = None,
                 line: int | None = None, field: str | None = None) -> None:
        self.report = report
        super().__init__(message, source=source, line=line, field=field)


class StrictModeError(PromptcError, RuntimeError):
    """Strict mode turned a diagnostic into an error (when no more specific class applies)."""


class OfflineDataError(PromptcError, RuntimeError):
    """Data promptc reads from an installed package (the tokenizer's BPE files) is missing or
    does not match its pinned checksum."""


# What promptc contains when code it does not own (a plugin's hook, matcher, component or data
# function) fails: any Exception, and a SystemExit or GeneratorExit raised by that code, which
# would otherwise end the client's process with no message (or a traceback). KeyboardInterrupt
# (the user's Ctrl-C) still propagates.
PLUGIN_FAILURES: tuple[type[BaseException], ...] = (Exception, SystemExit, GeneratorExit)


class MissingExtraError(PromptcError, ImportError):
    """An integration's framework is not installed (the message names the extra to install)."""


class CacheMarkerError(PromptcError, ValueError):
    """An Anthropic request would carry more cache markers than the API accepts (4)."""
