"""What every command shares: errors that set the exit code, the parser and its help layout, the
table of commands, the common options, and turning options into a Compiler, a provider and a
context."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import attrs

from .._base.errors import PromptcError
from .._compile.compiler import Compiler
from .._model.context import PromptContext
from .._model.diagnostics import Diagnostic
from .._model.features import FeatureSet
from .._model.provider import ProviderInfo
from .format import bound, clean, format_diagnostic

__all__ = ["UsageError", "Findings", "Parser", "epilog", "COMMANDS", "PARSERS", "Command",
           "CommandFactory",
           "add_command", "add_sources", "add_target",
           "add_json", "source_flags", "compiler_from", "target_from", "print_json",
           "strict_from",
           "print_diagnostics", "non_negative", "add_payload_options", "read_input_text",
           "provider_for", "DOCS"]

DOCS = "docs/cli.md in the promptc repository"


class UsageError(Exception):
    """Bad input on the command line (exit 2)."""


class Findings(Exception):
    """The command ran and found problems (exit 1); output was already printed."""


class HelpFormatter(argparse.HelpFormatter):
    """Descriptions and epilogs are paragraphs (blank-line separated): a paragraph whose lines
    are indented, or that starts with a `heading:` line, keeps its lines (examples, exit
    codes); any other is filled to the terminal's width."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap  # only when help is printed
        out = []
        for para in text.split("\n\n"):
            lines = para.split("\n")
            if lines[0].endswith(":") or any(line.startswith("  ") for line in lines):
                out.append("\n".join(indent + line for line in lines))
            else:
                out.append(textwrap.fill(" ".join(lines), width, initial_indent=indent,
                                         subsequent_indent=indent, break_on_hyphens=False))
        return "\n\n".join(out)


class Parser(argparse.ArgumentParser):
    """argparse with the help layout the commands share and usage errors that cannot smuggle
    control characters to the terminal."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """One line: what is wrong, and where to read the options (the usage block would
        push the one useful line out of sight)."""
        self.exit(2, f"{self.prog}: error: {bound(clean(message))} (see `{self.prog} "
                     "--help`)\n")


def epilog(examples: Sequence[str], exit_codes: str, see: str = "") -> str:
    """The end of a command's help: real examples, the exit codes (`"0 ok · 1 …"`, one per
    line), where to read more."""
    lines = ["examples:"] + [f"  {e}" for e in examples]
    lines += ["", "exit codes:"] + [f"  {c.strip()}" for c in exit_codes.split(" · ")]
    if see:
        lines += ["", f"More: {see}"]
    return "\n".join(lines)


Command = Callable[[argparse.Namespace], int]
class VersionAction(argparse.Action):
    """`--version`: read from the package metadata only when asked (it costs an import)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: Any = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        from .. import __version__
        sys.stdout.write(f"promptc {__version__}\n")
        parser.exit()


CommandFactory = Callable[..., argparse.ArgumentParser]  # `add_command`'s signature

COMMANDS: dict[str, Command] = {}
PARSERS: dict[str, argparse.ArgumentParser] = {}  # "" is the top-level parser


def add_command(sub: Any, name: str, summary: str, description: str, examples: Sequence[str],
                codes: str, see: str = "") -> argparse.ArgumentParser:
    """A command's parser, with the help layout every command shares (`summary` in the
    command list; the description, then `examples` and exit `codes` in its own help)."""
    p: argparse.ArgumentParser = sub.add_parser(
        name, help=summary, description=description,
        epilog=epilog(examples, codes, see or f"promptc help exit-codes · {DOCS}"))
    # the global option also after the command (`promptc render … --debug`); SUPPRESS keeps
    # the top-level value when it is not given here
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                   help=argparse.SUPPRESS)
    p.add_argument("-V", "--version", action=VersionAction, help=argparse.SUPPRESS)
    PARSERS[name] = p
    return p


