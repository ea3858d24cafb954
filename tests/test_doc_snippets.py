"""The README and the plugin guide run as written: every Python snippet is executed here (or
by tests/test_integrations.py, for the framework ones), and what its comments claim is checked;
the README's sample context and `promptc help context`'s render `--strict`-clean. The
README's snippet once ended in `NameError: name 'text' is not defined`, and showed token
counts that were None."""

from __future__ import annotations

import json
import re
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest

from promptc import Compiler, ProviderInfo
from promptc._cli import main
from promptc.testing import make_context

from .standin import compiler_with

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
GUIDE = (ROOT / "docs" / "plugin-guide.md").read_text(encoding="utf-8")
ACME = ROOT / "tests" / "plugins" / "promptc-acme" / "promptc_acme"


def python_blocks(text: str) -> list[str]:
    return [textwrap.dedent(b) for b in re.findall(r"```python\n(.*?)```", text, re.S)]


def block(text: str, starts: str) -> str:
    [found] = [b for b in python_blocks(text) if b.lstrip().startswith(starts)]
    return found


def readme_context(tmp_path: Path) -> Path:
    section = README.split("### The context", 1)[1]
    path = tmp_path / "context.json"
    path.write_text(re.search(r"```json\n(.*?)```", section, re.S).group(1),  # type: ignore
                    encoding="utf-8")
    return path


def test_every_python_snippet_is_run_by_a_test() -> None:
    """A new snippet needs a test: here, or beside the integrations."""
    known = ("from promptc import Compiler", "parsed = prompt.tools.parse", "# promptc_acme/",
             "import anthropic")
    integrations = README[README.index("## Integrations"):]
    integrations = python_blocks(integrations[:integrations.index("\n## ", 5)])
    for code in python_blocks(README):
        if code in integrations:  # tests/test_integrations.py runs each of them
            assert "promptc.integrations." in code
        else:
            assert code.lstrip().startswith(known), code
    guide = ("from pathlib import Path", "from promptc import Feature", "def limits",
             "@hookimpl\ndef promptc_variants", "import pytest",
             "from promptc import Component, Trusted")  # tests/test_outside_text.py
    for code in python_blocks(GUIDE):
        assert code.lstrip().startswith(guide), code


