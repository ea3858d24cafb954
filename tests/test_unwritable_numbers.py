"""Numbers JSON cannot say never leave promptc (issue 33, H4 and H8).

`1e400` reads as infinity, `10**400` fits no double: in an MCP server's schema they made
`render` exit 70 (`OverflowError`), or print `Infinity` with exit 0 in a payload the SDKs refuse
to send; a serve request with `"id": 1e400` got an answer line no JSON reader takes. Now each
such schema keyword is dropped with a `schema-keyword-dropped` diagnostic (native payloads and
the text prompt alike), every JSON writer refuses NaN and infinities, and serve answers such an
id with a JSON-RPC error.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from promptc import Compiler, PromptContext, ProviderInfo
from promptc._cli import main
from promptc._cli.jsonrpc import INVALID_REQUEST, Job, LineWriter, RpcRequest, serve_lines

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_TEXT = ('{"type": "object", "properties": {'
               '"n": {"type": "number", "maximum": 1e400, "minimum": -1e999, "enum": [1, 1e400]},'
               '"s": {"type": "string", "maxLength": ' + "1" + "0" * 400 + '}}, '
               '"x-meta": {"limit": 1e400}}')


def strict_json(text: str) -> Any:
    """`text` as JSON, refusing what JSON does not have (NaN, Infinity)."""
    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} in output")
    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def context_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("numbers") / "context.json"
    path.write_text('{"mcp_servers": [{"name": "s", "tools": [{"name": "t", "description": '
                    f'"A tool.", "input_schema": {SCHEMA_TEXT}}}]}}]}}', encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", ["anthropic", "openai", "gemini", "json", "text"])
@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "gpt-4.1", "gpt-4.1-text"])
def test_render_drops_what_json_cannot_say(capsys: pytest.CaptureFixture[str],
                                           context_file: Path, fmt: str, model: str) -> None:
    provider = "anthropic" if model.startswith("claude") else "openai"
    extra = ["--native-tools", "no"] if model.endswith("-text") else []
    code = main(["render", "--builtins-only", "--provider", provider, "--model",
                 model.removesuffix("-text"), "--date", "2026-01-01", "--context",
                 str(context_file), "--format", fmt, *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert not re.search(r"Infinity|NaN|1e400|0{400}", out)
    if fmt != "text":
        strict_json(out)
    dropped = re.findall(r"keyword '(\w[\w-]*)'(?: at [^:]*)?: [^\n]* JSON cannot carry", err + out)
    assert {"maximum", "minimum", "enum", "maxLength", "x-meta"} <= set(dropped), err


def test_a_count_past_a_double_is_dropped_not_an_overflow(builtins: Compiler) -> None:
    from promptc._emit.schemas import clean
    for count in (10**400, 10**5000, 2**53, 1e300, float("inf")):
        out, problems = clean({"type": "string", "maxLength": count, "minItems": 3})
        assert out == {"type": "string", "minItems": 3}
        assert [(p.code, p.keyword) for p in problems] == [("schema-keyword-dropped",
                                                            "maxLength")]
    prompt = builtins.compile(ProviderInfo("anthropic", "claude-sonnet-4-5"), PromptContext(
        mcp_servers=[{"name": "s", "tools": [{"name": "t", "input_schema": {
            "type": "object", "properties": {"a": {"type": "string", "maxLength": 10**400}}}}]}]))
    assert [d.code for d in prompt.diagnostics] == ["schema-keyword-dropped"]
    strict_json(json.dumps(prompt.to_anthropic()))


def test_each_session_is_warned_under_its_own_server_names(builtins: Compiler) -> None:
    """The schemas' problems are worked out once per tool list; every session that brings the
    list back under other server and tool names is told in its own names."""
    def tools(tool: str) -> list[dict[str, Any]]:
        return [{"name": "ok", "input_schema": {"type": "object"}},
                {"name": tool, "input_schema": {"type": "object", "properties": {
                    "a": {"type": "string", "maxLength": 10**400}}}}]
    text = ProviderInfo("openai", "gpt-4.1", native_tools=False)
    for session in ("one", "two", "one", "three"):
        prompt = builtins.compile(text, {"mcp_servers": [
            {"name": f"srv-{session}", "tools": tools("big")},
            {"name": f"other-{session}", "tools": tools(f"big-{session}")}]})
        assert [d.source for d in prompt.diagnostics if d.code == "schema-keyword-dropped"] == \
            [f"srv-{session}/big", f"other-{session}/big-{session}"]


def test_decoded_arguments_holding_an_infinity_are_refused(builtins: Compiler) -> None:
    tools = builtins.compile(ProviderInfo("openai", "gpt-4.1"), PromptContext()).tools
    for value in (float("inf"), float("-inf"), float("nan"), [1, {"x": float("inf")}]):
        error = tools.decode("read_file", {"path": "a", "x": value})
        assert error.code == "bad-json", error  # type: ignore[union-attr]
        strict_json(json.dumps(error.to_dict()))


def _serve(lines: list[bytes]) -> list[Any]:
    import io
    out = io.BytesIO()

    def handle(request: RpcRequest) -> Job:
        return Job(lambda: {"echo": request.params})
    serve_lines(lines, LineWriter(out), handle, workers=1, log=lambda _m: None)
    return [strict_json(line) for line in out.getvalue().decode("utf-8").splitlines()]


def test_serve_answers_an_id_no_double_holds_with_an_error() -> None:
    answers = _serve([b'{"jsonrpc": "2.0", "id": 1e400, "method": "version"}',
                      b'{"jsonrpc": "2.0", "id": -1e999, "method": "version"}',
                      b'{"jsonrpc": "2.0", "id": 1, "method": "version"}'])
    assert [(a["id"], a.get("error", {}).get("code")) for a in answers] == [
        (None, INVALID_REQUEST), (None, INVALID_REQUEST), (1, None)]


def test_serve_never_writes_a_line_that_is_not_json() -> None:
    """A result holding an infinity (here: echoed params) is answered as an internal error."""
    [answer] = _serve([b'{"jsonrpc": "2.0", "id": 2, "method": "m", "params": {"x": 1e400}}'])
    assert answer["id"] == 2 and answer["error"]["code"] == -32603


def test_every_json_writer_refuses_nan_and_infinity() -> None:
    """Each `json.dumps` in promptc passes `allow_nan=False` (reading a model-price file back
    into its own parser is the one that writes nothing out)."""
    missing = []
    for path in sorted((ROOT / "promptc").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"(?<!`)json\.dumps\(", text):
            call = text[m.start():text.find("\n\n", m.start())]
            depth, end = 0, 0
            for i, ch in enumerate(call):
                depth += {"(": 1, ")": -1}.get(ch, 0)
                if depth == 0 and ch == ")":
                    end = i
                    break
            if "allow_nan=False" not in call[:end] and "litellm_map" not in path.name:
                missing.append(f"{path.relative_to(ROOT)}: {call[:end + 1]}")
    assert not missing, missing
