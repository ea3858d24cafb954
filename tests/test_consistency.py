"""The prompt agrees with the tools it is sent with: it names only tools it offers, it says
which offered tools the current mode rules out, a text example shows one call, it refers only
to sections and tool examples the render has, it teaches calling in whichever tool mode it
renders in, and plan and act differ only in their request-class tail."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest

from promptc import Compiler, ProviderInfo
from promptc._model.diagnostics import Diagnostic
from promptc._cli import main
from promptc._review.consistency import (FEATURE_FLAGS, inconsistencies, pack_headings,
                                        variant_matrix)
from promptc._review.lint import lint
from promptc.testing import make_context

from .conftest import variant_providers


PROVIDERS = variant_providers()  # one per built-in variant, from the snapshot matrix


def test_each_variants_provider_routes_to_it(builtins: Compiler) -> None:
    assert all(builtins.resolve(p).variant.id == v for v, p in PROVIDERS.items())


@pytest.mark.parametrize("variant", sorted(PROVIDERS))
def test_every_situation_of_every_builtin_variant_is_consistent(builtins: Compiler,
                                                                variant: str) -> None:
    """Plan and act × every combination of the feature flags × native and text tools (for
    the variants written for both), with several rules files, MCP servers and skills."""
    assert len(FEATURE_FLAGS) >= 4
    found = variant_matrix(builtins, variant, PROVIDERS[variant], make_context("full"))
    # and with fewer session parts (no MCP servers; no rules or skills; nothing at all): text
    # about a tool those parts bring must go with them
    for base in ("no_mcp", "no_rules_skills", "minimal"):
        found += variant_matrix(builtins, variant, PROVIDERS[variant], make_context(base),
                                every=False)
    assert found == [], "\n".join(d.message for d in found)


def test_lints_flag_sets_show_every_two_flags_in_all_four_combinations() -> None:
    """`promptc lint` renders fewer flag combinations than every one, but never misses a
    pair: for any two flags, off-off, off-on, on-off and on-on all occur."""
    from promptc._review.consistency import _flag_sets
    rows = list(_flag_sets(every=False))
    n = len(FEATURE_FLAGS)
    assert len(rows) == len(set(rows)) < 2 ** n
    for i, j in itertools.combinations(range(n), 2):
        assert {(row[i], row[j]) for row in rows} == {(a, b) for a in (False, True)
                                                      for b in (False, True)}, (i, j)
    assert len(list(_flag_sets(every=True))) == 2 ** n


INCONSISTENT = {
    # the component teaches a tool the variant never offers, and one the mode forbids
    "components/body.md": "# Body\nSave your work with write_notes.\n",
    "components/tools/write_notes.toml": 'name = "write_notes"\ndescription = "Write."\n'
                                         'modes = ["act"]\n',
}


def test_a_variant_that_names_a_tool_it_does_not_offer_fails_lint(
        mini: Callable[..., Compiler], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    compiler = mini(INCONSISTENT)
    found = [d for d in lint(compiler) if d.code == "names-missing-tool"]
    assert found and "'write_notes'" in found[0].message and "'body'" in found[0].message
    # the same tree as a project folder: `promptc lint` fails (exit 1)
    from .conftest import MINI, write_tree
    root = write_tree(tmp_path / "proj", {**MINI, **INCONSISTENT})
    assert main(["lint", "--no-user", "--no-plugins", "--project", str(root)]) == 1
    assert "names-missing-tool" in capsys.readouterr().out


def test_an_offered_tool_the_mode_forbids_must_be_said(mini: Callable[..., Compiler]) -> None:
    compiler = mini({
        "variants/base/variant.toml": 'fallback = true\ncomponents = ["intro", "body"]\n'
                                      'tools = ["echo", "write_notes"]\n',
        "components/body.md": "# Body\nWorking.\n",
        "components/tools/write_notes.toml": INCONSISTENT["components/tools/write_notes.toml"],
    })
    ctx = attrs.evolve(make_context("plan"), mcp_servers=())  # MCP tools: their own test
    prompt = compiler.compile(ProviderInfo("x", "y", native_tools=True), ctx)
    assert "write_notes" in prompt.tools.names  # offered in both modes …
    [d] = inconsistencies(prompt, compiler.registry.tools)
    assert d.code == "mode-unsaid" and "'write_notes'" in d.message  # … but never said


def test_an_example_with_two_calls_is_caught(mini: Callable[..., Compiler]) -> None:
    two = "```\n<echo>\n</echo>\n<echo>\n</echo>\n```\n"
    compiler = mini({"components/body.md": "# Body\n" + two})
    prompt = compiler.compile(ProviderInfo("x", "y", native_tools=False), make_context("full"))
    [d] = inconsistencies(prompt, compiler.registry.tools)
    assert d.code == "example-several-calls" and "2 tool calls" in d.message


def test_a_rules_file_naming_a_tool_is_not_the_prompts_word(builtins: Compiler) -> None:
    """Fenced outside text may mention any tool: only the pack's own words are checked."""
    ctx = make_context("full")
    ctx = attrs.evolve(ctx, rules=[{"name": "x", "text": "Never call browser_action."}],
                       features={})
    prompt = builtins.compile(PROVIDERS["generic"], ctx)
    assert "browser_action" not in prompt.tools.names and "browser_action" in prompt.text
    assert inconsistencies(prompt, builtins.registry.tools) == []


