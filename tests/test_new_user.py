"""A new user's project, built from the docs alone (docs/projects.md, docs/authoring.md,
docs/cli.md), that is not a coding agent: a kitchen assistant with `builtins = false`, a
Claude and a GPT variant (the GPT one extends the Claude one and edits its sections), a tool,
a declared input with `pattern` and `max_length`, a list input iterated in a template, a
`MODEL_IMAGES` notice, a matrix and snapshots. Every door honours its project file, from its
root and from a subfolder, with no trace of the coding pack; a model it does not cover fails
loudly. The commands run as typed (in this process, the working directory changed; `serve` and
the project's own `pytest` in processes of their own).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from promptc import Compiler, NoVariantError, PromptContext, ProviderInfo

from .conftest import write_tree
from .test_init import pytest_in, promptc

# What only the built-in coding pack writes: its role's words and its tools' names.
PACK = re.compile(r"software engineering|read_file|execute_command|attempt_completion")

PROJECT = {
    ".git/HEAD": "ref: refs/heads/main\n",  # the repository's root: the walk stops here
    "promptc.toml": 'builtins = false\nfolder = "prompts"\nuser = false\nplugins = false\n'
                    'matrix = "prompts/matrix.toml"\nsnapshots = "snapshots"\n'
                    'model = "anthropic/claude-sonnet-4-5"\n',
    "prompts/components/role.md":
        "You are Basil, the kitchen helper of {{SHOP}}. You suggest recipes that fit what the "
        "cook has.\n",
    "prompts/components/policies.md":
        "# House rules\n\n- Suggest at most three recipes at a time.\n",
    "prompts/components/diet.md":
        "# Diet\n\n{{#DIET}}The cook follows this diet: {{DIET}}.{{/DIET}}\n"
        "{{^DIET}}The cook has no dietary restriction.{{/DIET}}\n",
    "prompts/components/pantry.md":
        "{{#PANTRY}}\n# Pantry\n\n{{/PANTRY}}\n"
        "{{#PANTRY}}\n- {{name}}{{#amount}} ({{amount}}){{/amount}}\n{{/PANTRY}}\n",
    "prompts/components/vision.md":
        "{{^MODEL_IMAGES}}\n# Photos\n\nThis model cannot see photos: ask the cook to list the "
        "ingredients in words.\n{{/MODEL_IMAGES}}\n",
    "prompts/components/tools/find_recipe.toml":
        'name = "find_recipe"\n'
        'description = "Search the recipe book for dishes that use the given ingredients."\n\n'
        '[[parameters]]\nname = "ingredients"\ntype = "array"\nitems = { type = "string" }\n'
        'required = true\ninstruction = "The ingredients the dish should use."\n'
        "usage = '[\"eggs\", \"spinach\"]'\n",
    "prompts/variants/chef-claude/variant.toml":
        'family = "claude"\ndescription = "Basil for Claude models"\n'
        'components = ["role", "policies", "vision", "diet", "pantry"]\n'
        'tools = ["find_recipe"]\n\n'
        '[match]\nprovider = ["anthropic"]\nmodel = ["claude"]\n\n'
        '[placeholders]\nSHOP = "Green Fork"\n\n'
        '[inputs.DIET]\nlabel = "Diet"\npattern = "[A-Za-z -]+"\nmax_length = 40\n'
        'example = "vegetarian"\n\n'
        '[inputs.PANTRY]\ntype = "list"\nmax_items = 30\n'
        'schema = { type = "object", properties = { name = { type = "string" }, '
        'amount = { type = "string" } }, required = ["name"] }\n'
        'example = [{ name = "eggs", amount = "6" }, { name = "spinach" }]\n',
    "prompts/variants/chef-claude/template.md":
        "{{role}}\n\n{{policies}}\n\n{{vision}}\n\n{{diet}}\n\n{{pantry}}\n",
    "prompts/variants/chef-gpt/variant.toml":
        'extends = "chef-claude"\nfamily = "gpt"\ndescription = "Basil for GPT models"\n\n'
        '[match]\nprovider = ["openai"]\nmodel = ["gpt"]\n\n'
        '[component.policies]\nappend = "- Keep each answer under 200 words."\n'
        'prepend_file = "policies-intro.md"\n\n'
        '[component.vision]\nremove = true\n',
    "prompts/variants/chef-gpt/policies-intro.md": "Rules for {{SHOP}}:\n",
    "prompts/contexts/full.json":
        '{"date": "2026-01-01", "runtime": {"DIET": "vegan", '
        '"PANTRY": [{"name": "tofu", "amount": "200 g"}, {"name": "rice"}]}}\n',
    "prompts/matrix.toml":
        '[contexts]\nfull = "contexts/full.json"\n\n'
        '[[case]]\nprovider = "anthropic"\nmodel = "claude-sonnet-4-5"\ntools = ["anthropic"]\n\n'
        '[[case]]\nprovider = "openai"\nmodel = "gpt-4.1"\ntools = ["openai"]\n',
    # the project's own tests, through promptc's pytest plugin (no pytest.ini: pytest's rootdir
    # is where it runs, and the fixture finds the project file above it)
    "tests/test_prompts.py":
        "import pytest\n"
        "from promptc import NoVariantError, PromptContext, ProviderInfo\n"
        "from promptc.testing import assert_renders_cleanly\n\n"
        "MODELS = {'chef-claude': ProviderInfo('anthropic', 'claude-sonnet-4-5'),\n"
        "          'chef-gpt': ProviderInfo('openai', 'gpt-4.1')}\n"
        "CONTEXTS = {'cook': PromptContext(date='2026-01-01', runtime={'DIET': 'vegan',\n"
        "            'PANTRY': [{'name': 'rice'}]})}\n\n"
        "@pytest.mark.parametrize('variant', sorted(MODELS))\n"
        "def test_renders_cleanly(promptc_compiler, variant):\n"
        "    prompt = assert_renders_cleanly(promptc_compiler, variant, MODELS[variant],\n"
        "                                    CONTEXTS)['cook']\n"
        "    assert '- rice' in prompt.text and 'software engineering' not in prompt.text\n\n"
        "def test_only_the_project(promptc_compiler):\n"
        "    assert sorted(promptc_compiler.variants) == ['chef-claude', 'chef-gpt']\n"
        "    with pytest.raises(NoVariantError):\n"
        "        promptc_compiler.compile(ProviderInfo('ollama', 'llama3'), CONTEXTS['cook'])\n",
}

CLAUDE_TEXT = """\
You are Basil, the kitchen helper of Green Fork. You suggest recipes that fit what the cook has.

