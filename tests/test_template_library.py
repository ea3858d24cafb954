"""A template library's basics from the command line (issue 35 item 6), the model's
capabilities as standard placeholders (item 3), and lint's cache order for input sections."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest

from promptc import Compiler, ConfigError, PromptContext, ProviderInfo
from promptc._cli import main
from promptc._model.placeholders import STANDARD
from promptc._review.copy_variant import copy_variant
from promptc._review.lint import lint

from .conftest import CONTEXTS, MINI

DOCS = Path(__file__).resolve().parent.parent / "docs"
LIBRARY = {
    **MINI,
    "variants/base/variant.toml": (
        'fallback = true\ncomponents = ["intro"]\n'
        '[inputs.TOPIC]\nlabel = "Topic"\nrequired = true\nexample = "tides"\n'
        '[inputs.WORDS]\ntype = "number"\ndefault = 100\n'),
    "variants/base/template.md": "{{intro}}\nWrite {{WORDS}} words on {{TOPIC}}.\n",
    "variants/terse/variant.toml": 'extends = "base"\n[inputs.TONE]\ntype = "select"\n'
                                   'options = ["dry", "warm"]\nexample = "warm"\n',
    "variants/terse/template.md": "{{intro}}\nIn a {{TONE}} tone: {{TOPIC}}.\n",
}
SOURCES = ["--no-user", "--no-plugins"]


@pytest.fixture
def library(tree: Callable[[dict[str, str | bytes]], Path]) -> Path:
    return tree(LIBRARY)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_variants_json_lists_each_variants_inputs(library: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "variants", "--json", "--project", str(library), *SOURCES)
    rows = {r["id"]: r for r in json.loads(out)}
    assert code == 0
    assert rows["base"]["inputs"] == [
        {"name": "TOPIC", "type": "string", "required": True, "default": None,
         "example": "tides", "label": "Topic", "description": "", "options": []},
        {"name": "WORDS", "type": "number", "required": False, "default": 100,
         "example": None, "label": "", "description": "", "options": []}]
    assert [i["name"] for i in rows["terse"]["inputs"]] == ["TOPIC", "WORDS", "TONE"]
    assert rows["terse"]["inputs"][2]["options"] == ["dry", "warm"]  # a select's choices


def test_render_examples_previews_with_example_values(library: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    base = ["render", "--project", str(library), *SOURCES, "--provider", "acme", "--model",
            "m", "--strict"]
    code, out, _ = run(capsys, *base, "--variant", "terse", "--examples")
    assert code == 0 and out.endswith("In a warm tone: tides.\n")
    code, out, _ = run(capsys, *base, "--variant", "base", "--examples", "--set", "TOPIC=sand")
    assert code == 0 and out.endswith("Write 100 words on sand.\n")  # a given value wins


def test_render_examples_names_an_input_without_example_or_default(
        tree: Callable[[dict[str, str | bytes]], Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    folder = tree({**LIBRARY, "variants/base/variant.toml": 'fallback = true\n'
                   'components = ["intro"]\n[inputs.TOPIC]\nrequired = true\n'
                   '[inputs.WORDS]\ntype = "number"\ndefault = 100\n'})
    code, out, err = run(capsys, "render", "--project", str(folder), *SOURCES, "--provider",
                         "acme", "--model", "m", "--variant", "base", "--examples")
    assert code == 2 and out == ""
    assert "input 'TOPIC' has neither an `example` nor a `default`" in err


MODELS = ["anthropic/claude-sonnet-4-5", "openai/gpt-4.1", "ollama/qwen3:8b"]


def test_tokens_for_every_variant_and_model_in_one_call(
        library: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "tokens", "--project", str(library), *SOURCES, "--all-variants",
                       "--models", *MODELS, "--json")
    rows = json.loads(out)
    assert code == 0
    compiler = Compiler.default(project=library, user=False, plugins=False)  # as the CLI's
    assert [(r["variant"], r["model"]) for r in rows] == [
        (v, m) for v in sorted(compiler.variants) for m in MODELS]
    context = PromptContext(runtime={"TOPIC": "tides", "TONE": "warm"})
    for row in (r for r in rows if r["variant"] in ("base", "terse")):
        provider, model = row["model"].split("/")
        info = ProviderInfo(provider, model)
        whole = compiler.compile(info, context, variant=row["variant"], count_tokens=True)
        split = compiler.compile(info, context, variant=row["variant"], dynamic="message")
        count = compiler.tokens.count
        assert row["string"] == whole.tokens.total  # type: ignore[union-attr]
        assert row["split"] == {"system": count(split.text, row["encoding"]),
                                "message": count(split.message, row["encoding"])}
    code, table, _ = run(capsys, "tokens", "--project", str(library), *SOURCES,
                         "--all-variants", "--models", ",".join(MODELS))
    assert code == 0 and len([line for line in table.splitlines()
                              if line.startswith(("base ", "terse "))]) == 6
    code, _, err = run(capsys, "tokens", "--project", str(library), *SOURCES, "--all-variants")
    assert code == 2 and "--models" in err


# --- new-variant --copy ----------------------------------------------------------------------

FULL = PromptContext.load(CONTEXTS / "full.json")


def test_a_built_in_copied_into_a_project_without_built_ins_renders_the_same(
        tmp_path: Path, builtins: Compiler) -> None:
    (tmp_path / "variants").mkdir()
    written = copy_variant(Compiler.from_folders(tmp_path, builtins=False), "mine", "gpt-5",
                           tmp_path)
    assert tmp_path / "variants/mine/variant.toml" in written
    assert tmp_path / "components/tools/apply_patch.toml" in written  # the tools it uses
    assert tmp_path / "components/rules.md" in written  # and the shared components
    copy = Compiler.from_folders(tmp_path, builtins=False)
    for native in (True, False):
        info = ProviderInfo("openai", "gpt-5", native_tools=native)
        mine = copy.compile(info, FULL, variant="mine", strict=True)
        theirs = builtins.compile(info, FULL, variant="gpt-5", strict=True)
        assert mine.text.replace("mine", "gpt-5") == theirs.text
        assert mine.tools.names == theirs.tools.names
    assert "extends" not in (tmp_path / "variants/mine/variant.toml").read_text()


def test_copy_from_the_cli_is_self_contained_and_keeps_what_exists(
        library: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "new-variant", "terse2", "--copy", "terse", "--dir",
                       str(library), "--project", str(library), *SOURCES)
    assert code == 0 and "variants/terse2/variant.toml" in out
    toml = (library / "variants/terse2/variant.toml").read_text()
    assert "extends" not in toml and "[inputs.TONE]" in toml and "[inputs.TOPIC]" in toml
    compiler = Compiler.from_folders(library, builtins=False)
    context = PromptContext(runtime={"TOPIC": "tides", "TONE": "dry"})
    assert compiler.compile(ProviderInfo("acme", "m"), context, variant="terse2").text == \
        compiler.compile(ProviderInfo("acme", "m"), context, variant="terse").text
    assert [attrs.evolve(i, origin="") for i in compiler.variants["terse2"].inputs] == \
        [attrs.evolve(i, origin="") for i in compiler.variants["terse"].inputs]
    code, _, err = run(capsys, "new-variant", "terse2", "--copy", "terse", "--dir",
                       str(library), "--project", str(library), *SOURCES)
    assert code == 2 and "already exists" in err
    code, _, err = run(capsys, "new-variant", "x", "--copy", "trese", "--dir", str(library),
                       "--project", str(library), *SOURCES)
    assert code == 2 and "did you mean 'terse'" in err
    code, _, err = run(capsys, "new-variant", "x", "--dir", str(library), *SOURCES)
    assert code == 2 and "--from BASE" in err and "--copy FROM" in err


def test_a_copy_keeps_the_section_edits_of_its_chain(
        tree: Callable[[dict[str, str | bytes]], Path]) -> None:
    """A copy lost its original's section edits: it rendered without them, and a section an
    edit removed came back as an error for the template's unplaced slot."""
    folder = tree({
        **LIBRARY,
        "variants/mid/variant.toml": 'extends = "terse"\n[component.intro]\nappend = "A1"\n'
                                     'prepend = "P1"\n',
        "variants/top/variant.toml": 'extends = "mid"\n[component.intro]\nappend = "A2"\n'
                                     'prepend_file = "p2.md"\n',
        "variants/top/p2.md": "P2 on {{TOPIC}}\n",
        "variants/lit/variant.toml": 'extends = "mid"\n[component.intro]\nappend = "A2"\n'
                                     'prepend = "P2"\n',
        "variants/gone/variant.toml": 'extends = "terse"\n[component.intro]\nremove = true\n'})
    compiler = Compiler.from_folders(folder, builtins=False)
    context = PromptContext(runtime={"TOPIC": "tides", "TONE": "dry"})
    info = ProviderInfo("acme", "m")
    for original in ("mid", "lit", "gone"):
        copy_variant(compiler, f"{original}2", original, folder)
        copied = Compiler.from_folders(folder, builtins=False)
        assert copied.compile(info, context, variant=f"{original}2", strict=True).text == \
            compiler.compile(info, context, variant=original, strict=True).text
    toml = (folder / "variants/mid2/variant.toml").read_text(encoding="utf-8")
    assert '[component.intro]\nprepend = "P1"\nappend = "A1"' in toml
    toml = (folder / "variants/lit2/variant.toml").read_text(encoding="utf-8")
    assert '[component.intro]\nprepend = "P2\\n\\nP1"\nappend = "A1\\n\\nA2"' in toml
    assert "remove = true" in (folder / "variants/gone2/variant.toml").read_text(encoding="utf-8")
    # two prepends down the chain, one of them a file: no one key holds both
    with pytest.raises(ConfigError, match=r"section 'intro' of variant 'top' has 2 stacked "
                                          r"prepend edits, one of them from a file .*--from"):
        copy_variant(compiler, "top2", "top", folder)


