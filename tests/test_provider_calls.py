"""Calls answered for raw-SDK users: `prompt.tools.check(call)` takes a provider's own call
object and gives the checked call, or the error result ready to send back, in that API's shape.

Through the real SDKs' types (anthropic, openai, google-genai) and, for Gemini, a whole round
trip against the local fake server: the function call comes back, is checked, and its answer
goes out as the SDK writes it. (The Anthropic and OpenAI round trips are examples/agent_loop.py's,
tested in tests/test_examples.py.)
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from promptc import CallError, CallShapeError, Compiler, ProviderInfo, ToolCall
from promptc.testing import make_context

from .fakeserver import FakeServer, Reply

NATIVE = ProviderInfo("openai", "gpt-4.1")
ARGS = {"path": ".", "recursive": True}


@pytest.fixture(scope="module")
def tools(builtins: Compiler) -> Any:
    return builtins.compile(NATIVE, make_context("full"), dynamic="system").tools


def sdk_calls() -> dict[str, Any]:
    """One call of list_files in each SDK's own type (and the same as plain JSON)."""
    from anthropic.types import ToolUseBlock
    from google.genai import types
    from openai.types.chat import ChatCompletionMessageToolCall
    from openai.types.responses import ResponseFunctionToolCall
    import json
    text = json.dumps(ARGS)
    return {
        "anthropic": ToolUseBlock(id="toolu_1", name="list_files", input=ARGS, type="tool_use"),
        "openai-chat": ChatCompletionMessageToolCall(
            id="call_1", type="function", function={"name": "list_files", "arguments": text}),
        "openai-responses": ResponseFunctionToolCall(
            call_id="call_1", name="list_files", arguments=text, type="function_call",
            id="fc_1"),
        "gemini": types.Part(function_call=types.FunctionCall(name="list_files", args=ARGS,
                                                              id="fn_1")),
        "gemini-call": types.FunctionCall(name="list_files", args=ARGS),
        "gemini-rest": {"functionCall": {"name": "list_files", "args": ARGS}},
    }


