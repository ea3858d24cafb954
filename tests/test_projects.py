"""The project file, honoured by every door: `promptc.toml` or `[tool.promptc]` found from the
working directory (not past the repository root), named with `--project` or
`$PROMPTC_PROJECT`; its keys; `--no-builtins`; and a project without the built-in pack, which
gets not a byte of it.

(`serve` reading the project file is in test_serve.py's neighbour below; the pytest fixture in
test_init.py, through a real `pytest` run in a new project.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from promptc import (Compiler, ConfigError, InputError, NoVariantError, PromptContext,
                     ProviderInfo)
from promptc._cli import main
from promptc._load.sources import builtin_root

from .conftest import write_tree

SONNET = ProviderInfo("anthropic", "claude-sonnet-4-5")
CLI_SONNET = ["--provider", "anthropic", "--model", "claude-sonnet-4-5"]
# text only the built-in coding pack writes
PACK_ROLE = (Path(builtin_root()) / "components" / "agent_role.md").read_text(
    encoding="utf-8").splitlines()[2][:40]

# A small project: one variant for Claude, a per-request section, one tool.
PROMPTS = {
    "prompts/variants/helper/variant.toml":
        'components = ["role", "who"]\ntools = ["lookup"]\ntool_mode = "native"\n'
        '[match]\nprovider = ["anthropic"]\n'
        '[inputs.NAME]\ntype = "string"\nrequired = true\n',
    "prompts/variants/helper/template.md": "{{role}}\n\n{{who}}\n",
    "prompts/components/role.md": "# Role\nYou help the customers of a bakery.\n",
    "prompts/components/who.md": "# Customer\nYou are talking with {{NAME}}.\n",
    "prompts/components/tools/lookup.toml": 'name = "lookup"\ndescription = "Find an order."\n',
}
PROJECT_FILE = 'builtins = false\nfolder = "prompts"\nuser = false\n'


@pytest.fixture(autouse=True)
def _no_project_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PROMPTC_PROJECT", raising=False)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def project(root: Path, project_file: str = PROJECT_FILE, name: str = "promptc.toml",
            **extra: str) -> Path:
    """A repository at `root` holding the small project (its project file as given)."""
    (root / ".git").mkdir(parents=True, exist_ok=True)
    return write_tree(root, {**PROMPTS, name: project_file, **extra})


# --- found, and what it loads -------------------------------------------------------------------

def test_a_project_without_the_pack_gets_none_of_it_from_any_subfolder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path / "repo")
    deep = root / "src" / "deeper"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    compiler = Compiler.default()
    reg = compiler.registry
    assert list(reg.variants) == ["helper"] and reg.fallback is None
    assert set(reg.components) == {"role", "who"} and set(reg.tools) == {"lookup"}
    assert not reg.features.names  # no feature of the pack's tools or sections
    assert [s for s, _root in compiler.sources] == ["project"]
    prompt = compiler.compile(SONNET, PromptContext(runtime={"NAME": "Ada"}), strict=True)
    assert prompt.text == ("# Role\nYou help the customers of a bakery.\n\n"
                           "# Customer\nYou are talking with Ada.")
    code, out, err = run(capsys, "render", *CLI_SONNET, "--set", "NAME=Ada", "--strict")
    assert code == 0 and out.strip() == prompt.text and PACK_ROLE not in out, err


def test_a_model_nothing_matches_is_an_error_naming_what_was_tried(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Once the built-in coding prompt quietly became the project's prompt for such a model."""
    monkeypatch.chdir(project(tmp_path / "repo"))
    with pytest.raises(NoVariantError, match=r"model 'o3'.*tried: helper \(provider 'openai'"):
        Compiler.default().compile(ProviderInfo("openai", "o3"))
    code, out, err = run(capsys, "render", "--provider", "openai", "--model", "o3",
                         "--set", "NAME=Ada")
    assert code == 2 and out == "" and "no variant matches" in err and PACK_ROLE not in err