# --- capabilities ----------------------------------------------------------------------------

CAPABILITIES = sorted(n for n in STANDARD if n.startswith("MODEL_") and n != "MODEL_ID" and
                      n != "MODEL_FAMILY")


def test_capabilities_are_switches_from_the_model_data_and_the_client(
        mini: Callable[..., Compiler]) -> None:
    assert CAPABILITIES == ["MODEL_CONTEXT_WINDOW", "MODEL_IMAGES", "MODEL_LOCAL",
                            "MODEL_NATIVE_TOOLS", "MODEL_REASONING"]
    lines = "".join(f"{n}=[{{{{{n}}}}}]{{{{^{n}}}}}no-{n}{{{{/{n}}}}}\n" for n in CAPABILITIES)
    c = mini({"components/body.md": "# Body\n" + lines})
    sonnet = c.compile(ProviderInfo("anthropic", "claude-sonnet-4-5"), strict=True).text
    assert "MODEL_IMAGES=[true]" in sonnet and "no-MODEL_LOCAL" in sonnet
    assert "MODEL_CONTEXT_WINDOW=[200000]" in sonnet and "MODEL_REASONING=[true]" in sonnet
    qwen = c.compile(ProviderInfo("ollama", "qwen3:8b"), strict=True).text
    assert "MODEL_IMAGES=[]no-MODEL_IMAGES" in qwen and "MODEL_LOCAL=[true]" in qwen
    told = c.compile(ProviderInfo("ollama", "qwen3:8b", images=True, context_window=8192),
                     strict=True).text
    assert "MODEL_IMAGES=[true]" in told and "MODEL_CONTEXT_WINDOW=[8192]" in told


