"""Every name a template uses is found wherever it stands (issue 35).

A standard placeholder or a variant's placeholder used only inside `{{#X}}…{{/X}}` or
`{{^X}}…{{/X}}` once rendered empty, and a misspelled name there passed `lint --strict`: the
names were collected from the template's top level only.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from promptc import Compiler, PlaceholderError, PromptContext, ProviderInfo
from promptc._model.placeholders import STANDARD
from promptc._review.lint import lint

from .conftest import MINI, write_tree

P = ProviderInfo("acme", "acme-large")
SWITCHES = ('[inputs.ON]\ntype = "boolean"\ndefault = true\n'
            '[inputs.OFF]\ntype = "boolean"\ndefault = false\n')
VARIANT = ('fallback = true\ncomponents = ["intro", "body"]\n[placeholders]\n'
           'GREETING = "hello"\n' + SWITCHES)
DAY = PromptContext(date="2026-03-04", cwd="/w")


def sectioned(mini: Callable[..., Compiler], body: str = "", base: str = "") -> Compiler:
    return mini({"variants/base/variant.toml": VARIANT,
                 "variants/base/template.md": "{{intro}}\n\n{{body}}\n" + base,
                 "components/body.md": "# Body\n" + body})


@pytest.mark.parametrize("name", ["CURRENT_DATE", "MODEL_ID", "CWD", "GREETING"])
def test_a_name_inside_a_component_section_renders(mini: Callable[..., Compiler],
                                                   name: str) -> None:
    c = sectioned(mini, f"A: {{{{#ON}}}}{{{{{name}}}}}{{{{/ON}}}}\n"
                        f"B: {{{{^OFF}}}}{{{{{name}}}}}{{{{/OFF}}}}\n")
    out = c.compile(P, DAY, strict=True)
    value = {"CURRENT_DATE": "2026-03-04", "MODEL_ID": "acme-large", "CWD": "/w",
             "GREETING": "hello"}[name]
    assert f"A: {value}\nB: {value}" in out.text


@pytest.mark.parametrize("name", ["CURRENT_DATE", "MODEL_ID", "GREETING"])
def test_a_name_inside_a_base_template_section_renders(mini: Callable[..., Compiler],
                                                       name: str) -> None:
    c = sectioned(mini, base=f"A: {{{{#ON}}}}{{{{{name}}}}}{{{{/ON}}}}\n"
                             f"B: {{{{^OFF}}}}{{{{#ON}}}}[{{{{{name}}}}}]{{{{/ON}}}}{{{{/OFF}}}}\n")
    out = c.compile(P, DAY, strict=True)
    value = {"CURRENT_DATE": "2026-03-04", "MODEL_ID": "acme-large", "GREETING": "hello"}[name]
    assert out.text.endswith(f"A: {value}\nB: [{value}]")


def test_a_component_inside_a_base_template_section_is_placed(
        mini: Callable[..., Compiler]) -> None:
    c = mini({"variants/base/variant.toml": VARIANT,
              "variants/base/template.md": "{{intro}}\n\n{{#ON}}{{body}}{{/ON}}\n"})
    out = c.compile(P, DAY, strict=True)
    assert out.text.endswith("Working in /w.")
    assert [s.id for s in out.sections] == ["intro", "body"]


@pytest.mark.parametrize(("where", "file"), [("body", "components/body.md"),
                                             ("base", "variants/base/template.md")])
@pytest.mark.parametrize("sigil", ["#", "^"])
def test_a_misspelled_name_inside_a_section_is_a_lint_error(
        mini: Callable[..., Compiler], where: str, file: str, sigil: str) -> None:
    text = f"x\n{{{{{sigil}ON}}}}{{{{CURRENT_DAET}}}}{{{{/ON}}}}\n"
    c = sectioned(mini, **{where: text})
    [finding] = [d for d in lint(c) if d.code == "placeholder-unknown"]
    line = 3 if where == "body" else 5
    assert f"{file}:{line}" in finding.message
    assert "{{CURRENT_DAET}}" in finding.message and "did you mean 'CURRENT_DATE'" in finding.message
    with pytest.raises(PlaceholderError, match="CURRENT_DAET"):
        c.compile(P, DAY, strict=True)


def test_a_misspelled_name_deep_inside_sections_is_found(mini: Callable[..., Compiler]
                                                         ) -> None:
    c = sectioned(mini, "{{#ON}}\n{{^OFF}}\n{{#GREETING}}{{MODLE_ID}}{{/GREETING}}\n"
                        "{{/OFF}}\n{{/ON}}\n")
    [finding] = [d for d in lint(c) if d.code == "placeholder-unknown"]
    assert "components/body.md:4" in finding.message and "did you mean 'MODEL_ID'" in \
        finding.message


# --- property: a plain switch changes nothing about the names inside it ----------------------

NAMES = sorted(STANDARD) + ["GREETING", "NOTE"]


@pytest.fixture(scope="module")
def switched(tmp_path_factory: pytest.TempPathFactory) -> Compiler:
    """One line per name in a component and in the base template: the name outside any
    section, inside `{{#ON}}`, inside `{{^OFF}}`, and inside both."""
    lines = "".join(f"{n}=[{{{{{n}}}}}|{{{{#ON}}}}{{{{{n}}}}}{{{{/ON}}}}|"
                    f"{{{{^OFF}}}}{{{{{n}}}}}{{{{/OFF}}}}|"
                    f"{{{{#ON}}}}{{{{^OFF}}}}{{{{{n}}}}}{{{{/OFF}}}}{{{{/ON}}}}]\n"
                    for n in NAMES)
    files = {**MINI,
             "variants/base/variant.toml": VARIANT + '[inputs.NOTE]\ntype = "string"\n',
             "variants/base/template.md": "{{intro}}\n\n{{body}}\n\n" + lines.replace(
                 "=[", "=<"),
             "components/body.md": "# Body\n" + lines}
    root = write_tree(tmp_path_factory.mktemp("switched"), files)
    return Compiler.from_folders(Path(root), builtins=False)


TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1,
               max_size=12).filter(lambda s: s.strip() == s and s.strip() != "" and
                                   not set(s) & set("|[]<"))  # the line's own markers


@given(cwd=TEXT, os_name=TEXT, note=TEXT, mode=st.sampled_from(["act", "plan"]),
       model=st.from_regex(r"[a-z][a-z0-9.-]{0,15}", fullmatch=True),
       day=st.dates().map(lambda d: d.isoformat()))
@example(cwd="0", os_name="0", note="~~~", mode="act", model="a", day="2000-01-01")
def test_a_name_renders_the_same_inside_a_plain_switch_as_outside(
        switched: Compiler, cwd: str, os_name: str, note: str, mode: str, model: str,
        day: str) -> None:
    context = PromptContext(cwd=cwd, os=os_name, mode=mode, date=day,
                            runtime={"NOTE": note})
    out = switched.compile(ProviderInfo("acme", model), context, strict=True)
    for name in NAMES:
        for opener, closer in (("[", "]"), ("<", "]")):
            line = next(l for l in out.text.splitlines() if l.startswith(f"{name}={opener}"))
            outside, *inside = line[len(name) + 2:-1].split("|")
            assert inside == [outside] * 3, (name, line)
