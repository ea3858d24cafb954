"""The README and the docs run as written: every Python snippet of README.md and docs/*.md is
executed by a test (here, or where `test_every_python_snippet_is_run_by_a_test` says), and what
its comments claim is checked; docs/python.md's sample context and `promptc help context`'s
render `--strict`-clean. The API tour (once in the README, now docs/python.md) once ended in
`NameError: name 'text' is not defined`, and showed token counts that were None."""

from __future__ import annotations

import json
import re
import shlex
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
DOCS = ROOT / "docs"
PYTHON_PAGE = (DOCS / "python.md").read_text(encoding="utf-8")
CALLS_PAGE = (DOCS / "calls.md").read_text(encoding="utf-8")
GUIDE = (DOCS / "plugin-guide.md").read_text(encoding="utf-8")
AUTHORING = (DOCS / "authoring.md").read_text(encoding="utf-8")
# the guide's six short steps (once the README's "Write a plugin")
SHORT_GUIDE = GUIDE.split("## The short version", 1)[1].split("\n## ", 1)[0]
ACME = ROOT / "tests" / "plugins" / "promptc-acme" / "promptc_acme"


def python_blocks(text: str) -> list[str]:
    return [textwrap.dedent(b) for b in re.findall(r"```python\n(.*?)```", text, re.S)]


def block(text: str, starts: str) -> str:
    [found] = [b for b in python_blocks(text) if b.lstrip().startswith(starts)]
    return found


def docs_context(tmp_path: Path) -> Path:
    section = PYTHON_PAGE.split("## The context", 1)[1]
    path = tmp_path / "context.json"
    path.write_text(re.search(r"```json\n(.*?)```", section, re.S).group(1),  # type: ignore
                    encoding="utf-8")
    return path


# Where each page's Python snippets run: the first characters of each snippet, and the test.
RUN_BY = {
    "README.md": ("from promptc import Compiler, PromptContext, ProviderInfo",),  # test_init.py
    "docs/python.md": ("from promptc import Compiler",),
    "docs/calls.md": ("parsed = prompt.tools.parse", "import anthropic",
                      "from promptc._model.schema_check import"),
    "docs/plugin-guide.md": ("from pathlib import Path", "from promptc import Feature",
                             "def limits", "@hookimpl\ndef promptc_variants", "import pytest",
                             "# promptc_acme/__init__.py",
                             "from promptc import Component, Trusted"),  # test_outside_text.py
    "docs/authoring.md": ("import promptc",),  # tests/test_outside_text.py
    "docs/caching.md": ("def run_session",),  # tests/test_caching_doc.py
    "docs/api.md": ("from promptc import ToolCall\n\ndef converse_session",),  # test_bedrock.py
    "docs/integrations.md": ("import", "from"),  # tests/test_integrations.py, each of them
}


def test_every_python_snippet_is_run_by_a_test() -> None:
    """A new snippet needs a test: here, or where RUN_BY says; a page not listed has none."""
    pages = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
    for page in pages:
        name = page.relative_to(ROOT).as_posix()
        for code in python_blocks(page.read_text(encoding="utf-8")):
            assert code.lstrip().startswith(RUN_BY.get(name, ())), (name, code)
            if name == "docs/integrations.md":
                assert "promptc.integrations." in code