def test_the_standard_placeholder_table_lists_every_one_with_its_cache_class() -> None:
    text = (DOCS / "authoring.md").read_text(encoding="utf-8")
    table = text.split("## Standard placeholders", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| `([A-Z_]+)` \|[^|]*\| (static|session|request) \|", table,
                           re.MULTILINE))
    assert sorted(rows) == sorted(STANDARD)
    from promptc._model.context import FIELD_CLASSES
    for name, (field, _get) in STANDARD.items():
        assert rows[name] == (FIELD_CLASSES.get(field, "request") if field else "static"), name


# --- lint --------------------------------------------------------------------------------------

def test_a_section_that_reads_only_an_input_is_request_class_without_a_false_warning(
        mini: Callable[..., Compiler]) -> None:
    """lint said the question section was static, after a request-class one (issue 35)."""
    c = mini({"variants/base/variant.toml": 'fallback = true\ncomponents = ["intro", "body", '
                                            '"question"]\n[inputs.Q]\nexample = "why?"\n',
              "variants/base/template.md": "{{intro}}\n\n{{body}}\n\n{{question}}\n",
              "components/body.md": "Today: {{CURRENT_DATE}}\n",
              "components/question.md": "# Question\n{{Q}}\n"})
    assert [d for d in lint(c) if d.code == "cache-order"] == []
    out = c.compile(ProviderInfo("acme", "m"), PromptContext(runtime={"Q": "why?"}))
    assert out.section("question").cache == "request"  # type: ignore[union-attr]


def test_the_inputs_table_shows_defaults_as_json(
        tree: Callable[[dict[str, str | bytes]], Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    """A list default showed as `()` and an object's as `FrozenDict({})`."""
    folder = tree({**MINI, "variants/base/variant.toml": (
        'fallback = true\ncomponents = ["intro"]\n[inputs.TAGS]\ntype = "list"\n'
        'default = ["a"]\n[inputs.META]\ntype = "object"\ndefault = { k = 1 }\n'
        '[inputs.ON]\ntype = "boolean"\ndefault = false\n'),
        "variants/base/template.md": "{{intro}}\n"})
    code, out, _ = run(capsys, "inputs", "--variant", "base", "--project", str(folder),
                       *SOURCES)
    assert code == 0
    assert re.search(r'^TAGS +list +\["a"\]', out, re.M)
    assert re.search(r'^META +object +\{"k":1\}', out, re.M)
    assert re.search(r"^ON +boolean +false", out, re.M)
