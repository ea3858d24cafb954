"""A local stand-in for the OpenAI, Anthropic, Gemini and Bedrock Converse HTTP APIs, for tests
through real SDKs.

`FakeServer` listens on 127.0.0.1 (a free port), records every request (path and JSON body) and
answers each API's endpoint with the next scripted reply for it, or a plain "OK" text reply.
Replies are written in a neutral form — `Reply(text=..., calls=[(name, arguments), ...])`, plus
`custom=[(name, input text), ...]` for free-form tools' calls (Responses `custom_tool_call`
items) — and shaped per API (arguments given as a string go to the OpenAI APIs as that text, unparsable JSON
included); a request asking for a stream (`"stream": true`, or Gemini's
`streamGenerateContent`) is answered as server-sent events (Bedrock's `converse` only, not its
binary event stream; like Bedrock, it refuses a conversation whose roles do not alternate).
Nothing leaves the machine.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeServer", "Reply", "Recorded"]


@dataclass(frozen=True)
class Reply:
    text: str = "OK"
    calls: tuple[tuple[str, dict[str, Any] | str], ...] = ()
    custom: tuple[tuple[str, str], ...] = ()  # free-form calls: (name, raw input); Responses


def _text(args: dict[str, Any] | str) -> str:
    return args if isinstance(args, str) else json.dumps(args)


@dataclass
class Recorded:
    path: str
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


def _api(path: str) -> str:
    if path.endswith("/messages"):
        return "anthropic"
    if path.endswith("/chat/completions"):
        return "chat"
    if path.endswith("/responses"):
        return "responses"
    if "generateContent" in path or "streamGenerateContent" in path:
        return "gemini"
    if path.startswith("/model/") and path.endswith("/converse"):
        return "bedrock"
    return "unknown"


def _chat(reply: Reply, n: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.calls:
        message["tool_calls"] = [
            {"id": f"call_{n}_{i}", "type": "function",
             "function": {"name": name, "arguments": _text(args)}}
            for i, (name, args) in enumerate(reply.calls)]
    return {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0,
            "model": "fake", "choices": [{"index": 0, "message": message, "logprobs": None,
                                          "finish_reason": "tool_calls" if reply.calls
                                          else "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def _chat_stream(reply: Reply, n: int) -> Iterator[dict[str, Any]]:
    base = {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": 0,
            "model": "fake"}
    yield {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                "finish_reason": None}]}
    if reply.text:
        yield {**base, "choices": [{"index": 0, "delta": {"content": reply.text},
                                    "finish_reason": None}]}
    for i, (name, args) in enumerate(reply.calls):
        yield {**base, "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": i, "id": f"call_{n}_{i}", "type": "function",
             "function": {"name": name, "arguments": _text(args)}}]},
            "finish_reason": None}]}
    yield {**base, "choices": [{"index": 0, "delta": {},
                                "finish_reason": "tool_calls" if reply.calls else "stop"}],
           "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def _anthropic(reply: Reply, n: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    content.extend({"type": "tool_use", "id": f"toolu_{n}_{i}", "name": name, "input": args}
                   for i, (name, args) in enumerate(reply.calls))
    return {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "fake",
            "content": content, "stop_reason": "tool_use" if reply.calls else "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}


def _anthropic_stream(reply: Reply, n: int) -> Iterator[tuple[str, dict[str, Any]]]:
    message = _anthropic(Reply("", ()), n)
    message["content"] = []
    yield "message_start", {"type": "message_start", "message": message}
    index = 0
    if reply.text:
        yield "content_block_start", {"type": "content_block_start", "index": index,
                                      "content_block": {"type": "text", "text": ""}}
        yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                      "delta": {"type": "text_delta", "text": reply.text}}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
        index += 1
    for i, (name, args) in enumerate(reply.calls):
        yield "content_block_start", {"type": "content_block_start", "index": index,
                                      "content_block": {"type": "tool_use",
                                                        "id": f"toolu_{n}_{i}", "name": name,
                                                        "input": {}}}
        yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                      "delta": {"type": "input_json_delta",
                                                "partial_json": json.dumps(args)}}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
        index += 1
    yield "message_delta", {"type": "message_delta",
                            "delta": {"stop_reason": "tool_use" if reply.calls else "end_turn",
                                      "stop_sequence": None},
                            "usage": {"output_tokens": 1}}
    yield "message_stop", {"type": "message_stop"}


def _responses(reply: Reply, n: int) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    if reply.text:
        output.append({"type": "message", "id": f"msg_{n}", "role": "assistant",
                       "status": "completed",
                       "content": [{"type": "output_text", "text": reply.text,
                                    "annotations": []}]})
    output.extend({"type": "function_call", "id": f"fc_{n}_{i}", "call_id": f"call_{n}_{i}",
                   "name": name, "arguments": _text(args), "status": "completed"}
                  for i, (name, args) in enumerate(reply.calls))
    output.extend({"type": "custom_tool_call", "id": f"ctc_{n}_{i}", "call_id": f"call_{n}_c{i}",
                   "name": name, "input": text, "status": "completed"}
                  for i, (name, text) in enumerate(reply.custom))
    return {"id": f"resp_{n}", "object": "response", "created_at": 0, "model": "fake",
            "status": "completed", "output": output, "parallel_tool_calls": True,
            "tool_choice": "auto", "tools": [],
            "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
                      "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens_details": {"reasoning_tokens": 0}}}


def _gemini(reply: Reply, n: int) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    if reply.text:
        parts.append({"text": reply.text})
    parts.extend({"functionCall": {"name": name, "args": args}} for name, args in reply.calls)
    return {"candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1,
                              "totalTokenCount": 2},
            "modelVersion": "fake", "responseId": f"resp_{n}"}


def _converse(reply: Reply, n: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.text:
        content.append({"text": reply.text})
    content.extend({"toolUse": {"toolUseId": f"tooluse_{n}_{i}", "name": name,
                                "input": args if isinstance(args, dict) else {"raw": args}}}
                   for i, (name, args) in enumerate(reply.calls))
    return {"output": {"message": {"role": "assistant", "content": content}},
            "stopReason": "tool_use" if reply.calls else "end_turn",
            "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
            "metrics": {"latencyMs": 1}}


class FakeServer:
    """Start with `with FakeServer() as server:`; `server.url` is its base URL."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._scripts: dict[str, list[Reply]] = {}
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                path = self.path.split("?", 1)[0]
                api = _api(path)
                with outer._lock:
                    outer.requests.append(Recorded(path, body, dict(self.headers.items())))
                    n = len(outer.requests)
                    script = outer._scripts.get(api)
                    reply = script.pop(0) if script else Reply()
                stream = bool(body.get("stream")) or "streamGenerateContent" in path
                if api == "chat":
                    if stream:
                        self._events((None, c) for c in _chat_stream(reply, n))
                    else:
                        self._send(200, _chat(reply, n))
                elif api == "anthropic":
                    if stream:
                        self._events(_anthropic_stream(reply, n))
                    else:
                        self._send(200, _anthropic(reply, n))
                elif api == "responses":
                    if stream:
                        done = _responses(reply, n)
                        self._events([("response.created", {"type": "response.created",
                                                            "sequence_number": 0,
                                                            "response": {**done,
                                                                         "status": "in_progress",
                                                                         "output": []}}),
                                      ("response.completed", {"type": "response.completed",
                                                              "sequence_number": 1,
                                                              "response": done})])
                    else:
                        self._send(200, _responses(reply, n))
                elif api == "gemini":
                    if stream:
                        self._events((None, c) for c in [_gemini(reply, n)])
                    else:
                        self._send(200, _gemini(reply, n))
                elif api == "bedrock":
                    roles = [m.get("role") for m in body.get("messages", [])]
                    if any(a == b for a, b in zip(roles, roles[1:])) or roles[:1] != ["user"]:
                        self._send(400, {"message": "A conversation must alternate between "
                                         "user and assistant roles."},
                                   {"x-amzn-ErrorType": "ValidationException"})
                    else:
                        self._send(200, _converse(reply, n))
                else:
                    self._send(404, {"error": {"message": f"no route {path}"}})

            def _send(self, status: int, data: dict[str, Any],
                      headers: dict[str, str] | None = None) -> None:
                payload = json.dumps(data).encode()
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _events(self, events: Any) -> None:
                chunks = []
                for name, data in events:
                    head = f"event: {name}\n" if name else ""
                    chunks.append(f"{head}data: {json.dumps(data)}\n\n")
                if self.path.split("?", 1)[0].endswith("/chat/completions"):
                    chunks.append("data: [DONE]\n\n")
                payload = "".join(chunks).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, api: str, *replies: Reply) -> None:
        """Queue replies for one API: "chat", "responses", "anthropic", "gemini" or
        "bedrock"."""
        with self._lock:
            self._scripts.setdefault(api, []).extend(replies)

    def bodies(self, api: str | None = None) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if api is None or _api(r.path) == api]

    def __enter__(self) -> FakeServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
