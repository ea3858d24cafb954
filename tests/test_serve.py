"""`promptc serve` through a real subprocess: every method answers with what the matching command
prints as JSON, every error code, 200 pipelined requests answered by id with a bad line among
them, `reload`, and a clean exit at the end of input.

One server serves the module (`server`); the tests that end a server's input or change its
prompt folders start their own.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import promptc
from promptc._cli import main

from .conftest import CONTEXTS

SERVE = [sys.executable, "-m", "promptc", "serve"]
SOURCES = ["--builtins-only"]
SONNET = {"provider": "anthropic", "model": "claude-sonnet-4-5"}
CLI_SONNET = ["--provider", "anthropic", "--model", "claude-sonnet-4-5"]
FULL_FILE = str(CONTEXTS / "full.json")
FULL = json.loads((CONTEXTS / "full.json").read_text(encoding="utf-8"))


class Server:
    """A running `promptc serve`: write lines, collect the answers by id."""

    def __init__(self, *args: str, cwd: Path | None = None) -> None:
        self.proc = subprocess.Popen([*SERVE, *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
        self.answers: queue.Queue[dict[str, Any]] = queue.Queue()
        self.lines: list[bytes] = []
        self._next = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)
            self.answers.put(json.loads(line))

    def write(self, *lines: str | dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        data = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n"
                       for line in lines)
        self.proc.stdin.write(data.encode("utf-8"))
        self.proc.stdin.flush()

    def request(self, method: str, params: Any = None) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next, "method": method}
        if params is not None:
            message["params"] = params
        self.write(message)
        answer = self.next_answer()
        assert answer["id"] == self._next
        return answer

    def next_answer(self) -> dict[str, Any]:
        return self.answers.get(timeout=60)

    def result(self, method: str, params: Any = None) -> Any:
        answer = self.request(method, params)
        assert "error" not in answer, answer
        return answer["result"]

    def error(self, method: str, params: Any = None) -> dict[str, Any]:
        answer = self.request(method, params)
        assert "result" not in answer, answer
        return answer["error"]  # type: ignore[no-any-return]

    def close(self) -> tuple[int, str]:
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=60)
        return code, self.proc.stderr.read().decode("utf-8")


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = Server(*SOURCES)
    yield running
    code, _ = running.close()
    assert code == 0


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    return json.loads(cli(capsys, *argv))


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    main([*argv, *SOURCES])
    return capsys.readouterr().out


# --- every method is the command's JSON -------------------------------------------------------

def test_version(server: Server) -> None:
    result = server.result("version")
    assert result["name"] == "promptc" and result["version"] == promptc.__version__
    assert {"compile", "tools", "parse", "check", "explain", "variants", "session", "version",
            "reload"} == set(result["methods"])


def test_compile_is_render_json_and_its_text_is_render(
        server: Server, capsys: pytest.CaptureFixture[str]) -> None:
    result = server.result("compile", {**SONNET, "context": FULL})
    assert result == cli_json(capsys, "render", *CLI_SONNET, "--context", FULL_FILE,
                              "--format", "json")
    assert result["text"] + "\n" == cli(capsys, "render", *CLI_SONNET, "--context", FULL_FILE)
    assert result["tokens"]["total"] > 0 and result["variant"]["id"]


@pytest.mark.parametrize("params, flags", [
    ({"format": "anthropic", "breakpoints": 1}, ["--format", "anthropic", "--breakpoints", "1"]),
    ({"format": "openai", "openai_api": "responses", "strict_tools": False},
     ["--format", "openai", "--openai-api", "responses", "--strict-tools", "no"]),
    ({"format": "gemini", "gemini_schema": "json", "native_tools": True},
     ["--format", "gemini", "--gemini-schema", "json", "--native-tools", "yes"]),
    ({"format": "bedrock", "breakpoints": 3}, ["--format", "bedrock", "--breakpoints", "3"]),
])
def test_compile_payloads_are_render_payloads(
        server: Server, params: dict[str, Any], flags: list[str],
        capsys: pytest.CaptureFixture[str]) -> None:
    result = server.result("compile", {"provider": "openai", "model": "gpt-5", "context": FULL,
                                       **params})
    assert result == cli_json(capsys, "render", "--provider", "openai", "--model", "gpt-5",
                              "--context", FULL_FILE, *flags)


def test_compile_budget_and_variant(server: Server,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    params = {**SONNET, "context": FULL, "budget": 4200, "variant": "generic"}
    result = server.result("compile", params)
    assert result["variant"]["id"] == "generic" and result["budget_report"]["budget"] == 4200
    assert result == cli_json(capsys, "render", *CLI_SONNET, "--context", FULL_FILE,
                              "--budget", "4200", "--variant", "generic", "--format", "json")


def test_tools(server: Server, capsys: pytest.CaptureFixture[str]) -> None:
    native = server.result("tools", {**SONNET, "context": FULL, "format": "anthropic"})
    assert native == cli_json(capsys, "tools", *CLI_SONNET, "--context", FULL_FILE,
                              "--format", "anthropic")
    text = server.result("tools", {**SONNET, "context": FULL, "native_tools": False})
    assert text["tool_mode"] == "text" and text["names"]
    assert text["text"] + "\n" == cli(capsys, "tools", *CLI_SONNET, "--context", FULL_FILE,
                                      "--native-tools", "no")
    assert server.result("tools", SONNET)["text"] is None  # a native variant has no section


def test_parse(server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reply = ("Let me look.\n<read_file>\n<path>src/app.py</path>\n</read_file>\n"
             "<read_file>\n<bogus>1</bogus>\n</read_file>")
    (tmp_path / "reply.txt").write_text(reply, encoding="utf-8")
    result = server.result("parse", {**SONNET, "native_tools": False, "reply": reply})
    assert any("call" in p for p in result["parts"] if isinstance(p, dict))
    assert any("error" in p for p in result["parts"] if isinstance(p, dict))
    capsys.readouterr()
    assert main(["parse", *CLI_SONNET, "--native-tools", "no", str(tmp_path / "reply.txt"),
                 *SOURCES]) == 1
    assert result == json.loads(capsys.readouterr().out)


def test_explain_and_variants(server: Server,
                              capsys: pytest.CaptureFixture[str]) -> None:
    result = server.result("explain", {"provider": "openai", "model": "gpt-4.1",
                                       "context": FULL})
    assert result == cli_json(capsys, "explain", "--provider", "openai", "--model", "gpt-4.1",
                              "--context", FULL_FILE, "--json")
    assert result["trace"] and result["variant"]["chosen_by"]
    assert server.result("variants") == cli_json(capsys, "variants", "--json")


def test_the_context_provider_stands_in_for_provider_and_model(server: Server) -> None:
    ctx = {"provider": {"id": "openai", "model": "gpt-4.1", "native_tools": False}}
    result = server.result("compile", {"context": ctx})
    assert result["provider"]["model"] == "gpt-4.1"
    assert result["tools"]["mode"] == "text"
    # another model drops the capabilities the context gave for its own
    other = server.result("compile", {"context": ctx, "model": "gpt-5"})
    assert other["provider"]["model"] == "gpt-5" and other["tools"]["mode"] == "native"


# --- errors -------------------------------------------------------------------------------------

def test_a_lone_surrogate_in_a_request_is_a_context_error_naming_the_field(
        server: Server) -> None:
    # written as JSON's escape, as a client's JSON encoder writes a broken string (issue 33, H15)
    server.write('{"jsonrpc": "2.0", "id": "s1", "method": "compile", "params": {'
                 '"provider": "anthropic", "model": "claude-sonnet-4-5", "format": "anthropic",'
                 ' "context": {"rules": [{"name": "r", "text": "ok \\ud800"}]}}}')
    answer = server.next_answer()
    assert answer["id"] == "s1"
    assert answer["error"]["code"] == -32001
    assert answer["error"]["data"]["field"] == "rules[0].text"
    assert "lone surrogate" in answer["error"]["message"]


def test_protocol_errors(server: Server) -> None:
    server.write("{not json", "[1, 2]", '"a string"', '{"id": {"x": 1}, "method": "version"}')
    answers = [server.next_answer() for _ in range(4)]
    assert [a["error"]["code"] for a in answers] == [-32700, -32600, -32600, -32600]
    assert all(a["id"] is None and a["jsonrpc"] == "2.0" for a in answers)
    server.write({"jsonrpc": "1.0", "id": "old", "method": "version"},
                 {"jsonrpc": "2.0", "id": "p", "method": "version", "params": 3},
                 {"jsonrpc": "2.0", "id": "m", "method": 7})
    answers = {a["id"]: a["error"] for a in (server.next_answer() for _ in range(3))}
    assert {k: e["code"] for k, e in answers.items()} == {"old": -32600, "p": -32600,
                                                          "m": -32600}
    assert server.result("version")  # still serving


def test_unknown_methods(server: Server) -> None:
    err = server.error("compil")
    assert err["code"] == -32601 and "'compil'" in err["message"]
    assert "did you mean 'compile'" in err["message"]


def test_check_answers_a_provider_call_object(server: Server, builtins: Any) -> None:
    block = {"type": "tool_use", "id": "toolu_1", "name": "list_files", "input": {"path": "."}}
    ok = server.result("check", {**SONNET, "context": FULL, "call": block})
    assert ok == {"ok": True, "wire": "anthropic", "call": {
        "name": "list_files", "arguments": {"path": "."}, "call_id": "toolu_1"}}
    bad = server.result("check", {**SONNET, "context": FULL, "call": {**block, "input": {}}})
    assert bad["ok"] is False and bad["error"]["code"] == "missing-parameter"
    assert bad["tool_result"] == {"type": "tool_result", "tool_use_id": "toolu_1",
                                  "content": bad["error"]["message"], "is_error": True}
    prompt = builtins.compile(promptc.ProviderInfo(**SONNET), promptc.PromptContext.from_dict(
        FULL))
    assert bad["error"] == prompt.tools.check({**block, "input": {}}).to_dict()
    plan = server.result("check", {**SONNET, "context": FULL, "mode": "plan", "call": {
        **block, "name": "write_to_file", "input": {"path": "a", "content": "x"}}})
    assert plan["error"]["code"] == "not-allowed-in-mode"
    junk = server.error("check", {**SONNET, "call": {"hello": 1}})
    assert junk["code"] == -32012 and junk["data"]["type"] == "CallShapeError"
    # a free-form tool's call (issue 33): gpt-5-codex's apply_patch on the Responses API
    patch = "*** Begin Patch\n*** Delete File: a.py\n*** End Patch\n"
    custom = server.result("check", {"provider": "openai", "model": "gpt-5.1-codex",
                                     "context": FULL, "call": {
                                         "type": "custom_tool_call", "call_id": "c1",
                                         "name": "apply_patch", "input": patch}})
    assert custom == {"ok": True, "wire": "openai-responses-custom", "call": {
        "name": "apply_patch", "arguments": {"input": patch}, "call_id": "c1"}}


def test_session_is_the_session_commands_json(server: Server, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    script = {"provider": "anthropic", "model": "claude-sonnet-4-5", "context": FULL,
              "turn_tokens": 500, "request": [{}, {"repeat": 2}, {"mode": "plan"}]}
    result = server.result("session", {"script": script, "max_breaks": 5})
    path = tmp_path / "s.toml"
    path.write_text(_toml(script), encoding="utf-8")  # the same script, as a file
    assert result == cli_json(capsys, "session", str(path), "--format", "json",
                              "--max-breaks", "5") | {"script": "<params.script>"}
    assert len(result["requests"]) == 4 and result["totals"]["cache_read"] > 0


def _toml(script: dict[str, Any]) -> str:
    """The session script as TOML, its context as a reference to the same file."""
    return (f'provider = "{script["provider"]}"\nmodel = "{script["model"]}"\n'
            f'context = {json.dumps(FULL_FILE)}\nturn_tokens = {script["turn_tokens"]}\n'
            "[[request]]\n[[request]]\nrepeat = 2\n[[request]]\nmode = \"plan\"\n")


def test_a_session_id_gets_the_first_message_then_the_updates(server: Server,
                                                                builtins: Any) -> None:
    """`compile` with `session`: the server keeps the session's last prompt. The first request
    gets the first details message; a mode switch gets the same system prompt and tools and
    the update alone; nothing changed, no update; another session starts afresh."""
    from promptc import ProviderInfo
    act, plan = {**FULL, "mode": "act"}, {**FULL, "mode": "plan"}
    first = server.result("compile", {**SONNET, "context": act, "format": "anthropic",
                                      "session": "s-1"})
    switched = server.result("compile", {**SONNET, "context": plan, "format": "anthropic",
                                         "session": "s-1"})
    same = server.result("compile", {**SONNET, "context": plan, "format": "anthropic",
                                     "session": "s-1"})
    info = ProviderInfo("anthropic", "claude-sonnet-4-5")
    ours = [builtins.compile(info, ctx) for ctx in (act, plan)]
    assert first["messages"] == ours[0].to_anthropic()["messages"]
    assert (switched["system"], switched["tools"]) == (first["system"], first["tools"])
    [update] = switched["messages"]
    assert update == {"role": "user", "content": [{"type": "text",
                                                   "text": ours[1].message_update(ours[0])}]}
    assert "messages" not in same
    data = server.result("compile", {**SONNET, "context": act, "session": "s-1"})
    assert data["continued"] is True and data["update"] == ours[0].message_update(ours[1])
    fresh = server.result("compile", {**SONNET, "context": act, "session": "s-2"})
    assert fresh["continued"] is False and fresh["update"] == ""
    assert "`session` must be a string of 1 to 200" in server.error(
        "compile", {**SONNET, "session": ""})["message"]


def test_numbers_a_session_script_cannot_take_are_errors_naming_the_field(server: Server
                                                                          ) -> None:
    """Issue 33, H10/H11: a 400-digit token count or a pause of NaN is a ConfigError (-32008)
    naming the field, never an internal error."""
    script = {"provider": "anthropic", "model": "claude-sonnet-4-5", "context": FULL,
              "turn_tokens": 10 ** 400, "request": [{}]}
    err = server.error("session", {"script": script})
    assert err["code"] == -32008 and "turn_tokens" in err["message"], err
    server.write('{"jsonrpc": "2.0", "id": 900, "method": "session", "params": {"script": '
                 '{"provider": "anthropic", "model": "claude-sonnet-4-5", "request": '
                 '[{"pause": NaN}]}}}')
    answer = server.next_answer()  # NaN never gets as far as a script: it is not JSON
    assert answer["error"] == {"code": -32700,
                               "message": "parse error: the line is not JSON (NaN is not JSON)"}


def test_compile_dynamic_message(server: Server, capsys: pytest.CaptureFixture[str]) -> None:
    result = server.result("compile", {**SONNET, "context": FULL, "dynamic": "message"})
    assert result == cli_json(capsys, "render", *CLI_SONNET, "--context", FULL_FILE,
                              "--format", "json", "--dynamic", "message")
    assert result["message"]


@pytest.mark.parametrize("params, says", [
    ([1], "by name"),
    ({**SONNET, "contxt": {}}, "unknown param 'contxt' (did you mean 'context'?)"),
    ({**SONNET, "strict": "yes"}, "`strict` must be true or false"),
    ({**SONNET, "budget": -1}, "`budget` must be an integer ≥ 0"),
    ({**SONNET, "budget": True}, "`budget` must be an integer ≥ 0"),
    ({**SONNET, "format": "xml"}, "`format` must be one of 'json', 'anthropic'"),
    ({**SONNET, "context": []}, "`context` must be an object"),
    ({"provider": "openai"}, "no model"),
])
def test_invalid_params(server: Server, params: Any, says: str) -> None:
    err = server.error("compile", params)
    assert err["code"] == -32602 and says in err["message"], err
    assert server.error("parse", SONNET)["message"] == "invalid params: `reply` is required"


def test_promptc_errors_carry_what_the_cli_prints(
        server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = {"cwd": "/w", "rules": [{"name": "r", "txt": "x"}]}
    err = server.error("compile", {**SONNET, "context": bad})
    path = tmp_path / "ctx.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    capsys.readouterr()
    assert main(["render", *CLI_SONNET, "--context", str(path), *SOURCES]) == 2
    printed = capsys.readouterr().err
    assert err["code"] == -32001 and err["data"]["type"] == "ContextError"
    assert err["data"]["field"] and err["data"]["field"] in printed
    # the CLI names the file; over the protocol there is none, the rest is the same
    assert printed.endswith(err["data"]["message"].lstrip() + "\n")
    assert err["message"] == err["data"]["message"]


def test_each_promptc_error_kind_has_its_code(server: Server) -> None:
    unknown = server.error("compile", {**SONNET, "variant": "nope"})
    assert unknown["code"] == -32002 and unknown["data"]["type"] == "NoVariantError"
    budget = server.error("compile", {**SONNET, "budget": 100})
    assert budget["code"] == -32003 and budget["data"]["budget"] == 100
    assert budget["data"]["message"].startswith("the prompt cannot fit the budget of 100")
    assert any(r["required"] for r in budget["data"]["sections"])
    strict = server.error("compile", {**SONNET, "strict": True,
                                      "context": {"runtime": {"NOPE": 1}}})
    assert strict["code"] == -32005 and strict["data"]["type"] == "InputError"
    assert strict["data"]["diagnostic"]["code"] == "input-undeclared"
    # lenient: the same request is a result with the diagnostic in it
    lenient = server.result("compile", {**SONNET, "context": {"runtime": {"NOPE": 1}}})
    assert [d["code"] for d in lenient["diagnostics"]] == ["input-undeclared"]


def test_error_codes_are_distinct_and_in_promptcs_range() -> None:
    from promptc._base.errors import PromptcError, TemplateError
    from promptc._cli.serve_errors import ERROR_CODES, rpc_error
    assert len(set(ERROR_CODES.values())) == len(ERROR_CODES)
    assert all(-32099 <= code <= -32000 for code in ERROR_CODES.values())
    err = rpc_error(TemplateError("unclosed tag", source="variants/x/template.md", line=3))
    assert err.code == -32008 and err.data["type"] == "TemplateError"  # its nearest base's code
    assert err.data["line"] == 3 and err.message == "variants/x/template.md:3: unclosed tag"
    assert rpc_error(PromptcError("x")).code == -32000


# --- pipelining and the end of input ------------------------------------------------------------

def test_200_pipelined_requests_a_bad_line_and_the_end_of_input() -> None:
    requests = [{"jsonrpc": "2.0", "id": i, "method": "compile",
                 "params": {**SONNET, "format": "anthropic",
                            "context": {"cwd": f"/work/project-{i}", "os": "Linux",
                                        "date": "2026-01-01"}}}
                for i in range(200)]
    lines = [json.dumps(r) for r in requests]
    lines.insert(100, '{"jsonrpc": "2.0", "id": 1000, "method": ')  # cut short: not JSON
    lines.insert(150, json.dumps({"jsonrpc": "2.0", "method": "version"}))  # a notification
    # notifications that fail are never answered either (issue 33, H13)
    lines.insert(160, json.dumps({"jsonrpc": "2.0", "method": "version", "params": [1]}))
    lines.insert(170, json.dumps({"jsonrpc": "2.0", "method": "compile", "params": {"x": 1}}))
    lines.insert(180, json.dumps({"jsonrpc": "2.0", "method": "nope"}))
    proc = subprocess.run([*SERVE, *SOURCES], input="\n".join(lines).encode("utf-8"),
                          capture_output=True, timeout=120)  # the last line has no newline
    assert proc.returncode == 0
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(answers) == 201
    [bad] = [a for a in answers if a["id"] is None]
    assert bad["error"]["code"] == -32700
    by_id = {a["id"]: a for a in answers if a["id"] is not None}
    assert sorted(by_id) == list(range(200))
    for i, answer in by_id.items():  # each its own details, the system prompt the same
        [first] = answer["result"]["messages"]
        details = "".join(block["text"] for block in first["content"])
        assert details.count('cwd="/work/project-') == 1, i
        assert f'cwd="/work/project-{i}"' in details, i
        assert answer["result"]["system"] == by_id[0]["result"]["system"]


def test_reload_picks_up_a_changed_project_folder(tmp_path: Path) -> None:
    project = tmp_path / ".promptc"
    project.mkdir()
    running = Server("--project", str(project), "--no-user", "--no-plugins", cwd=tmp_path)
    try:
        before = running.result("variants")
        assert "mine" not in {v["id"] for v in before}
        (project / "variants" / "mine").mkdir(parents=True)
        (project / "variants" / "mine" / "variant.toml").write_text('extends = "generic"\n',
                                                                     encoding="utf-8")
        # one write: the request before `reload` still sees the folders as they were
        running.write(*({"jsonrpc": "2.0", "id": name, "method": method}
                        for name, method in (("a", "variants"), ("r", "reload"),
                                             ("b", "variants"))))
        answers = {a["id"]: a["result"] for a in (running.next_answer() for _ in range(3))}
        assert "mine" not in {v["id"] for v in answers["a"]}
        assert {"id": "mine", "source": "project"}.items() <= \
            next(v for v in answers["b"] if v["id"] == "mine").items()
        assert {"layer": "project", "path": str(project)} in answers["r"]["sources"]
        compiled = running.result("compile", {**SONNET, "variant": "mine"})
        assert compiled["variant"] == {"id": "mine", "family": compiled["variant"]["family"],
                                       "source": "project"}
        (project / "variants" / "mine" / "variant.toml").write_text("extends = [\n",
                                                                     encoding="utf-8")
        failed = running.error("reload")
        assert failed["code"] == -32008 and "variant.toml" in failed["message"]
        assert "mine" in {v["id"] for v in running.result("variants")}  # the old one stays
    finally:
        code, err = running.close()
    assert code == 0
    assert all(line.startswith("promptc") for line in err.splitlines())  # logs only on stderr
