"""`promptc serve`: promptc for clients in any language, as JSON-RPC 2.0 on stdin/stdout.

One Compiler serves the whole process (its memos shared by every request, across threads);
`reload` swaps in a new one read from the same sources. The protocol is in `jsonrpc.py`, the
methods in `serve_methods.py`, and `promptc help serve` describes both for client authors.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._compile.compiler import Compiler

if TYPE_CHECKING:
    from .jsonrpc import Handler
    from .serve_methods import Call, Method

__all__ = ["add_serve_command", "cmd_serve", "Server"]

DESCRIPTION = (
    "Answer JSON-RPC 2.0 requests on stdin, one JSON object per line, with one response line "
    "each on stdout (logs go to stderr): compile, tools, parse, check, explain, variants, "
    "session, version and reload. Results are what the matching command prints as JSON. Requests are answered as "
    "they come, in parallel, matched by id. The process exits 0 once its input ends and every "
    "request is answered. `promptc help serve` describes the protocol.")
EXAMPLES = ["promptc serve",
            "promptc serve --no-user --no-plugins",
            "promptc serve --project .promptc --workers 2"]
CODES = "0 the input ended and every request was answered · 2 bad usage, or the prompt folders " \
        "do not load"


SESSIONS_KEPT = 256  # sessions whose last prompt the server remembers (the oldest go first)


class Sessions:
    """The last prompt of each session a client named (`compile` with `session`), so that the
    next request of that session gets the update since it. Bounded: a session not seen for
    `SESSIONS_KEPT` other sessions is forgotten (its next request starts it again)."""

    def __init__(self, kept: int = SESSIONS_KEPT) -> None:
        self._kept = kept
        self._last: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def swap(self, session: str, prompt: Any) -> Any:
        """Remember `prompt` as the session's last; return the one before (None: new)."""
        with self._lock:
            before = self._last.pop(session, None)
            self._last[session] = prompt
            while len(self._last) > self._kept:
                self._last.popitem(last=False)
            return before


class Server:
    """The Compiler in effect, and how to build it again from the same sources. `reload` runs
    on the reading thread (an inline method), so requests read after it see the new one."""

    def __init__(self, build: Callable[[], Compiler]) -> None:
        self._build = build
        self.compiler = build()
        self.sessions = Sessions()

    def reload(self) -> Compiler:
        """Read the sources again; on an error the current Compiler stays."""
        self.compiler = self._build()
        return self.compiler


def handler(server: Server) -> Handler:
    """The jsonrpc handler: the method, its checked params, and the work (promptc's errors
    turned into JSON-RPC ones)."""
    from functools import partial

    from .._base.suggest import did_you_mean
    from .jsonrpc import METHOD_NOT_FOUND, Job, RpcError, RpcRequest
    from .serve_methods import METHODS, Call, read_params

    def handle(request: RpcRequest) -> Job:
        method = METHODS.get(request.method)
        if method is None:
            raise RpcError(METHOD_NOT_FOUND, f"method not found: {request.method!r}"
                                             f"{did_you_mean(request.method, METHODS)}; "
                                             f"methods: {', '.join(METHODS)}")
        call = Call(server.compiler, server, read_params(request.params, method.params))
        return Job(partial(_guarded, method, call), inline=method.inline)
    return handle


def _guarded(method: Method, call: Call) -> Any:
    from .._base.errors import PromptcError
    from .serve_errors import rpc_error
    try:
        return method.run(call)
    except PromptcError as exc:
        raise rpc_error(exc) from None


def cmd_serve(args: argparse.Namespace) -> int:
    from .args import compiler_from, print_diagnostics
    from .jsonrpc import LineWriter, serve_lines
    server = Server(lambda: compiler_from(args))
    print_diagnostics(server.compiler.load_diagnostics)
    if sys.stdin.isatty():
        _log("reading JSON-RPC requests, one per line (promptc help serve); end with Ctrl-D")
    protocol, sys.stdout = sys.stdout, sys.stderr  # what a plugin prints goes to the log
    try:
        serve_lines(sys.stdin.buffer, LineWriter(protocol.buffer), handler(server),
                    workers=args.workers, log=_log)
    finally:
        sys.stdout = protocol
    return 0


def _log(line: str) -> None:
    sys.stderr.write(f"promptc serve: {line}\n")


def _workers(text: str) -> int:
    from .args import non_negative
    n = non_negative(text)
    if n < 1:
        raise argparse.ArgumentTypeError("must be ≥ 1")
    return n


def add_serve_command(sub: Any, commands: dict[str, Callable[[argparse.Namespace], int]],
                      command: Callable[..., argparse.ArgumentParser]) -> None:
    """Register `promptc serve` with the main parser's `command` factory."""
    from .args import add_sources
    p = command(sub, "serve", "answer JSON-RPC requests on stdin/stdout (for any language)",
                DESCRIPTION, EXAMPLES, CODES, "promptc help serve")
    add_sources(p)
    p.add_argument("--workers", type=_workers, default=4, metavar="N",
                   help="requests answered at the same time (default 4)")
    commands["serve"] = cmd_serve