def test_the_projects_own_fallback_variant_takes_what_nothing_else_matches(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path / "repo", **{
        "prompts/variants/any/variant.toml": 'extends = "helper"\nfallback = true\n'})
    monkeypatch.chdir(root)
    prompt = Compiler.default().compile(ProviderInfo("openai", "o3"),
                                        PromptContext(runtime={"NAME": "Ada"}), strict=True)
    assert prompt.variant.id == "any" and "bakery" in prompt.text


def test_a_pyproject_without_the_table_does_not_stop_the_walk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path / "repo")
    package = write_tree(root / "pkg", {"pyproject.toml": '[project]\nname = "pkg"\n'})
    monkeypatch.chdir(package)
    assert list(Compiler.default().variants) == ["helper"]


def test_a_pyproject_table_is_a_project_file_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = "[project]\nname = \"bakery\"\n\n[tool.promptc]\n" + PROJECT_FILE
    root = project(tmp_path / "repo", table, name="pyproject.toml")
    monkeypatch.chdir(root)
    compiler = Compiler.default()
    assert list(compiler.variants) == ["helper"]
    assert compiler.project.file == str(root / "pyproject.toml")
    write_tree(root, {"pyproject.toml": table + "bultins = true\n"})
    with pytest.raises(ConfigError, match=r"\[tool\.promptc\.bultins\]: unknown key "
                                          r"\(did you mean 'builtins'\?\); the keys are: "
                                          r"builtins, folder, user, plugins, matrix, snapshots, "
                                          r"strict, placement, model"):
        Compiler.default()


