"""Section edits in a variant.toml: `[component.<id>]` `remove`, `append`, `prepend`
(literal), `append_file`/`prepend_file` (rendered like the section), applied when the section
renders; an empty section stays empty; each edit shown by `explain` with its source; and a
variant that extends its own id builds on the earlier source's (not a cycle)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from promptc import Compiler, PromptContext, ProviderInfo, VariantConfigError
from promptc._cli import main
from promptc._load.sources import builtin_root

BASE = {
    "variants/base/variant.toml": 'fallback = true\ncomponents = ["intro", "body", "who"]\n'
                                  '[inputs.NAME]\ntype = "string"\n',
    "variants/base/template.md": "{{intro}}\n\n{{body}}\n\n{{who}}\n",
    "components/intro.md": "# Intro\nHello.\n",
    "components/body.md": "# Body\n- one\n- two\n",
    "components/who.md": "{{#NAME}}\n# Who\nTalking with {{NAME}}.\n{{/NAME}}\n",
}
ANY = ProviderInfo("acme", "m")
ADA = PromptContext(runtime={"NAME": "Ada"})

Make = Callable[[dict[str, str | bytes]], Path]


def child(tree: Make, toml: str, **files: str) -> Compiler:
    """The base folder plus a variant `kid` that extends it with `toml` (and its files)."""
    extra = {f"variants/kid/{name}": text for name, text in files.items()}
    folder = tree({**BASE, "variants/kid/variant.toml": 'extends = "base"\n' + toml, **extra})
    return Compiler.from_folders(folder, builtins=False)


def text(compiler: Compiler, context: PromptContext = ADA) -> str:
    return compiler.compile(ANY, context, variant="kid", strict=True).text


def test_append_and_prepend_add_literal_text_to_one_section(tree: Make) -> None:
    c = child(tree, '[component.body]\nappend = "- three"\nprepend = "Read this first."\n')
    assert text(c) == ("# Intro\nHello.\n\nRead this first.\n\n# Body\n- one\n- two\n\n- three"
                       "\n\n# Who\nTalking with Ada.")
    # the parent is unchanged
    assert "three" not in c.compile(ANY, ADA, variant="base").text


def test_a_file_edit_is_rendered_like_the_section(tree: Make) -> None:
    c = child(tree, '[component.who]\nappend_file = "more.md"\n',
              **{"more.md": "Call {{NAME}} by name; today is {{CURRENT_DATE}}.\n"})
    prompt = c.compile(ANY, PromptContext(runtime={"NAME": "Ada"}, date="2026-01-01"),
                       variant="kid", strict=True)
    assert prompt.text.endswith("Talking with Ada.\n\nCall Ada by name; today is 2026-01-01.")
    assert prompt.section("who").cache == "request"


def test_an_empty_section_stays_empty(tree: Make) -> None:
    c = child(tree, '[component.who]\nappend = "Be kind."\nprepend_file = "p.md"\n',
              **{"p.md": "About {{NAME}}:\n"})
    prompt = c.compile(ANY, PromptContext(), variant="kid", strict=True)
    assert prompt.section("who") is None and "Be kind" not in prompt.text


def test_remove_leaves_the_section_out_template_slot_and_all(tree: Make) -> None:
    c = child(tree, '[component.body]\nremove = true\n')
    prompt = c.compile(ANY, ADA, variant="kid", strict=True)  # no diagnostic for the slot
    assert prompt.text == "# Intro\nHello.\n\n# Who\nTalking with Ada."
    assert c.variants["kid"].components == ("intro", "who")
    assert c.variants["kid"].removed == ("body",)


def test_edits_stack_down_the_chain_the_parents_first(tree: Make) -> None:
    folder = tree({**BASE,
                   "variants/mid/variant.toml": 'extends = "base"\n[component.body]\n'
                                                'append = "mid after"\nprepend = "mid before"\n',
                   "variants/kid/variant.toml": 'extends = "mid"\n[component.body]\n'
                                                'append = "kid after"\nprepend = "kid before"\n'})
    body = Compiler.from_folders(folder, builtins=False).compile(
        ANY, ADA, variant="kid", strict=True).section("body")
    assert body is not None and body.text == ("kid before\n\nmid before\n\n# Body\n- one\n- two"
                                              "\n\nmid after\n\nkid after")


@pytest.mark.parametrize(("toml", "files", "message"), [
    ('[component.bdoy]\nappend = "x"\n', {},
     r"variant\.toml \[component\.bdoy\.append\]: edits section 'bdoy', which is not in the "
     r"variant's components \(intro, body, who\) \(did you mean 'body'\?\)"),
    ('[component.body]\nremove = true\nappend = "x"\n', {},
     r"\[component\.body\]: removes the section and also adds text to it"),
    ('[component.body]\nappend_file = "gone.md"\n', {},
     r"variant\.toml: section edit file 'gone\.md' not found"),
    ('[component.body]\nappend_file = "../escape.md"\n', {},
     r"\[component\.body\.append_file\]: '\.\./escape\.md' must be a file name inside"),
    ('[component.body]\nappend = 3\n', {}, r"\[component\.body\.append\]: must be a string"),
    ('[component.body]\nappnd = "x"\n', {},
     r"\[component\.body\.appnd\]: unknown key \(did you mean 'append'\?\); the keys are: "
     r"priority, required, remove, prepend, append, prepend_file, append_file"),
    ('[component.body]\nappend_file = "bad.md"\n', {"bad.md": "{{#x}}\n"},
     r"bad\.md:1: section \{\{#x\}\} is never closed"),
])
def test_a_bad_edit_is_an_error_naming_the_file_and_field(
        tree: Make, toml: str, files: dict[str, str], message: str) -> None:
    with pytest.raises(VariantConfigError, match=message):
        child(tree, toml, **files)


def test_an_unknown_placeholder_in_an_edit_file_is_found_before_a_request(tree: Make) -> None:
    from promptc._review.lint import lint
    c = child(tree, '[component.who]\nappend_file = "more.md"\n', **{"more.md": "{{NAEM}}\n"})
    [finding] = [d for d in lint(c) if d.code == "placeholder-unknown"]
    assert "more.md:1" in finding.message and "did you mean 'NAME'" in finding.message


def test_a_project_variant_with_a_builtin_id_builds_on_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`extends = "generic"` in the project's own `generic`: the built-in one is its parent
    (once, a circular extends)."""
    project = tmp_path / ".promptc"
    (project / "variants" / "generic").mkdir(parents=True)
    (project / "variants" / "generic" / "variant.toml").write_text(
        'extends = "generic"\n[component.rules]\nappend = "Run the linter before you finish."\n'
        '[component.request_info]\nremove = true\n', encoding="utf-8")
    compiler = Compiler.default(project=project, user=False, plugins=False)
    generic = compiler.variants["generic"]
    # it takes the built-in one's place: the fallback still, tried as that one was
    assert generic.source == "project" and generic.fallback is True
    assert compiler.registry.fallback is generic
    assert [(vid, src) for vid, src, _ in generic.lineage] == [("generic", "project"),
                                                               ("generic", "builtin")]
    rules = compiler.compile(ProviderInfo("openai", "gpt-4.1"), variant="generic",
                             strict=True).section("rules")
    builtin_rules = Compiler.builtins().compile(ProviderInfo("openai", "gpt-4.1"),
                                                variant="generic").section("rules")
    assert rules is not None and builtin_rules is not None
    assert rules.text == builtin_rules.text + "\n\nRun the linter before you finish."
    code, out, _ = (main(["explain", "--provider", "openai", "--model", "gpt-4.1", "--variant",
                          "generic", "--project", str(project), "--no-user", "--no-plugins",
                          "--json"]), *capsys.readouterr())
    assert code == 0
    data = json.loads(out)["variant"]
    assert [(c["id"], c["source"]) for c in data["chain"]] == [("generic", "project"),
                                                               ("generic", "builtin")]
    assert [(e["component"], e["kind"], e["origin"]) for e in data["edits"]] == [
        ("rules", "append", "project:variants/generic/variant.toml [component.rules] append"),
        ("request_info", "remove",
         "project:variants/generic/variant.toml [component.request_info] remove")]
    main(["explain", "--provider", "openai", "--model", "gpt-4.1", "--variant", "generic",
          "--project", str(project), "--no-user", "--no-plugins"])
    shown = capsys.readouterr().out
    assert "extends   generic (builtin)" in shown and "edit      append section rules" in shown


