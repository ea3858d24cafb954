"""Declared runtime inputs and capability notices."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from promptc import Compiler, InputError, PromptContext, ProviderInfo
from promptc._cli import main
from promptc._model.inputs import INPUT_TYPES, check_value

P = ProviderInfo("x", "y")
DECLARED = {
    "variants/base/variant.toml": (
        'fallback = true\ncomponents = ["intro", "body"]\n'
        '[inputs.TEAM]\ntype = "select"\noptions = ["infra", "web"]\nrequired = true\n'
        'label = "Team"\ndescription = "Whose conventions apply"\n'
        '[inputs.STRICTNESS]\ntype = "number"\ndefault = 2\n'
        '[inputs.SHIP_DAY]\ntype = "date"\n'
        '[inputs.VERBOSE]\ntype = "boolean"\ndefault = false\n'),
    "variants/base/template.md": "{{intro}}\n\nTeam: {{ TEAM }}; level {{STRICTNESS}}; "
                                 "verbose {{VERBOSE}}\n{{#SHIP_DAY}}Ship on {{SHIP_DAY}}.{{/SHIP_DAY}}"
                                 "\n\n{{body}}\n",
}


@pytest.fixture
def c(mini: Callable[..., Compiler]) -> Compiler:
    return mini(DECLARED)


def test_valid_values_render_and_defaults_fill_the_rest(c: Compiler) -> None:
    out = c.compile(P, PromptContext(runtime={"TEAM": "web"}), strict=True)
    assert "Team: web; level 2; verbose false" in out.text
    assert "Ship on" not in out.text
    out = c.compile(P, PromptContext(runtime={"TEAM": "infra", "SHIP_DAY": "2026-03-01",
                                              "STRICTNESS": 3.5, "VERBOSE": True}), strict=True)
    assert "Team: infra; level 3.5; verbose true" in out.text and "Ship on 2026-03-01." in out.text


@pytest.mark.parametrize(("runtime", "code", "needle"), [
    ({}, "input-missing", "'TEAM'"),
    ({"TEAM": "ops"}, "input-invalid", "must be one of ['infra', 'web']"),
    ({"TEAM": "web", "STRICTNESS": "high"}, "input-invalid", "'STRICTNESS' must be a number"),
    ({"TEAM": "web", "SHIP_DAY": "March"}, "input-invalid", "'SHIP_DAY' must be an ISO date"),
    ({"TEAM": "web", "VERBOSE": "yes"}, "input-invalid", "'VERBOSE' must be true or false"),
    ({"TEAM": "web", "SHIP_DAY": ["2026-01-01"]}, "input-invalid",
     "'SHIP_DAY' must be an ISO date"),
    ({"TEAM": "web", "STRICTNESS": None}, None, ""),  # null: not given, the default applies
])
def test_a_value_that_breaks_its_declaration_is_refused_in_every_mode(
        c: Compiler, runtime: dict, code: str | None, needle: str) -> None:
    """Lenient mode once printed a prompt without the value (exit 0): the default in its
    place, or nothing where a required value belongs (issue 35)."""
    if code is None:
        assert "level 2;" in c.compile(P, PromptContext(runtime=runtime)).text
        return
    for strict in (False, True):
        with pytest.raises(InputError, match=needle.replace("[", r"\[").replace("]", r"\]")
                           ) as caught:
            c.compile(P, PromptContext(runtime=runtime), strict=strict)
        assert caught.value.diagnostic.code == code


def test_an_undeclared_name_is_a_warning_with_did_you_mean(c: Compiler) -> None:
    out = c.compile(P, PromptContext(runtime={"TEAM": "web", "TEEM": "x"}))
    [d] = [d for d in out.diagnostics if d.code == "input-undeclared"]
    assert "did you mean 'TEAM'" in d.message
    with pytest.raises(InputError, match="did you mean 'TEAM'"):
        c.compile(P, PromptContext(runtime={"TEAM": "web", "TEEM": "x"}), strict=True)


def test_a_misspelled_name_for_a_missing_required_input_is_named_in_every_mode(
        c: Compiler) -> None:
    """`--set TEEM=web` got its did-you-mean only in lenient mode: strict stopped at the
    missing TEAM first."""
    for strict in (False, True):
        with pytest.raises(InputError, match=r"required input 'TEAM' has no value \(a value "
                                             r"was given for 'TEEM'\?\)"):
            c.compile(P, PromptContext(runtime={"TEEM": "web"}), strict=strict)


@pytest.mark.parametrize("value", ["$1 and \\1", "{} {0} %s %(x)s", "{{TEAM}}", "\\n$HOME"])
def test_values_are_inserted_literally(mini: Callable[..., Compiler], value: str) -> None:
    c = mini({"variants/base/variant.toml": 'fallback = true\ncomponents = ["intro"]\n'
                                            '[inputs.NOTE]\ntype = "string"\n',
              "variants/base/template.md": "{{intro}}\nNote: {{NOTE}}\n"})
    out = c.compile(P, PromptContext(runtime={"NOTE": value}), strict=True)
    assert out.text.endswith("Note: " + value)


def test_inputs_as_json_schema(tree: Callable[..., Path], capsys: pytest.CaptureFixture[str]
                               ) -> None:
    from .conftest import MINI
    folder = tree({**MINI, **DECLARED})
    proj = folder  # a project folder with the same layout
    code = main(["inputs", "--variant", "base", "--json", "--no-user", "--no-plugins",
                 "--project", str(proj)])
    schema = json.loads(capsys.readouterr().out)
    assert code == 0
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["TEAM"] == {"title": "Team", "description":
                                            "Whose conventions apply", "type": "string",
                                            "enum": ["infra", "web"]}
    assert schema["properties"]["STRICTNESS"]["default"] == 2
    assert schema["properties"]["SHIP_DAY"]["format"] == "date"
    assert schema["required"] == ["TEAM"]
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"TEAM": "web"})
    assert not validator.is_valid({"TEAM": "ops"})
    assert not validator.is_valid({})


def test_a_default_that_breaks_its_own_declaration_is_a_load_error(
        mini: Callable[..., Compiler]) -> None:
    from promptc import VariantConfigError
    with pytest.raises(VariantConfigError, match=r"\[inputs\.X\.default\]: default must be one"):
        mini({"variants/base/variant.toml": 'fallback = true\ncomponents = ["intro"]\n'
                                            '[inputs.X]\ntype = "select"\noptions = ["a"]\n'
                                            'default = "b"\n'})


IMAGE = {"attachments": [{"name": "screenshot.png", "type": "image/png"},
                         {"name": "notes.txt", "type": "text/plain"}]}


def test_image_notice_only_for_models_that_cannot_see(builtins: Compiler) -> None:
    blind = builtins.compile(ProviderInfo("zai", "glm-4.6"), PromptContext.from_dict(IMAGE))
    notice = blind.section("notices")
    assert notice is not None and "screenshot.png" in notice.text
    assert "notes.txt" not in notice.text
    seeing = builtins.compile(ProviderInfo("anthropic", "claude-sonnet-4-5"),
                              PromptContext.from_dict(IMAGE))
    assert seeing.section("notices") is None
    none = builtins.compile(ProviderInfo("zai", "glm-4.6"), PromptContext())
    assert none.section("notices") is None
    told = builtins.compile(ProviderInfo("zai", "glm-4.6", images=True),
                            PromptContext.from_dict(IMAGE))
    assert told.section("notices") is None  # the client's capability wins


def test_tool_mode_follows_variant_then_capability_then_text(builtins: Compiler) -> None:
    # variant says native
    assert builtins.compile(ProviderInfo("x", "y"), variant="native-next-gen").tools.mode == \
        "native"
    # variant says auto: the model's capability decides
    assert builtins.compile(ProviderInfo("openai", "gpt-5")).tools.mode == "native"
    assert builtins.compile(ProviderInfo("openai", "gpt-5", native_tools=False),
                            variant="gpt-5").tools.mode == "text"
    text = builtins.compile(ProviderInfo("openai", "gpt-5", native_tools=False), variant="gpt-5")
    assert text.section("tools") is not None and text.section("tool_use") is not None


# --- runtime values that are not declared inputs ------------------------------------------------

SONNET_TEXT = ProviderInfo("anthropic", "claude-sonnet-4-5", native_tools=False)
DAY = {"cwd": "/w", "date": "2026-01-01"}


@pytest.mark.parametrize(("name", "replaces"), [
    ("rules", "the section of component 'rules'"),
    ("objective", "the section of component 'objective'"),
    ("CWD", "the standard placeholder {{CWD}}"),
])
def test_a_runtime_value_that_replaces_part_of_the_prompt_is_reported(
        builtins: Compiler, name: str, replaces: str) -> None:
    """`--set rules=` used to remove the Safety rules without a word, even in strict mode."""
    out = builtins.compile(SONNET_TEXT, {**DAY, "runtime": {name: ""}})
    [d] = [d for d in out.diagnostics if d.code == "input-undeclared"]
    assert d.level == "warning" and d.source == name and replaces in d.message
    with pytest.raises(InputError, match=name):
        builtins.compile(SONNET_TEXT, {**DAY, "runtime": {name: ""}}, strict=True)


def test_a_replacing_runtime_value_is_request_class(builtins: Compiler) -> None:
    plain = builtins.compile(SONNET_TEXT, DAY)
    out = builtins.compile(SONNET_TEXT, {**DAY, "runtime": {"objective": "OVERRIDDEN-OBJ"}})
    assert "OVERRIDDEN-OBJ" in out.text and out.section("objective").cache == "request"
    assert out.section("objective").origin == "runtime"
    assert "OVERRIDDEN-OBJ" not in out.static_prefix
    assert all("OVERRIDDEN-OBJ" not in b.text for b in out.blocks if b.cache != "request")
    assert len(out.static_prefix) <= len(plain.static_prefix)
    assert plain.static_prefix.startswith(out.static_prefix)
    for payload in (out.to_anthropic(), out.to_openai()):
        assert "OVERRIDDEN-OBJ" not in str(payload.get("prompt_cache_key", ""))
    [first_cached] = [b for b in out.to_anthropic()["system"] if "cache_control" in b][:1] or [
        {"text": ""}]
    assert "OVERRIDDEN-OBJ" not in first_cached["text"]


def test_a_runtime_value_that_is_no_text_is_refused(builtins: Compiler) -> None:
    out = builtins.compile(SONNET_TEXT, {**DAY, "runtime": {"objective": {"a": 1}}})
    assert any(d.code == "input-invalid" and d.source == "objective" for d in out.diagnostics)
    assert "{'a': 1}" not in out.text and "FrozenDict" not in out.text


# Per input type: a value it takes and one it refuses (a bool is no number, a date must exist).
_GOOD_AND_BAD = {"string": ("x", 1), "number": (1.5, True), "boolean": (False, "false"),
                 "select": ("b", "c"), "date": ("2024-02-29", "2025-02-29"),
                 "list": ((1, "a"), "[1]"), "object": ({"a": 1}, ["a"])}


def test_every_input_type_checks_its_values() -> None:
    assert set(_GOOD_AND_BAD) == set(INPUT_TYPES)  # a new type needs a case here
    for tp, (good, bad) in _GOOD_AND_BAD.items():
        assert check_value(tp, ("a", "b"), good) is None
        problem = check_value(tp, ("a", "b"), bad)
        assert problem is not None and problem.startswith("must be"), (tp, problem)
    assert check_value("colour", (), "red") == "has unknown type 'colour'"
