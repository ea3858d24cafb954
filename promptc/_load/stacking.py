"""Every source stacked into one registry: built-ins, plugins, the user's folder, the project's.

Names resolve once everything is stacked, so a plugin may extend a project's variant or another
plugin's and use their components and tools. A plugin whose data breaks the stack (an unknown
name, a cycle, something promptc cannot use) is skipped with a diagnostic naming it, and the
rest is stacked again without it (lenient, as a plugin that fails to import); a fault of any
other source stops the load with its error.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._base.errors import PromptcError
from .._model.diagnostics import Diagnostic
from .blame import LayerFault
from .folders import Layer
from .plugins import PluginSet, invalid_plugin
from .registry import Registry, build_blamed

__all__ = ["stacked_registry", "PRECEDENCE"]

# What wins when two sources define the same name (later wins), as the docs' table says.
PRECEDENCE = ("builtin", "plugin", "user", "project")


def stacked_registry(lower: Sequence[Layer], plugins: PluginSet | None, upper: Sequence[Layer],
                     user_models: bool = True) -> tuple[Registry, PluginSet | None]:
    """The registry of `lower` (the built-ins), the plugins, then `upper` (user, project), and
    the plugins that stayed in it."""
    kept = plugins
    while True:
        layers = [*lower, *(kept.layers if kept is not None else ()), *upper]
        findings = kept.findings if kept is not None else ()
        try:
            return build_blamed(layers, findings=findings, user_models=user_models), kept
        except LayerFault as fault:
            name = _plugin_at_fault(fault.source, kept)
            if kept is None or name is None:
                raise _noting_skipped(fault.error, kept) from None
            kept = kept.without(name, invalid_plugin(name, fault.error))


def _plugin_at_fault(source: str | None, plugins: PluginSet | None) -> str | None:
    if plugins is None or source is None or not source.startswith("plugin:"):
        return None
    name = source[len("plugin:"):]
    return name if name in plugins.names else None


def _noting_skipped(error: BaseException, plugins: PluginSet | None) -> BaseException:
    """The error, saying which plugins were skipped on the way (a source may have needed
    one of them)."""
    skipped = [d for d in (plugins.diagnostics if plugins is not None else ())
               if d.code == "plugin-invalid"]
    if not skipped or not isinstance(error, PromptcError) or type(error).__init__ is not \
            PromptcError.__init__:
        return error
    names = ", ".join(_name(d) for d in skipped)
    return type(error)(f"{error.message} (skipped as invalid: plugin {names})",
                       source=error.source, line=error.line, field=error.field)


def _name(diagnostic: Diagnostic) -> str:
    return repr(diagnostic.source[len("plugin:"):])
