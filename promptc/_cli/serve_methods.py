"""`promptc serve`'s methods: one small function each, and the params each one takes.

A method's result is the data the matching command prints as JSON (`results.py` builds it for
both). Adding a method is one function and one `METHODS` entry; adding a param is one entry in
its method's table (`Param` checks its type, and `read_params` rejects names it does not know).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import attrs

from .._calls.records import CallError
from .._compile.compiler import Compiler
from .._model.context import PromptContext
from .._model.provider import ProviderInfo
from .args import UsageError, provider_for
from .jsonrpc import INVALID_PARAMS, RpcError
from .results import (PAYLOAD_FORMATS, PayloadOptions, explain_data, native_tools, parse_data,
                      payload, render_data, tools_text_data, variant_rows)

__all__ = ["Param", "Method", "Call", "METHODS", "read_params"]


@attrs.frozen
class Param:
    """What one param accepts: JSON values of `kind` (an int is never a bool here), within
    `choices` or from `least` to `most` when given."""

    kind: type | tuple[type, ...]
    what: str
    choices: tuple[Any, ...] = ()
    least: float = float("-inf")
    most: float = float("inf")
    required: bool = False

    def fault(self, value: Any) -> str | None:
        """Why `value` does not fit, or None."""
        if not isinstance(value, self.kind) or (isinstance(value, bool) and self.kind is not bool):
            return f"must be {self.what}"
        if self.choices and value not in self.choices:
            return "must be one of " + ", ".join(repr(c) for c in self.choices)
        if isinstance(value, (int, float)) and not self.least <= value <= self.most:
            return f"must be {self.what}"
        if isinstance(value, str) and not self.least <= len(value) <= self.most:
            return f"must be {self.what}"
        return None


class Sessions(Protocol):
    def swap(self, session: str, prompt: Any) -> Any: ...


class Server(Protocol):
    """What a method may ask of the server beyond its Compiler."""

    def reload(self) -> Compiler: ...

    @property
    def sessions(self) -> Sessions: ...


@attrs.frozen
class Call:
    """One request as a method sees it: the Compiler in effect when its line was read, the
    server, and the params (checked; a param left out or null is absent)."""

    compiler: Compiler
    server: Server
    params: Mapping[str, Any]


@attrs.frozen
class Method:
    run: Callable[[Call], Any]
    params: Mapping[str, Param]
    inline: bool = False  # run in order with the lines around it (it changes the server)


def read_params(given: Mapping[str, Any], spec: Mapping[str, Param]) -> dict[str, Any]:
    """The params a method gets, or INVALID_PARAMS naming the one at fault."""
    from .._base.suggest import did_you_mean
    params = {}
    for name, value in given.items():
        if name not in spec:
            known = ", ".join(spec) or "none"
            raise RpcError(INVALID_PARAMS, f"invalid params: unknown param {name!r}"
                                           f"{did_you_mean(name, spec)}; this method takes: "
                                           f"{known}")
        if value is None:
            continue
        fault = spec[name].fault(value)
        if fault is not None:
            raise RpcError(INVALID_PARAMS, f"invalid params: `{name}` {fault}")
        params[name] = value
    missing = [name for name, p in spec.items() if p.required and name not in params]
    if missing:
        raise RpcError(INVALID_PARAMS, f"invalid params: `{missing[0]}` is required")
    return params


# --- params --------------------------------------------------------------------------------------

STRING = Param(str, "a string")
FLAG = Param(bool, "true or false")
COUNT = Param(int, "an integer ≥ 0", least=0)

TARGET = {
    "provider": STRING, "model": STRING, "context": Param(dict, "an object (a context file's "
                                                                "shape)"),
    "variant": STRING, "native_tools": FLAG, "images": FLAG, "context_window": COUNT,
    "family": STRING,
    "runtime": Param(dict, "an object (runtime input values, over the context's `runtime`; "
                           "lists and objects for list and object inputs)"),
}
_CAPABILITIES = ("native_tools", "images", "context_window", "family")
SHAPES = {
    "openai_api": Param(str, "a string", choices=("chat", "responses")),
    "strict_tools": FLAG,
    "gemini_schema": Param(str, "a string", choices=("openapi", "json")),
}
DYNAMIC = Param(str, "a string", choices=("system", "message"))
MODE = Param(str, "a string", choices=("plan", "act"))
SESSION_ID = Param(str, "a string of 1 to 200 characters", least=1, most=200)
COMPILE = {
    **TARGET, "strict": FLAG, "budget": COUNT, "dynamic": DYNAMIC,
    "format": Param(str, "a string", choices=("json", *PAYLOAD_FORMATS)),
    "breakpoints": Param(int, "an integer from 0 to 4", least=0, most=4), **SHAPES,
    "session": SESSION_ID,
}
TOOLS = {**TARGET, "strict": FLAG,
         "format": Param(str, "a string", choices=("text", *PAYLOAD_FORMATS)), **SHAPES}
PARSE = {**TARGET, "reply": Param(str, "a string (the reply's text)", required=True),
         "mode": MODE}
CHECK = {**TARGET, "call": Param(dict, "an object (a provider's call object, as JSON)",
                                 required=True), "mode": MODE}
SESSION = {"script": Param(dict, "an object (a session script's data)", required=True),
           "dynamic": DYNAMIC, "breakpoints": Param(int, "an integer from 0 to 4", least=0,
                                                    most=4),
           "max_breaks": COUNT, "min_cached_share": Param((int, float), "a number from 0 to 1",
                                                          least=0, most=1),
           "max_rewrites": COUNT}


def target(call: Call) -> tuple[ProviderInfo, PromptContext]:
    """The provider and context of a request, as `--provider`/`--model`/`--context` and the
    capability options make them on the command line."""
    p = call.params
    ctx = call.compiler.context(p.get("context"))
    if "runtime" in p:
        ctx = attrs.evolve(ctx, runtime={**ctx.runtime, **p["runtime"]})
    caps = {name: p[name] for name in _CAPABILITIES if name in p}
    provider, model = p.get("provider"), p.get("model")
    default = call.compiler.default_model  # the project file's `model`
    if default is not None and not model and (ctx.provider is None or not ctx.provider.model):
        provider, model = provider or default[0], default[1]
    try:
        info = provider_for(ctx.provider, provider, model, caps)
    except UsageError:
        raise RpcError(INVALID_PARAMS, "invalid params: no model: give `provider` and `model`, "
                                       "or a `context` with a `provider` table") from None
    return info, ctx.with_provider(info)


def shapes(params: Mapping[str, Any]) -> PayloadOptions:
    return PayloadOptions(breakpoints=params.get("breakpoints", 2),
                          openai_api=params.get("openai_api"),
                          strict_tools=params.get("strict_tools", True),
                          gemini_schema=params.get("gemini_schema", "openapi"))


# --- methods -------------------------------------------------------------------------------------

def compile_prompt(call: Call) -> Any:
    """`render --format json` (default) or a provider payload (`format`). With `session`, the
    server remembers the session's last prompt: the JSON gains `update` (the details that
    changed since, as a message of their own; "" when nothing did or the session is new) and
    `continued`; a payload carries the first details message for a new session and the
    update, when there is one, for a continued one."""
    p = call.params
    info, ctx = target(call)
    fmt = p.get("format", "json")
    project = call.compiler.project  # the project file's defaults
    prompt = call.compiler.compile(info, ctx, strict=p.get("strict", project.strict),
                                   budget=p.get("budget"), variant=p.get("variant"),
                                   count_tokens=fmt == "json" or "budget" in p,
                                   dynamic=p.get("dynamic"))
    session = p.get("session")
    previous = call.server.sessions.swap(session, prompt) if session is not None else None
    if fmt != "json":
        return payload(prompt, fmt, shapes(p), previous)
    data = render_data(prompt)
    if session is not None:
        data["continued"] = previous is not None
        data["update"] = prompt.message_update(previous) if previous is not None else ""
    return data


def tools(call: Call) -> Any:
    """`tools --format …`: native definitions, or (text) the tools section and the names."""
    p = call.params
    info, ctx = target(call)
    prompt = call.compiler.compile(info, ctx, variant=p.get("variant"),
                                   strict=p.get("strict", call.compiler.project.strict))
    fmt = p.get("format", "text")
    return tools_text_data(prompt) if fmt == "text" else native_tools(prompt.tools, fmt,
                                                                      shapes(p))


def parse(call: Call) -> Any:
    """`parse`: the reply's prose, calls and errors, in order."""
    info, ctx = target(call)
    prompt = call.compiler.compile(info, ctx, variant=call.params.get("variant"), strict=False)
    return parse_data(prompt, call.params["reply"], call.params.get("mode"))[0]