# House rules

- Suggest at most three recipes at a time.

# Diet

The cook follows this diet: vegan.

# Pantry

- tofu (200 g)
- rice"""

GPT_TEXT = CLAUDE_TEXT.replace(
    "# House rules\n\n- Suggest at most three recipes at a time.",
    "Rules for Green Fork:\n\n# House rules\n\n- Suggest at most three recipes at a time.\n\n"
    "- Keep each answer under 200 words.")

CONTEXT = "prompts/contexts/full.json"
GPT = ["--provider", "openai", "--model", "gpt-4.1"]


@pytest.fixture(autouse=True)
def _no_project_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PROMPTC_PROJECT", raising=False)


@pytest.fixture
def kitchen(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "kitchen", dict(PROJECT))
    (root / "src" / "app").mkdir(parents=True)
    return root


def _no_pack(*texts: str) -> None:
    for text in texts:
        assert not PACK.search(text), PACK.search(text)


def test_every_command_honours_the_project_from_its_root_and_a_subfolder(
        kitchen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for here, ctx in ((kitchen, CONTEXT), (kitchen / "src" / "app", f"../../{CONTEXT}")):
        def run(*argv: str) -> tuple[int, str, str]:
            code, out, err = promptc(capsys, here, *argv)  # noqa: B023 - run at once
            _no_pack(out, err)
            return code, out, err

        # the project's model, when a command names none (the whole prompt as one string)
        whole = ("--context", ctx, "--dynamic", "system")
        assert run("render", *whole) == (0, CLAUDE_TEXT + "\n", "")
        assert run("render", *whole, *GPT) == (0, GPT_TEXT + "\n", "")
        # the capability notice, for a model that cannot see images
        code, out, _ = run("render", "--context", ctx, "--images", "no")
        assert code == 0 and "# Photos" in out
        # a model the project does not cover: no coding prompt in its place
        code, out, err = run("render", "--provider", "ollama", "--model", "llama3")
        assert code == 2 and out == "" and "no variant matches provider 'ollama'" in err
        assert "tried: chef-claude" in err and "chef-gpt" in err
        code, out, _ = run("explain", "--context", ctx, *GPT)
        assert code == 0 and "extends   chef-claude (project)" in out
        assert "append section policies" in out and "remove section vision" in out
        code, out, _ = run("variants", "--json")
        listed = json.loads(out)
        assert [(v["id"], v["source"]) for v in listed] == [("chef-claude", "project"),
                                                            ("chef-gpt", "project")]
        assert [i["name"] for i in listed[1]["inputs"]] == ["DIET", "PANTRY"]
        code, out, _ = run("tools", *GPT, "--format", "openai")
        assert code == 0 and [t["function"]["name"] for t in json.loads(out)] == ["find_recipe"]
        assert run("lint", "--strict")[0] == 0
        code, out, _ = run("tokens", "--all-variants", "--models", "anthropic/claude-sonnet-4-5",
                           "openai/gpt-4.1", "--json")
        assert code == 0 and len(json.loads(out)) == 4
        code, out, _ = run("render", "--variant", "chef-gpt", "--examples")
        assert code == 0 and "vegetarian" in out and "- eggs (6)\n- spinach" in out
        # values that break their declaration, or name no input, in every mode
        assert run("render", "--set", "DIET=vegan\n# Policies")[0] == 1
        code, _, err = run("render", "--set", "DIET=vegan!")
        assert code == 1 and "does not match the pattern" in err
        for strict in ((), ("--strict",)):
            code, _, err = run("render", "--set", "DIETT=vegan", *strict)
            assert "did you mean 'DIET'?" in err and code == (1 if strict else 0)


def test_snapshots_and_a_copy_made_in_a_subfolder(kitchen: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    sub = kitchen / "src" / "app"
    code, out, err = promptc(capsys, kitchen, "snapshot", "--update")
    assert code == 0 and "4 added" in out, err
    assert (kitchen / "snapshots" / "chef-gpt__openai_gpt-4.1__full.md").is_file()
    code, out, _ = promptc(capsys, sub, "snapshot", "--check")
    assert code == 0 and "match ../../snapshots" in out
    code, out, _ = promptc(capsys, sub, "diff", "--snapshots", "../../snapshots")
    assert code == 0 and out.strip() == "no differences"
    # a copy made in a subfolder goes to the project's prompt folder and renders the same,
    # its section edits (an append, a file's prepend, a removal) included
    code, out, err = promptc(capsys, sub, "new-variant", "chef-lite", "--copy", "chef-gpt")
    assert code == 0, err
    assert (kitchen / "prompts/variants/chef-lite/policies.prepend.md").is_file()
    assert not (sub / ".promptc").exists()
    assert out.endswith("try: promptc render --variant chef-lite\n")  # the project's model
    code, copy, err = promptc(capsys, sub, "render", "--variant", "chef-lite", "--examples",
                              "--strict")
    assert code == 0, err
    assert copy == promptc(capsys, sub, "render", "--variant", "chef-gpt", "--examples")[1]


def test_the_input_form_s_schema_checks_what_promptc_checks(
        kitchen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`pattern` matches the whole value; JSON Schema's searches: the form's is anchored."""
    code, out, _ = promptc(capsys, kitchen, "inputs", "--json")
    schema = json.loads(out)
    assert code == 0 and schema["properties"]["DIET"]["maxLength"] == 40
    check = jsonschema.Draft202012Validator(schema)
    for value in ("vegan", "vegan!", "low-carb", "x" * 41):
        refused = promptc(capsys, kitchen, "render", "--set", f"DIET={value}")[0] == 1
        assert refused == (not check.is_valid({"DIET": value})), value


