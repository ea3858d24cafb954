"""`promptc inputs`, `new-variant` and `init`: for a variant's author and a client's settings
form — the runtime inputs a variant declares, a new variant that extends another, and a new
project with prompts of its own."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .._model.provider import ProviderInfo
from .args import (COMMANDS, Command, CommandFactory, UsageError, add_command, add_json,
                   add_sources, compiler_from, print_json)
from .format import clean, table

__all__ = ["cmd_inputs", "cmd_new_variant", "cmd_init", "add_inputs_command",
           "add_new_variant_command", "add_init_command"]


def cmd_inputs(args: argparse.Namespace) -> int:
    from .._model.inputs import inputs_schema
    compiler = compiler_from(args)
    if args.variant:
        variant = compiler.registry.get(args.variant)
    else:
        provider, model = args.provider, args.model
        if not model and compiler.default_model is not None:  # the project file's `model`
            provider, model = provider or compiler.default_model[0], compiler.default_model[1]
        if not model:
            raise UsageError("give --variant, or --provider and --model (or the project "
                             "file's `model`, \"provider/model\")")
        variant = compiler.resolve(ProviderInfo(provider or "", model)).variant
    schema = inputs_schema(variant.id, variant.inputs)
    if args.json:
        print_json(schema)
        return 0
    rows = [[s.name, s.type, "yes" if s.required else "", _shown(s.default),
             ", ".join(s.options), s.label or s.description]
            for s in variant.inputs]
    sys.stdout.write(f"inputs of variant {clean(variant.id)}:\n")
    sys.stdout.write(table(["name", "type", "required", "default", "options", "label"],
                           rows, max_lines=3) + "\n" if rows else "(none)\n")
    return 0


def _shown(value: Any) -> str:
    """A default as a person reads it: text as it is, anything else as its JSON."""
    if value is None:
        return ""
    from .._base.frozen import compact_json, thaw
    return value if isinstance(value, str) else compact_json(thaw(value))


def cmd_new_variant(args: argparse.Namespace) -> int:
    compiler = compiler_from(args)
    if (args.base is None) == (args.copy is None):
        raise UsageError("give one of --from BASE (extend it) or --copy FROM (copy its files)")
    if args.copy is not None:
        from .._review.copy_variant import copy_variant
        paths = copy_variant(compiler, args.id, args.copy, Path(args.dir) if args.dir else None,
                             force=args.force)
        for written in paths:
            sys.stdout.write(f"wrote {clean(written)}\n")
    else:
        from .._review.scaffold import new_variant
        path = new_variant(compiler, args.id, args.base, Path(args.dir) if args.dir else None,
                           force=args.force)
        sys.stdout.write(f"wrote {clean(path)}\n")
    model = "" if compiler.default_model else " --provider P --model M"  # the project's own
    sys.stdout.write(f"try: promptc render --variant {clean(args.id)}{model}\n")
    return 0


def add_inputs_command(sub: Any, commands: dict[str, Command] = COMMANDS,
                       command: CommandFactory = add_command) -> None:
    p = command(sub, "inputs", "a variant's runtime inputs (as JSON Schema with --json)",
                "Show the runtime inputs a variant declares (pass them with --set NAME=VALUE "
                "or the context's `runtime` table), or their JSON Schema for a client's "
                "settings form.",
                ["promptc inputs --variant generic",
                 "promptc inputs --provider openai --model gpt-5",
                 "promptc inputs --variant generic --json"],
                "0 ok · 2 bad usage or an unknown variant")
    g = p.add_argument_group("which variant")
    g.add_argument("--provider", metavar="P", help="provider id (with --model: the variant "
                                                   "this model routes to)")
    g.add_argument("--model", metavar="M", help="model id as the provider spells it")
    g.add_argument("--variant", metavar="ID", help="the variant's id (`promptc variants`)")
    add_json(p, "a JSON Schema (additionalProperties: false)")
    add_sources(p)
    commands["inputs"] = cmd_inputs


def add_new_variant_command(sub: Any, commands: dict[str, Command] = COMMANDS,
                            command: CommandFactory = add_command) -> None:
    p = command(sub, "new-variant", "scaffold a variant that extends or copies another",
                "Write a commented variant.toml that extends BASE: the new variant renders "
                "exactly like its base until you uncomment a [match] table or add "
                "components/<id>.md next to it. With --copy FROM instead: copy FROM's files "
                "(a self-contained variant.toml, its template, its own components and tools; "
                "from a pack the project does not load, the shared components and tools it "
                "uses too).",
                ["promptc new-variant mine --from generic",
                 "promptc new-variant summary-v2 --copy summary",
                 "promptc new-variant acme --from generic --dir promptc_acme/data"],
                "0 written · 2 bad usage, an unknown BASE, or a variant that exists (without "
                "--force)", "promptc help folders · docs/authoring.md in the promptc "
                            "repository")
    p.add_argument("id", help="the new variant's id")
    p.add_argument("--from", dest="base", metavar="BASE",
                   help="the variant to extend (`promptc variants` lists them)")
    p.add_argument("--copy", metavar="FROM",
                   help="instead of extending: the variant whose files to copy")
    p.add_argument("--dir", metavar="DIR",
                   help="folder to write into (default: the project's .promptc/)")
    p.add_argument("--force", action="store_true", help="overwrite an existing variant.toml")
    add_sources(p)
    commands["new-variant"] = cmd_new_variant


def cmd_init(args: argparse.Namespace) -> int:
    from .._review.project_init import init_project
    root = Path(args.dir)
    done = init_project(root, force=args.force, starter=args.starter)
    shown = clean(root)
    sys.stdout.write(f"wrote {len(done.files)} file(s) and {len(done.snapshots)} snapshot(s) "
                     f"in {shown}: a project without the built-in coding pack "
                     "(promptc.toml: builtins = false)\n")
    where = "" if root.resolve() == Path.cwd().resolve() else f"cd {shown} && "
    first = "promptc render" if args.starter == "assistant" else \
        "promptc render --variant summary --examples"
    sys.stdout.write(f"next: {where}{first}   (then README.md there: snapshots, pytest, CI)\n")
    return 0


def add_init_command(sub: Any, commands: dict[str, Command] = COMMANDS,
                     command: CommandFactory = add_command) -> None:
    p = command(sub, "init", "start a project with prompts of its own",
                "Write a new project into DIR (default: here): a promptc.toml without the "
                "built-in coding pack, a role, a policies section, a per-request section fed "
                "by a declared input, one tool, a Claude variant and a GPT variant that differ "
                "in a section, a snapshot matrix and its snapshots, a pytest test, and a "
                "README with the commands and a CI recipe. `--starter library` writes a "
                "template library instead: templates used by id, with typed inputs and an "
                "example for each. Right after it, `promptc lint --strict`, `promptc snapshot "
                "--check` and `pytest` pass there.",
                ["promptc init support-bot", "promptc init . --force",
                 "promptc init templates --starter library"],
                "0 written · 2 the folder already holds the files (without --force)",
                "docs/projects.md in the promptc repository")
    p.add_argument("dir", nargs="?", default=".", metavar="DIR",
                   help="the project's folder (made if missing; default: the working "
                        "directory)")
    p.add_argument("--force", action="store_true",
                   help="overwrite files of the same names")
    p.add_argument("--starter", choices=("assistant", "library"), default="assistant",
                   help="what the project starts as: an assistant with a variant per model "
                        "family (default), or a library of templates used by id")
    commands["init"] = cmd_init