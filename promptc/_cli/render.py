"""`promptc render`, `tools` and `parse`: what one request gets (the prompt, as text, JSON or
a provider's payload; its tools) and what comes back (the tool calls in a model's reply)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .._model.formats import FORMATS
from .args import (COMMANDS, Command, CommandFactory, add_command, add_payload_options, add_target,
                   compiler_from, non_negative, print_diagnostics, print_json, read_input_text,
                   strict_from, target_from)
from .budget_report import report_budget
from .format import clean, table
from .results import (PAYLOAD_FORMATS, native_tools, parse_data, payload, payload_options,
                      render_data)

__all__ = ["cmd_render", "cmd_tools", "cmd_parse", "add_render_command", "add_tools_command",
           "add_parse_command", "TARGET"]

TARGET = "--provider anthropic --model claude-sonnet-4-5"
MARKED_DOORS = tuple(f.door for f in FORMATS if f.marker is not None)  # they take --breakpoints


def cmd_render(args: argparse.Namespace) -> int:
    compiler = compiler_from(args)
    info, ctx = target_from(args, compiler.features, compiler.default_model)
    if args.examples:
        from .catalogue import with_examples
        ctx = with_examples(compiler.plan(info, args.variant).variant, ctx)
    fmt = "json" if args.json else args.format
    prompt = compiler.compile(info, ctx, strict=strict_from(args, compiler), budget=args.budget,
                              count_tokens=fmt == "json" or args.budget is not None,
                              variant=args.variant, dynamic=args.dynamic)
    if fmt == "text":  # the whole prompt as one string; json and the payloads show the split
        sys.stdout.write(prompt.text + "\n")
    elif fmt == "json":
        print_json(render_data(prompt))
    else:
        print_json(payload(prompt, fmt, payload_options(args)))
    if fmt != "json":
        report_budget(prompt)
        print_diagnostics(prompt.diagnostics, skip=("budget-",))
    return 0


def cmd_tools(args: argparse.Namespace) -> int:
    compiler = compiler_from(args)
    info, ctx = target_from(args, compiler.features, compiler.default_model)
    prompt = compiler.compile(info, ctx, variant=args.variant,
                              strict=strict_from(args, compiler))
    tools = prompt.tools
    if args.format == "text":
        section = prompt.section("tools")
        if section is not None:
            sys.stdout.write(section.text + "\n")
        else:
            rows = [[n] for n in tools.names]
            sys.stdout.write(f"(variant {clean(prompt.variant.id)!r} sends tools natively; "
                             "names below)\n")
            sys.stdout.write(table(["tool"], rows) + "\n")
    else:
        print_json(native_tools(tools, args.format, payload_options(args)))
    print_diagnostics(prompt.diagnostics)
    return 0


def cmd_parse(args: argparse.Namespace) -> int:
    compiler = compiler_from(args)
    info, ctx = target_from(args, compiler.features, compiler.default_model)
    prompt = compiler.compile(info, ctx, variant=args.variant, strict=False)
    reply = read_input_text(args.reply)
    data, has_errors = parse_data(prompt, reply)
    print_json(data)
    return 1 if has_errors else 0


def add_render_command(sub: Any, commands: dict[str, Command] = COMMANDS,
                       command: CommandFactory = add_command) -> None:
    p = command(sub, "render", "render the prompt for a provider/model",
                "Render the system prompt for one request and print it: as text, as JSON with "
                "its sections, tokens and diagnostics, or as a ready request payload for "
                "a provider's SDK.",
                [f"promptc render {TARGET} --date 2026-01-01",
                 "promptc render --provider openai --model gpt-5 --context context.json "
                 "--format openai",
                 "promptc render --provider ollama --model qwen3-coder:30b --budget 4000 "
                 "--format json"],
                "0 ok · 1 a diagnostic under --strict · 2 bad usage or input · "
                "3 the budget cannot be met")
    add_target(p)
    p.add_argument("--strict", action="store_true",
                   help="any warning or error diagnostic fails the render (exit 1)")
    p.add_argument("--budget", type=non_negative, metavar="N",
                   help="fit the prompt into N tokens: shorter forms first, then optional "
                        "sections dropped, lowest priority first (a table on stderr says "
                        "which)")
    p.add_argument("--json", action="store_true", help="the same as --format json")
    p.add_argument("--examples", action="store_true",
                   help="a preview: each input's `example` (else its default) as its value; "
                        "values given with --set/--set-json or the context win")
    p.add_argument("--format", default="text", choices=("text", "json", *PAYLOAD_FORMATS),
                   help="text: the prompt (default); json: the prompt with sections, tokens, "
                        f"fingerprints and diagnostics; {'|'.join(PAYLOAD_FORMATS)}: a request "
                        "payload (system prompt + native tools)")
    p.add_argument("--breakpoints", type=int, default=2, choices=(0, 1, 2, 3, 4),
                   help=f"cache breakpoints for --format {'|'.join(MARKED_DOORS)} (default 2): "
                        "the end of the built-in tools, of the static, session and request "
                        "blocks, first places first, each only once its prefix reaches the "
                        "model's minimum")
    p.add_argument("--dynamic", choices=("system", "message"),
                   help="message (the default, unless the project file's `placement` says "
                        "otherwise or the pack has no environment note): the static part as "
                        "the system prompt, the session and request text as a first user "
                        "message of its own (in the payloads' `messages`, and json's `system` "
                        "and `message`); system: the whole prompt as the system prompt. The "
                        "text format prints the whole prompt either way")
    add_payload_options(p)
    commands["render"] = cmd_render


def add_tools_command(sub: Any, commands: dict[str, Command] = COMMANDS,
                      command: CommandFactory = add_command) -> None:
    p = command(sub, "tools", "the tools a request gets, as text or native JSON",
                "Show the tools a request gets: the prompt's tools section for text-tool "
                "variants, or the native tool definitions in a provider's format.",
                ["promptc tools --provider openai --model gpt-4.1",
                 f"promptc tools {TARGET} --context context.json --format anthropic",
                 "promptc tools --provider openai --model gpt-5 --format openai "
                 "--openai-api responses"],
                "0 ok · 1 a diagnostic under --strict · 2 bad usage or input")
    add_target(p)
    p.add_argument("--strict", action="store_true",
                   help="any warning or error diagnostic fails (exit 1)")
    p.add_argument("--format", default="text", choices=("text", *PAYLOAD_FORMATS),
                   help="text: the tools section, or the tool names for a native variant "
                        f"(default); {'|'.join(PAYLOAD_FORMATS)}: native definitions as JSON")
    add_payload_options(p)
    commands["tools"] = cmd_tools


def add_parse_command(sub: Any, commands: dict[str, Command] = COMMANDS,
                      command: CommandFactory = add_command) -> None:
    p = command(sub, "parse", "read the tool calls in a model's reply",
                "Parse a reply written in the text tool-call format against the tools a "
                "request offers: prose, calls (arguments typed by their schema) and errors "
                "(unknown tool, missing or unknown parameter, wrong type, unclosed call), in "
                "order, as JSON. An error's message is written to be sent back to the model.",
                [f"promptc parse {TARGET} --native-tools no reply.txt",
                 "promptc parse --provider ollama --model qwen3-coder:30b -"],
                "0 every call is valid · 1 a call has errors · 2 bad usage or input")
    add_target(p)
    p.add_argument("reply", metavar="FILE", help="the reply's text (- for stdin)")
    p.add_argument("--json", action="store_true",
                   help="accepted for symmetry: the output is always JSON")
    commands["parse"] = cmd_parse
