"""Offline token counting: tiktoken's encodings built from an installed package, never the network."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc import Compiler, ProviderInfo, count_tokens
from promptc._model.provider import encoding_for
from promptc._text.tokens import TokenCounter, get_encoding

from .conftest import load_context


def test_counting_never_touches_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    import tiktoken.load

    def no_network(*_a: object, **_k: object) -> bytes:
        raise AssertionError("tiktoken tried to fetch its BPE file")
    monkeypatch.setattr(tiktoken.load, "read_file", no_network)
    monkeypatch.setattr(tiktoken.load, "read_file_cached", no_network)
    import promptc._text.tokens as tokens
    monkeypatch.setattr(tokens, "_encodings", {})  # force a fresh build under the guard
    assert count_tokens("hello world, this is promptc", "cl100k_base") > 0
    assert count_tokens("hello world, this is promptc", "o200k_base") > 0


def test_counts_match_known_values() -> None:
    # Reference values from tiktoken's own encodings for these exact strings.
    assert get_encoding("o200k_base").encode_ordinary("hello world") == [24912, 2375]
    assert get_encoding("cl100k_base").encode_ordinary("hello world") == [15339, 1917]


def test_special_token_text_counts_as_ordinary_text() -> None:
    text = "before <|endoftext|> and <|im_start|>system"
    assert count_tokens(text) > 5
    assert count_tokens(text, "cl100k_base") > 5


@pytest.mark.parametrize(("model", "encoding", "estimated"), [
    ("gpt-5", "o200k_base", False), ("gpt-4o-mini", "o200k_base", False),
    ("o3", "o200k_base", False), ("gpt-oss-120b", "o200k_base", False),
    ("gpt-3.5-turbo", "cl100k_base", False), ("gpt-4", "cl100k_base", False),
    ("claude-sonnet-4-5", "o200k_base", True), ("gemini-2.5-pro", "o200k_base", True),
    ("mystery-model", "o200k_base", True),
])
def test_encoding_per_family(model: str, encoding: str, estimated: bool) -> None:
    assert encoding_for(ProviderInfo("x", model)) == (encoding, estimated)


def test_prompt_token_report(builtins: Compiler) -> None:
    out = builtins.compile(ProviderInfo("openai", "gpt-5"), load_context("full"),
                           count_tokens=True)
    assert out.tokens.encoding == "o200k_base" and not out.tokens.estimated
    assert out.tokens.total == count_tokens(out.text)  # counted on the final text
    for s in out.sections:
        assert s.tokens == count_tokens(s.text)
    plain = builtins.compile(ProviderInfo("openai", "gpt-5"), load_context("full"))
    assert plain.tokens is None and all(s.tokens is None for s in plain.sections)


def test_unchanged_sections_are_not_retokenized(builtins: Compiler,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = load_context("full")
    provider = ProviderInfo("openai", "gpt-5")
    builtins.compile(provider, ctx, count_tokens=True)
    enc = get_encoding("o200k_base")
    seen: list[str] = []
    real = type(enc).encode_ordinary
    monkeypatch.setattr(type(enc), "encode_ordinary",
                        lambda self, text: seen.append(text) or real(self, text))
    import attrs
    builtins.compile(provider, attrs.evolve(ctx, date="2030-02-02"), count_tokens=True)
    # only the changed request section (the date) was tokenized: the rest of the final text is
    # counted in pieces that were counted before
    assert len(seen) == 1
    assert "2030-02-02" in seen[0] and len(seen[0]) < 200


pieces = st.sampled_from(["\n", "\n\n", " ", "word", "Word", "/", "//x", ":", "::\n", "'s",
                          "123", "4567", "===", "## ", "- ", "\t", "é", "日本", "<|endoftext|>",
                          ".\n", "\r\n", "x/y", "  \n", "{", "}\n"])


@settings(deadline=None)
@given(st.lists(pieces, max_size=40).map("".join), st.lists(st.integers(0, 400), max_size=6),
       st.sampled_from(["o200k_base", "cl100k_base"]))
def test_counts_add_up_across_safe_cuts(text: str, cuts: list[int], encoding: str) -> None:
    assert TokenCounter().total(text, cuts, encoding) == len(
        get_encoding(encoding).encode_ordinary(text))


def test_builtin_prompts_total_equals_a_whole_count(builtins: Compiler) -> None:
    for vid in builtins.registry.variants:
        for name in ("full", "minimal", "plan"):
            out = builtins.compile(ProviderInfo("openai", "gpt-5"), load_context(name),
                                   variant=vid, count_tokens=True)
            assert out.tokens.total == len(get_encoding("o200k_base").encode_ordinary(out.text))
