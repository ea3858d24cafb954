"""Fault injection: a raising matcher, component, tool condition or plugin hook, a component that
returns a non-string, a variant naming a missing component.

Lenient: a prompt is still produced and one diagnostic names the culprit. Strict: a typed error
(a PromptcError that also subclasses the right built-in). Through the CLI: lenient exit 0 with the
diagnostic on stderr, `--strict` exit 1 with one line, never a traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import attrs
import pytest

import promptc
from promptc import (Compiler, Component, ComponentError, MatcherError, PlaceholderError,
                     PluginError, PromptContext, PromptcError, ProviderInfo, ToolSpec,
                     ToolSpecError)
from promptc._cli import main
from promptc._model.conditions import Condition
from promptc._load.folders import Layer, read_layer
from promptc._load.plugins import PluginSet
from promptc._load.registry import PluginVariant, build_registry, plugin_raw_variant
from promptc._load.sources import builtin_root

CLAUDE = ProviderInfo("anthropic", "claude-sonnet-4-5")
GPT = ProviderInfo("openai", "gpt-4o", native_tools=False)  # -> generic, text tools
CTX = PromptContext(cwd="/w", os="Linux", date="2026-01-01")
BUILTIN = read_layer(builtin_root(), "builtin")
PLUGIN = "plugin:acme"


class Kaput(Exception):
    pass


def kaput(*_args: Any, **_kwargs: Any) -> Any:
    raise Kaput("kaput")


def bail(*_args: Any, **_kwargs: Any) -> Any:
    """Plugin code that calls sys.exit(): it must not end the client's process."""
    sys.exit(3)


def compiler(*, variants: Iterable[PluginVariant] = (), functions: Iterable[Component] = (),
             tools: Iterable[ToolSpec] = (), context_hooks: Iterable[Callable[..., Any]] = (),
             inspect_hooks: Iterable[Callable[..., Any]] = ()) -> Compiler:
    """The built-ins plus one plugin, `acme`, registered in Python (no package installed)."""
    raws = [plugin_raw_variant(pv, PLUGIN) for pv in variants]
    layer = Layer(source=PLUGIN, root="", variants={r.id: r for r in raws},
                  functions={c.id: attrs.evolve(c, source=PLUGIN) for c in functions},
                  tools={t.name: t for t in tools})
    plugins = PluginSet((layer,), (), (), ("acme",),
                        tuple(("acme", h) for h in context_hooks),
                        tuple(("acme", h) for h in inspect_hooks))
    return Compiler(build_registry([BUILTIN, layer]), plugins=plugins)


def acme_variant(**table: Any) -> PluginVariant:
    """A plugin variant tried before every built-in, for every model."""
    template = table.pop("template_text", None)
    matcher = table.pop("matcher", lambda info: True)
    return PluginVariant({"id": "acme", "extends": "generic", "priority": 1, **table},
                         template=template, matcher=matcher)


def raising_tool() -> ToolSpec:
    return ToolSpec(name="acme_tool", description="A plugin tool.",
                    when=Condition(kaput, "a plugin condition", frozenset()), source=PLUGIN)


