"""Plugins for real: packages under tests/plugins/ pip-installed, found through entry points.

The plugin packages are installed once per session with
`pip install --no-deps --no-build-isolation --no-index --target <dir> tests/plugins/promptc-*`
(offline: hatchling, the build backend, comes from the test extras), then each package's files,
as its RECORD lists them, move to a folder of their own. A
test puts the folders it wants on PYTHONPATH and runs `python -m promptc …` (the `promptc`
command), a `python -c` probe or pytest in a subprocess, so importlib.metadata sees exactly those
entry points; a run without them sees none. Independent subprocesses run side by side.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from .standin import compiler_with, plugin_module

PLUGINS = Path(__file__).parent / "plugins"
PACKAGES = ("acme", "rival", "broken-import", "bad-hook", "bad-context", "typo-hook",
            "support-plus")
BROKEN = ("broken-import", "bad-hook", "bad-context", "typo-hook")
ACME = ["--provider", "acme", "--model", "acme-coder-2", "--date", "2026-01-01"]
# Text only the acme plugin produces (its data folder, its Python component), and the rival's.
ACME_ROLE = "You are Acme Coder, a software engineering agent working in a sandboxed copy"
ACME_NOTES = "# Working with the Acme sandbox"
ACME_MINI = "You are the compact Acme model"
RIVAL_ROLE = "You are the rival plugin's Acme agent."
# pytest plugins of this test environment that a plugin author's suite does not load
OTHER_PYTEST_PLUGINS = ("hypothesispytest", "xdist", "xdist.looponfail", "langsmith_plugin",
                        "anyio")


# --- installation, once per session --------------------------------------------------------------

@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """{package: target folder}: one pip run installs every plugin package, then each one's
    files (as its dist-info RECORD lists them) move to a folder of their own."""
    try:
        import hatchling  # noqa: F401 - the build backend pip uses with --no-build-isolation
    except ImportError:
        pytest.fail("hatchling is missing: install the test extras (pip install -e '.[test]')")
    root = tmp_path_factory.mktemp("plugin-targets")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation",
         "--no-index", "--quiet", "--target", str(root / "all"),
         *(str(PLUGINS / f"promptc-{name}") for name in PACKAGES)],
        capture_output=True, text=True, env=env, timeout=300, check=False)
    assert proc.returncode == 0, f"pip could not install the plugins:\n{proc.stdout}\n{proc.stderr}"
    return {name: _split_out(root / "all", root / name, name) for name in PACKAGES}


def _split_out(everything: Path, target: Path, name: str) -> Path:
    """Move the files of `promptc-<name>` out of `everything` into `target`."""
    [record] = everything.glob(f"promptc_{name.replace('-', '_')}-*.dist-info/RECORD")
    for line in record.read_text(encoding="utf-8").splitlines():
        relative = line.rsplit(",", 2)[0]
        if (everything / relative).is_file():
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            (everything / relative).rename(target / relative)
    assert list(target.glob("promptc_*.dist-info/entry_points.txt")), name
    return target


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """`cwd/`: an empty working directory (no .promptc/); `xdg/`: an empty config home."""
    (tmp_path / "cwd").mkdir()
    (tmp_path / "xdg").mkdir()
    return tmp_path


class Runner:
    """Starts subprocesses with chosen plugin folders on PYTHONPATH; `.result()` waits."""

    def __init__(self, installed: Mapping[str, Path], workdir: Path) -> None:
        self.installed = installed
        self.workdir = workdir
        self.started: list[Pending] = []

    def env(self, plugins: Iterable[str], xdg: Path | None,
            extra: Mapping[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PYTEST_", "PROMPTC")) and k != "PYTHONPATH"}
        paths = [str(self.installed[p]) for p in plugins]
        if os.environ.get("PYTHONPATH"):
            paths.append(os.environ["PYTHONPATH"])
        if paths:
            env["PYTHONPATH"] = os.pathsep.join(paths)
        env["XDG_CONFIG_HOME"] = str(xdg or self.workdir / "xdg")
        env["NO_COLOR"] = "1"
        env.update(extra or {})
        return env

    def start(self, argv: list[str], *, plugins: Iterable[str] = (), cwd: Path | None = None,
              xdg: Path | None = None, extra: Mapping[str, str] | None = None) -> Pending:
        proc = subprocess.Popen(argv, cwd=cwd or self.workdir / "cwd", text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=self.env(plugins, xdg, extra))
        self.started.append(Pending(proc, argv))
        return self.started[-1]

    def promptc(self, *args: str, **kw: Any) -> Pending:
        """The `promptc` command (`python -m promptc` is the same command)."""
        return self.start([sys.executable, "-m", "promptc", *args], **kw)

    def probe(self, cases: list[tuple[str, str, dict[str, Any]]], *, project: bool = True,
              **kw: Any) -> Pending:
        """`python -c`: Compiler.default() compiles each (provider, model, context) case."""
        spec = json.dumps({"cases": cases, "project": project})
        return self.start([sys.executable, "-c", _PROBE, spec], **kw)


_PROBE = """
import importlib.metadata, json, sys
from promptc import Compiler, PromptContext, ProviderInfo
spec = json.loads(sys.argv[1])
compiler = Compiler.default(project=None if spec["project"] else False)
prompts = []
for provider, model, context in spec["cases"]:
    p = compiler.compile(ProviderInfo(provider, model), PromptContext.from_dict(context))
    prompts.append({"variant": p.variant.id, "source": p.variant.source,
                    "priority": p.variant.priority, "text": p.text,
                    "origins": {s.id: s.origin for s in p.sections},
                    "cache": {s.id: s.cache for s in p.sections}, "tools": list(p.tools.names),
                    "diagnostics": [d.to_dict() for d in p.diagnostics]})