def add_sources(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("sources (see: promptc help folders)")
    g.add_argument("--project", metavar="DIR",
                   help="the project: its root (with promptc.toml, or pyproject.toml with "
                        "[tool.promptc]) or its prompt folder (.promptc); default: "
                        "$PROMPTC_PROJECT, else found from the cwd")
    g.add_argument("--no-project", action="store_true",
                   help="ignore any project file and project .promptc/")
    g.add_argument("--no-user", action="store_true", help="ignore the user config folder")
    g.add_argument("--no-plugins", action="store_true", help="do not load installed plugins")
    g.add_argument("--no-builtins", action="store_true",
                   help="leave out the built-in coding-agent pack (variants, components, tools, "
                        "fallback)")
    g.add_argument("--builtins-only", action="store_true",
                   help="only the built-in variants (no project, user folder or plugins)")


def source_flags(args: argparse.Namespace) -> list[str]:
    """The source options of this run, as command-line words (for a hint that repeats it)."""
    if getattr(args, "builtins_only", False):
        return ["--builtins-only"]
    words: list[str] = []
    if getattr(args, "no_project", False):
        words.append("--no-project")
    elif getattr(args, "project", None):
        words += ["--project", args.project]
    for flag in ("no_user", "no_plugins", "no_builtins"):
        if getattr(args, flag, False):
            words.append("--" + flag.replace("_", "-"))
    return words


def add_target(p: argparse.ArgumentParser, variant: bool = True) -> None:
    g = p.add_argument_group("the request (see: promptc help context)")
    g.add_argument("--provider", metavar="P",
                   help="provider id, e.g. anthropic, openai, google, openrouter, ollama")
    g.add_argument("--model", metavar="M", help="model id as the provider spells it")
    g.add_argument("--context", metavar="FILE",
                   help="context file (.json or .toml): cwd, rules, MCP servers, skills, …")
    g.add_argument("--date", metavar="YYYY-MM-DD",
                   help="date for the prompt; default: the context's, else today")
    g.add_argument("--cwd", metavar="DIR", help="override the context's working directory")
    g.add_argument("--mode", choices=("act", "plan"), help="override the context's mode")
    g.add_argument("--set", metavar="NAME=VALUE", action="append", default=[],
                   help="a runtime input value, as text: the input's declaration says how it "
                        "is read (repeatable; `promptc inputs` lists them)")
    g.add_argument("--set-json", metavar="NAME=JSON", action="append", default=[],
                   help="a runtime input value as JSON, for list and object inputs "
                        "(repeatable): --set-json 'FILES=[{\"name\": \"a.png\"}]'")
    if variant:
        g.add_argument("--variant", metavar="ID",
                       help="use this variant instead of matching (`promptc variants`)")
    caps = p.add_argument_group("model capabilities (default: inferred from the model id)")
    caps.add_argument("--native-tools", choices=("yes", "no"),
                      help="the client sends tools natively (function calling) or not")
    caps.add_argument("--images", choices=("yes", "no"), help="the model reads images")
    caps.add_argument("--context-window", type=non_negative, metavar="N",
                      help="the model's context window in tokens (small ones pick `compact`)")
    caps.add_argument("--family", help="the model family, for deployments with custom names")
    add_sources(p)


def add_json(p: argparse.ArgumentParser, what: str = "the full data") -> None:
    p.add_argument("--json", action="store_true",
                   help=f"print JSON instead of a table: {what}, exact and untruncated")


def add_payload_options(p: argparse.ArgumentParser) -> None:
    """How native tool definitions are shaped for OpenAI and Gemini."""
    p.add_argument("--openai-api", choices=("chat", "responses"), default=None,
                   help="for --format openai: the Chat Completions or Responses API shape "
                        "(default: Responses for a model the model data says is served only "
                        "there, such as the GPT-5 Codex models; else Chat Completions)")
    p.add_argument("--strict-tools", choices=("yes", "no"), default="yes",
                   help="for --format openai: strict function schemas where strict mode can "
                        "express them (default yes; optional parameters become nullable)")
    p.add_argument("--gemini-schema", choices=("openapi", "json"), default="openapi",
                   help="for --format gemini: `parameters` in Gemini's OpenAPI subset "
                        "(default) or `parameters_json_schema`")


def read_input_text(name: str) -> str:
    """A text file named on the command line, or stdin for `-` (the same size limit and
    rules for both)."""
    from pathlib import Path

    from .._base.errors import ContextError
    from .._base.files import read_text_file, read_text_stream
    try:
        if name == "-":
            return read_text_stream(sys.stdin.buffer, "stdin", ContextError)
        return read_text_file(Path(name), ContextError)
    except ContextError as exc:
        raise UsageError(str(exc)) from None


def compiler_from(args: argparse.Namespace) -> Compiler:
    """The Compiler the source options describe, over the project file's settings (an option
    that leaves a source out wins over the file)."""
    if getattr(args, "builtins_only", False):
        if getattr(args, "no_builtins", False):
            raise UsageError("--builtins-only and --no-builtins exclude each other")
        return Compiler.builtins()
    project: Any = True
    if getattr(args, "no_project", False):
        project = False
    elif getattr(args, "project", None):
        project = args.project
    return Compiler.default(project=project,
                            user=False if getattr(args, "no_user", False) else None,
                            plugins=False if getattr(args, "no_plugins", False) else None,
                            builtins=False if getattr(args, "no_builtins", False) else None)


def strict_from(args: argparse.Namespace, compiler: Compiler) -> bool:
    """--strict, or the project file's `strict = true`."""
    return bool(getattr(args, "strict", False)) or compiler.project.strict


def target_from(args: argparse.Namespace, features: FeatureSet | None = None,
                model: tuple[str, str] | None = None) -> tuple[ProviderInfo, PromptContext]:
    """The request the options describe; `features`: the compiler's, which a context file's
    `features` table is checked against (default: the built-ins'); `model`: the (provider,
    model) to use when neither the options nor the context name one (the project's)."""
    ctx = PromptContext.load(args.context, features=features) if args.context else \
        PromptContext()
    provider, model_id = args.provider, args.model
    if model is not None and not model_id and (ctx.provider is None or not ctx.provider.model):
        provider, model_id = provider or model[0], model[1]
    info = provider_for(ctx.provider, provider, model_id, _capabilities(args))
    return info, _changed(ctx, {"provider": info, **_context_changes(args, ctx)})


def context_from(args: argparse.Namespace, features: FeatureSet | None = None
                 ) -> PromptContext:
    """The context the options describe, for commands that go through several models."""
    ctx = PromptContext.load(args.context, features=features) if args.context else \
        PromptContext()
    return _changed(ctx, _context_changes(args, ctx))


def _changed(ctx: PromptContext, changes: dict[str, Any]) -> PromptContext:
    try:
        return attrs.evolve(ctx, **changes)
    except PromptcError as exc:
        raise UsageError(f"--{exc.field or 'option'}: {exc.message}") from None


def _capabilities(args: argparse.Namespace) -> dict[str, Any]:
    """The capabilities given on the command line (--native-tools, --images, …)."""
    caps: dict[str, Any] = {}
    if getattr(args, "native_tools", None):
        caps["native_tools"] = args.native_tools == "yes"
    if getattr(args, "images", None):
        caps["images"] = args.images == "yes"
    if getattr(args, "context_window", None) is not None:
        caps["context_window"] = args.context_window
    if getattr(args, "family", None):
        caps["family"] = args.family
    return caps


def _context_changes(args: argparse.Namespace, ctx: PromptContext) -> dict[str, Any]:
    """The context fields the options override (--date, --cwd, --mode, --set)."""
    changes: dict[str, Any] = {}
    if args.date:
        changes["date"] = args.date
    if getattr(args, "cwd", None):
        changes["cwd"] = args.cwd
    if getattr(args, "mode", None):
        changes["mode"] = args.mode
    set_json = getattr(args, "set_json", None) or []
    if args.set or set_json:
        changes["runtime"] = runtime_values(ctx.runtime, args.set, set_json)
    return changes


def runtime_values(base: Any, texts: Sequence[str], jsons: Sequence[str] = ()
                   ) -> dict[str, Any]:
    """The context's runtime inputs with each `--set NAME=VALUE` (text, read by the input's
    declaration: `--set TICKER=7203` stays a string for a string input) and each
    `--set-json NAME=JSON` over them."""
    runtime = dict(base)
    for option, items in (("--set", texts), ("--set-json", jsons)):
        for item in items:
            name, eq, value = item.partition("=")
            if not eq or not name:
                raise UsageError(f"{option} expects NAME={'VALUE' if option == '--set' else 'JSON'}"
                                 f", got {item!r}")
            runtime[name] = value if option == "--set" else _json_value(name, value)
    return runtime


def _json_value(name: str, text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise UsageError(f"--set-json {name}=…: not JSON ({exc})") from None


def provider_for(base: ProviderInfo | None, provider: str | None, model: str | None,
                 caps: dict[str, Any]) -> ProviderInfo:
    """The request's provider: the context's, with `provider`/`model` overriding it (the
    context's capabilities dropped when the model changes: they were given for another one),
    then the capabilities in `caps` (`native_tools`, `images`, `context_window`, `family`)."""
    info = base
    if provider or model:
        base = info or ProviderInfo()
        info = attrs.evolve(base, provider=provider or base.provider, model=model or base.model)
        if info.model != base.model:  # capabilities given for another model no longer apply
            info = ProviderInfo(provider=info.provider, model=info.model)
    if info is None or not info.model:
        raise UsageError("no model: give --provider and --model, a context file with a "
                         "`provider` table, or the project file's `model` "
                         "(\"provider/model\")")
    return attrs.evolve(info, **caps) if caps else info


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n")


def print_diagnostics(diags: Sequence[Diagnostic], skip: Sequence[str] = ()) -> None:
    """A lenient run's diagnostics on stderr, one line each, labelled `lenient …` and followed
    by a line saying the command still succeeded, so an exit 0 never reads as a failure
    (codes starting with a `skip` prefix are left out: the caller showed them another way)."""
    shown = [d for d in diags if not (skip and d.code.startswith(tuple(skip)))]
    for d in shown:
        label = "lenient " if d.level != "info" else ""
        sys.stderr.write(f"promptc: {label}" + format_diagnostic(d) + "\n")
    failing = sum(d.level != "info" for d in shown)
    if failing:
        sys.stderr.write(f"promptc: {failing} diagnostic(s) above did not stop this command "
                         "(lenient mode: the result is complete without what they name); "
                         "--strict makes them fail it\n")


def non_negative(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError("must be ≥ 0")
    return n