def check(call: Call) -> Any:
    """A provider's call object through the call checker: `{"ok": true, "call": …}`, or
    `{"ok": false, "error": …, "tool_result": …}` with the error result ready to send."""
    info, ctx = target(call)
    prompt = call.compiler.compile(info, ctx, variant=call.params.get("variant"), strict=False)
    checked = prompt.tools.check(call.params["call"], mode=call.params.get("mode"))
    if isinstance(checked, CallError):
        return {"ok": False, "error": checked.to_dict(), "tool_result": checked.tool_result()}
    return {"ok": True, "call": checked.to_dict(), "wire": checked.wire}


def session(call: Call) -> Any:
    """`session --format json` for a script given as data (context file names are read
    relative to the server's working directory)."""
    from .._session.replay import replay
    from .._session.script import SessionScript
    p = call.params
    script = SessionScript.from_dict(p["script"], source="<params.script>")
    report = replay(script, compiler=call.compiler, dynamic=p.get("dynamic"),
                    breakpoints=p.get("breakpoints"), floor=True)
    return report.to_dict(p.get("max_breaks"), p.get("min_cached_share"),
                          p.get("max_rewrites", 0))


def explain(call: Call) -> Any:
    info, ctx = target(call)
    return explain_data(call.compiler, info, ctx, call.params.get("variant")).data


def variants(call: Call) -> Any:
    return variant_rows(call.compiler)


def version(call: Call) -> Any:
    from .. import __version__
    return {"name": "promptc", "version": __version__, "methods": sorted(METHODS)}


def reload(call: Call) -> Any:
    """A new Compiler from the same sources, read again; requests on later lines use it."""
    compiler = call.server.reload()
    return {"variants": len(compiler.registry.variants),
            "sources": [{"layer": layer, "path": path} for layer, path in compiler.sources],
            "diagnostics": [d.to_dict() for d in compiler.load_diagnostics]}


METHODS: dict[str, Method] = {
    "compile": Method(compile_prompt, COMPILE),
    "tools": Method(tools, TOOLS),
    "parse": Method(parse, PARSE),
    "check": Method(check, CHECK),
    "session": Method(session, SESSION),
    "explain": Method(explain, TARGET),
    "variants": Method(variants, {}),
    "version": Method(version, {}),
    "reload": Method(reload, {}, inline=True),
}