def test_python_serve_and_pytest_take_the_project(kitchen: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    sub = kitchen / "src" / "app"
    requests: list[dict[str, Any]] = [
        {"method": "variants"},
        {"method": "compile", "params": {"context": json.loads(
            (kitchen / CONTEXT).read_text(encoding="utf-8"))}},
        {"method": "compile", "params": {"provider": "ollama", "model": "llama3"}},
        {"method": "explain", "params": {"provider": "openai", "model": "gpt-4.1"}},
        {"method": "tools", "params": {"provider": "openai", "model": "gpt-4.1",
                                       "format": "openai"}},
        {"method": "check", "params": {"provider": "anthropic", "model": "claude-sonnet-4-5",
                                       "call": {"type": "tool_use", "id": "t1",
                                                "name": "find_recipe",
                                                "input": {"ingredients": ["rice"]}}}}]
    server = subprocess.Popen(
        [sys.executable, "-m", "promptc", "serve"], cwd=sub, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # the project's own pytest run, from its tests/ folder, while the server starts
    ran = pytest_in(kitchen / "tests")
    assert ran.returncode == 0 and "3 passed" in ran.stdout, ran.stdout + ran.stderr
    out, err = server.communicate("".join(
        json.dumps({"jsonrpc": "2.0", "id": i, **r}) + "\n" for i, r in enumerate(requests)),
        timeout=120)
    assert server.returncode == 0, err
    answers = sorted((json.loads(line) for line in out.splitlines()), key=lambda a: a["id"])
    _no_pack(out)
    variants, compiled, unmatched, explained, tools, checked = answers
    assert [v["id"] for v in variants["result"]] == ["chef-claude", "chef-gpt"]
    assert compiled["result"]["text"] == CLAUDE_TEXT
    assert unmatched["error"]["data"]["type"] == "NoVariantError"
    assert explained["result"]["variant"]["id"] == "chef-gpt"
    assert [t["function"]["name"] for t in tools["result"]] == ["find_recipe"]
    assert checked["result"]["ok"] is True
    # Python: Compiler.default() from the subfolder
    monkeypatch.chdir(sub)
    compiler = Compiler.default()
    context = PromptContext.load(kitchen / CONTEXT)
    prompt = compiler.compile(ProviderInfo("openai", "gpt-4.1"), context)
    assert prompt.text == GPT_TEXT and prompt.tools.names == ("find_recipe",)
    payloads = [prompt.to_anthropic(), prompt.to_openai(), prompt.to_gemini()]
    _no_pack(json.dumps(payloads))
    assert all("Keep each answer under 200 words" in json.dumps(p) for p in payloads)
    with pytest.raises(NoVariantError, match="tried: chef-claude"):
        compiler.compile(ProviderInfo("google", "gemini-2.5-pro"), context)


# --- every table a user writes names its keys ----------------------------------------------------

def _allowed() -> dict[str, tuple[str, ...]]:
    """The keys each table takes, from the code that reads it."""
    import attrs

    from promptc._load.project import KEYS
    from promptc._model.conditions import CONDITION_KEYS
    from promptc._model.matchers import MATCH_KEYS
    from promptc._model.tools import ToolParameter, _ToolFile
    from promptc._model.variant import VARIANT_KEYS

    def fields(cls: type) -> tuple[str, ...]:
        return tuple(f.name for f in attrs.fields(cls) if not f.name.startswith("_"))
    return {"project": tuple(KEYS), "variant": tuple(VARIANT_KEYS), "match": MATCH_KEYS,
            "when": CONDITION_KEYS, "tool": fields(_ToolFile),
            "parameter": fields(ToolParameter), "context": fields(PromptContext),
            # the provider table spells `provider` as `id`
            "provider": tuple("id" if f == "provider" else f for f in fields(ProviderInfo))}


# (table, file, text added, where: "top" or after this line, the field the error names)
TYPOS = [
    ("project", "promptc.toml", "bultins = false\n", "top", "bultins"),
    ("variant", "prompts/variants/chef-gpt/variant.toml", "extend = 'x'\n", "top", "extend"),
    ("match", "prompts/variants/chef-gpt/variant.toml", "modle = ['gpt']\n", "[match]\n",
     "match.modle"),
    ("tool", "prompts/components/tools/find_recipe.toml", "modez = ['act']\n", "top", "modez"),
    ("parameter", "prompts/components/tools/find_recipe.toml", "requird = true\n",
     "[[parameters]]\n", "parameters[0].requird"),
    ("when", "prompts/components/tools/find_recipe.toml", "[when]\nfeture = 'x'\n", "end",
     "when.feture"),
    ("context", CONTEXT, '"runtim": {}, ', "{", "runtim"),
    ("provider", CONTEXT, '"provider": {"id": "openai", "model": "gpt-4.1", "imagez": true}, ',
     "{", "provider.imagez"),
]


@pytest.mark.parametrize("table, rel, text, where, field", TYPOS, ids=[t[0] for t in TYPOS])
def test_an_unknown_key_lists_the_keys_its_table_takes(
        kitchen: Path, capsys: pytest.CaptureFixture[str], table: str, rel: str, text: str,
        where: str, field: str) -> None:
    path = kitchen / rel
    old = path.read_text(encoding="utf-8")
    new = text + old if where == "top" else old + text if where == "end" else \
        old.replace(where, where + text, 1)
    path.write_text(new, encoding="utf-8")
    code, _, err = promptc(capsys, kitchen, "render", "--context", CONTEXT)
    assert code == 2 and f"[{field}]: unknown " in err, err
    listed = err.split("; the keys are: " if "the keys are" in err else "; the fields are: ")[1]
    assert listed.strip().split(", ") == list(_allowed()[table])
    assert "did you mean" in err


def test_an_unknown_key_in_a_matrix_lists_the_keys(kitchen: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from promptc._review.snapshot import _CAP_KEYS, _CASE_KEYS
    matrix = kitchen / "prompts" / "matrix.toml"
    text = matrix.read_text(encoding="utf-8")
    matrix.write_text(text.replace("[[case]]\n", "[[case]]\nmodle = 'x'\n", 1), encoding="utf-8")
    code, _, err = promptc(capsys, kitchen, "tokens", "--targets")
    assert code == 2 and "[case[0].modle]: unknown key (did you mean 'model'?)" in err
    assert err.strip().endswith("the keys are: " + ", ".join((*_CASE_KEYS, *_CAP_KEYS)))
    matrix.write_text("cases = []\n" + text, encoding="utf-8")
    code, _, err = promptc(capsys, kitchen, "tokens", "--targets")
    assert code == 2 and "[cases]: unknown key (did you mean 'case'?); the keys are: " \
        "contexts, case" in err


def test_a_name_of_the_left_out_pack_says_so(kitchen: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """`request_info` or `read_file` in a project without the pack was only "not registered"
    or "no source defines it": nothing said the pack that has it is left out."""
    variant = kitchen / "prompts/variants/chef-claude/variant.toml"
    text = variant.read_text(encoding="utf-8")
    for old, new, said in [
            ('"pantry"]', '"pantry", "request_info"]', "'request_info' is a section"),
            ('tools = ["find_recipe"]', 'tools = ["find_recipe", "read_file"]',
             "'read_file' is a tool"),
            ('family = "claude"', 'extends = "generic"\nfamily = "claude"',
             "'generic' is a variant")]:
        variant.write_text(text.replace(old, new, 1), encoding="utf-8")
        code, out, err = promptc(capsys, kitchen, "lint", "--strict")
        assert code != 0 and f"{said} of the built-in coding pack, which is not loaded " \
            "here" in out + err, out + err
        variant.write_text(text, encoding="utf-8")
