"""`promptc session` on real prompts: its formats, its gates and exit codes, and where real
prompts break (the mode's section, the model), and the benchmark's day scripts keep the static
class whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptc import Compiler
from promptc._cli import main
from promptc.session import replay

ROOT = Path(__file__).parent.parent
CONTEXT = ROOT / "promptc" / "_data" / "snapshot" / "contexts" / "full.json"
SCRIPT = f'''title = "a short session"
provider = "anthropic"
model = "claude-sonnet-4-5"
context = "{CONTEXT.as_posix()}"
turn_tokens = 900

[[request]]
label = "start"
[[request]]
[[request]]
label = "plan | mode"
mode = "plan"
[[request]]
model = "claude-opus-4-5"
'''


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "short.toml"
    path.write_text(SCRIPT, encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main([*argv, "--builtins-only"])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_real_prompts_break_where_their_sections_change(builtins: Compiler,
                                                        script: Path) -> None:
    report = replay(script, compiler=builtins, dynamic="system")
    first, repeat, plan, opus = report.requests
    assert first.cache_read == 0 and first.cache_write == first.input
    assert repeat.cache_read == first.input and repeat.cache_write == 900
    assert plan.brk is not None and (plan.brk.where, plan.brk.cache) == \
        ("act_vs_plan_mode", "request") and plan.brk.cause == "mode act → plan"
    assert 0 < plan.cache_read < repeat.input  # up to the session block's marker
    assert opus.brk is not None and opus.brk.kind == "model" and opus.cache_read == 0
    # Opus's 4,096-token minimum: the tool block and the static block, under it, go unmarked
    assert [r.markers for r in report.requests] == [4, 4, 4, 3]
    assert plan.rewritten == 2 * 900 and plan.costly_rewrite  # the conversation written again
    moved = replay(script, compiler=builtins)  # no option: the split
    assert moved.dynamic == "message"
    assert moved.requests[2].brk is None  # the new mode goes in a message of its own
    assert moved.requests[2].cache_read == moved.requests[1].input
    assert moved.totals.rewrites == 0 and moved.requests[3].rewritten  # Opus: its own cache


def test_text_json_and_markdown(capsys: pytest.CaptureFixture[str], script: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = run(capsys, "session", str(script))
    assert (code, err) == (0, "")
    assert out.splitlines()[0].split() == ["#", "session", "request", "model", "input",
                                           "read", "write", "uncached", "cost", "break"]
    assert "a short session: anthropic claude-sonnet-4-5, placement message" in out
    assert "gate static-class breaks ≤ 0: ok (0)" in out and "LiteLLM" in out
    assert "gate conversation rewrites ≤ 0: ok (0)" in out
    assert "the conversation's own floor $" in out and "the prompt's share above it $" in out
    code, out, _ = run(capsys, "session", str(script), "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["ok"] is True and len(data["requests"]) == 4
    assert set(data["totals"]) >= {"cache_read", "cache_write", "uncached", "cost",
                                   "conversation_floor", "prompt_share"}
    assert data["requests"][2]["break"] is None
    floor, share = data["totals"]["conversation_floor"], data["totals"]["prompt_share"]
    assert 0 < floor < data["totals"]["cost"]
    assert share == pytest.approx(data["totals"]["cost"] - floor, abs=2e-6)
    # the whole prompt in the system prompt: the mode switch writes the conversation again
    code, out, _ = run(capsys, "session", str(script), "--dynamic", "system")
    assert code == 1 and "act_vs_plan_mode (request): mode act → plan" in out
    assert "gate conversation rewrites ≤ 0: FAILED (1: #3: 1,800 conversation tokens not " \
           "read from the cache (act_vs_plan_mode: mode act → plan))" in out
    code, out, _ = run(capsys, "session", str(script), "--dynamic", "system",
                       "--max-rewrites", "1")
    assert code == 0
    code, out, _ = run(capsys, "session", str(script), "--format", "markdown", "--dynamic",
                       "message")
    assert code == 0 and out.startswith("**promptc session**")
    assert "| # | session | request |" in out and "plan \\| mode" in out  # cells escaped


def test_gates_fail_with_exit_1_after_the_report(capsys: pytest.CaptureFixture[str],
                                                 script: Path) -> None:
    code, out, _ = run(capsys, "session", str(script), "--max-breaks", "0",
                       "--min-cached-share", "99%")
    assert code == 1 and "gate max-breaks ≤ 0: FAILED (1)" in out
    assert "gate min-cached-share ≥ 99.0%: FAILED" in out
    code, out, _ = run(capsys, "session", str(script), "--max-breaks", "1",
                       "--min-cached-share", "0.3", "--format", "json")
    assert code == 0 and [g["ok"] for g in json.loads(out)["gates"]] == [True] * 5
    code, out, _ = run(capsys, "session", str(script), "--breakpoints", "4", "--format", "json",
                       "--dynamic", "system", "--max-rewrites", "9")
    data = json.loads(out)
    # four promptc markers and the client's: rejected, except on Opus, whose 4,096-token
    # minimum leaves the built-in tool block and the static block unmarked (three in all)
    assert code == 1 and data["ok"] is False
    assert [r["markers"] for r in data["requests"]] == [5, 5, 5, 3]
    assert [r["rejected"] is not None for r in data["requests"]] == [True, True, True, False]


def test_bad_input_is_exit_2_with_one_line(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('provider = "anthropic"\nmodel = "m"\n[[request]]\nmode = "later"\n')
    code, out, err = run(capsys, "session", str(bad))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "request[1].mode" in err and str(bad) in err
    code, _, err = run(capsys, "session", str(tmp_path / "missing.toml"))
    assert code == 2 and "file not found" in err
    code, _, err = run(capsys, "session", str(bad), "--min-cached-share", "lots")
    assert code == 2 and "not a share" in err


def test_help_session_has_the_command_and_the_topic(capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    code = main(["help", "session"])
    out = capsys.readouterr().out
    assert code == 0 and "--max-breaks" in out and "# Session scripts" in out
    for fact in ("at most 4", "20 positions", "2,048 tokens", "steps of 128", "1.25x",
                 "prompt_cache_key", "implicit caching", "4,096", "LiteLLM", "--dynamic system",
                 "use_mcp_tool", "ttl", "turn_seconds", "best-effort"):
        assert fact in out, fact
    from promptc._session.billing import SOURCES
    for _title, source in SOURCES.values():
        assert source in out, source  # the rules' sources, as in docs/caching.md


DAYS = sorted((ROOT / "benchmarks" / "sessions").glob("day-*.toml"))


@pytest.mark.parametrize("dynamic", ["system", "message", None])
@pytest.mark.parametrize("day", DAYS, ids=lambda p: p.stem)
def test_the_day_scripts_never_break_the_static_class(builtins: Compiler, day: Path,
                                                      dynamic: str | None) -> None:
    report = replay(day, compiler=builtins, dynamic=dynamic)
    assert report.totals.requests == 20 and report.totals.sessions == 2
    assert report.totals.static_breaks == 0 and report.totals.rejected == 0
    kinds = [r.brk.kind for r in report.requests if r.brk and r.brk.cache == "static"]
    assert kinds == ["model"]
    assert all(r.brk.cache in ("session", "request") for r in report.requests
               if r.brk and r.brk.kind != "model")
    if dynamic != "system":  # the split: the conversation is written again only for Opus
        assert report.totals.rewrites == 0
        assert [r.index for r in report.requests if r.rewritten] == [19]


def test_session_tools_that_go_are_the_break_not_the_static_text(builtins: Compiler,
                                                                 tmp_path: Path) -> None:
    """A second user without MCP servers: the session tools piece disappears and the static
    system text after it is written again, but the static text itself is unchanged, so the
    break is the session tools (session class), and the gate passes."""
    path = tmp_path / "no-mcp.toml"
    path.write_text(SCRIPT.split("[[request]]")[0] + "[[request]]\nskills = []\n"
                    "[[request]]\nnew_session = true\nmcp_servers = []\n", encoding="utf-8")
    report = replay(path, compiler=builtins, dynamic="system")
    second = report.requests[1]
    assert second.brk is not None
    assert (second.brk.where, second.brk.cache, second.brk.static) == \
        ("session tools", "session", False)
    assert "mcp_servers" in second.brk.cause and "went" in second.brk.cause
    assert report.totals.static_breaks == 0 and all(g.ok for g in report.gates())
    # the static system text after the tools is written again: the report says so
    assert any("of the static class after session tools are not read" in n
               for n in second.notes)


def test_a_second_team_shares_tools_and_system_prompt_only_with_dynamic_placement(
        builtins: Compiler) -> None:
    """day-anthropic-two-teams.toml: the second developer brings other MCP servers and
    skills. With the whole prompt in the system prompt their tools are functions sent before
    it, so the break is the session tools and the static text after them is not read; by
    default (the split) the tools are generic, the break falls in the first message and the
    tools and the whole system prompt are read from the cache: the second developer writes
    only what is theirs."""
    script = ROOT / "benchmarks" / "sessions" / "day-anthropic-two-teams.toml"
    default, moved = replay(script, compiler=builtins, dynamic="system"), \
        replay(script, compiler=builtins)
    second = default.requests[15]
    assert second.label == "a second developer" and second.brk is not None
    assert (second.brk.where, second.brk.cache) == ("session tools", "session")
    assert any("of the static class after session tools" in n for n in second.notes)
    shared = moved.requests[15]
    # the break is the first message's first section: tools and system prompt were read
    assert shared.brk is not None and (shared.brk.where, shared.brk.cache) == \
        ("mcp_servers", "session")
    assert shared.cache_read > second.cache_read
    for report in (default, moved):
        assert report.totals.static_breaks == 0
        assert [r.brk.kind for r in report.requests if r.brk and r.brk.cache == "static"] == \
            ["model"]
    assert not [r for r in moved.requests if r.brk and "tools" in r.brk.where]
    assert moved.totals.cost is not None and default.totals.cost is not None
    assert moved.totals.cost < default.totals.cost


def test_a_second_user_writes_only_what_is_theirs(builtins: Compiler) -> None:
    """Two users of one deployment, with their own machines, rules, MCP servers and skills:
    the second user's first request reads the tools and the system prompt the first wrote,
    and writes only their first message and their turn (issue 34, item 2)."""
    from promptc import ProviderInfo
    from promptc._session.wire import prompt_wire
    from promptc.session import SessionScript
    data = json.loads(CONTEXT.read_text(encoding="utf-8"))
    other = {**data, "cwd": "/srv/web", "home": "/home/ravi",
             "rules": [{"name": "web", "text": "Use pnpm."}],
             "mcp_servers": [{"name": "sentry", "command": "sentry-mcp", "tools": [
                 {"name": "list_issues", "description": "Unresolved errors.",
                  "input_schema": {"type": "object", "properties": {}}}],
                 "resources": [{"uri": "sentry://projects", "name": "Projects"}]}],
             "skills": [{"name": "storybook", "description": "Stories.",
                         "references": ["docs/stories.md"]}]}
    report = replay(SessionScript.from_dict({
        "provider": "anthropic", "model": "claude-sonnet-4-5", "context": data,
        "turn_tokens": 900, "request": [{}, {"new_session": True, "context": other}]}),
        compiler=builtins)
    _first, second = report.requests
    prompt = builtins.compile(ProviderInfo("anthropic", "claude-sonnet-4-5"), other)
    wire = prompt_wire(prompt, "anthropic", 3)
    shared = sum(p.tokens for p in wire.head)  # the tools and the system prompt
    theirs = sum(p.tokens for p in wire.message)
    assert second.brk is not None and second.brk.kind == "new_session"
    assert second.brk.where == "mcp_servers"  # their first message's first section
    assert (second.cache_read, second.cache_write, second.uncached) == \
        (shared, theirs + 900, 0)
    assert second.prompt.cache_write == theirs and second.conversation.cache_write == 900


def test_a_session_whose_tools_change_is_a_rewrite_the_gate_names(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """An MCP server list that changes the offered tools mid-session (the last server goes,
    and use_mcp_tool with it) changes what comes first on the wire: the conversation is
    written again, and the gate fails naming the request and the cause."""
    path = tmp_path / "tools.toml"
    path.write_text(SCRIPT.split("[[request]]")[0] + "[[request]]\n[[request]]\n"
                    "mcp_servers = []\n", encoding="utf-8")
    code, out, _ = run(capsys, "session", str(path))
    assert code == 1
    line = next(x for x in out.splitlines() if x.startswith("gate conversation rewrites"))
    assert "FAILED (1: #2: 900 conversation tokens not read from the cache (session tools: " \
           "the tool definitions changed (mcp_servers changed)))" in line