@pytest.mark.parametrize("variant", sorted(PROVIDERS))
def test_plan_and_act_differ_only_in_the_request_tail(builtins: Compiler, variant: str) -> None:
    """A mode switch keeps the cached prefix: the same tools (native JSON and text), and the
    static and session text byte for byte; only request-class sections change."""
    act = builtins.compile(PROVIDERS[variant], make_context("full"), variant=variant)
    plan = builtins.compile(PROVIDERS[variant], attrs.evolve(make_context("full"), mode="plan"),
                            variant=variant)
    assert act.tools.names == plan.tools.names
    if act.tools.mode == "native":
        assert act.tools.json_text("anthropic") == plan.tools.json_text("anthropic")
    blocks = {b.cache: b.text for b in act.blocks}, {b.cache: b.text for b in plan.blocks}
    assert blocks[0]["static"] == blocks[1]["static"]
    assert blocks[0]["session"] == blocks[1]["session"]
    assert blocks[0]["request"] != blocks[1]["request"]
    changed = {s.id for s in plan.sections} ^ {s.id for s in act.sections} | {
        s.id for s in plan.sections if (act.section(s.id) or s).text != s.text}
    assert changed and all((plan.section(c) or act.section(c)).cache == "request"
                           for c in changed)


# --- references to sections, examples and the catalogue; the calling section (issue 23) -------

REFERRING = {
    "variants/base/variant.toml": 'fallback = true\ncomponents = ["intro", "body", "tools"]\n'
                                  'tools = ["echo"]\n',
    "variants/base/template.md": "{{intro}}\n\n====\n\n{{body}}\n\n====\n\n{{tools}}\n",
    "components/body.md": "# Body\nCall the tools listed below as the echo example under Tools "
                          "shows (see Intro).\n",
    "components/tools.md": "# Tools\n{{#tools}}\n## {{name}}\n<{{name}}></{{name}}>\n"
                           "{{/tools}}\n",
}


def _found(compiler: Compiler, native: bool) -> list[str]:
    prompt = compiler.compile(ProviderInfo("x", "y", native_tools=native), make_context("full"))
    return sorted(d.code for d in inconsistencies(prompt, compiler.registry.tools,
                                                  headings=pack_headings(compiler.registry)))