found = importlib.metadata.entry_points(group="promptc")
print(json.dumps({"entry_points": [e.name for e in found],
                  "findings": [f.to_dict() for f in compiler.registry.findings],
                  "prompts": prompts}))
"""


class Pending:
    def __init__(self, proc: subprocess.Popen[str], argv: list[str]) -> None:
        self.proc = proc
        self.argv = argv
        self._done: subprocess.CompletedProcess[str] | None = None

    def result(self) -> subprocess.CompletedProcess[str]:
        if self._done is None:
            out, err = self.proc.communicate(timeout=300)
            self._done = subprocess.CompletedProcess(self.argv, self.proc.returncode, out, err)
        return self._done

    def ok(self) -> subprocess.CompletedProcess[str]:
        done = self.result()
        assert done.returncode == 0, f"{done.args[-3:]} exited {done.returncode}:\n{done.stderr}"
        return done

    def json(self) -> Any:
        return json.loads(self.ok().stdout)


@pytest.fixture
def runner(installed: dict[str, Path], workdir: Path) -> Iterator[Runner]:
    r = Runner(installed, workdir)
    yield r
    for pending in r.started:  # a test that failed early leaves none running
        if pending.proc.returncode is None:
            pending.proc.kill()
            pending.proc.communicate()


def by_id(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in rows}


def names_plugin(stderr: str, plugin: str, code: str) -> bool:
    """A diagnostic line with this code that names this plugin."""
    return any(code in line and f"plugin:{plugin}" in line and f"'{plugin}'" in line
               for line in stderr.splitlines())


DAY = {"date": "2026-01-01"}


# --- (a) a real plugin is found through its entry point -------------------------------------------

def test_installed_plugin_registers_and_routes(runner: Runner) -> None:
    variants = runner.promptc("variants", "--json", plugins=["acme"])
    render = runner.promptc("render", *ACME, "--format", "json", plugins=["acme"])
    mini = runner.promptc("render", "--provider", "openrouter", "--model",
                          "acme/acme-coder-2-mini", "--date", "2026-01-01", "--strict",
                          plugins=["acme"])
    explain = runner.promptc("explain", *ACME[:4], "--json", plugins=["acme"])

    rows = by_id(variants.json())
    assert rows["acme"]["source"] == "plugin:acme"
    assert rows["acme"]["extends"] == "generic" and rows["acme"]["priority"] == 100
    assert rows["generic"]["source"] == "builtin"

    out = render.json()
    assert out["variant"] == {"id": "acme", "family": "acme", "source": "plugin:acme"}
    assert out["diagnostics"] == []
    sections = {s["id"]: s for s in out["sections"]}
    # the data folder's override of a built-in component, the Python component (static: it
    # declares reads=()), the Python tool, the context hook, and what acme inherits from generic
    assert sections["agent_role"]["origin"] == \
        "plugin:acme:variants/acme/components/agent_role.md"
    assert sections["acme_notes"]["origin"].startswith("plugin:acme:")
    assert sections["acme_notes"]["cache"] == "static"
    assert sections["tool_use"]["origin"] == "builtin:components/tool_use.md"
    text = out["text"]
    assert ACME_ROLE in text and ACME_NOTES in text and ACME_MINI not in text
    assert text.index(ACME_ROLE) < text.index(ACME_NOTES) < text.index("# Editing files")
    assert "sandbox_snapshot" in out["tools"]["names"]
    assert "<sandbox_snapshot>" in text  # text tool mode: its usage block is in the prompt
    assert 'shell="/bin/sh"' in text

    # a gateway's spelling of another acme model; strict: no diagnostic at all
    assert ACME_NOTES in mini.ok().stdout and ACME_MINI in mini.ok().stdout
    # the plugin's models.toml defines the family the variant matches, with its facts
    why = explain.json()
    assert why["provider"]["family"] == "acme" and why["variant"]["id"] == "acme"
    assert why["capabilities"]["context_window"]["value"] == 131072
    assert why["capabilities"]["context_window"]["source"].startswith("family acme")


def test_without_the_plugin_there_is_no_acme(runner: Runner) -> None:
    variants = runner.promptc("variants", "--json")
    render = runner.promptc("render", *ACME)
    assert "acme" not in by_id(variants.json())
    text = render.ok().stdout
    assert text.startswith("# Role")
    assert ACME_ROLE not in text and ACME_NOTES not in text and "sandbox_snapshot" not in text
    assert "shell=" not in text


def test_context_hook_fills_only_what_the_client_left_empty(runner: Runner) -> None:
    out = runner.probe([("acme", "acme-coder-2", {**DAY, "shell": "/usr/bin/fish"}),
                        ("acme", "acme-coder-2", DAY),
                        ("openai", "gpt-4o", DAY)], plugins=["acme"]).json()
    given, empty, other = out["prompts"]
    assert 'shell="/usr/bin/fish"' in given["text"] and "/bin/sh" not in given["text"]
    assert 'shell="/bin/sh"' in empty["text"]
    assert other["variant"] == "generic" and "shell=" not in other["text"]


# --- (b, c) a broken plugin is skipped and named; strict mode makes it an error -------------------

def test_broken_plugins_leave_the_rest_working(runner: Runner) -> None:
    everything = ["acme", *BROKEN]
    render = runner.promptc("render", *ACME, plugins=everything)
    variants = runner.promptc("variants", "--json", plugins=everything)

    proc = render.ok()
    assert ACME_ROLE in proc.stdout and ACME_NOTES in proc.stdout  # the good plugin still works
    assert 'shell="/bin/sh"' in proc.stdout  # and so does its per-request hook
    err = proc.stderr
    assert names_plugin(err, "broken-import", "plugin-import")
    assert "fails on import on purpose" in err
    assert names_plugin(err, "bad-hook", "plugin-hook") and "promptc_tools" in err
    assert names_plugin(err, "typo-hook", "plugin-invalid")
    assert "'promptc_variant'" in err  # the misspelled name, found by check_pending()
    assert names_plugin(err, "bad-context", "plugin-hook")
    assert "promptc_contribute_context" in err
    assert "Traceback" not in err

    # a skipped plugin registers nothing, not even what its working hooks returned
    rows = by_id(variants.json())
    assert "acme" in rows
    assert "half-registered" not in rows and "typo-registered" not in rows


def test_each_broken_plugin_fails_strict_mode(runner: Runner) -> None:
    lenient = runner.promptc("render", *ACME, plugins=["broken-import"])  # alone, no acme
    strict = {p: runner.promptc("render", *ACME, "--strict", plugins=[p]) for p in BROKEN}
    ok = lenient.ok()
    assert ok.stdout.startswith("# Role") and "# Tool use" in ok.stdout
    assert names_plugin(ok.stderr, "broken-import", "plugin-import"), ok.stderr
    for plugin in BROKEN:
        failed = strict[plugin].result()
        assert failed.returncode == 1, (plugin, failed.returncode, failed.stderr)
        assert failed.stdout == ""
        assert f"plugin '{plugin}'" in failed.stderr and "Traceback" not in failed.stderr


# --- (d) two plugins, one variant id: (priority, plugin name) decides, never load order -----------

def test_variant_conflict_has_one_winner_whatever_the_order(runner: Runner) -> None:
    orders = (["acme", "rival"], ["rival", "acme"])
    pending = [runner.probe([("acme", "acme-coder-2", DAY)], plugins=o) for o in orders]
    seen = [p.json() for p in pending]
    # the two runs really did find the entry points in opposite orders …
    assert [e for e in seen[0]["entry_points"] if e in ("acme", "rival")] == ["acme", "rival"]
    assert [e for e in seen[1]["entry_points"] if e in ("acme", "rival")] == ["rival", "acme"]
    # … and chose the same winner: rival's priority 90 beats acme's 100, although a tie-break
    # by name alone would pick "acme"
    for result in seen:
        prompt = result["prompts"][0]
        assert (prompt["variant"], prompt["source"], prompt["priority"]) == \
            ("acme", "plugin:rival", 90)
        assert RIVAL_ROLE in prompt["text"] and ACME_ROLE not in prompt["text"]
        conflicts = [f for f in result["findings"] if f["code"] == "variant-conflict"]
        assert len(conflicts) == 1 and conflicts[0]["source"] == "plugin:rival"
    assert seen[0]["prompts"] == seen[1]["prompts"]


def test_lint_reports_the_conflict(runner: Runner) -> None:
    """A warning (a plain `lint` exits 0 on one: test_lint.py's
    test_a_conflict_inside_the_project_still_fails) that fails `lint --strict`; acme alone is
    lint-clean."""
    both = ["rival", "acme"]
    strict = runner.promptc("lint", "--strict", plugins=both)
    alone = runner.promptc("lint", "--strict", plugins=["acme"])
    out = strict.result().stdout
    line = next(x for x in out.splitlines() if "variant-conflict" in x)
    assert "'acme'" in line and "plugin:acme" in line and "plugin:rival" in line
    assert line.startswith("warning")
    assert strict.result().returncode == 1
    assert "variant-conflict" not in alone.ok().stdout


# --- (e) user and project folders -----------------------------------------------------------------

def write(root: Path, files: Mapping[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_project_folder_overrides_one_component_of_one_variant(runner: Runner,
                                                               workdir: Path) -> None:
    project = write(workdir / "repo", {".promptc/variants/generic/components/rules.md":
                                       "# Rules\n\n- PROJECT RULE: run `make lint` first.\n"})
    deep = project / "src" / "deep"  # the project folder is found from a subfolder
    deep.mkdir(parents=True)
    explain = runner.promptc("explain", "--provider", "someone", "--model", "new-model-1",
                             "--date", "2026-01-01", "--json", cwd=deep)
    cases = [("someone", "new-model-1", DAY), ("ollama", "qwen2.5-coder:7b", DAY)]
    with_project = runner.probe(cases, cwd=deep)
    without = runner.probe(cases, project=False, cwd=deep)

    data = explain.json()
    assert data["variant"]["id"] == "generic"
    sections = {s["id"]: s for s in data["sections"]}
    assert sections["rules"]["origin"] == "project:variants/generic/components/rules.md"
    assert sections["agent_role"]["origin"] == "builtin:components/agent_role.md"

    generic, compact = with_project.json()["prompts"]
    assert "PROJECT RULE: run `make lint` first." in generic["text"]
    assert compact["variant"] == "compact"  # has its own rules text, which it keeps
    assert compact["origins"]["rules"] == "builtin:variants/compact/components/rules.md"
    plain, _ = without.json()["prompts"]
    assert plain["origins"]["rules"] == "builtin:components/rules.md"
    assert "PROJECT RULE" not in plain["text"]


def test_user_folder_adds_a_private_variant(runner: Runner, workdir: Path) -> None:
    user = write(workdir / "user", {
        "promptc/variants/house/variant.toml":
            'extends = "generic"\nfamily = "house"\npriority = 150\n'
            '[match]\nmodel = ["house-model"]\n',
        "promptc/variants/house/components/objective.md": "# Objective\n\nHOUSE OBJECTIVE.\n",
    })
    variants = runner.promptc("variants", "--json", xdg=user)
    no_user = runner.promptc("variants", "--json", "--no-user", xdg=user)
    render = runner.probe([("house-ai", "house-model-3", DAY)], xdg=user)
    rows = by_id(variants.json())
    assert rows["house"]["source"] == "user" and rows["house"]["extends"] == "generic"
    assert rows["house"]["priority"] == 150
    assert "house" not in by_id(no_user.json())
    prompt = render.json()["prompts"][0]
    assert prompt["variant"] == "house" and "HOUSE OBJECTIVE." in prompt["text"]
    assert prompt["origins"]["objective"] == "user:variants/house/components/objective.md"


def test_precedence_builtin_plugin_user_project(runner: Runner, workdir: Path) -> None:
    """One section (agent_role for an acme model), overridden at each level in turn."""
    user = write(workdir / "user", {"promptc/variants/acme/components/agent_role.md":
                                    "# Role\n\nUSER ROLE.\n"})
    project = write(workdir / "repo", {".promptc/variants/acme/components/agent_role.md":
                                       "# Role\n\nPROJECT ROLE.\n"})
    case = [("acme", "acme-coder-2", DAY)]
    levels = [runner.probe(case),                                  # built-ins only
              runner.probe(case, plugins=["acme"]),                # + plugin
              runner.probe(case, plugins=["acme"], xdg=user),      # + user folder
              runner.probe(case, plugins=["acme"], xdg=user, cwd=project)]  # + project
    builtin, plugin, user_level, project_level = (p.json()["prompts"][0] for p in levels)

    assert builtin["variant"] == "generic"
    assert builtin["origins"]["agent_role"] == "builtin:components/agent_role.md"
    assert plugin["variant"] == "acme" and ACME_ROLE in plugin["text"]
    assert plugin["origins"]["agent_role"] == "plugin:acme:variants/acme/components/agent_role.md"
    assert user_level["origins"]["agent_role"] == "user:variants/acme/components/agent_role.md"
    assert "USER ROLE." in user_level["text"] and ACME_ROLE not in user_level["text"]
    assert project_level["origins"]["agent_role"] == \
        "project:variants/acme/components/agent_role.md"
    assert "PROJECT ROLE." in project_level["text"] and "USER ROLE." not in project_level["text"]
    # each override replaced that one section and nothing else of the plugin's variant
    for level in (user_level, project_level):
        assert level["variant"] == "acme" and ACME_NOTES in level["text"]
        assert {k: v for k, v in level["origins"].items() if k != "agent_role"} == \
            {k: v for k, v in plugin["origins"].items() if k != "agent_role"}


# --- (f) promptc.testing, the pytest plugin for plugin authors ------------------------------------

@pytest.mark.heavy  # two pytest runs inside pytest
def test_pytest_plugin_for_plugin_authors(runner: Runner, workdir: Path) -> None:
    """The acme plugin's own tests (promptc_context, assert_renders_cleanly, promptc_snapshot)
    run by pytest in a subprocess: write snapshots, then fail where a snapshot differs."""
    suite = workdir / "acme-suite"
    shutil.copytree(PLUGINS / "promptc-acme" / "tests", suite / "tests",
                    ignore=shutil.ignore_patterns("__pycache__", "snapshots"))
    shutil.copy(PLUGINS / "promptc-acme" / "pyproject.toml", suite)  # its snapshot folder ini
    snapshots = suite / "tests" / "snapshots"

    def pytest_run(*args: str, autoload: bool = True) -> subprocess.CompletedProcess[str]:
        extra = {} if autoload else {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        return runner.start([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             *args], plugins=["acme"], cwd=suite, extra=extra).result()

    # 1. snapshots written; promptc.testing and syrupy auto-loaded through their pytest11 entry
    # points. The other pytest plugins this test environment carries (hypothesis, xdist,
    # LangSmith's, AnyIO's) are not the plugin author's, and loading them costs seconds: off.
    others = [arg for name in OTHER_PYTEST_PLUGINS for arg in ("-p", f"no:{name}")]
    first = pytest_run("--snapshot-update", *others)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "warning" not in first.stdout.lower()  # no syrupy naming warnings
    assert sorted(p.name for p in snapshots.iterdir()) == ["acme-full.md", "acme-mini-plan.md"]
    full = snapshots / "acme-full.md"
    assert ACME_ROLE in full.read_text(encoding="utf-8")

    # 2. with the plugins named (`-p promptc.testing`, no auto-loading): a snapshot that no
    # longer matches its prompt fails its test, and only that one; the unchanged one passes
    full.write_text(full.read_text(encoding="utf-8").replace("Acme Coder", "Acme Codr", 1),
                    encoding="utf-8")
    second = pytest_run("-p", "syrupy", "-p", "promptc.testing", autoload=False)
    assert second.returncode == 1, second.stdout + second.stderr
    summary = second.stdout.split("short test summary")[-1]
    assert "test_prompt_snapshot[acme-full]" in summary
    assert "acme-mini-plan" not in summary and "1 failed" in summary
    assert "1 snapshot failed" in second.stdout and "1 snapshot passed" in second.stdout


# --- (f) a plugin builds on a project: names resolve after every source is loaded -------------

SUPPORT = Path(__file__).resolve().parent.parent / "examples" / "support-assistant"
MISTRAL = ["--provider", "mistral", "--model", "mistral-large-latest", "--set",
           "CUSTOMER_NAME=Dana", "--set", "RECENT_ORDER=NW-10482"]


def test_a_project_from_init_is_not_changed_by_an_installed_plugin(runner: Runner,
                                                                  workdir: Path) -> None:
    """With acme installed, `promptc init`'s project loaded it: its variants extend the
    built-in pack the project leaves out, so it was skipped with an error on every command
    and `lint --strict` failed right after `init`."""
    runner.promptc("init", "bot", plugins=["acme"]).ok()
    bot = workdir / "cwd" / "bot"
    lint = runner.promptc("lint", "--strict", plugins=["acme"], cwd=bot)
    render = runner.promptc("render", plugins=["acme"], cwd=bot)
    variants = runner.promptc("variants", "--json", plugins=["acme"], cwd=bot)
    assert "ok: 0 finding(s)" in lint.ok().stdout
    assert render.ok().stderr == "" and ACME_ROLE not in render.result().stdout
    assert {v["source"] for v in variants.json()} == {"project"}


def test_a_plugin_extends_a_projects_variant_and_uses_its_sections_and_tools(
        runner: Runner) -> None:
    """Plugins were checked against the built-ins alone, before any project folder loaded, so
    `extends = "support-claude"` in a plugin failed with `extends unknown variant` and the
    plugin was skipped. The example project is strict (`strict = true`): a clean render."""
    render = runner.promptc("render", *MISTRAL, "--format", "json", plugins=["support-plus"],
                            cwd=SUPPORT / "prompts" / "components")  # from a subfolder
    probe = runner.start([sys.executable, "-c", _BUILT_ON_THE_PROJECT],
                         plugins=["support-plus"], cwd=SUPPORT)
    data = render.json()
    assert (data["variant"]["id"], data["variant"]["source"]) == ("support-mistral",
                                                                  "plugin:support-plus")
    text = data["text"]
    assert "- Share order details only with the customer who placed the order." in text  # project
    assert "Mistral models tend to explain at length" in text  # the plugin's own section
    assert "When Dana asks for something these rules do not allow" in text  # its edit file
    assert "Their most recent order is NW-10482" in text  # the project's per-request section
    assert data["tools"]["names"] == ["lookup_order"]  # the project's tool
    assert [s["id"] for s in data["sections"]] == ["role", "brevity", "policies", "customer"]
    found = probe.json()
    variant = found["explain"]
    assert [(c["id"], c["source"]) for c in variant["chain"]] == [
        ("support-mistral", "plugin:support-plus"), ("support-claude", "project")]
    assert [(e["component"], e["kind"]) for e in variant["edits"]] == [("policies", "append")]
    assert variant["edits"][0]["file"] == \
        "plugin:support-plus:variants/support-mistral/policies-more.md"
    assert found["lint"] == []  # `lint --strict` passes: nothing but information
    # without the project, nothing defines support-claude: the plugin is skipped, and said so
    assert found["alone"]["variants"] == []
    [skipped] = found["alone"]["diagnostics"]
    assert skipped["code"] == "plugin-invalid" and skipped["source"] == "plugin:support-plus"
    assert "extends unknown variant 'support-claude'" in skipped["message"]


_BUILT_ON_THE_PROJECT = """
import json
from promptc import Compiler, PromptContext, ProviderInfo
from promptc._cli.results import explain_data
from promptc._review.lint import lint
compiler = Compiler.default()
context = PromptContext(runtime={"CUSTOMER_NAME": "Dana"})
explained = explain_data(compiler, ProviderInfo("mistral", "mistral-large-latest"), context,
                         None)