def test_the_walk_stops_at_the_repository_root(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A project file above the repository is some other project's: not this one's."""
    write_tree(tmp_path, {"promptc.toml": PROJECT_FILE, **PROMPTS})
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    monkeypatch.chdir(repo)
    compiler = Compiler.default(user=False, plugins=False)
    assert compiler.project.file == "" and "generic" in compiler.variants


def test_without_a_project_file_a_promptc_folder_is_found_as_before(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_tree(tmp_path / "repo", {".promptc/components/rules.md": "# Rules\nBe kind.\n"})
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    compiler = Compiler.default(user=False, plugins=False)
    assert [s for s, _ in compiler.sources] == ["builtin", "project"]
    assert compiler.registry.components["rules"].source == "project"


@pytest.mark.parametrize(("text", "message"), [
    ('plugins = ["support-plus-typo"]\n', r"\[plugins\]: plugin 'support-plus-typo' is not "
                                          r"installed \(installed plugins: "),
    ('placement = "cache"\n', r"\[placement\]: must be \"system\" or \"message\", got 'cache'"),
    ('model = "claude-sonnet-4-5"\n', r"\[model\]: must be \"provider/model\""),
    ('folder = "nowhere"\n', r"\[folder\]: prompt folder .*nowhere' not found"),
    ('matrix = "ci/matrix.toml"\n', r"\[matrix\]: matrix file .*matrix\.toml' not found"),
    ('builtins = "no"\n', r"\[builtins\]: must be true or false, got a string"),
    ('plugins = "all"\n', r"\[plugins\]: must be true, false or a list of plugin names"),
])
def test_a_bad_value_is_one_error_naming_the_file_and_key(
        tmp_path: Path, text: str, message: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path / "repo", 'user = false\n' + text)
    monkeypatch.chdir(root)
    with pytest.raises(ConfigError, match=message):
        Compiler.default()
    code, _, err = run(capsys, "variants")
    assert code == 2 and "promptc.toml" in err and len(err.strip().splitlines()) == 1


def test_both_kinds_of_project_file_in_one_folder_is_an_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path / "repo", **{"pyproject.toml": "[tool.promptc]\nbuiltins = true\n"})
    monkeypatch.chdir(root)
    with pytest.raises(ConfigError, match="both promptc.toml and pyproject.toml"):
        Compiler.default()


# --- named: --project, PROMPTC_PROJECT ----------------------------------------------------------

def test_project_names_a_root_or_a_prompt_folder_and_so_does_the_variable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path / "repo")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    for named in (root, root / "prompts", root / "promptc.toml"):
        code, out, _ = run(capsys, "variants", "--json", "--project", str(named))
        # the prompt folder is this project file's `folder`: the file applies (no built-ins)
        assert code == 0 and [r["id"] for r in json.loads(out)] == ["helper"], named
    monkeypatch.setenv("PROMPTC_PROJECT", str(root))
    assert list(Compiler.default().variants) == ["helper"]
    monkeypatch.setenv("PROMPTC_PROJECT", str(tmp_path / "missing"))
    with pytest.raises(ConfigError, match=r"project folder not found \(from \$PROMPTC_PROJECT\)"):
        Compiler.default()
    # --project wins over the variable
    assert list(Compiler.default(project=root).variants) == ["helper"]


def test_a_project_root_holding_only_a_promptc_folder(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "app", {".promptc/components/rules.md": "# Rules\nBe kind.\n"})
    compiler = Compiler.default(project=root, user=False, plugins=False)
    assert compiler.registry.components["rules"].source == "project"


# --- --no-builtins, and what the options win over ----------------------------------------------

def test_no_builtins_on_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A `.promptc` folder without a project file: --no-builtins leaves the pack out."""
    prompts = {k.replace("prompts/", ".promptc/"): v for k, v in PROMPTS.items()}
    root = write_tree(tmp_path / "repo", prompts)
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    code, out, _ = run(capsys, "variants", "--json", "--no-builtins", "--no-user")
    assert code == 0 and [r["id"] for r in json.loads(out)] == ["helper"]
    code, _, err = run(capsys, "render", "--provider", "openai", "--model", "gpt-4.1",
                       "--no-builtins", "--no-user")
    assert code == 2 and "no variant matches" in err
    code, _, err = run(capsys, "variants", "--no-builtins", "--builtins-only")
    assert code == 2 and "exclude each other" in err


def test_an_option_that_leaves_a_source_out_wins_over_the_file(tmp_path: Path) -> None:
    root = project(tmp_path / "repo", 'folder = "prompts"\nuser = false\nbuiltins = true\n')
    assert "generic" in Compiler.default(project=root, plugins=False).variants
    assert "generic" not in Compiler.default(project=root, plugins=False,
                                             builtins=False).variants


def test_from_folders_says_which_plugins(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "p", {k[len("prompts/"):]: v for k, v in PROMPTS.items()})
    compiler = Compiler.from_folders(folder, builtins=False)  # plugins: none unless asked
    assert compiler.plugins is None and list(compiler.variants) == ["helper"]
    with pytest.raises(ConfigError, match="plugin 'nope' is not installed"):
        Compiler.from_folders(folder, builtins=False, plugins=["nope"])
    assert list(Compiler.from_folders(folder, builtins=False, plugins=True).variants) == \
        ["helper"]  # no promptc plugin is installed in this environment


# --- the commands' defaults: strict, model, placement, snapshots ------------------------------

def test_strict_model_and_placement_are_the_commands_defaults(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path / "repo", PROJECT_FILE + 'model = "anthropic/claude-sonnet-4-5"\n')
    monkeypatch.chdir(root)
    # the project's model; a value for an input the variant does not declare: lenient
    code, out, err = run(capsys, "render", "--set", "NAME=Ada", "--set", "EXTRA=1")
    assert code == 0 and "bakery" in out and "input-undeclared" in err
    write_tree(root, {"promptc.toml": PROJECT_FILE + 'model = "anthropic/claude-sonnet-4-5"\n'
                                                     'strict = true\nplacement = "message"\n',
                      # the split tells the model where the details went (strict: required)
                      "prompts/components/environment_note.md":
                          "Details of this conversation come in a message of their own.\n"})
    code, out, err = run(capsys, "render", "--set", "NAME=Ada", "--set", "EXTRA=1")
    assert code == 1 and "EXTRA" in err and out == ""
    code, out, err = run(capsys, "render", "--variant", "helper", "--set", "NAME=Ada",
                         "--format", "json")
    assert code == 0, err
    # placement = "message": the request's own text goes to the first user message
    sent = json.loads(out)
    assert "bakery" in sent["system"]["text"] and "Ada" not in sent["system"]["text"]
    assert "talking with Ada" in sent["message"]["text"]
    assert Compiler.default().placement == "message"
    code, out, _ = run(capsys, "render", "--dynamic", "system", "--set", "NAME=Ada",
                       "--format", "json")
    assert code == 0 and not json.loads(out)["message"]["text"]


def test_the_project_s_strict_is_compile_s_default_in_python(tmp_path: Path) -> None:
    """Only the commands and serve read `strict` once; `compile` took False whatever it said."""
    root = project(tmp_path / "repo", PROJECT_FILE + "strict = true\n")
    compiler = Compiler.default(project=root)
    extra = PromptContext(runtime={"NAME": "Ada", "EXTRA": "1"})  # an undeclared input
    with pytest.raises(InputError, match="EXTRA"):
        compiler.compile(SONNET, extra)
    lenient = compiler.compile(SONNET, extra, strict=False)  # an explicit False still wins
    assert [d.code for d in lenient.diagnostics] == ["input-undeclared"]
    relaxed = Compiler.default(project=project(tmp_path / "other"))
    assert relaxed.compile(SONNET, extra).diagnostics == lenient.diagnostics
    with pytest.raises(InputError):
        relaxed.compile(SONNET, extra, strict=True)


def test_a_subfolder_of_a_project_is_no_prompt_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--project src` inside a project without the pack quietly gave the coding pack."""
    root = project(tmp_path / "repo")
    (root / "src").mkdir()
    code, out, err = run(capsys, "variants", "--project", str(root / "src"))
    assert code == 2 and out == ""
    assert f"lies inside the project of {root / 'promptc.toml'}" in err
    assert f"name that project's root ({root})" in err
    # a prompt folder of its own inside the project stays one
    write_tree(root, {"src/components/role.md": "# Role\nOther.\n"})
    assert Compiler.default(project=root / "src").project.folder == root / "src"


def test_the_project_matrix_and_snapshots_are_the_defaults_and_must_agree(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path / "repo", PROJECT_FILE + 'matrix = "ci/matrix.toml"\n'
                   'snapshots = "ci/snapshots"\n', **{
                       "ci/matrix.toml": '[contexts]\nada = "ada.json"\n\n[[case]]\n'
                                         'provider = "anthropic"\nmodel = "claude-sonnet-4-5"\n',
                       "ci/other.toml": '[contexts]\nada = "ada.json"\n\n[[case]]\n'
                                        'provider = "anthropic"\nmodel = "claude-opus-4-5"\n',
                       "ci/ada.json": '{"runtime": {"NAME": "Ada"}}'})
    monkeypatch.chdir(root / "prompts")
    code, out, err = run(capsys, "snapshot", "--update")
    assert code == 0 and "1 added" in out, err
    assert (root / "ci" / "snapshots" / "helper__anthropic_claude-sonnet-4-5__ada.md").is_file()
    code, out, _ = run(capsys, "snapshot", "--check")
    assert code == 0 and "ci/matrix.toml" in out
    code, out, _ = run(capsys, "diff")  # the project's snapshots, no other side needed
    assert code == 0 and out.strip() == "no differences"
    # a project whose `matrix` names another matrix than the one that wrote its folder
    write_tree(root, {"promptc.toml": PROJECT_FILE + 'matrix = "ci/other.toml"\n'
                                                     'snapshots = "ci/snapshots"\n'})
    code, _, err = run(capsys, "snapshot", "--check")
    assert code == 2 and "other.toml" in err and "ci/matrix.toml" in err
    assert "project file's `matrix`" in err


# --- serve ---------------------------------------------------------------------------------------

def serve(cwd: Path, *args: str, requests: list[dict[str, object]]
          ) -> subprocess.Popen[str]:
    """A `promptc serve` started in `cwd`, its input written and closed (read the answers
    with `answers`)."""
    proc = subprocess.Popen([sys.executable, "-m", "promptc", "serve", *args], cwd=cwd,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None
    proc.stdin.write("".join(json.dumps({"jsonrpc": "2.0", "id": i, **r}) + "\n"
                             for i, r in enumerate(requests)))
    proc.stdin.close()
    return proc


def answers(proc: subprocess.Popen[str]) -> list[dict[str, Any]]:
    """The answers of a server started by `serve`, by request id, once its input ended."""
    assert proc.stdout is not None and proc.stderr is not None
    out, err = proc.stdout.read(), proc.stderr.read()
    assert proc.wait(timeout=120) == 0, err
    return sorted((json.loads(line) for line in out.splitlines()), key=lambda a: a["id"])


def test_serve_reads_the_project_file_and_takes_no_builtins(tmp_path: Path) -> None:
    root = project(tmp_path / "repo", PROJECT_FILE + 'strict = true\n')
    compile_ada = {"method": "compile", "params": {
        "provider": "anthropic", "model": "claude-sonnet-4-5",
        "context": {"runtime": {"NAME": "Ada"}}}}
    in_project = serve(root / "prompts", requests=[
        {"method": "variants"}, compile_ada,
        {"method": "compile", "params": {"provider": "openai", "model": "o3"}},
        {"method": "compile", "params": {"provider": "anthropic", "model": "claude-opus-4-5"}}])
    # --no-builtins on serve, for a .promptc project without a project file
    plain = write_tree(tmp_path / "plain", {".promptc/variants/v/variant.toml":
                                            'components = ["role"]\nfallback = true\n',
                                            ".promptc/variants/v/template.md": "{{role}}\n",
                                            ".promptc/components/role.md": "# Role\nHi.\n"})
    (plain / ".git").mkdir()
    no_builtins = serve(plain, "--no-builtins", "--no-user", requests=[{"method": "variants"}])
    variants, compiled, unmatched, missing = answers(in_project)
    assert [v["id"] for v in variants["result"]] == ["helper"]
    assert compiled["result"]["text"].endswith("talking with Ada.")
    assert "no variant matches" in unmatched["error"]["message"]
    # strict = true: the required input missing fails the request
    assert "NAME" in missing["error"]["message"]
    [listed] = answers(no_builtins)
    assert [v["id"] for v in listed["result"]] == ["v"]


def test_new_variant_writes_into_the_projects_folder_and_inputs_takes_its_model(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path / "repo", PROJECT_FILE + 'model = "anthropic/claude-sonnet-4-5"\n')
    monkeypatch.chdir(root / "prompts" / "components")
    code, out, err = run(capsys, "new-variant", "helper-two", "--from", "helper")
    assert code == 0, err
    assert (root / "prompts" / "variants" / "helper-two" / "variant.toml").is_file()
    assert not (root / "prompts" / "components" / ".promptc").exists()
    code, out, _ = run(capsys, "inputs", "--json")  # the variant of the project's model
    assert code == 0 and json.loads(out)["required"] == ["NAME"]


def test_an_unknown_name_says_which_sources_were_looked_in(tmp_path: Path) -> None:
    root = project(tmp_path / "repo", PROJECT_FILE, **{
        "prompts/variants/more/variant.toml": 'extends = "helper"\ntools = ["lookup", "refund"]\n',
        "prompts/variants/other/variant.toml": 'extends = "helpr"\n'})
    with pytest.raises(ConfigError, match=r"more/variant\.toml \[tools\[1\]\]: unknown tool "
                                          r"'refund'; no source defines it \(sources: project\)"):
        Compiler.default(project=root)
    write_tree(root, {"prompts/variants/more/variant.toml": 'extends = "helper"\n'})
    with pytest.raises(ConfigError, match=r"extends unknown variant 'helpr' \(did you mean "
                                          r"'helper'\?\); no source defines it \(sources: "
                                          r"project\)"):
        Compiler.default(project=root)