def test_references_to_a_catalogue_native_tools_lack_are_caught(
        mini: Callable[..., Compiler]) -> None:
    """With text tools the Tools section and its examples exist; with native tools the same
    words point at nothing: the section, the example and the listed tools are each caught."""
    compiler = mini(REFERRING)
    assert _found(compiler, native=False) == []
    assert _found(compiler, native=True) == ["names-missing-example", "names-missing-example",
                                             "names-missing-section"]


def test_a_reference_to_a_title_the_pack_never_writes_is_not_a_section(
        mini: Callable[..., Compiler]) -> None:
    compiler = mini({**REFERRING, "components/body.md": "# Body\nSee Elsewhere.\n"})
    assert _found(compiler, native=True) == []  # no template writes `# Elsewhere`


def test_a_variant_teaching_one_call_mode_must_teach_the_other(
        mini: Callable[..., Compiler]) -> None:
    """compact and next-gen once taught the text format only: a client that forced native
    tools got no function-calling section."""
    teaching = {
                "variants/base/variant.toml": 'fallback = true\ncomponents = ["intro", '
                                              '"tool_use", "body"]\ntools = ["echo"]\n',
                "variants/base/template.md": "{{intro}}\n\n{{tool_use}}\n\n{{body}}\n",
                "components/tool_use.md": "# Tool use\nWrite calls as tags.\n"}
    compiler = mini(teaching)
    assert _found(compiler, native=True) == ["calling-section-missing"]
    assert _found(compiler, native=False) == []
    assert _found(mini(), native=True) == []  # a variant that teaches no calling is left alone


@pytest.mark.parametrize("variant", sorted(PROVIDERS))
def test_every_builtin_variant_teaches_calling_in_both_modes_it_can_render(
        builtins: Compiler, variant: str) -> None:
    """Native tools always come with a function-calling section, text tools with the call
    format, whichever mode the variant pins (a client may force the other)."""
    components = builtins.registry.get(variant).components
    for native in (True, False) if "tools" in components else (True,):
        prompt = builtins.compile(attrs.evolve(PROVIDERS[variant], native_tools=native),
                                  make_context("full"), variant=variant)
        ids = {s.id for s in prompt.sections}
        assert ("tool_calling" if native else "tool_use") in ids, (variant, native)


def test_pack_headings_are_the_titles_the_templates_write(builtins: Compiler) -> None:
    titles = pack_headings(builtins.registry)
    assert {"Tools", "Editing files", "Safety and outside text", "Skills"} <= titles
    assert not any("{" in t for t in titles)  # `## {{name}}` is a tool's title, not a section


# --- advice to call a tool the mode forbids; an example call for every text tool (issue 33) ---

ADVISING = {
    "components/body.md": "# Body\nWhen you are done, finish with write_notes. In act mode, "
                          "call write_notes once more.\n",
    "components/tools/write_notes.toml": 'name = "write_notes"\ndescription = "Write."\n'
                                         'modes = ["act"]\n',
    "variants/base/variant.toml": 'fallback = true\ncomponents = ["intro", "body", '
                                  '"act_vs_plan_mode"]\ntools = ["echo", "write_notes"]\n',
    "variants/base/template.md": "{{intro}}\n\n{{body}}\n\n{{act_vs_plan_mode}}\n",
    "components/act_vs_plan_mode.md": "# Mode\n{{#not_now}}\n- {{name}}\n{{/not_now}}\n",
}


