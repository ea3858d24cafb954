"""Plugins in process: stand-in entry points for `load_plugins`, so a test can register hooks
without installing a package (tests/test_plugins.py installs real ones)."""

from __future__ import annotations

from typing import Any


class StandInEntryPoint:
    """What load_plugins needs of an importlib.metadata.EntryPoint."""

    def __init__(self, name: str, plugin: Any) -> None:
        self.name = name
        self.plugin = plugin

    def load(self) -> Any:
        return self.plugin


def plugin_module(**hooks: Any) -> Any:
    import types

    from promptc import hookimpl
    module = types.ModuleType("stand_in_plugin")
    for name, function in hooks.items():
        function.__name__ = name
        setattr(module, name, hookimpl(function))
    return module


def compiler_with(**plugins: Any) -> Any:
    from promptc import Compiler
    from promptc._load.folders import read_layer
    from promptc._load.plugins import load_plugins
    from promptc._load.registry import build_registry
    from promptc._load.sources import builtin_root
    builtin = read_layer(builtin_root(), "builtin")
    found = load_plugins([StandInEntryPoint(n, p) for n, p in plugins.items()],
                         validate=lambda layer: build_registry([builtin, layer]))
    return Compiler(build_registry([builtin, *found.layers]), plugins=found)