def test_the_api_tour_runs_and_shows_what_it_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs_context(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-user-folder"))
    ns: dict[str, Any] = {}
    exec(block(PYTHON_PAGE, "from promptc import Compiler"), ns)  # noqa: S102
    prompt = ns["prompt"]
    assert prompt.variant.id == "native-next-gen"
    assert prompt.tokens.total > 1000 and all(s.tokens for s in prompt.sections)
    [call] = prompt.tools.parse(ns["reply"]).calls
    assert (call.name, call.arguments) == ("read_file", {"path": "README.md"})
    assert prompt.to_anthropic()["system"]


def test_the_parse_snippet_runs_and_shows_what_it_says(builtins: Compiler) -> None:
    prompt = builtins.compile(ProviderInfo("openai", "gpt-4.1", native_tools=False),
                              make_context("full"))
    ran: list[Any] = []
    ns = {"prompt": prompt, "run_tool": ran.append,
          "reply_text": "<list_files>\n<path>.</path>\n<recursive>false</recursive>\n"
                        "</list_files>\n<read_file>\n</read_file>"}
    exec(block(CALLS_PAGE, "parsed = prompt.tools.parse"), ns)  # noqa: S102
    assert [(c.name, c.arguments) for c in ran] == [("list_files", {"path": ".",
                                                                    "recursive": False})]
    assert ns["answers"] == [  # the second call is refused, not run, with its own problem
        "only one call per message is run, and this call to read_file came after the first, "
        "so it was not run; it could not run as written either; tool 'read_file' is missing "
        "its required parameter 'path'"]


def test_the_raw_sdk_snippet_runs_against_the_real_sdk(
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
        exec(block(CALLS_PAGE, "import anthropic"), ns)  # noqa: S102
    assert [c.name for c in ran] == ["list_files"]
    ok, bad = ns["results"]
    assert ok == {"type": "tool_result", "tool_use_id": "toolu_1_0", "content": "a.py"}
    assert bad["tool_use_id"] == "toolu_1_1" and bad["is_error"] is True
    assert "tool 'read_file' has no parameter 'file'" in bad["content"]
    assert ns["messages"][-1] == {"role": "user", "content": [ok, bad]}


def test_the_checker_function_snippet_shows_what_it_says() -> None:
    """docs/calls.md, "The checker as a function": each commented value is the real one."""
    ns: dict[str, Any] = {}
    exec(block(CALLS_PAGE, "from promptc._model.schema_check import"), ns)  # noqa: S102
    verdict = ns["verdict"]
    assert verdict.fits is False and verdict.uncheckable is None
    [problem] = verdict.problems
    assert (problem.path, problem.keyword, problem.message, problem.key) == (
        ("n",), "type", 'must be an integer, got "3"', None)
    assert ns["checker"].check([1, 2, 1]).problems[0].message == \
        "must hold no item twice (uniqueItems); items 0 and 2 are equal"


@pytest.mark.parametrize("where", ["docs", "help"])
def test_the_sample_context_is_strict_clean(where: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    if where == "docs":
        path = docs_context(tmp_path)
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


def test_the_short_plugin_steps_make_a_working_plugin(tmp_path: Path) -> None:
    """The plugin guide's six short steps (once the README's "Write a plugin"), as written: the
    files of step 1 with the texts of steps 3 and 4 (the role text is any text: the steps do
    not show it)."""
    package = tmp_path / "promptc_acme"
    data = package / "data"
    (data / "variants" / "acme" / "components").mkdir(parents=True)
    (data / "models.toml").write_text(toml_block(SHORT_GUIDE, "# promptc_acme/data/models.toml"),
                                      encoding="utf-8")
    (data / "variants" / "acme" / "variant.toml").write_text(
        toml_block(SHORT_GUIDE, "# promptc_acme/data/variants/acme/variant.toml"), encoding="utf-8")
    (data / "variants" / "acme" / "components" / "agent_role.md").write_text(
        "# Role\n\nYou are Acme Coder.\n", encoding="utf-8")
    module = types.ModuleType("promptc_acme")
    module.__dict__["__file__"] = str(package / "__init__.py")
    exec(block(SHORT_GUIDE, "# promptc_acme/__init__.py"), module.__dict__)  # noqa: S102
    compiler = compiler_with(acme=module)
    assert not compiler.load_diagnostics, compiler.load_diagnostics
    assert compiler.registry.variants["acme"].source == "plugin:acme"
    assert compiler.registry.components["acme_notes"].source == "plugin:acme"
    prompt = compiler.compile(ProviderInfo("acme", "acme-coder-2"), {}, strict=True)
    assert prompt.variant.id == "acme" and "You are Acme Coder." in prompt.text
    assert prompt.provider.family == "acme" and prompt.provider.context_window == 131072


def test_the_first_variant_steps_run_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """docs/authoring.md, "Where prompt files live": a variant from `new-variant` renders as
    the one it extends; given the page's TEAM input, it takes `--set TEAM=infra`, and `inputs`
    gives the JSON Schema of a form."""
    monkeypatch.chdir(tmp_path)
    section = AUTHORING.split("## Where prompt files live, and overriding one", 1)[1]
    section = section.split("\n## ", 1)[0]
    create, inputs = [[shlex.split(line, comments=True)[1:] for line in b.splitlines()]
                      for b in re.findall(r"```sh\n(.*?)```", section, re.S)]
    sources = ["--no-user", "--no-plugins"]
    outputs = []
    for argv in create:
        assert main([*argv, *sources]) == 0, argv
        outputs.append(capsys.readouterr().out)
    assert main(["render", "--variant", "generic", "--provider", "openai", "--model", "gpt-4.1",
                 *sources]) == 0
    assert capsys.readouterr().out == outputs[-1]  # "identical to generic"
    variant = tmp_path / ".promptc" / "variants" / "mine" / "variant.toml"
    declaration = toml_block(section, "# variants/mine/variant.toml")
    variant.write_text(variant.read_text(encoding="utf-8") + "\n" + declaration,
                       encoding="utf-8")
    rendered = []
    for argv in inputs:
        assert main([*argv, *sources]) == 0, argv
        rendered.append(capsys.readouterr().out)
    assert rendered[0].startswith("# ")  # the prompt, with the required input given
    schema = json.loads(rendered[1])
    assert schema["required"] == ["TEAM"]
    assert schema["properties"]["TEAM"]["enum"] == ["infra", "web"]