def test_a_real_cycle_across_sources_names_each_source(tmp_path: Path) -> None:
    project = tmp_path / ".promptc" / "variants"
    for vid, parent in (("a", "generic"), ("generic", "a")):
        (project / vid).mkdir(parents=True)
        (project / vid / "variant.toml").write_text(f'extends = "{parent}"\n', encoding="utf-8")
    # the project's generic extends a, which extends generic: the project's, not the built-in
    with pytest.raises(VariantConfigError, match=r"circular extends: a -> generic -> a "
                                                 r"\(all from project\)"):
        Compiler.default(project=tmp_path / ".promptc", user=False, plugins=False)


def test_an_empty_variant_folder_says_its_variant_toml_is_missing(tmp_path: Path) -> None:
    """Once: `overrides variant 'x', which no earlier source defines`."""
    (tmp_path / "variants" / "mine").mkdir(parents=True)
    with pytest.raises(VariantConfigError, match=r"variants/mine: variant\.toml is missing"):
        Compiler.from_folders(tmp_path)
    (tmp_path / "variants" / "mine").rename(tmp_path / "variants" / "generic")
    compiler = Compiler.from_folders(tmp_path)  # over the built-in generic: it changes nothing
    [note] = [d for d in compiler.load_diagnostics if d.code == "variant-toml-missing"]
    assert note.message.startswith("variant.toml is missing") and note.source.endswith("generic")
    (tmp_path / "variants" / "mine").mkdir()
    (tmp_path / "variants" / "mine" / "template.md").write_text("{{x}}\n", encoding="utf-8")
    with pytest.raises(VariantConfigError, match="which no earlier source defines \\(a new "
                                                 "variant needs its variant.toml\\)"):
        Compiler.from_folders(tmp_path)


def test_the_builtin_rules_text_is_what_the_edit_test_compares_with() -> None:
    """The project test above appends to the built-in `rules` section: it must exist."""
    assert (Path(builtin_root()) / "components" / "rules.md").is_file()
