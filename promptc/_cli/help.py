"""`promptc help`: help on a command (the same as COMMAND --help) or a topic (`topics/*.md`);
the context topic ends with the feature switches this installation knows."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .._base.errors import PromptcError
from .args import COMMANDS, PARSERS, Command, CommandFactory, UsageError, add_command
from .format import clean

__all__ = ["TOPICS", "TOPICS_DIR", "cmd_help", "add_help_command"]

TOPICS_DIR = Path(__file__).parent / "topics"
TOPICS = {"context": "the context file: every field, with an example",
          "folders": "override folders: built-ins, plugins, user and project, and their layout",
          "matrix": "the snapshot matrix: which cases `snapshot` and `diff --snapshots` render",
          "exit-codes": "what each exit code means",
          "session": "session scripts, the providers' caching rules, dynamic placement",
          "serve": "the `promptc serve` protocol: methods, params, results, errors"}


def cmd_help(args: argparse.Namespace) -> int:
    topic = args.topic
    if topic is None:
        PARSERS[""].print_help()
        return 0
    command = topic in PARSERS and bool(topic)
    if command:
        PARSERS[topic].print_help()  # then the topic of the same name, if there is one
    if topic in TOPICS:
        _write_topic(topic, after_command=command)
        return 0
    if command:
        return 0
    from .._base.suggest import did_you_mean
    raise UsageError(f"no help topic {clean(topic)!r}"
                     f"{did_you_mean(topic, [*TOPICS, *COMMANDS])}; topics: "
                     f"{', '.join(TOPICS)}; or a command name")


def _write_topic(topic: str, *, after_command: bool) -> None:
    sys.stdout.write(("\n" if after_command else "") +
                     (TOPICS_DIR / f"{topic}.md").read_text(encoding="utf-8"))
    if topic == "context":
        sys.stdout.write(_features_help())


def _features_help() -> str:
    """The feature switches this installation knows (built-ins, plugins, user and project
    folders), each with what it does and what reads it."""
    from .._compile.compiler import Compiler
    from .._model.features import builtin_features
    note = ""
    try:
        features = Compiler.default().features
    except PromptcError as exc:  # a broken folder or plugin: still list the built-ins
        features, note = builtin_features(), f"  (only the built-ins': {clean(str(exc))})"
    lines = ["", "Features (each true or false; a name nothing reads is an error):", note]
    width = max((len(n) for n in features.names), default=0)
    for f in features.features.values():
        readers = f"; read by {', '.join(f.readers)}" if f.readers else ""
        source = f" [{f.source}]" if f.source and f.source != "builtin" else ""
        lines.append(f"  {clean(f.name):<{width}}  {clean(f.description) or '(no description)'}"
                     f"{clean(readers)}{clean(source)}")
    return "\n" + "\n".join(line for line in lines if line) + "\n"


def add_help_command(sub: Any, commands: dict[str, Command] = COMMANDS,
                     command: CommandFactory = add_command) -> None:
    p = command(sub, "help", "help on a command or a topic",
                "Help on a command (the same as COMMAND --help) or a topic: "
                + ", ".join(f"{k} ({v})" for k, v in TOPICS.items()) + ".",
                ["promptc help context", "promptc help folders", "promptc help diff"],
                "0 ok · 2 an unknown topic")
    p.add_argument("topic", nargs="?", metavar="TOPIC",
                   help="a command name or one of: " + ", ".join(TOPICS))
    commands["help"] = cmd_help
