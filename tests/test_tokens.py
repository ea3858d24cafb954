"""Offline token counting: tiktoken's encodings built from an installed package, never the network."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc import Compiler, ProviderInfo, count_tokens
from promptc._cli import main
from promptc._model.provider import encoding_for
from promptc._text.tokens import TokenCounter, get_encoding
from promptc.testing import make_context


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
    out = builtins.compile(ProviderInfo("openai", "gpt-5"), make_context("full"),
                           count_tokens=True)
    assert out.tokens.encoding == "o200k_base" and not out.tokens.estimated
    assert out.tokens.total == count_tokens(out.text)  # counted on the final text
    for s in out.sections:
        assert s.tokens == count_tokens(s.text)
    plain = builtins.compile(ProviderInfo("openai", "gpt-5"), make_context("full"))
    assert plain.tokens is None and all(s.tokens is None for s in plain.sections)


def test_unchanged_sections_are_not_retokenized(builtins: Compiler,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = make_context("full")
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
            out = builtins.compile(ProviderInfo("openai", "gpt-5"), make_context(name),
                                   variant=vid, count_tokens=True)
            assert out.tokens.total == len(get_encoding("o200k_base").encode_ordinary(out.text))


def test_the_builtin_pack_meets_its_token_targets(capsys: pytest.CaptureFixture[str],
                                                   builtins: Compiler) -> None:
    """The targets, written once in the default matrix (matrix.toml): every built-in variant
    has a case there, and every case has a token target for the full context (prompt and
    native tool JSON together) and meets it, and the static block's share where a case sets
    one."""
    code = main(["tokens", "--targets", "--builtins-only", "--json"])
    rows = json.loads(capsys.readouterr().out)
    assert code == 0, [r for r in rows if not r["ok"]]
    missing = set(builtins.variants) - {r["variant"] for r in rows}
    assert not missing, f"give {sorted(missing)} a [[case]] in promptc/_data/snapshot/matrix.toml"
    assert {r["tool_mode"] for r in rows} == {"text", "native"}
    for row in rows:
        assert row["ok"] and row["max_tokens"] is not None
        assert row["together"] == row["prompt"] + row["tools"] <= row["max_tokens"]
        if row["min_static_share"] is not None:
            assert row["static_share"] >= row["min_static_share"]


def test_a_missed_target_fails_and_is_named(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    builtin = files("promptc") / "_data" / "snapshot"
    (tmp_path / "full.json").write_text((builtin / "contexts" / "full.json").read_text())
    (tmp_path / "matrix.toml").write_text(
        '[contexts]\nfull = "full.json"\n\n'
        '[[case]]\nname = "roomy"\nvariant = "compact"\nprovider = "ollama"\nmodel = "qwen3:8b"\n'
        'max_tokens = 100000\n\n'
        '[[case]]\nname = "tight"\nvariant = "generic"\nprovider = "openai"\nmodel = "gpt-4.1"\n'
        'max_tokens = 500\nmin_static_share = 0.99\n')
    code = main(["tokens", "--targets", "--builtins-only", "--matrix",
                 str(tmp_path / "matrix.toml")])
    out = capsys.readouterr().out
    assert code == 1
    lines = {line.split()[0]: line for line in out.splitlines() if line[:5] in ("roomy", "tight")}
    assert lines["roomy"].rstrip().endswith("ok")
    assert lines["tight"].rstrip().endswith("missed") and "≤ 500" in lines["tight"]


def test_gpt_5_codex_is_a_fraction_of_gpt_5(builtins: Compiler) -> None:
    """OpenAI's Codex guide: a much shorter prompt than GPT-5's (its reference prompt is about
    40% of GPT-5's). Here at most 45%, in the whole prompt and in the static prose alike, with
    the terminal (`shell`) and apply_patch as its only built-in tools, under the names the
    Codex models are trained on (issue 33)."""
    def measure(model: str) -> tuple[int, int, tuple[str, ...]]:
        out = builtins.compile(ProviderInfo("openai", model), make_context("full"),
                               count_tokens=True)
        static = sum(s.tokens or 0 for s in out.sections if s.cache == "static")
        return out.tokens.total, static, out.tools.names
    codex, gpt = measure("gpt-5.1-codex"), measure("gpt-5")
    assert codex[0] <= 0.45 * gpt[0] and codex[1] <= 0.45 * gpt[1]
    built_in = [n for n in codex[2] if not n.startswith("mcp__") and
                n not in ("load_skill", "load_skill_reference", "access_mcp_resource")]
    assert built_in == ["shell", "apply_patch"]


def test_each_target_is_measured_in_its_own_context_strictly(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """(issue 35) A case's targets were measured in the matrix's first context, leniently: a
    case that lists its own context, and a section fed by a required input, counted short."""
    folder = tmp_path / "pack"
    (folder / "variants" / "note").mkdir(parents=True)
    (folder / "variants" / "note" / "variant.toml").write_text(
        'fallback = true\ncomponents = ["body"]\n'
        '[inputs.TICKER]\ntype = "string"\nrequired = true\n', encoding="utf-8")
    (folder / "variants" / "note" / "template.md").write_text("{{body}}\n", encoding="utf-8")
    (folder / "components").mkdir()
    (folder / "components" / "body.md").write_text(
        "# Analysis\n\nAnalyse {{TICKER}} for the team, in detail.\n", encoding="utf-8")
    (tmp_path / "empty.json").write_text("{}", encoding="utf-8")
    (tmp_path / "filled.json").write_text(
        json.dumps({"runtime": {"TICKER": "ACME " * 60}}), encoding="utf-8")
    matrix = tmp_path / "matrix.toml"
    matrix.write_text('[contexts]\nempty = "empty.json"\nfilled = "filled.json"\n\n'
                      '[[case]]\nname = "own"\nvariant = "note"\nprovider = "openai"\n'
                      'model = "gpt-4.1"\ncontexts = ["filled"]\nmax_tokens = 100\n',
                      encoding="utf-8")
    argv = ["tokens", "--targets", "--no-user", "--no-plugins", "--project", str(folder),
            "--matrix", str(matrix)]
    code = main([*argv, "--json"])
    [row] = json.loads(capsys.readouterr().out)
    assert code == 1 and not row["ok"]  # 60 tickers in its own context: over 100 tokens
    assert row["prompt"] > 100
    # a case measured in a context that misses its required input is refused, not counted
    matrix.write_text(matrix.read_text(encoding="utf-8").replace('["filled"]', '["empty"]'),
                      encoding="utf-8")
    assert main(argv) != 0
    assert "TICKER" in capsys.readouterr().err
