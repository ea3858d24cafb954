"""promptc: compile system prompts for LLM clients.

    from promptc import Compiler, ProviderInfo, PromptContext
    compiler = Compiler.default()
    prompt = compiler.compile(ProviderInfo(provider="anthropic", model="claude-sonnet-4-5"),
                              PromptContext.load("context.json"))
    prompt.text, prompt.variant.id, prompt.sections, prompt.diagnostics
"""

from ._compiler import Compiler
from ._component import Component
from ._context import (Attachment, McpResource, McpResourceTemplate, McpServer, McpTool,
                       PromptContext, Rule, Skill, WorkspaceRoot)
from ._errors import (BudgetExceededError, ComponentError, ConfigError, ContextError,
                      InputError, MatcherError, NoVariantError, PlaceholderError, PluginError,
                      PromptcError, StrictModeError, TemplateError, ToolSpecError,
                      VariantConfigError)
from ._hookspecs import hookimpl, hookspec
from ._matchers import Matcher
from ._provider import ProviderInfo, normalize_model_id
from ._registry import Registry
from ._result import (Block, CompiledPrompt, Diagnostic, Dropped, Resolution, Section,
                      TraceEntry)
from ._tokens import TokenReport, count_tokens
from ._tools import ToolParameter, ToolSpec
from ._toolset import ToolSet
from ._variant import InputSpec, Variant

__version__ = "0.1.0"

__all__ = [
    "Attachment",
    "Block",
    "BudgetExceededError",
    "CompiledPrompt",
    "Compiler",
    "Component",
    "ComponentError",
    "ConfigError",
    "ContextError",
    "Diagnostic",
    "Dropped",
    "InputError",
    "InputSpec",
    "Matcher",
    "MatcherError",
    "McpResource",
    "McpResourceTemplate",
    "McpServer",
    "McpTool",
    "NoVariantError",
    "PlaceholderError",
    "PluginError",
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
    "ToolParameter",
    "ToolSet",
    "ToolSpec",
    "ToolSpecError",
    "TraceEntry",
    "Variant",
    "VariantConfigError",
    "WorkspaceRoot",
    "count_tokens",
    "hookimpl",
    "hookspec",
    "normalize_model_id",
]
