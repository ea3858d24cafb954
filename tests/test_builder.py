"""The build: components in order, placeholder layers, absent sections, lenient vs strict."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs
import pytest

from promptc import (Compiler, Component, ComponentError, PlaceholderError, PromptContext,
                     ProviderInfo, StrictModeError)
from promptc._load.folders import Layer, read_layer

from .conftest import MINI

P = ProviderInfo("x", "y")


def with_functions(tree: Callable[..., Path], files: dict, *components: Component) -> Compiler:
    base = read_layer(tree({**MINI, **files}), "builtin")
    plugin = Layer(source="plugin:test", root="", functions={c.id: c for c in components})
    return Compiler.from_layers([base, plugin])


def test_components_run_in_order_and_sections_carry_their_origin(
        mini: Callable[..., Compiler]) -> None:
    out = mini().compile(P, PromptContext(cwd="/w"))
    assert out.text == "# Intro\nHello.\n\n====\n\n# Body\nWorking in /w."
    assert [(s.id, s.cache) for s in out.sections] == [("intro", "static"), ("body", "session")]
    for s, (a, b) in zip(out.sections, out.spans):
        assert out.text[a:b] == s.text


def test_absent_sections_take_their_separators_with_them(tree: Callable[..., Path]) -> None:
    c = with_functions(tree, {}, Component("intro", function=lambda v, c: None, reads=()))
    assert c.compile(P, PromptContext(cwd="/w")).text == "# Body\nWorking in /w."
    blank = with_functions(tree, {}, Component("intro", function=lambda v, c: " \n\t", reads=()))
    assert blank.compile(P, PromptContext(cwd="/w")).text == "# Body\nWorking in /w."


def test_placeholder_layers_record_who_supplied_each_value(mini: Callable[..., Compiler]
                                                           ) -> None:
    c = mini({"variants/base/variant.toml": 'fallback = true\ncomponents = ["intro", "body"]\n'
                                            '[placeholders]\nTEAM = "default team"\n'
                                            'OS = "overridden by standard"\n',
              "variants/base/template.md": "{{intro}}\n{{TEAM}} {{OS}} {{SHELL}}\n{{body}}\n"})
    out = c.compile(P, PromptContext(os="Linux"))
    assert "default team Linux" in out.text
    assert out.placeholders == {"intro": "component", "TEAM": "default", "OS": "standard",
                                "SHELL": "standard", "body": "component"}
    out = c.compile(P, PromptContext(os="Linux", runtime={"TEAM": "infra", "body": "Mine."}))
    assert "infra Linux" in out.text and "Mine." in out.text and "Working" not in out.text
    assert out.placeholders["TEAM"] == "runtime" and out.placeholders["body"] == "runtime"


def test_raising_component_is_skipped_and_named_in_lenient_mode(tree: Callable[..., Path]
                                                                ) -> None:
    def boom(v: object, c: object) -> str:
        raise RuntimeError("kaput")
    c = with_functions(tree, {}, Component("intro", function=boom, reads=()))
    out = c.compile(P, PromptContext(cwd="/w"))
    assert out.text == "# Body\nWorking in /w."
    [d] = out.diagnostics
    assert (d.code, d.source) == ("component-raised", "intro") and "kaput" in d.message
    with pytest.raises(ComponentError, match="intro.*kaput"):
        c.compile(P, PromptContext(cwd="/w"), strict=True)


def test_non_string_component_output(tree: Callable[..., Path]) -> None:
    c = with_functions(tree, {}, Component("intro", function=lambda v, c: 42, reads=()))
    out = c.compile(P, PromptContext())
    assert [d.code for d in out.diagnostics] == ["component-not-text"]
    with pytest.raises(ComponentError, match="returned int"):
        c.compile(P, PromptContext(), strict=True)


def test_missing_component_and_unknown_placeholder(mini: Callable[..., Compiler]) -> None:
    c = mini({"variants/base/variant.toml": 'fallback = true\ncomponents = ["intro", "ghost"]\n',
              "variants/base/template.md": "{{intro}}\n{{ghost}}\n{{NOPE}}\n"})
    out = c.compile(P, PromptContext())
    codes = sorted((d.code, d.source) for d in out.diagnostics)
    assert codes == [("component-missing", "ghost"), ("placeholder-unknown", "NOPE")]
    assert out.text == "# Intro\nHello."
    with pytest.raises(ComponentError, match="ghost"):
        c.compile(P, PromptContext(), strict=True)


def test_component_in_order_but_not_in_template_is_reported(mini: Callable[..., Compiler]
                                                            ) -> None:
    c = mini({"variants/base/template.md": "{{intro}}\n"})
    out = c.compile(P, PromptContext(cwd="/w"))
    assert "Working" not in out.text
    assert [(d.code, d.source) for d in out.diagnostics] == [
        ("component-not-in-template", "body")]


def test_memoized_sections_follow_the_fields_they_read(mini: Callable[..., Compiler]) -> None:
    """A section is kept from the second time the values it reads come (a new session's
    mostly never come again), then reused whatever else changed."""
    c = mini()
    a = c.compile(P, PromptContext(cwd="/a"))
    kept = c.compile(P, PromptContext(cwd="/a", os="first change, unread"))
    b = c.compile(P, PromptContext(cwd="/b"))
    again = c.compile(P, PromptContext(cwd="/a", os="changed but unread"))
    assert "/a" in a.text and "/b" in b.text and again.text == a.text
    assert again.section("body") is kept.section("body")  # served from the memo
    assert kept.section("body") is not a.section("body")  # the first sight was not kept


def test_memoized_diagnostics_are_reported_every_time(tree: Callable[..., Path]) -> None:
    calls = []

    def flaky(v: object, c: PromptContext) -> str:
        calls.append(1)
        raise ValueError("bad")
    c = with_functions(tree, {}, Component("intro", function=flaky, reads=("cwd",)))
    for _ in range(4):
        assert [d.code for d in c.compile(P, PromptContext(cwd="/w")).diagnostics] == [
            "component-raised"]
    assert len(calls) == 2  # kept from its second time, then served with its diagnostics
    with pytest.raises(ComponentError):
        c.compile(P, PromptContext(cwd="/w"), strict=True)


def test_components_without_declared_reads_run_every_request(tree: Callable[..., Path]) -> None:
    calls = []
    c = with_functions(tree, {}, Component("intro", function=lambda v, x: calls.append(1) or "x"))
    for _ in range(3):
        out = c.compile(P, PromptContext())
    assert len(calls) == 3
    assert out.section("intro").cache == "request"


def test_template_value_that_is_not_text_is_reported(tree: Callable[..., Path]) -> None:
    comp = Component("intro", template="# Intro\n{{items}}\n",
                     data=lambda v, c: {"items": [1, 2]}, provides=("items",), reads=())
    c = with_functions(tree, {}, comp)
    out = c.compile(P, PromptContext())
    assert [d.code for d in out.diagnostics] == ["placeholder-not-text"]
    with pytest.raises(PlaceholderError):
        c.compile(P, PromptContext(), strict=True)


def test_no_provider_at_all_is_an_error(mini: Callable[..., Compiler]) -> None:
    from promptc import NoVariantError
    with pytest.raises(NoVariantError, match="no provider"):
        mini().compile(None, PromptContext())


def test_provider_from_the_context(mini: Callable[..., Compiler]) -> None:
    out = mini().compile(None, PromptContext(provider=P, cwd="/w"))
    assert out.provider.model == "y" and out.provider.family == "unknown"


def test_strict_mode_error_classes_subclass_builtins() -> None:
    assert issubclass(ComponentError, RuntimeError)
    assert issubclass(StrictModeError, RuntimeError)
    assert issubclass(PlaceholderError, LookupError)


def test_compiled_prompt_is_plain_data(mini: Callable[..., Compiler]) -> None:
    out = mini().compile(P, PromptContext(cwd="/w"))
    d = out.to_dict()
    assert d["variant"] == {"id": "base", "family": "generic", "source": "folder:" + d[
        "variant"]["source"].split(":", 1)[1]}
    assert [s["id"] for s in d["sections"]] == ["intro", "body"]
    assert attrs.has(type(out))