EXPECTED_RESULTS = {
    "anthropic": {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.py"},
    "openai-chat": {"role": "tool", "tool_call_id": "call_1", "content": "a.py"},
    "openai-responses": {"type": "function_call_output", "call_id": "call_1", "output": "a.py"},
    "gemini": {"function_response": {"name": "list_files", "response": {"output": "a.py"},
                                     "id": "fn_1"}},
    "gemini-call": {"function_response": {"name": "list_files",
                                          "response": {"output": "a.py"}}},
    "gemini-rest": {"functionResponse": {"name": "list_files",
                                         "response": {"output": "a.py"}}},
}


@pytest.mark.parametrize("kind", sorted(EXPECTED_RESULTS))
def test_each_providers_call_object_is_checked_and_answered_in_kind(tools: Any,
                                                                    kind: str) -> None:
    sent = sdk_calls()[kind]
    call = tools.check(sent)
    assert isinstance(call, ToolCall), getattr(call, "message", call)
    assert (call.name, call.arguments) == ("list_files", ARGS)
    assert call.tool_result("a.py") == EXPECTED_RESULTS[kind]
    if hasattr(sent, "model_dump"):  # the plain-JSON form of the same object is the same call
        again = tools.check(sent.model_dump(mode="json", exclude_none=True))
        assert isinstance(again, ToolCall) and again.tool_result("a.py") == \
            EXPECTED_RESULTS[kind]


def test_the_ready_error_result_is_in_the_same_shape(tools: Any) -> None:
    block = {"type": "tool_use", "id": "toolu_9", "name": "list_files", "input": {"path": 1}}
    error = tools.check(block)
    assert isinstance(error, CallError) and error.code == "bad-value"
    assert error.tool_result() == {"type": "tool_result", "tool_use_id": "toolu_9",
                                   "content": error.message, "is_error": True}
    chat = tools.check({"id": "c", "type": "function",
                        "function": {"name": "nope", "arguments": "{}"}})
    assert chat.tool_result() == {"role": "tool", "tool_call_id": "c", "content": chat.message}
    gemini = tools.check({"function_call": {"name": "list_files", "args": {}}})
    assert gemini.tool_result()["function_response"]["response"] == {"error": gemini.message}


def test_the_mode_refusal_comes_back_ready_to_send(builtins: Compiler) -> None:
    plan = builtins.compile(NATIVE, attrs.evolve(make_context("full"), mode="plan"))
    refused = plan.tools.check({"type": "function_call", "call_id": "c1", "name":
                                "write_to_file", "arguments": '{"path": "a", "content": "x"}'})
    assert isinstance(refused, CallError) and refused.code == "not-allowed-in-mode"
    assert refused.tool_result()["output"] == refused.message
    allowed = plan.tools.check({"type": "function_call", "call_id": "c1", "name":
                                "write_to_file", "arguments": '{"path": "a", "content": "x"}'},
                               mode="act")
    assert isinstance(allowed, ToolCall)


def test_an_mcp_call_object_carries_its_server_and_tool(tools: Any) -> None:
    call = tools.check({"type": "tool_use", "id": "t", "name": "mcp__github__create_issue",
                        "input": {"repo": "a/b", "title": "Crash"}})
    assert isinstance(call, ToolCall)
    assert (call.server, call.tool, call.mcp_arguments) == ("github", "create_issue",
                                                            {"repo": "a/b", "title": "Crash"})


def test_what_is_not_a_call_object_is_a_clear_error(tools: Any) -> None:
    for junk in ({"hello": 1}, "read_file", 42, {"type": "tool_use", "name": 5}):
        with pytest.raises(CallShapeError, match="expected a provider's call object|name"):
            tools.check(junk)
    assert issubclass(CallShapeError, TypeError)
    text_call = tools.parse("<read_file>\n<path>a</path>\n</read_file>").call
    with pytest.raises(ValueError, match="next user message"):
        text_call.tool_result("x")


def test_google_genai_round_trip_through_check(builtins: Compiler) -> None:
    genai = pytest.importorskip("google.genai")
    from google.genai import types
    prompt = builtins.compile(ProviderInfo("google", "gemini-2.5-pro"), make_context("full"))
    assert prompt.tools.mode == "native"
    with FakeServer() as server:
        server.script("gemini", Reply("", (("list_files", {"path": "."}),)), Reply("Done."))
        client = genai.Client(api_key="test",
                              http_options=types.HttpOptions(base_url=server.url))
        payload = prompt.to_gemini()
        config = types.GenerateContentConfig(
            system_instruction=payload["system_instruction"]["parts"][0]["text"],
            tools=payload["tools"])
        history: list[Any] = [types.Content(role="user", parts=[types.Part(text="List.")])]
        reply = client.models.generate_content(model="gemini-2.5-pro", contents=history,
                                               config=config)
        content = reply.candidates[0].content
        [part] = [p for p in content.parts if p.function_call]
        call = prompt.tools.check(part)
        assert isinstance(call, ToolCall) and call.arguments == {"path": "."}
        history += [content, types.Content(role="user", parts=[call.tool_result("a.py")])]
        final = client.models.generate_content(model="gemini-2.5-pro", contents=history,
                                               config=config)
        assert final.text == "Done."
        sent = server.bodies("gemini")[1]["contents"][-1]["parts"][0]
        assert sent == {"functionResponse": {"name": "list_files",
                                             "response": {"output": "a.py"}}}


# --- a free-form tool (issue 33): gpt-5-codex's apply_patch on the Responses API ---------------

CODEX = ProviderInfo("openai", "gpt-5.1-codex")
PATCH = ("*** Begin Patch\n*** Update File: src/app.py\n@@ def main():\n-    return 1\n"
         "+    return 2\n*** End Patch\n")


def test_a_free_form_patch_goes_out_and_comes_back_through_the_openai_sdk(
        builtins: Compiler) -> None:
    """The Responses payload offers apply_patch as a custom tool (raw text, no JSON schema);
    the SDK sends it as given; the model's `custom_tool_call` comes back, `check` reads its
    text into `input`, and the answer is a `custom_tool_call_output` the SDK sends back."""
    openai = pytest.importorskip("openai")
    prompt = builtins.compile(CODEX, make_context("full"))
    payload = prompt.to_openai()  # these models speak only the Responses API
    [patch_tool] = [t for t in payload["tools"] if t["name"] == "apply_patch"]
    assert patch_tool == {"type": "custom", "name": "apply_patch",
                          "description": patch_tool["description"], "format": {"type": "text"}}
    assert all(t["type"] == "function" for t in payload["tools"] if t is not patch_tool)
    with FakeServer() as server:
        client = openai.OpenAI(api_key="sk-test", base_url=server.url + "/v1", max_retries=0)
        server.script("responses", Reply(text="", custom=(("apply_patch", PATCH),)))
        response = client.responses.create(model="gpt-5.1-codex", input="Return 2.",
                                           instructions=payload["instructions"],
                                           tools=payload["tools"])
        assert server.bodies("responses")[0]["tools"] == payload["tools"]
        [item] = [o for o in response.output if o.type == "custom_tool_call"]
        call = prompt.tools.check(item)
        assert isinstance(call, ToolCall)
        assert (call.name, call.arguments, call.call_id) == ("apply_patch", {"input": PATCH},
                                                             item.call_id)
        result = call.tool_result("Done.")
        assert result == {"type": "custom_tool_call_output", "call_id": item.call_id,
                          "output": "Done."}
        client.responses.create(model="gpt-5.1-codex", instructions=payload["instructions"],
                                tools=payload["tools"],
                                input=[item.model_dump(exclude_none=True), result])
        sent = server.bodies("responses")[1]["input"]
        assert sent[1] == result and sent[0]["type"] == "custom_tool_call"


def test_a_free_form_call_is_checked_like_any_other(builtins: Compiler) -> None:
    """The mode still rules (plan mode refuses apply_patch, answered in kind); a free-form call
    of a tool that takes JSON is an error that says so; a Chat Completions `custom` call is read
    the same way, and Chat's payload keeps apply_patch a function of `input` (the servers that
    speak that shape do not all take custom tools)."""
    from openai.types.chat import ChatCompletionMessageCustomToolCall
    from openai.types.responses import ResponseCustomToolCall
    plan = builtins.compile(CODEX, attrs.evolve(make_context("full"), mode="plan"))
    item = ResponseCustomToolCall(call_id="c1", name="apply_patch", input=PATCH,
                                  type="custom_tool_call")
    refused = plan.tools.check(item)
    assert isinstance(refused, CallError) and refused.code == "not-allowed-in-mode"
    assert refused.tool_result()["type"] == "custom_tool_call_output"
    act = builtins.compile(CODEX, make_context("full"))
    shell = act.tools.check(ResponseCustomToolCall(call_id="c2", name="shell", input="ls",
                                                   type="custom_tool_call"))
    assert isinstance(shell, CallError) and shell.code == "bad-json"
    assert "JSON object" in shell.message
    chat = act.tools.check(ChatCompletionMessageCustomToolCall(
        id="c3", type="custom", custom={"name": "apply_patch", "input": PATCH}))
    assert isinstance(chat, ToolCall) and chat.arguments == {"input": PATCH}
    assert chat.tool_result("ok") == {"role": "tool", "tool_call_id": "c3", "content": "ok"}
    [function] = [t for t in act.tools.openai("chat") if t.get("function", {}).get("name") ==
                  "apply_patch"]
    assert function["function"]["parameters"]["required"] == ["input"]
    # elsewhere apply_patch is an ordinary tool: gpt-5's, or Codex's on Anthropic's shape
    assert all(t["type"] == "function" for t in
               builtins.compile(ProviderInfo("openai", "gpt-5"), make_context("full"))
               .tools.openai("responses"))
    assert "input_schema" in next(t for t in act.tools.anthropic() if t["name"] == "apply_patch")