def test_the_readme_python_snippet_runs_and_shows_what_it_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    readme_context(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-user-folder"))
    ns: dict[str, Any] = {}
    exec(block(README, "from promptc import Compiler"), ns)  # noqa: S102
    prompt = ns["prompt"]
    assert prompt.variant.id == "native-next-gen"
    assert prompt.tokens.total > 1000 and all(s.tokens for s in prompt.sections)
    [call] = prompt.tools.parse(ns["reply"]).calls
    assert (call.name, call.arguments) == ("read_file", {"path": "README.md"})
    assert prompt.to_anthropic()["system"]


def test_the_readme_parse_snippet_runs_and_shows_what_it_says(builtins: Compiler) -> None:
    prompt = builtins.compile(ProviderInfo("openai", "gpt-4.1", native_tools=False),
                              make_context("full"))
    ran: list[Any] = []
    ns = {"prompt": prompt, "run_tool": ran.append,
          "reply_text": "<list_files>\n<path>.</path>\n<recursive>false</recursive>\n"
                        "</list_files>\n<read_file>\n</read_file>"}
    exec(block(README, "parsed = prompt.tools.parse"), ns)  # noqa: S102
    assert [(c.name, c.arguments) for c in ran] == [("list_files", {"path": ".",
                                                                    "recursive": False})]
    assert ns["answers"] == [  # the second call is refused, not run, with its own problem
        "only one call per message is run, and this call to read_file came after the first, "
        "so it was not run; it could not run as written either; tool 'read_file' is missing "
        "its required parameter 'path'"]


def test_the_readme_raw_sdk_snippet_runs_against_the_real_sdk(
        builtins: Compiler, monkeypatch: pytest.MonkeyPatch) -> None:
    """`prompt.tools.check` on the SDK's own blocks: the results go back in Anthropic's shape,
    a bad call's as the ready error result, and the runner sees only the good call."""
    pytest.importorskip("anthropic")
    import promptc

    from .fakeserver import FakeServer, Reply
    prompt = builtins.compile(ProviderInfo("anthropic", "claude-sonnet-4-5"),
                              make_context("full"))
    ran: list[Any] = []
    with FakeServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        server.script("anthropic", Reply("", (("list_files", {"path": "."}),
                                             ("read_file", {"file": "a.py"}))))
        ns = {"prompt": prompt, "promptc": promptc,
              "run_tool": lambda call: ran.append(call) or "a.py"}
        exec(block(README, "import anthropic"), ns)  # noqa: S102
    assert [c.name for c in ran] == ["list_files"]
    ok, bad = ns["results"]
    assert ok == {"type": "tool_result", "tool_use_id": "toolu_1_0", "content": "a.py"}
    assert bad["tool_use_id"] == "toolu_1_1" and bad["is_error"] is True
    assert "tool 'read_file' has no parameter 'file'" in bad["content"]
    assert ns["messages"][-1] == {"role": "user", "content": [ok, bad]}


@pytest.mark.parametrize("where", ["readme", "help"])
def test_the_sample_context_is_strict_clean(where: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    if where == "readme":
        path = readme_context(tmp_path)
    else:
        assert main(["help", "context"]) == 0
        topic = capsys.readouterr().out
        sample = textwrap.dedent(re.search(r"\n(    \{\n.*?\n    \})\n", topic, re.S)
                                 .group(1))  # type: ignore[union-attr]
        path = tmp_path / "help.json"
        path.write_text(sample, encoding="utf-8")
    assert json.loads(path.read_text(encoding="utf-8"))["features"]
    assert main(["render", "--builtins-only", "--strict", "--context", str(path)]) == 0, \
        capsys.readouterr().err
    assert capsys.readouterr().err == ""


def guide_plugin() -> types.ModuleType:
    """The guide's hook snippets as one plugin module. Given, as the guide says they are
    shortened: `__file__` (the acme package, so DATA is its data folder) and the note texts."""
    module = types.ModuleType("guide_plugin")
    module.__dict__.update(__file__=str(ACME / "__init__.py"), NOTES="# Acme notes\n",
                           MINI_NOTE="A mini model.\n")
    for starts in ("from pathlib import Path", "from promptc import Feature", "def limits",
                   "@hookimpl\ndef promptc_variants"):
        exec(block(GUIDE, starts), module.__dict__)  # noqa: S102
    components = module.promptc_components
    limits = module.__dict__["Component"](id="acme_limits",
                                          template="# Limits\n{{#items}}- {{.}}\n{{/items}}",
                                          data=module.limits, reads=("features",))
    module.promptc_components = module.hookimpl(lambda: [*components(), limits])
    module.promptc_components.__name__ = "promptc_components"
    return module


def test_the_plugin_guide_snippets_make_a_working_plugin() -> None:
    compiler = compiler_with(guide=guide_plugin())
    assert not [d for d in compiler.load_diagnostics if "guide" in d.source], \
        compiler.load_diagnostics
    acme = compiler.compile(ProviderInfo("acme", "acme-coder-2-mini"), {})
    assert acme.variant.id == "acme" and "# Acme notes" in acme.text and "A mini model." in \
        acme.text
    assert compiler.registry.tools["sandbox_snapshot"].source == "plugin:guide"
    assert "acme_sandbox" in compiler.features.names
    legacy = compiler.compile(ProviderInfo("acme", "acme-1.5"), {"features": {"browser": True}})
    assert legacy.variant.id == "acme-legacy" and "- browser" in legacy.text


def test_the_plugin_guide_test_snippet_passes_against_the_plugin() -> None:
    """The guide's pytest snippet, its tests called with what the fixtures give."""
    sys.path.insert(0, str(ACME.parent))
    try:
        import promptc_acme
        compiler = compiler_with(acme=promptc_acme)
    finally:
        sys.path.remove(str(ACME.parent))
    ns: dict[str, Any] = {}
    exec(block(GUIDE, "import pytest"), ns)  # noqa: S102
    ns["test_acme_models_route_to_acme"](compiler)
    ns["test_renders_cleanly"](compiler)
    prompt = compiler.compile(ns["ACME"], make_context("full"), strict=True)
    ns["test_prompt_snapshot"]("acme-full", compiler, make_context, prompt.text)


def toml_block(text: str, first_line: str) -> str:
    [found] = [textwrap.dedent(b) for b in re.findall(r"```toml\n(.*?)```", text, re.S)
               if textwrap.dedent(b).startswith(first_line)]
    return found


def test_the_readme_plugin_steps_make_a_working_plugin(tmp_path: Path) -> None:
    """The README's "Write a plugin" steps, as written: the files of step 1 with the texts of
    steps 3 and 4 (the role text is any text: the README does not show it)."""
    package = tmp_path / "promptc_acme"
    data = package / "data"
    (data / "variants" / "acme" / "components").mkdir(parents=True)
    (data / "models.toml").write_text(toml_block(README, "# promptc_acme/data/models.toml"),
                                      encoding="utf-8")
    (data / "variants" / "acme" / "variant.toml").write_text(
        toml_block(README, "# promptc_acme/data/variants/acme/variant.toml"), encoding="utf-8")
    (data / "variants" / "acme" / "components" / "agent_role.md").write_text(
        "# Role\n\nYou are Acme Coder.\n", encoding="utf-8")
    module = types.ModuleType("promptc_acme")
    module.__dict__["__file__"] = str(package / "__init__.py")
    exec(block(README, "# promptc_acme/__init__.py"), module.__dict__)  # noqa: S102
    compiler = compiler_with(acme=module)
    assert not compiler.load_diagnostics, compiler.load_diagnostics
    assert compiler.registry.variants["acme"].source == "plugin:acme"
    assert compiler.registry.components["acme_notes"].source == "plugin:acme"
    prompt = compiler.compile(ProviderInfo("acme", "acme-coder-2"), {}, strict=True)
    assert prompt.variant.id == "acme" and "You are Acme Coder." in prompt.text
    assert prompt.provider.family == "acme" and prompt.provider.context_window == 131072
