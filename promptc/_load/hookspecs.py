"""The plugin interface (pluggy project and entry-point group: `promptc`).

A plugin is a module (or object) named by an entry point in the `promptc` group, with functions
marked `@promptc.hookimpl` whose names are the hooks below. Every hook is optional. Registration
hooks run once, when a Compiler loads; the two request hooks run on every build, and only when some
plugin implements them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from .._model.component import Component
    from .._model.context import PromptContext
    from .._model.provider import ProviderInfo

__all__ = ["hookspec", "hookimpl", "PromptcSpec", "PROJECT"]

PROJECT = "promptc"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


class PromptcSpec:
    """The hooks a promptc plugin may implement.

    pluggy reads only the names and signatures here and never runs the bodies (those whose
    return type excludes None raise NotImplementedError, so a type checker accepts them).
    """

    @hookspec
    def promptc_template_folders(self) -> Sequence[str | Path]:
        """Folders laid out like the built-ins (`variants/<id>/…`, `components/…`).

        The simplest plugin: ship a folder of data inside the package and return its path.
        """
        raise NotImplementedError

    @hookspec
    def promptc_variants(self) -> Sequence[Mapping[str, Any]]:
        """Variants defined in Python: a variant.toml-like table plus `template_text`,
        optional `component_texts` ({component id: text}) and an optional `matcher` callable
        `(ProviderInfo) -> bool | (bool, reason)` used instead of a `match` table."""
        raise NotImplementedError

    @hookspec
    def promptc_components(self) -> Sequence[Component]:
        """Components (a `promptc.Component` with a template or a function)."""
        raise NotImplementedError

    @hookspec
    def promptc_tools(self) -> Sequence[Mapping[str, Any]]:
        """Tool specs, as tables shaped like `components/tools/<name>.toml`. A name taken by a
        built-in tool is rejected unless the table says `override = true`."""
        raise NotImplementedError

    @hookspec
    def promptc_features(self) -> Sequence[Any]:
        """Feature switches the plugin's code reads (`promptc.Feature(name, description)`),
        so a context may set them. A tool's `[when] feature = …` or a component's
        `reads=("features.<name>",)` declares its feature already; this hook adds a
        description, or a feature only a request hook reads."""
        raise NotImplementedError

    @hookspec
    def promptc_contribute_context(self, context: PromptContext, provider: ProviderInfo
                                   ) -> Mapping[str, Any] | None:
        """Per request: values for context fields the client left empty (e.g. `os`, `shell`).

        Only empty fields are filled; what the client gave always wins.
        """

    @hookspec
    def promptc_inspect_prompt(self, prompt: Any) -> Sequence[str] | None:
        """Per request, after the build: look at the prompt (a `promptc.CompiledPrompt`); return
        warnings to add to its diagnostics (e.g. a policy check)."""