alone = Compiler.default(project=False, builtins=False)
print(json.dumps({
    "explain": explained.data["variant"],
    "lint": [d.to_dict() for d in lint(compiler) if d.level != "info"],
    "alone": {"variants": list(alone.variants),
              "diagnostics": [d.to_dict() for d in alone.load_diagnostics]}}))
"""


# --- the loader's guards, in process (stand-in entry points: nothing to install) ------------------

def test_request_hooks_may_take_a_subset_of_their_arguments() -> None:
    from promptc import PromptContext, ProviderInfo
    compiler = compiler_with(subset=plugin_module(
        promptc_contribute_context=lambda provider: {"os": f"os-for-{provider.provider}"},
        promptc_inspect_prompt=lambda: ["looked"]))
    prompt = compiler.compile(ProviderInfo("someone", "model-1"), PromptContext(date="2026-01-01"))
    assert 'os="os-for-someone"' in prompt.text
    assert [(d.code, d.source) for d in prompt.diagnostics] == \
        [("plugin-finding", "plugin:subset")]


@pytest.mark.parametrize("hooks, says", [
    ({"promptc_template_folders": lambda: ["/nonexistent/promptc-data"]}, "not an existing folder"),
    ({"promptc_template_folders": lambda: [42]}, "not an existing folder"),
    ({"promptc_variants": lambda: [{"id": "x", "extends": "generic", "template_text": 42}]},
     "AttributeError"),
    ({"promptc_variants": lambda: [{"id": "x", "extends": "generic",
                                    "component_texts": ["rules"]}]}, "component_texts"),
    ({"promptc_variants": lambda: [{"id": "x", "extends": "generic", "matcher": 42}]},
     "not a callable"),
], ids=["missing-folder", "folder-not-a-path", "template-not-text", "texts-not-a-table",
        "matcher-not-callable"])
def test_registration_mistakes_skip_the_plugin_and_name_it(hooks: dict[str, Any],
                                                           says: str) -> None:
    compiler = compiler_with(sloppy=plugin_module(**hooks), fine=plugin_module(
        promptc_variants=lambda: [{"id": "fine", "extends": "generic",
                                   "match": {"model": ["fine"]}}]))
    [diagnostic] = compiler.load_diagnostics
    assert diagnostic.source == "plugin:sloppy" and says in diagnostic.message
    assert diagnostic.level == "error" and "skipped" in diagnostic.message
    assert "fine" in compiler.registry.variants and "x" not in compiler.registry.variants


def _exit() -> Any:
    sys.exit(3)


def _component(**kwargs: Any) -> Any:
    from promptc import Component
    return Component(**kwargs)


@pytest.mark.parametrize("hooks, code, says", [
    ({"promptc_tools": _exit}, "plugin-hook", "SystemExit"),
    ({"promptc_template_folders": _exit}, "plugin-hook", "SystemExit"),
    ({"promptc_components": lambda: [_component(id="rules", template="# R\n{{#x}}\n")]},
     "plugin-invalid", "never closed"),
    ({"promptc_components": lambda: [_component(id="acme", function=lambda v, c: "x",
                                                reads=("cwdd",))]},
     "plugin-hook", "no context field"),
], ids=["sys-exit-in-a-hook", "sys-exit-in-folders", "broken-template-on-a-builtin-id",
        "reads-names-no-field"])
def test_what_a_plugin_registers_is_checked_at_load(hooks: dict[str, Any], code: str,
                                                    says: str) -> None:
    """Caught at load, the plugin skipped and named; the built-ins (its template tried to
    replace `rules`) render as if it were not installed, strict too."""
    from promptc import Compiler, PromptContext, ProviderInfo
    compiler = compiler_with(broken=plugin_module(**hooks))
    [diagnostic] = compiler.load_diagnostics
    assert (diagnostic.code, diagnostic.source) == (code, "plugin:broken")
    assert says in diagnostic.message, diagnostic.message
    provider, ctx = ProviderInfo("openai", "gpt-4.1"), PromptContext(date="2026-01-01")
    assert compiler.compile(provider, ctx).text == Compiler.builtins().compile(provider, ctx).text


class Runaway:
    """An endless generator's stand-in that gives up (with an error the test can tell apart)
    after twice the bound, and counts what was taken from it."""

    def __init__(self, item: Any = None) -> None:
        from promptc._load.plugins import MAX_HOOK_ITEMS
        self.taken = 0
        self.limit = 2 * MAX_HOOK_ITEMS
        self.item = item

    def __iter__(self) -> Any:
        return self

    def __next__(self) -> Any:
        self.taken += 1
        if self.taken > self.limit:
            raise RuntimeError("runaway: not bounded")
        return self.item


@pytest.mark.parametrize("hook", ["promptc_template_folders", "promptc_variants",
                                  "promptc_components", "promptc_features", "promptc_tools"])
def test_a_hook_returning_an_endless_generator_skips_the_plugin(hook: str) -> None:
    """(issue 33, H16) Only one item past the bound is taken, and the plugin is skipped."""
    from promptc import Compiler, PromptContext, ProviderInfo
    from promptc._load.plugins import MAX_HOOK_ITEMS
    runaway = Runaway()
    compiler = compiler_with(endless=plugin_module(**{hook: lambda: runaway}))
    [diagnostic] = compiler.load_diagnostics
    assert (diagnostic.code, diagnostic.source) == ("plugin-hook", "plugin:endless")
    assert f"more than {MAX_HOOK_ITEMS:,} items" in diagnostic.message
    assert "skipped" in diagnostic.message
    assert runaway.taken == MAX_HOOK_ITEMS + 1
    provider, ctx = ProviderInfo("openai", "gpt-4.1"), PromptContext(date="2026-01-01")
    assert compiler.compile(provider, ctx).text == Compiler.builtins().compile(provider, ctx).text


def _generator_exit(**_: Any) -> Any:
    raise GeneratorExit


def test_request_hooks_that_run_away_or_raise_generator_exit_are_reported() -> None:
    from promptc import Compiler, PromptContext, ProviderInfo
    from promptc._load.plugins import MAX_HOOK_ITEMS
    findings = Runaway("a finding")
    compiler = compiler_with(
        endless=plugin_module(promptc_inspect_prompt=lambda: findings),
        exits=plugin_module(promptc_contribute_context=_generator_exit,
                            promptc_inspect_prompt=_generator_exit))
    provider, ctx = ProviderInfo("openai", "gpt-4.1"), PromptContext(date="2026-01-01")
    prompt = compiler.compile(provider, ctx)
    assert prompt.text == Compiler.builtins().compile(provider, ctx).text
    assert findings.taken == MAX_HOOK_ITEMS + 1
    said = [(d.source, d.code, d.message) for d in prompt.diagnostics]
    [endless] = [m for s, c, m in said if (s, c) == ("plugin:endless", "plugin-hook")]
    assert f"more than {MAX_HOOK_ITEMS:,} items" in endless
    exits = [m for s, c, m in said if (s, c) == ("plugin:exits", "plugin-hook")]
    assert len(exits) == 2 and all("raised GeneratorExit" in m for m in exits)
    assert {m.split(":")[1].split()[0] for m in exits} == {"promptc_contribute_context",
                                                            "promptc_inspect_prompt"}
    assert not any(d.code == "plugin-finding" for d in prompt.diagnostics)


def test_generator_exit_in_a_load_hook_skips_the_plugin() -> None:
    compiler = compiler_with(exits=plugin_module(promptc_tools=_generator_exit))
    [diagnostic] = compiler.load_diagnostics
    assert diagnostic.source == "plugin:exits" and "GeneratorExit" in diagnostic.message


def test_python_variant_matcher_and_template_component() -> None:
    """The plugin guide's Python-only example: a variant with inline texts and a matcher, and a
    template component fed by a data function."""
    from promptc import Component, PromptContext, ProviderInfo
    limits = Component(id="acme_limits", template="# Limits\n{{#items}}- {{.}}\n{{/items}}",
                       data=lambda variant, context: (
                           {"items": sorted(context.features)} if context.features else None),
                       reads=("features",))
    compiler = compiler_with(legacy=plugin_module(
        promptc_components=lambda: [limits],
        promptc_variants=lambda: [{
            "id": "acme-legacy", "extends": "generic", "priority": 140,
            "components": ["agent_role", "acme_limits"],
            "template_text": "{{agent_role}}\n\n====\n\n{{acme_limits}}\n",
            "component_texts": {"agent_role": "# Role\n\nYou are an Acme 1 model.\n"},
            "matcher": lambda info: (info.normalized_model.startswith("acme-1"),
                                     "an Acme 1.x model")}]))
    assert compiler.load_diagnostics == ()
    prompt = compiler.compile(ProviderInfo("acme", "acme-1.5"),
                              PromptContext(features={"browser": True}), strict=True)
    assert prompt.variant.id == "acme-legacy" and prompt.variant.source == "plugin:legacy"
    assert prompt.text == "# Role\n\nYou are an Acme 1 model.\n\n====\n\n# Limits\n- browser"
    bare = compiler.compile(ProviderInfo("acme", "acme-1.5"), PromptContext(), strict=True)
    assert bare.text == "# Role\n\nYou are an Acme 1 model."  # no data: no section, no separator
    origins = {s.id: (s.origin, s.cache) for s in prompt.sections}
    assert origins["acme_limits"] == ("plugin:legacy component acme_limits", "static")
    trace = compiler.resolve(ProviderInfo("acme", "acme-1.5"), full_trace=True).trace
    assert any(t.variant == "acme-legacy" and t.reason == "an Acme 1.x model" for t in trace)
    assert compiler.resolve(ProviderInfo("acme", "acme-2")).variant.id == "generic"


def test_a_plugin_overlaying_another_sources_variant_with_a_broken_file_is_skipped(
        tmp_path: Path) -> None:
    """Names resolve after every source is stacked; a broken file a plugin lays over a
    built-in variant is still that plugin's fault: it is skipped, the rest loads."""
    from promptc import Compiler
    from promptc._load.folders import read_layer
    from promptc._load.plugins import load_plugins
    from promptc._load.sources import builtin_root
    from promptc._load.stacking import stacked_registry
    from .standin import StandInEntryPoint
    folder = tmp_path / "data" / "variants" / "generic" / "components"
    folder.mkdir(parents=True)
    (folder / "rules.md").write_text("{{#broken}}\n", encoding="utf-8")
    overlay = plugin_module(promptc_template_folders=lambda: [tmp_path / "data"])
    found = load_plugins([StandInEntryPoint("overlay", overlay)])
    registry, kept = stacked_registry([read_layer(builtin_root(), "builtin")], found, [])
    compiler = Compiler(registry, plugins=kept)
    assert "generic" in compiler.variants and kept is not None and kept.names == ()
    [skipped] = compiler.load_diagnostics
    assert skipped.code == "plugin-invalid" and "rules.md:1" in skipped.message
