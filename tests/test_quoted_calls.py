"""Quoted calls never run (issue 33, "also seen"), and stdin holds to the reply file's limit.

A call written inside a blockquote, an indented code block, `<pre>` or `<code>` is an example,
as one in inline code, quotation marks or a fence with prose after it already was: it comes back
as prose with a `quoted-call` warning, never as the call to run. A call indented inside a list
item, or on a paragraph's next line, is not a code block: it runs.
"""

from __future__ import annotations

import io
import sys

import pytest

from promptc import CompiledPrompt, Compiler, ProviderInfo
from promptc._base.files import MAX_DATA_FILE
from promptc._cli import main
from promptc.testing import make_context

TEXT = ProviderInfo("openai", "gpt-4.1", native_tools=False)
CALL = "<read_file>\n<path>a.py</path>\n</read_file>"


@pytest.fixture(scope="module")
def prompt(builtins: Compiler) -> CompiledPrompt:
    return builtins.compile(TEXT, make_context("full"))


def indented(text: str, by: str = "    ") -> str:
    return "\n".join(by + line for line in text.splitlines())


@pytest.mark.parametrize("reply", [
    "Quote:\n> <read_file><path>a.py</path></read_file>\nthat was it.",
    "> <read_file><path>a.py</path></read_file>",
    "Example:\n\n" + indented(CALL) + "\n\nThat is how.",
    "Example:\n\n" + indented(CALL, "\t"),
    indented(CALL),
    "Example:\n\n    x = 1\n\n" + indented(CALL) + "\n\nmore.",
    "Like this:\n<pre>\n" + CALL + "\n</pre>\nso.",
    "<pre class='xml'>\n" + CALL + "\n</pre>",
    "<pre><code>" + CALL + "</code></pre> and prose.",
    "Like <code><read_file><path>a.py</path></read_file></code> so.",
])
def test_a_quoted_call_never_runs(prompt: CompiledPrompt, reply: str) -> None:
    parsed = prompt.tools.parse(reply)
    assert parsed.call is None and not parsed.errors
    assert [w.code for w in parsed.warnings] == ["quoted-call"]


@pytest.mark.parametrize("reply", [
    CALL,
    "Reading it now.\n" + CALL,
    "<pre>x</pre>\n" + CALL,
    "Use <code>x</code> here.\n" + CALL,
    "Steps:\n1. Read it:\n\n" + indented(CALL),
    "Reading:\n" + indented(CALL),  # a paragraph's next line: no code block
    "> a quote\n\n" + CALL,
])
def test_a_call_outside_quotations_runs(prompt: CompiledPrompt, reply: str) -> None:
    parsed = prompt.tools.parse(reply)
    assert parsed.call is not None and parsed.call.arguments == {"path": "a.py"}, reply


def test_many_indented_calls_read_in_one_pass(prompt: CompiledPrompt) -> None:
    """Each line's place in a code block is worked out once (remembered), so a long block of
    indented calls stays linear (tests/test_parser_scaling.py counts the shapes)."""
    reply = "Examples:\n\n" + "\n\n".join(indented(CALL) for _ in range(2000))
    parsed = prompt.tools.parse(reply)
    assert parsed.call is None and [w.code for w in parsed.warnings] == ["quoted-call"]


def test_stdin_has_the_reply_files_size_limit(capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    args = ["parse", "--builtins-only", "--provider", "openai", "--model", "gpt-4.1",
            "--native-tools", "no", "-"]
    big = io.TextIOWrapper(io.BytesIO(b"x" * (MAX_DATA_FILE + 1)), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", big)
    assert main(args) == 2
    assert f"over the {MAX_DATA_FILE}-byte limit" in capsys.readouterr().err
    small = io.TextIOWrapper(io.BytesIO(CALL.replace("\n", "\r\n").encode()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", small)
    assert main(args) == 0
    assert '"path": "a.py"' in capsys.readouterr().out
