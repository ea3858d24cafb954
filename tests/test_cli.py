"""The command line: the commands, options and `--format json` fields the README's "The command
line" and docs/cli.md promise, exit codes, and one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from promptc import Compiler
from promptc._cli import main

from .conftest import CONTEXTS

RENDER = ["render", "--builtins-only", "--provider", "anthropic", "--model",
          "claude-sonnet-4-5", "--date", "2026-01-01"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_render_is_clean_and_byte_identical_across_processes(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "promptc", "render", "--provider", "anthropic", "--model",
           "claude-sonnet-4-5", "--date", "2026-01-01", "--no-user", "--no-plugins",
           "--no-project"]
    env = {**os.environ, "PYTHONHASHSEED": "random"}
    first = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env)
    second = subprocess.run(cmd, capture_output=True, text=True, cwd="/", env=env)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert "{{" not in first.stdout and "&lt;" not in first.stdout
    assert "&amp;" not in first.stdout and first.stderr == ""


def test_render_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *RENDER, "--format", "json", "--context",
                       str(CONTEXTS / "full.json"))
    data = json.loads(out)
    assert code == 0
    assert data["variant"]["id"] == "native-next-gen" and data["variant"]["source"] == "builtin"
    assert data["text"].startswith("#")
    assert all({"id", "chars", "tokens", "cache"} <= set(s) for s in data["sections"])
    assert data["diagnostics"] == [] and data["dropped"] == []
    assert len(data["fingerprints"]["static"]) == 64


def test_explain_json_shows_every_variant_tried(capsys: pytest.CaptureFixture[str],
                                               builtins: Compiler) -> None:
    code, out, _ = run(capsys, "explain", "--builtins-only", "--provider", "openai", "--model",
                       "gpt-4.1", "--json")
    data = json.loads(out)
    assert code == 0 and data["variant"]["id"] == "generic"
    tried = {t["variant"]: t for t in data["trace"]}
    assert set(tried) == set(builtins.variants)
    assert tried["gpt-5"]["matched"] is False and "gpt-4-1" in tried["gpt-5"]["reason"]
    assert tried["generic"]["reason"].startswith("fallback")
    assert all({"variant", "priority", "matched", "reason"} <= set(t) for t in data["trace"])
    assert data["sections"] and all("origin" in s for s in data["sections"])


def test_explain_marks_the_first_match_and_later_matches(capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    _, out, _ = run(capsys, "explain", "--builtins-only", "--provider", "ollama", "--model",
                    "qwen3-coder:30b", "--json")
    data = json.loads(out)
    assert data["variant"]["id"] == "compact"
    assert [t["variant"] for t in data["trace"] if t["matched"]][0] == "compact"


def test_explain_names_the_source_of_every_capability(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    _, out, _ = run(capsys, "explain", "--builtins-only", "--provider", "ollama", "--model",
                    "qwen3-coder:30b", "--context-window", "65536", "--json")
    caps = json.loads(out)["capabilities"]
    assert caps["context_window"] == {"value": 65536,
                                      "source": "client — given in the ProviderInfo"}
    assert caps["native_tools"]["source"].startswith("local")  # the local-server layer
    _, text, _ = run(capsys, "explain", "--builtins-only", "--provider", "ollama", "--model",
                     "qwen3-coder:30b", "--context-window", "65536")
    assert "context_window" in text and "client — given in the ProviderInfo" in text


def test_variants_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "variants", "--builtins-only", "--json")
    rows = json.loads(out)
    assert code == 0
    assert {"id", "family", "priority", "source", "extends"} <= set(rows[0])
    assert [r["id"] for r in rows][-1] == "generic"  # the fallback is listed last
    prios = [r["priority"] for r in rows if not r["fallback"]]
    assert prios == sorted(prios)


def test_bad_context_exits_2_with_one_line(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "ctx.json"
    bad.write_text('{"cwd": "/w", "rulez": []}', encoding="utf-8")
    code, out, err = run(capsys, *RENDER, "--context", str(bad))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "ctx.json" in err and "rulez" in err
    code, _, err = run(capsys, *RENDER, "--context", str(tmp_path / "missing.json"))
    assert code == 2 and "missing.json: file not found" in err and err.count("\n") == 1


@pytest.mark.parametrize("argv", [
    ["render", "--builtins-only"],
    ["render", "--builtins-only", "--provider", "x", "--model", "y", "--date", "tomorrow"],
    ["render", "--builtins-only", "--provider", "x", "--model", "y", "--variant", "nope"],
    ["render", "--builtins-only", "--provider", "x", "--model", "y", "--set", "novalue"],
    ["render", "--builtins-only", "--provider", "x", "--model", "y", "--budget", "-3"],
    ["nonsense-command"],
])
def test_usage_errors_exit_2_without_traceback(argv: list[str],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        raise SystemExit(main(argv))
    _, err = capsys.readouterr()
    assert info.value.code == 2
    assert "Traceback" not in err and err.strip()


def test_strict_findings_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ctx = tmp_path / "ctx.json"
    ctx.write_text('{"runtime": {"UNDECLARED": "x"}}', encoding="utf-8")
    code, _, err = run(capsys, *RENDER, "--context", str(ctx))
    assert code == 0 and "input-undeclared" in err
    code, _, err = run(capsys, *RENDER, "--context", str(ctx), "--strict")
    assert code == 1 and "UNDECLARED" in err and "Traceback" not in err


def test_python_dash_m_is_the_same_command() -> None:
    out = subprocess.run([sys.executable, "-m", "promptc", "variants", "--builtins-only"],
                         capture_output=True, text=True)
    assert out.returncode == 0 and "generic" in out.stdout


def test_explain_names_where_each_tool_came_from(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", "--builtins-only", "--provider", "anthropic",
                       "--model", "claude-sonnet-4-5", "--context", str(CONTEXTS / "full.json"),
                       "--json")
    tools = {t["name"]: t for t in json.loads(out)["tools"]}
    assert code == 0
    assert tools["read_file"]["source"] == "builtin"
    assert tools["read_file"]["origin"].endswith("components/tools/read_file.toml")
    # the default placement calls every MCP server's tools through use_mcp_tool, so that users
    # with other servers send the same tools
    assert tools["use_mcp_tool"]["source"] == "builtin"
    assert not [name for name in tools if name.startswith("mcp__")]


def test_explain_and_variants_show_sources_and_overrides(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    """The project folder a render used is named by explain; the README's override example
    (one component copied into .promptc/variants/<id>/components/) is listed by variants."""
    project = tmp_path / ".promptc"
    (project / "variants" / "generic" / "components").mkdir(parents=True)
    (project / "variants" / "generic" / "components" / "rules.md").write_text(
        "# Rules\n\nProject rules.\n", encoding="utf-8")
    assert main(["explain", "--provider", "openai", "--model", "gpt-4.1", "--json",
                 "--project", str(project), "--no-user", "--no-plugins"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"layer": "project", "path": str(project)} in data["sources"]
    assert main(["variants", "--json", "--project", str(project), "--no-user",
                 "--no-plugins"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert any("rules" in m and "project:" in m for m in rows["generic"]["overrides"])
    assert main(["variants", "--project", str(project), "--no-user", "--no-plugins"]) == 0
    assert "override: component of variant 'generic'" in capsys.readouterr().out


def test_explain_says_which_link_chose_the_tool_mode(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    base = ["explain", "--builtins-only", "--provider", "openai", "--model", "gpt-4.1"]
    _, out, _ = run(capsys, *base, "--json")
    assert json.loads(out)["tool_mode"]["decided_by"] == "model"
    _, out, _ = run(capsys, *base, "--native-tools", "no", "--json")
    assert json.loads(out)["tool_mode"] == {
        "mode": "text", "decided_by": "client", "reason": "the client set native_tools = false",
        "overrides_variant": False}
    _, text, _ = run(capsys, *base)
    assert "native (decided by model:" in text


def test_payload_options_reach_the_payload(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--builtins-only", "--provider", "openai", "--model", "gpt-4.1"]
    _, out, _ = run(capsys, "tools", *base, "--format", "openai")
    assert all(t["function"]["strict"] for t in json.loads(out))
    _, out, _ = run(capsys, "tools", *base, "--format", "openai", "--strict-tools", "no")
    assert not any(t["function"].get("strict") for t in json.loads(out))
    _, out, _ = run(capsys, "render", *base, "--format", "gemini", "--gemini-schema", "json")
    declarations = json.loads(out)["tools"][0]["function_declarations"]
    assert any("parameters_json_schema" in d for d in declarations)
    assert not any("parameters" in d for d in declarations)
    _, out, _ = run(capsys, "render", *base, "--format", "anthropic", "--breakpoints", "0")
    assert "cache_control" not in out


def test_tokens_counts_the_tools_sent_beside_the_prompt(capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    base = ["tokens", "--builtins-only", "--provider", "anthropic", "--model",
            "claude-sonnet-4-5"]
    _, out, _ = run(capsys, *base, "--json")
    tokens = json.loads(out)["tokens"]
    assert tokens["tools"] > 0 and tokens["with_tools"] == tokens["total"] + tokens["tools"]
    _, text, _ = run(capsys, *base)
    assert f"{tokens['with_tools']}" in text and "anthropic JSON" in text


def test_parse_reads_calls_and_names_errors(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    reply = tmp_path / "reply.txt"
    base = ["parse", "--builtins-only", "--provider", "openai", "--model", "gpt-4.1",
            "--native-tools", "no"]
    reply.write_text("Reading.\n<read_file>\n<path>src/a.py</path>\n</read_file>\n",
                     encoding="utf-8")
    code, out, _ = run(capsys, *base, str(reply))
    parts = json.loads(out)["parts"]
    assert code == 0 and parts[1] == {"call": {"name": "read_file",
                                               "arguments": {"path": "src/a.py"}}}
    reply.write_text("<read_file><pth>x</pth></read_file>", encoding="utf-8")
    code, out, _ = run(capsys, *base, str(reply))
    error = json.loads(out)["parts"][0]["error"]
    assert code == 1 and error["code"] == "unknown-parameter" and "pth" in error["message"]
    code, _, err = run(capsys, *base, str(tmp_path / "missing.txt"))
    assert code == 2 and "missing.txt" in err