# Each fault: how to build it, the provider, the diagnostic code and source it must produce, the
# error strict mode raises and the built-in that error must also be, and a check on the prompt.
FAULTS: dict[str, dict[str, Any]] = {
    "matcher-raises": dict(
        build=lambda: compiler(variants=[acme_variant(matcher=kaput)]),
        provider=CLAUDE, code="matcher-raised", source="acme", error=MatcherError,
        builtin=RuntimeError,
        check=lambda p: p.variant.id == "native-next-gen" and
        any(t.variant == "acme" and t.matched is None for t in p.trace)),
    "component-raises": dict(
        build=lambda: compiler(functions=[Component("objective", function=kaput, reads=())]),
        provider=GPT, code="component-raised", source="objective", error=ComponentError,
        builtin=RuntimeError,
        check=lambda p: p.section("objective") is None and p.section("agent_role") is not None),
    "component-data-raises": dict(
        build=lambda: compiler(functions=[Component(
            "objective", template="# Objective\n{{#steps}}- {{.}}\n{{/steps}}", data=kaput,
            reads=())]),
        provider=GPT, code="component-raised", source="objective", error=ComponentError,
        builtin=RuntimeError, check=lambda p: p.section("objective") is None),
    "component-not-text": dict(
        build=lambda: compiler(functions=[Component("objective", function=lambda v, c: 42,
                                                     reads=())]),
        provider=GPT, code="component-not-text", source="objective", error=ComponentError,
        builtin=RuntimeError, check=lambda p: p.section("objective") is None),
    "component-data-not-a-table": dict(
        build=lambda: compiler(functions=[Component(
            "objective", template="# Objective\n", data=lambda v, c: ["no"], reads=())]),
        provider=GPT, code="component-raised", source="objective", error=ComponentError,
        builtin=RuntimeError, check=lambda p: p.section("objective") is None),
    "tool-condition-raises": dict(
        build=lambda: compiler(
            variants=[acme_variant(tools=["read_file", "acme_tool", "attempt_completion"])],
            tools=[raising_tool()]),
        provider=GPT, code="tool-condition-raised", source="acme_tool", error=ToolSpecError,
        builtin=ValueError,
        # only that tool is dropped: the text catalogue still lists the others
        check=lambda p: p.tools.names == ("read_file", "attempt_completion") and
        "## read_file" in p.section("tools").text and "acme_tool" not in p.text),
    "tool-condition-raises-native": dict(
        build=lambda: compiler(
            variants=[acme_variant(tools=["read_file", "acme_tool"], tool_mode="native")],
            tools=[raising_tool()]),
        provider=CLAUDE, code="tool-condition-raised", source="acme_tool", error=ToolSpecError,
        builtin=ValueError,
        check=lambda p: [t["name"] for t in p.tools.anthropic()] == ["read_file"]),
    "context-hook-raises": dict(
        build=lambda: compiler(context_hooks=[kaput]),
        provider=GPT, code="plugin-hook", source=PLUGIN, error=PluginError,
        builtin=RuntimeError, check=lambda p: "/w" in p.text),
    "context-hook-returns-unknown-field": dict(
        build=lambda: compiler(context_hooks=[lambda context, provider: {"cwdd": "/x"}]),
        provider=GPT, code="plugin-hook", source=PLUGIN, error=PluginError,
        builtin=RuntimeError, check=lambda p: "/w" in p.text and "/x" not in p.text),
    "inspect-hook-raises": dict(
        build=lambda: compiler(inspect_hooks=[kaput]),
        provider=GPT, code="plugin-hook", source=PLUGIN, error=PluginError,
        builtin=RuntimeError, check=lambda p: p.section("agent_role") is not None),
    "inspect-hook-raises-a-promptc-error": dict(
        build=lambda: compiler(inspect_hooks=[
            lambda prompt: PromptContext.from_dict({"cwd": 3})]),
        provider=GPT, code="plugin-hook", source=PLUGIN, error=PluginError,
        builtin=RuntimeError, check=lambda p: p.section("agent_role") is not None),
    "matcher-exits": dict(
        build=lambda: compiler(variants=[acme_variant(matcher=bail)]),
        provider=CLAUDE, code="matcher-raised", source="acme", error=MatcherError,
        builtin=RuntimeError, check=lambda p: p.variant.id == "native-next-gen"),
    "component-exits": dict(
        build=lambda: compiler(functions=[Component("objective", function=bail, reads=())]),
        provider=GPT, code="component-raised", source="objective", error=ComponentError,
        builtin=RuntimeError,
        check=lambda p: p.section("objective") is None and p.section("agent_role") is not None),
    "component-data-exits": dict(
        build=lambda: compiler(functions=[Component(
            "objective", template="# Objective\n{{x}}\n", data=bail, reads=("cwd",))]),
        provider=GPT, code="component-raised", source="objective", error=ComponentError,
        builtin=RuntimeError, check=lambda p: p.section("objective") is None),
    "context-hook-exits": dict(
        build=lambda: compiler(context_hooks=[bail]),
        provider=GPT, code="plugin-hook", source=PLUGIN, error=PluginError,
        builtin=RuntimeError, check=lambda p: "/w" in p.text),
    "inspect-hook-exits": dict(
        build=lambda: compiler(inspect_hooks=[bail]),
        provider=GPT, code="plugin-hook", source=PLUGIN, error=PluginError,
        builtin=RuntimeError, check=lambda p: p.section("agent_role") is not None),
    "variant-lists-a-missing-component": dict(
        build=lambda: compiler(variants=[acme_variant(
            components=["agent_role", "acme_ghost", "objective"],
            template_text="{{agent_role}}\n\n====\n\n{{acme_ghost}}\n\n====\n\n{{objective}}\n")]),
        provider=GPT, code="component-missing", source="acme_ghost", error=ComponentError,
        builtin=RuntimeError,
        check=lambda p: [s.id for s in p.sections] == ["agent_role", "objective"]),
    "template-names-a-missing-component": dict(
        build=lambda: compiler(variants=[acme_variant(
            components=["agent_role", "objective"],
            template_text="{{agent_role}}\n\n====\n\n{{acme_ghost}}\n\n====\n\n{{objective}}\n")]),
        provider=GPT, code="placeholder-unknown", source="acme_ghost", error=PlaceholderError,
        builtin=LookupError,
        check=lambda p: [s.id for s in p.sections] == ["agent_role", "objective"]),
}


