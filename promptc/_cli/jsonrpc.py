"""JSON-RPC 2.0 over a byte stream, one JSON object per line (as MCP's stdio transport).

This module knows the protocol and nothing of promptc: it reads lines, turns each into a
`RpcRequest` or a protocol error, asks a handler for the work, runs it (in a thread pool unless
the handler asks for it to run in order with the reading) and writes one response line per
request that has an id. Lines never interleave: a response is written whole under a lock.
Notifications (no `id`) are run but never answered, as the specification says.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import IO, Any

import attrs

__all__ = ["PARSE_ERROR", "INVALID_REQUEST", "METHOD_NOT_FOUND", "INVALID_PARAMS",
           "INTERNAL_ERROR", "RpcError", "RpcRequest", "Job", "decode", "LineWriter",
           "serve_lines"]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

_NO_ID = object()  # a notification: no `id` member at all (an `id` of null is answered)


class RpcError(Exception):
    """An error to answer with: `code`, a one-sentence `message`, optional `data`."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_dict(self) -> dict[str, Any]:
        err: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


@attrs.frozen
class RpcRequest:
    """One call: `id` is `_NO_ID` for a notification."""

    id: Any
    method: str
    params: dict[str, Any]

    @property
    def notification(self) -> bool:
        return self.id is _NO_ID


@attrs.frozen
class Job:
    """The work for one request; `inline` work runs before the next line is read (so a
    request that changes the server, like `reload`, is ordered with the lines around it)."""

    run: Callable[[], Any]
    inline: bool = False


class _Rejected(RpcError):
    """A line that is not a valid request, and the id to answer with (null when it has none
    or it could not be read). `notification`: the line is a well-formed request without an
    id whose params this server refuses; the specification forbids answering it."""

    def __init__(self, code: int, message: str, request_id: Any = None,
                 notification: bool = False) -> None:
        super().__init__(code, message)
        self.request_id = request_id
        self.notification = notification


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def decode(line: bytes) -> RpcRequest:
    """A line as a request, or `_Rejected` (PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS)."""
    message = _message(line)
    request_id = message.get("id", _NO_ID)
    answer_id = None if request_id is _NO_ID else request_id
    if message.get("jsonrpc") != "2.0":
        raise _Rejected(INVALID_REQUEST, 'invalid request: `jsonrpc` must be "2.0"', answer_id)
    method = message.get("method")
    if not isinstance(method, str):
        raise _Rejected(INVALID_REQUEST, "invalid request: `method` must be a string",
                        answer_id)
    params = message.get("params", {})
    if isinstance(params, list):
        raise _Rejected(INVALID_PARAMS, "invalid params: pass `params` by name, as an object",
                        answer_id, notification=request_id is _NO_ID)
    if not isinstance(params, dict):
        raise _Rejected(INVALID_REQUEST, "invalid request: `params` must be an object",
                        answer_id)
    return RpcRequest(request_id, method, params)


def _message(line: bytes) -> dict[str, Any]:
    """The line's JSON object, with an `id` that can be answered (or none)."""
    try:
        message = json.loads(line, parse_constant=_no_constants)
    except ValueError as exc:  # UnicodeDecodeError is a ValueError
        raise _Rejected(PARSE_ERROR, f"parse error: the line is not JSON ({exc})") from None
    except RecursionError:
        raise _Rejected(PARSE_ERROR, "parse error: the line nests deeper than the JSON reader "
                                     "goes") from None
    if not isinstance(message, dict):
        kind = "a batch (an array)" if isinstance(message, list) else "not an object"
        raise _Rejected(INVALID_REQUEST, f"invalid request: {kind}; send one request object "
                                         "per line")
    request_id = message.get("id")
    if isinstance(request_id, float) and not math.isfinite(request_id):  # 1e400 reads as inf
        raise _Rejected(INVALID_REQUEST, "invalid request: `id` is a number too large to "
                                         "represent; use a string or a smaller number")
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int, float,
                                                                   type(None))):
        raise _Rejected(INVALID_REQUEST, "invalid request: `id` must be a string, a number "
                                         "or null")
    return message


def encode(message: dict[str, Any]) -> bytes:
    """One line of UTF-8 JSON (control characters, newlines included, escaped by JSON). A
    result holding NaN or an infinity, which JSON cannot say, is answered as an internal
    error rather than written as a line no JSON reader takes."""
    try:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # a lone surrogate from a `\ud800` escape: ASCII escapes it
        return json.dumps(message, separators=(",", ":"), allow_nan=False).encode("ascii") + \
            b"\n"
    except ValueError:
        failed = {"jsonrpc": "2.0", "id": message.get("id"), "error": {
            "code": INTERNAL_ERROR, "message": "internal error: the answer holds a number JSON "
                                               "cannot write (NaN or an infinity)"}}
        return json.dumps(failed, separators=(",", ":"), allow_nan=False).encode("ascii") + \
            b"\n"


class LineWriter:
    """Writes whole lines, one writer at a time; stops quietly once the reader has gone."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.closed = False

    def send(self, message: dict[str, Any]) -> None:
        line = encode(message)
        with self._lock:
            if self.closed:
                return
            try:
                self._stream.write(line)
                self._stream.flush()
            except (BrokenPipeError, ValueError, OSError):
                self.closed = True


Handler = Callable[[RpcRequest], Job]
Log = Callable[[str], None]


def _answer(writer: LineWriter, request: RpcRequest, work: Callable[[], Any], log: Log) -> None:
    try:
        message: dict[str, Any] = {"result": work()}
    except RpcError as err:
        message = {"error": err.to_dict()}
    except Exception as exc:  # a bug: answered and logged, and the server goes on
        log(f"internal error in {request.method!r}: {type(exc).__name__}: {exc}")
        message = {"error": {"code": INTERNAL_ERROR,
                             "message": f"internal error: {type(exc).__name__}: {exc}"}}
    if request.notification:
        if "error" in message:
            log(f"notification {request.method!r} failed: {message['error']['message']}")
        return
    writer.send({"jsonrpc": "2.0", "id": request.id, **message})


def _fail(writer: LineWriter, request_id: Any, err: RpcError) -> None:
    writer.send({"jsonrpc": "2.0", "id": request_id, "error": err.to_dict()})


def serve_lines(lines: Iterable[bytes], writer: LineWriter, handler: Handler, *,
                workers: int = 4, log: Log) -> None:
    """Answer every request in `lines` until they end, then wait for the last answers."""
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="promptc-serve") as pool:
        for line in lines:
            if not line.strip():  # a blank line (a keep-alive) is not a request
                continue
            try:
                request = decode(line)
            except _Rejected as err:
                if err.notification:  # never answered, whatever went wrong
                    log(f"notification failed: {err.message}")
                else:
                    _fail(writer, err.request_id, err)
                continue
            try:
                job = handler(request)
            except RpcError as err:
                _answer(writer, request, _raise(err), log)
                continue
            if job.inline:
                _answer(writer, request, job.run, log)
            else:
                pool.submit(_answer, writer, request, job.run, log)


def _raise(err: RpcError) -> Callable[[], Any]:
    def work() -> Any:
        raise err
    return work
