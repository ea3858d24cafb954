"""The public surface: `__all__` of `promptc` and of each public module (`promptc.testing`,
`promptc.session`, `promptc.integrations` and its modules) names every public name once, each
real and listed in docs/api.md; public signatures say what they take; the wheel ships
`py.typed`, so type checkers read all of it.

A public module is one without a leading underscore; new ones are found, not listed here.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import promptc
import promptc.integrations
from promptc import ProviderInfo

ROOT = Path(__file__).resolve().parent.parent
API_PAGE = ROOT / "docs" / "api.md"


def _public_submodules(package: ModuleType) -> list[str]:
    return [f"{package.__name__}.{m.name}" for m in pkgutil.iter_modules(package.__path__)
            if not m.name.startswith("_")]


PUBLIC_MODULES = ["promptc", *_public_submodules(promptc),
                  *_public_submodules(promptc.integrations)]
# Modules whose job is to re-export names defined in the underscore modules behind them.
FACADES = {"promptc", "promptc.session", "promptc.integrations"}


def module(name: str) -> ModuleType:
    return importlib.import_module(name)


def exported(name: str) -> list[tuple[str, Any]]:
    mod = module(name)
    return [(n, getattr(mod, n)) for n in mod.__all__]


def test_every_public_module_is_covered() -> None:
    assert {"promptc.testing", "promptc.session", "promptc.integrations.litellm",
            "promptc.integrations.llm"} <= set(PUBLIC_MODULES)
    assert "promptc.__main__" not in PUBLIC_MODULES


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_every_exported_name_is_real_and_listed_once(name: str) -> None:
    names = module(name).__all__
    assert all(isinstance(n, str) for n in names)
    assert len(names) == len(set(names)), [n for n in names if names.count(n) > 1]
    dead = [n for n, value in exported(name) if value is None]
    assert not dead, f"{name} exports names that are always None: {dead}"


def _defined_in(obj: Any, name: str) -> bool:
    """obj is promptc's own class or function, made in module `name` (or, for a facade,
    anywhere in promptc)."""
    if not (inspect.isclass(obj) or inspect.isfunction(obj)):
        return False
    where = getattr(obj, "__module__", "") or ""
    return where.startswith("promptc") if name in FACADES else where == name


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_nothing_public_is_left_out_of_all(name: str) -> None:
    """A class or function a module makes public is in its `__all__`. Not counted: pytest's
    hooks in promptc.testing (the plugin's, not an API), and an old name kept importing for a
    function `__all__` lists under its current one."""
    mod = module(name)
    missing = []
    for attr, obj in vars(mod).items():
        if attr.startswith("_") or attr in mod.__all__ or not _defined_in(obj, name):
            continue
        if attr.startswith("pytest_") and name == "promptc.testing":
            continue
        if getattr(obj, "__name__", attr) != attr and obj.__name__ in mod.__all__:
            continue  # an alias of an exported function
        missing.append(attr)
    assert not missing, f"public in {name} but not in its __all__: {missing}"


def api_page_names() -> dict[str, set[str]]:
    """{module: the names in the first column of its tables} from docs/api.md."""
    out: dict[str, set[str]] = {}
    for part in re.split(r"(?m)^## ", API_PAGE.read_text(encoding="utf-8"))[1:]:
        heading, _, body = part.partition("\n")
        names = out.setdefault(heading.strip().strip("`"), set())
        for row in re.findall(r"(?m)^\| (`[^|]*`) \|", body):
            names.update(re.findall(r"`([^`]+)`", row))
    return out


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_every_exported_name_is_documented(name: str) -> None:
    listed = api_page_names().get(name)
    assert listed is not None, f"docs/api.md has no section for {name}"
    exports = set(module(name).__all__)
    assert not exports - listed, f"exported by {name}, missing from docs/api.md: " \
                                 f"{sorted(exports - listed)}"
    assert not listed - exports, f"in docs/api.md under {name}, not exported: " \
                                 f"{sorted(listed - exports)}"


def own_methods(cls: type) -> Iterator[tuple[str, Callable[..., Any]]]:
    """(name, function) of the public methods (and `__init__`) a class defines itself.
    A Protocol's `__init__` is typing's, not the class's."""
    protocol = getattr(cls, "_is_protocol", False)
    for name, value in vars(cls).items():
        if name.startswith("_") and (name != "__init__" or protocol):
            continue
        function = value.__func__ if isinstance(value, (classmethod, staticmethod)) else value
        if inspect.isfunction(function):
            yield name, function


def public_callables() -> Iterator[tuple[str, Callable[..., Any]]]:
    """(qualified name, callable): every exported function, and every method an exported
    class defines itself; each object once, under its first exported name."""
    seen: set[int] = set()
    for name in PUBLIC_MODULES:
        for attr, obj in exported(name):
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if inspect.isclass(obj):
                yield from ((f"{name}.{attr}.{m}", f) for m, f in own_methods(obj))
            elif callable(obj):
                yield f"{name}.{attr}", obj


def test_public_callables_are_found() -> None:
    found = dict(public_callables())
    assert {"promptc.Compiler.compile", "promptc.CompiledPrompt.to_anthropic",
            "promptc.ToolSet.decode", "promptc.session.replay",
            "promptc.integrations.litellm.completion_kwargs"} <= set(found)


# `**kwargs` that are the point: field changes checked by PromptContext.from_dict, and
# arguments handed on to a framework's own class.
FORWARDING = {
    "promptc.testing.make_context": "context fields, checked as a context file's",
    "promptc.integrations.openai_agents.make_agent": "the rest of agents.Agent's arguments",
}


def test_public_signatures_spell_out_their_keywords() -> None:
    hidden = [f"{where}(**{p.name})" for where, fn in public_callables()
              for p in inspect.signature(fn).parameters.values()
              if p.kind is p.VAR_KEYWORD and where not in FORWARDING]
    assert not hidden, f"keyword arguments hidden behind **kwargs: {hidden}"


# `bool | None` where None is a third answer, not a second False: the capabilities a
# ProviderInfo leaves to the model data, and a matcher that neither matched nor failed to.
CAPABILITIES = ("native_tools", "parallel_tools", "images", "prompt_caching", "estimated",
                "reasoning", "responses_only", "cache_tools")
TRI_STATE = {**{f"promptc.ProviderInfo.__init__.{field}": "from the model data"
                for field in CAPABILITIES},
             "promptc.TraceEntry.__init__.matched": "the matcher raised",
             "promptc.Compiler.default.user": "as the project file says (default: on)",
             "promptc.Compiler.default.builtins": "as the project file says (default: on)",
             "promptc.Compiler.compile.strict": "as the project file says (default: lenient)"}


def test_no_boolean_has_two_ways_to_say_no() -> None:
    found = {f"{where}.{p.name}" for where, fn in public_callables()
             for p in inspect.signature(fn).parameters.values()
             if re.fullmatch(r"bool \| None|None \| bool|Optional\[bool\]", str(p.annotation))}
    assert found == set(TRI_STATE)


@pytest.mark.parametrize("field", CAPABILITIES)
def test_an_unknown_capability_is_not_a_no(field: str) -> None:
    """None means "from the model data": for some model that is True, so None is not False."""
    models = [("anthropic", "claude-sonnet-4-5"), ("acme", "a-model-nobody-knows"),
              ("openai", "gpt-5-codex")]
    assert any(getattr(ProviderInfo(*m).resolved(), field) is True for m in models)
    assert getattr(ProviderInfo(*models[0], **{field: False}).resolved(), field) is False


def test_one_name_one_meaning() -> None:
    """A function name exported by several public modules means one thing: it is the same
    object, or (an integration's job, like `tools` or `answer_calls`) it takes the same
    parameters in every module."""
    by_name: dict[str, dict[int, tuple[str, Any]]] = {}
    for name in PUBLIC_MODULES:
        for attr, obj in exported(name):
            by_name.setdefault(attr, {})[id(obj)] = (name, obj)
    for attr, objects in by_name.items():
        if len(objects) < 2:
            continue
        shapes = {name: list(inspect.signature(obj).parameters) if inspect.isfunction(obj)
                  else repr(obj) for name, obj in objects.values()}
        assert len({repr(s) for s in shapes.values()}) == 1, (attr, shapes)


def test_compile_counts_tokens_only_when_asked(builtins: promptc.Compiler) -> None:
    info = ProviderInfo("openai", "gpt-5")
    context = promptc.PromptContext(date="2026-01-01")
    assert builtins.compile(info, context).tokens is None
    assert builtins.compile(info, context, count_tokens=True).tokens is not None


def test_the_wheel_ships_py_typed(tmp_path: Path) -> None:
    from hatchling.builders.wheel import WheelBuilder
    [wheel] = WheelBuilder(str(ROOT)).build(directory=str(tmp_path), versions=["standard"])
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "promptc/py.typed" in names
    # `promptc init` writes each starting point's files from package data
    from promptc._review.project_init import STARTERS
    package = ROOT / "promptc"
    for folder in STARTERS.values():
        files = [p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
        assert len(files) > 5, folder
        for path in files:
            assert f"promptc/{path.relative_to(package).as_posix()}" in names, path
    # and `new-variant --from` its variant.toml
    from promptc._review.scaffold import SCAFFOLD_TOML
    assert SCAFFOLD_TOML.is_file()
    assert f"promptc/{SCAFFOLD_TOML.relative_to(ROOT / 'promptc').as_posix()}" in names
    for name in PUBLIC_MODULES:
        path = name.replace(".", "/")
        assert f"{path}.py" in names or f"{path}/__init__.py" in names, name
