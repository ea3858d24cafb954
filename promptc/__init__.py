"""promptc: compile system prompts for LLM clients.

    from promptc import Compiler, ProviderInfo, PromptContext
    compiler = Compiler.default()
    prompt = compiler.compile(ProviderInfo(provider="anthropic", model="claude-sonnet-4-5"),
                              PromptContext.load("context.json"))
    prompt.text, prompt.variant.id, prompt.sections, prompt.diagnostics

The engine is grouped by pipeline stage, imports running one way only (checked in CI):
`_base` (errors, files, frozen data) → `_text` (templates, clean-up, layouts, tokens) → `_model`
(the typed records) → `_load` (folders, plugins, registry) → `_emit` (cache blocks, native tools,
payloads) → `_compile` (the request pipeline) → `_review` (lint, snapshots, diff) → `_cli`.
"""

from typing import TYPE_CHECKING, Any

from ._base.errors import (BudgetExceededError, CacheMarkerError, ComponentError, ConfigError,
                           ContextError, InputError, MatcherError, MissingExtraError, NoVariantError,
                           OfflineDataError, PlaceholderError, PluginError, PromptcError,
                           StrictModeError, TemplateError, ToolSpecError, VariantConfigError)
from ._compile.compiler import Compiler
from ._compile.outside import fence
from ._compile.compiled import CompiledPrompt, Dropped, Section
from ._emit.blocks import Block
from ._emit.toolset import ToolSet
from ._load.registry import Registry, Resolution, TraceEntry
from ._model.component import Component
from ._model.features import Feature
from ._model.context import (Attachment, McpResource, McpResourceTemplate, McpServer, McpTool,
                             PromptContext, Rule, Skill, WorkspaceRoot)
from ._model.diagnostics import Diagnostic
from ._model.inputs import InputSpec
from ._model.matchers import Matcher
from ._model.provider import ProviderInfo, normalize_model_id
from ._model.tools import ToolParameter, ToolSpec
from ._model.variant import ToolModeChoice, Variant
from ._text.fence import Trusted
from ._text.tokens import TokenReport, count_tokens

if TYPE_CHECKING:
    from pluggy import HookimplMarker, HookspecMarker

    from ._calls.records import (CallError, CallProblem, CallWarning, Notice, OpenCall,
                                 ParsedMessage, Problem, ToolCall)
    from ._calls.call_objects import CallShapeError

    hookimpl: HookimplMarker
    hookspec: HookspecMarker
    __version__: str

__all__ = [
    "Attachment",
    "Block",
    "BudgetExceededError",
    "CacheMarkerError",
    "CallError",
    "CallProblem",
    "CallShapeError",
    "CallWarning",
    "CompiledPrompt",
    "Compiler",
    "Component",
    "ComponentError",
    "ConfigError",
    "ContextError",
    "Diagnostic",
    "Dropped",
    "Feature",
    "InputError",
    "InputSpec",
    "Matcher",
    "MatcherError",
    "McpResource",
    "McpResourceTemplate",
    "McpServer",
    "McpTool",
    "MissingExtraError",
    "NoVariantError",
    "Notice",
    "OfflineDataError",
    "OpenCall",
    "ParsedMessage",
    "PlaceholderError",
    "PluginError",
    "Problem",
    "PromptContext",
    "PromptcError",
    "ProviderInfo",
    "Registry",
    "Resolution",
    "Rule",
    "Section",
    "Skill",
    "StrictModeError",
    "TemplateError",
    "TokenReport",
    "ToolCall",
    "ToolModeChoice",
    "ToolParameter",
    "ToolSet",
    "ToolSpec",
    "ToolSpecError",
    "TraceEntry",
    "Trusted",
    "Variant",
    "VariantConfigError",
    "WorkspaceRoot",
    "__version__",
    "count_tokens",
    "fence",
    "hookimpl",
    "hookspec",
    "normalize_model_id",
]


# The records of calls coming back: loaded with the call checker, on first use.
_CALL_NAMES = {"CallError": "records", "CallProblem": "records", "CallWarning": "records",
               "Notice": "records", "OpenCall": "records", "ParsedMessage": "records",
               "Problem": "records", "ToolCall": "records", "CallShapeError": "call_objects"}


def __getattr__(name: str) -> Any:
    """Names that cost an import are loaded on first use: pluggy's markers (a plugin needs
    them, a client rendering prompts does not), the records of calls coming back, and the
    version (from package metadata)."""
    if name in _CALL_NAMES:
        import importlib
        return getattr(importlib.import_module(f"._calls.{_CALL_NAMES[name]}", __name__), name)
    if name in ("hookimpl", "hookspec"):
        from ._load import hookspecs
        return getattr(hookspecs, name)
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version
        try:
            return version("promptc")
        except PackageNotFoundError:  # running from a source tree that was never installed
            return "0+unknown"
    raise AttributeError(f"module 'promptc' has no attribute {name!r}")