def test_advice_to_call_a_tool_the_mode_forbids_is_caught(
        mini: Callable[..., Compiler]) -> None:
    """Plan mode refuses write_notes, yet the body tells the model to finish with it: the one
    sentence that says which mode it is for ("In act mode, call …") is not flagged, and act
    mode, which allows the tool, finds nothing."""
    compiler = mini(ADVISING)
    ctx = attrs.evolve(make_context("plan"), mcp_servers=())
    prompt = compiler.compile(ProviderInfo("x", "y", native_tools=True), ctx)
    [d] = inconsistencies(prompt, compiler.registry.tools)
    assert d.code == "advises-forbidden-tool" and d.source == "body"
    assert "'write_notes'" in d.message and "finish with write_notes" in d.message
    act = compiler.compile(ProviderInfo("x", "y", native_tools=True),
                           attrs.evolve(ctx, mode="act"))
    assert inconsistencies(act, compiler.registry.tools) == []
    # the sections that document tools (the catalogue, the editing section) are exempt
    documenting = mini({**ADVISING, "variants/base/variant.toml": ADVISING[
        "variants/base/variant.toml"].replace('"body"', '"editing_files"'),
        "variants/base/template.md": "{{intro}}\n\n{{editing_files}}\n\n{{act_vs_plan_mode}}\n",
        "components/editing_files.md": "# Editing\nUse write_notes for every change.\n"})
    prompt = documenting.compile(ProviderInfo("x", "y", native_tools=True), ctx)
    assert inconsistencies(prompt, documenting.registry.tools) == []


def test_a_text_tool_without_an_example_call_is_caught(mini: Callable[..., Compiler]) -> None:
    """A catalogue that lists a tool by name but shows no call of it: `example-missing`; the
    same catalogue with a call (fenced or bare) is fine."""
    catalogue = {
        "variants/base/variant.toml": 'fallback = true\ncomponents = ["intro", "tools"]\n'
                                      'tools = ["echo", "write_notes"]\n',
        "variants/base/template.md": "{{intro}}\n\n{{tools}}\n",
        "components/tools/write_notes.toml": ADVISING["components/tools/write_notes.toml"],
        "components/tools.md": "# Tools\n{{#tools}}\n## {{name}}\n{{/tools}}\n"
                               "```\n<echo>\n</echo>\n```\n"}
    compiler = mini(catalogue)
    [d] = _diagnostics(compiler, native=False)
    assert d.code == "example-missing" and "'write_notes'" in d.message
    assert _diagnostics(compiler, native=True) == []  # native tools have no text catalogue
    shown = mini({**catalogue, "components/tools.md": catalogue["components/tools.md"] +
                  "<write_notes>\n</write_notes>\n"})
    assert _diagnostics(shown, native=False) == []


def _diagnostics(compiler: Compiler, native: bool) -> list[Diagnostic]:
    prompt = compiler.compile(ProviderInfo("x", "y", native_tools=native),
                              attrs.evolve(make_context("full"), mcp_servers=(), skills=()))
    return inconsistencies(prompt, compiler.registry.tools)


def test_lint_reports_both_in_the_builtin_pack_when_they_come_back(
        tree: Callable[[dict[str, str | bytes]], Path]) -> None:
    """The pack's old words, laid over the built-ins as a project: the progress section that
    said "a last time before attempt_completion" in plan mode too, and a catalogue that listed
    the session's tools without example calls."""
    old_progress = ("# Task progress\n\nKeep a checklist with update_task_progress, and send "
                    "it a last time before attempt_completion.\n")
    old_tools = (Path(__file__).parent.parent / "components" / "tools.md").read_text()
    old_tools = old_tools.replace("{{/has_parameters}}\n\n```", "{{/has_parameters}}\n"
                                  "{{^session}}\n\n```").replace("```\n{{/tools}}",
                                                                 "```\n{{/session}}\n{{/tools}}")
    assert old_tools.count("{{^session}}") == 2
    compiler = Compiler.default(project=tree({"components/task_progress.md": old_progress,
                                              "components/tools.md": old_tools}),
                                user=False, plugins=False)
    found = [d for d in variant_matrix(compiler, "generic", PROVIDERS["generic"],
                                       make_context("full"), every=False)]
    codes = {(d.code, d.source) for d in found}
    assert ("advises-forbidden-tool", "task_progress") in codes
    missing = {d.message.split("tool ", 1)[1].split(" ", 1)[0] for d in found
               if d.code == "example-missing"}
    assert missing == {"'use_mcp_tool'", "'access_mcp_resource'", "'load_skill'",
                       "'load_skill_reference'"}