@pytest.fixture(params=sorted(FAULTS))
def fault(request: pytest.FixtureRequest) -> dict[str, Any]:
    return {"name": request.param, **FAULTS[request.param]}


def test_lenient_still_gives_a_prompt_and_names_the_culprit(fault: dict[str, Any]) -> None:
    c = fault["build"]()
    for _ in range(2):  # the second time from the memos: still reported
        prompt = c.compile(fault["provider"], CTX)
        assert prompt.text.strip()
        assert fault["check"](prompt), prompt.text
        [d] = [d for d in prompt.diagnostics if d.code == fault["code"]]
        assert d.source == fault["source"] and d.level == "error"
        assert names(d.message, fault["source"]), d.message
        assert {x.code for x in prompt.diagnostics} == {fault["code"]}, prompt.diagnostics


def test_strict_raises_a_typed_error(fault: dict[str, Any]) -> None:
    c = fault["build"]()
    with pytest.raises(PromptcError) as info:
        c.compile(fault["provider"], CTX, strict=True)
    err = info.value
    assert type(err) is fault["error"]
    assert isinstance(err, fault["builtin"])
    assert err.diagnostic is not None and err.diagnostic.code == fault["code"]
    assert err.source == fault["source"]
    assert names(str(err), fault["source"])
    # and lenient again afterwards: strict mode left nothing behind
    assert c.compile(fault["provider"], CTX).text


def names(message: str, source: str) -> bool:
    """The message names the culprit: 'id' (a component, variant, tool, plugin) or {{name}}."""
    culprit = source.removeprefix("plugin:")
    return repr(culprit) in message or "{{" + culprit + "}}" in message


def use_compiler(monkeypatch: pytest.MonkeyPatch, compiler: Any) -> None:
    """The commands run below use `compiler` instead of building one from the options."""
    for module in ("render", "explain", "tokens_command"):
        monkeypatch.setattr(f"promptc._cli.{module}.compiler_from", lambda args: compiler)


def cli(fault: dict[str, Any], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture,
        *extra: str) -> tuple[int, str, str]:
    c = fault["build"]()
    use_compiler(monkeypatch, c)
    p = fault["provider"]
    rc = main(["render", "--provider", p.provider, "--model", p.model, "--date", "2026-01-01",
               "--cwd", "/w", *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out, err


def test_cli_lenient_exit_0_with_the_diagnostic_on_stderr(
        fault: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture) -> None:
    rc, out, err = cli(fault, monkeypatch, capsys)
    assert rc == 0 and out.strip()
    line, summary = err.splitlines()  # labelled lenient, then: the command still succeeded
    assert line.startswith(f"promptc: lenient error: {fault['code']} [{fault['source']}]: "), \
        line
    assert "did not stop this command" in summary and "--strict" in summary


@pytest.mark.parametrize("fmt", ["text", "json", "anthropic"])
def test_cli_strict_exit_1_with_one_line(fault: dict[str, Any], fmt: str,
                                        monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture) -> None:
    rc, out, err = cli(fault, monkeypatch, capsys, "--strict", "--format", fmt)
    assert rc == 1 and out == ""
    [line] = err.splitlines()
    assert line.startswith(f"promptc: error: {fault['source']}: "), line


# --- the same faults through real plugin entry points ---------------------------------------

PLUGIN_MODULE = '''
import promptc

class Kaput(Exception):
    pass

def _kaput(*args, **kwargs):
    raise Kaput("kaput")

MODE = {mode!r}

@promptc.hookimpl
def promptc_variants():
    if MODE != "matcher":
        return []
    return [{{"id": "acme", "extends": "generic", "priority": 1, "matcher": _kaput}}]

@promptc.hookimpl
def promptc_components():
    if MODE == "component":
        return [promptc.Component("objective", function=_kaput, reads=())]
    if MODE == "not-text":
        return [promptc.Component("objective", function=lambda v, c: b"bytes", reads=())]
    return []

@promptc.hookimpl
def promptc_contribute_context(context, provider):
    if MODE == "context":
        _kaput()

@promptc.hookimpl
def promptc_inspect_prompt(prompt):
    if MODE == "inspect":
        _kaput()
'''

PLUGIN_FAULTS = {
    "matcher": ("matcher-raised", "acme", "matcher of variant 'acme' raised Kaput: kaput"),
    "component": ("component-raised", "objective", "component 'objective' (plugin:acme) raised Kaput"),
    "not-text": ("component-not-text", "objective", "component 'objective' returned bytes"),
    "context": ("plugin-hook", "plugin:acme",
                "plugin 'acme': promptc_contribute_context raised Kaput: kaput"),
    "inspect": ("plugin-hook", "plugin:acme",
                "plugin 'acme': promptc_inspect_prompt raised Kaput: kaput"),
}


def write_plugin(root: Path, mode: str) -> Path:
    """A plugin found through a `.dist-info` on the path: an entry point, no pip install."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "acme_faulty.py").write_text(PLUGIN_MODULE.format(mode=mode), encoding="utf-8")
    info = root / "acme_faulty-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-faulty\nVersion: 0.1\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text("[promptc]\nacme = acme_faulty\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("mode", sorted(PLUGIN_FAULTS))
def test_faults_from_an_entry_point_plugin(mode: str, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture) -> None:
    import importlib.metadata
    code, source, message = PLUGIN_FAULTS[mode]
    root = write_plugin(tmp_path / "site", mode)
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.delitem(sys.modules, "acme_faulty", raising=False)
    [ep] = [ep for ep in importlib.metadata.entry_points(group="promptc") if ep.name == "acme"]
    monkeypatch.setattr("promptc._load.plugins._entry_points", lambda: [ep])
    args = ["render", "--provider", "openai", "--model", "gpt-4o", "--no-user", "--no-project",
            "--date", "2026-01-01"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert out.strip() and "Traceback" not in err
    line, _summary = err.splitlines()
    assert line.startswith(f"promptc: lenient error: {code} [{source}]: {message}"), line
    assert main([*args, "--strict"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    [line] = err.splitlines()
    assert line.startswith(f"promptc: error: {source}: {message}"), line


def test_faults_end_to_end_in_a_real_process(tmp_path: Path) -> None:
    for mode in ("matcher", "component", "inspect"):
        code, source, message = PLUGIN_FAULTS[mode]
        root = write_plugin(tmp_path / mode, mode)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(root), *filter(None, [os.environ.get("PYTHONPATH")])]), "NO_COLOR": "1"}
        base = [sys.executable, "-m", "promptc", "render", "--provider", "openai", "--model",
                "gpt-4o", "--no-user", "--no-project", "--date", "2026-01-01"]
        lenient = subprocess.run(base, capture_output=True, text=True, env=env, timeout=120)
        assert lenient.returncode == 0, lenient.stderr
        assert "Traceback" not in lenient.stderr and lenient.stdout.strip()
        assert f"promptc: lenient error: {code} [{source}]: {message}" in lenient.stderr
        strict = subprocess.run([*base, "--strict"], capture_output=True, text=True, env=env,
                                timeout=120)
        assert strict.returncode == 1, strict.stderr
        assert "Traceback" not in strict.stderr and strict.stdout == ""
        assert len(strict.stderr.splitlines()) == 1, strict.stderr


# --- data-only faults through a project folder ------------------------------------------------

PROJECT = {
    "variants/acme/variant.toml": textwrap.dedent('''\
        extends = "generic"
        priority = 1
        components = ["agent_role", "acme_ghost", "objective"]
        [match]
        model = ["acme-model"]
    '''),
    "variants/acme/template.md": "{{agent_role}}\n\n====\n\n{{acme_ghost}}\n\n====\n\n"
                                 "{{objective}}\n\n====\n\n{{ACME_TYPO}}\n",
}


def test_a_project_variant_naming_missing_things(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture) -> None:
    for rel, text in PROJECT.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    args = ["render", "--provider", "x", "--model", "acme-model", "--project", str(tmp_path),
            "--no-user", "--no-plugins", "--date", "2026-01-01"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert out.startswith("# Role") and "Traceback" not in err
    lines = sorted(line for line in err.splitlines() if line.startswith("promptc: lenient"))
    assert len(lines) == 2 and len(err.splitlines()) == 3, err
    assert lines[0].startswith("promptc: lenient error: component-missing [acme_ghost]: "
                               "variant 'acme'")
    assert lines[1].startswith("promptc: lenient error: placeholder-unknown [ACME_TYPO]: "
                               f"{tmp_path / 'variants/acme/template.md'}:13: ")
    assert main([*args, "--strict"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and "acme_ghost" in err
    proc = subprocess.run([sys.executable, "-m", "promptc", *args, "--strict"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NO_COLOR": "1"})
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and "acme_ghost" in proc.stderr


def test_every_strict_error_class_is_a_promptc_error_and_a_builtin() -> None:
    for name, builtin in [("MatcherError", RuntimeError), ("ComponentError", RuntimeError),
                          ("PluginError", RuntimeError), ("ToolSpecError", ValueError),
                          ("PlaceholderError", LookupError), ("StrictModeError", RuntimeError)]:
        cls = getattr(promptc, name)
        assert issubclass(cls, PromptcError) and issubclass(cls, builtin), name


@pytest.mark.parametrize("command", [["explain"], ["explain", "--json"], ["tools"],
                                     ["tools", "--format", "openai"], ["tokens", "--json"]])
def test_other_commands_survive_every_fault(command: list[str], monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture) -> None:
    for name in sorted(FAULTS):
        fault = FAULTS[name]
        c = fault["build"]()
        use_compiler(monkeypatch, c)
        p = fault["provider"]
        rc = main([*command, "--provider", p.provider, "--model", p.model, "--cwd", "/w",
                   "--date", "2026-01-01"])
        out, err = capsys.readouterr()
        assert rc == 0 and out.strip(), (name, err)
        assert "Traceback" not in out + err and "internal error" not in err, name
