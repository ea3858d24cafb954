"""Mustache templates: tokenized once by chevron, rendered to pieces that keep values opaque.

Rendering yields a list of literal strings and `Value` atoms. Values are inserted once and never
re-scanned, never HTML-escaped, and the post-processor treats them as opaque content, so text a user
controls can neither expand as a template nor change how the prompt around it is cleaned.
Partials and delimiter changes are refused: templates come only from registered data.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
import chevron.tokenizer

from .._base.errors import TemplateError
from .._base.memo import Memo

__all__ = ["Template", "Value", "compile_template", "parsed_template", "render", "TAG_PATTERN",
           "flat_names"]

# Every mustache tag, for line numbers and whitespace-tolerant name scanning (linear: no nesting).
_NAME = re.compile(r"^(?:\.|[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)*)$")
TAG_PATTERN = re.compile(r"\{\{(\{?)([#^/&!>=]?)\s*([^{}]*?)\s*\}?\}\}")


class Value:
    """An inserted value: verbatim text the post-processor must never look inside."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"Value({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Value) and other.text == self.text

    def __hash__(self) -> int:
        return hash(("Value", self.text))


# Compiled nodes: str (literal) | _Var | _Section
@attrs.frozen
class _Var:
    path: tuple[str, ...]
    name: str
    line: int


@attrs.frozen
class _Section:
    path: tuple[str, ...]
    name: str
    children: tuple[Any, ...]
    inverted: bool
    line: int


@attrs.frozen
class Template:
    """A parsed template: its nodes, and the names it uses (top level and anywhere) with lines."""

    source: str
    text: str
    nodes: tuple[Any, ...]
    top_names: tuple[str, ...]
    name_lines: Mapping[str, int]
    variables: frozenset[str] = frozenset()  # names used as {{x}} anywhere
    sections: frozenset[str] = frozenset()  # names used as {{#x}} / {{^x}} anywhere
    all_names: tuple[str, ...] = ()  # every name, in order of first use ("." excluded)
    # compiled collect walks, by number of base scopes (see layout.collector), made on the second
    # render at that depth (`renders` counts them): a template rendered once never pays for it
    collectors: dict[tuple[int, bool], Any] = attrs.field(factory=dict, eq=False, repr=False)
    renders: dict[int, int] = attrs.field(factory=dict, eq=False, repr=False)



def flat_names(template: Template) -> tuple[str, ...] | None:
    """The names of a template that is nothing but literal text and plain `{{name}}`s, in
    order (a base template usually is); None when it has a section or a dotted name."""
    names = []
    for node in template.nodes:
        if node.__class__ is str:
            continue
        if node.__class__ is not _Var or len(node.path) != 1:
            return None
        names.append(node.name)
    return tuple(names)


MAX_NESTING = 50  # sections inside sections: far beyond any prompt, well inside Python's limits


def _tag_lines(text: str, source: str) -> list[tuple[str, str, int]]:
    """(kind, name, line) for every tag, in order, or a TemplateError naming the line.

    Refuses what chevron would accept or drop without a word: partials, delimiter changes, an
    unbalanced triple mustache (`{{{x}}`), a `{{` that opens no tag, sections nested deeper than
    MAX_NESTING. One pass over the text: each `{{` is matched where it stands.
    """
    out = []
    line = 1
    last = 0
    open_sections: list[tuple[str, str, int]] = []
    at = text.find("{{")
    while at >= 0:
        line += text.count("\n", last, at)
        last = at
        if text.startswith("{{!", at):  # a comment: anything up to the next }}
            close = text.find("}}", at + 3)
            if close < 0:
                raise TemplateError("comment {{! … is never closed", source=source, line=line)
            at = text.find("{{", close + 2)
            continue
        m = TAG_PATTERN.match(text, at)
        if m is None:
            raise TemplateError("unclosed tag: this `{{` opens no complete tag (write `{{name}}`, "
                                "`{{#name}}`…`{{/name}}` or `{{! comment }}`)", source=source,
                                line=line)
        triple, kind, name = m.groups()
        if triple and not m.group(0).endswith("}}}"):
            raise TemplateError(f"unbalanced triple mustache {m.group(0)!r}: close it with }}}}}}",
                                source=source, line=line)
        if kind == ">":
            raise TemplateError(f"partial tag {{{{> {name}}}}} is not allowed: templates may only "
                                "use components and placeholders", source=source, line=line)
        if kind == "=":
            raise TemplateError("set-delimiter tags are not allowed", source=source, line=line)
        if not name:
            raise TemplateError("empty tag {{}}", source=source, line=line)
        if not _NAME.match(name):
            raise TemplateError(f"invalid tag name {name!r} (names are letters, digits, '_', "
                                "'-' and '.'; a sigil such as # / ^ > must follow the braces "
                                "directly)", source=source, line=line)
        if kind in ("#", "^"):
            open_sections.append((kind, name, line))
            if len(open_sections) > MAX_NESTING:
                raise TemplateError(f"sections nested more than {MAX_NESTING} deep",
                                    source=source, line=line)
        elif kind == "/":
            if not open_sections:
                raise TemplateError(f"closing tag {{{{/{name}}}}} has no open section",
                                    source=source, line=line)
            opened_kind, opened, opened_line = open_sections.pop()
            if opened != name:
                raise TemplateError(f"closing tag {{{{/{name}}}}} does not match "
                                    f"{{{{{opened_kind}{opened}}}}} opened at line {opened_line}",
                                    source=source, line=line)
        out.append((kind or ("&" if triple else ""), name, line))
        at = text.find("{{", m.end())
    if open_sections:
        opened_kind, name, opened_line = open_sections[-1]
        raise TemplateError(f"section {{{{{opened_kind}{name}}}}} is never closed", source=source,
                            line=opened_line)
    return out


_parsed: Memo[tuple[str, str], Template] = Memo(2048)  # (text, source) -> Template: prompt data shared by every Compiler


def parsed_template(text: str, source: str) -> Template:
    """`compile_template`, once per (text, file) in a process: a template depends on nothing
    else, and a parsed one is immutable (its compiled walks are pure functions of it). Every
    Compiler built from the same files shares them; no request data is ever kept here."""
    key = (text, source)
    template: Template | None = _parsed.get(key)
    if template is None:
        template = _parsed.put(key, compile_template(text, source))
    return template


def compile_template(text: str, source: str) -> Template:
    """Parse `text` (from `source`, for messages) into a Template, or raise TemplateError."""
    text = text.replace("\r\n", "\n")
    tags = _tag_lines(text, source)
    try:
        tokens = list(chevron.tokenizer.tokenize(text))
    except chevron.tokenizer.ChevronError as exc:
        msg = " ".join(str(exc).split())
        m = re.search(r"line (\d+)", msg)
        line = int(m.group(1)) if m else None
        msg = re.sub(r"\s*(?:was opened at |at )?line \d+", "", msg)
        raise TemplateError(f"mustache syntax: {msg}", source=source, line=line) from None
    except IndexError:
        raise TemplateError("empty tag {{}}", source=source) from None
    line_iter = iter(tags)
    name_lines: dict[str, int] = {}
    top: list[str] = []
    stack: list[tuple[str, list[Any], bool, int]] = [("", [], False, 0)]
    for kind, key in tokens:
        if kind == "literal":
            if key:
                stack[-1][1].append(key)
            continue
        if kind in ("comment",):
            continue
        if kind in ("partial", "set delimiter"):  # already refused by _tag_lines
            raise TemplateError(f"{kind} tags are not allowed", source=source)
        tag = next(line_iter, None)
        line = tag[2] if tag else 0
        if kind not in ("end",):
            name_lines.setdefault(key, line)
            if len(stack) == 1 and key != "." and key.split(".")[0] not in top:
                top.append(key.split(".")[0])
        if kind in ("variable", "no escape"):
            path = () if key == "." else tuple(key.split("."))
            stack[-1][1].append(_Var(path, key, line))
        elif kind in ("section", "inverted section"):
            stack.append((key, [], kind == "inverted section", line))
        elif kind == "end":
            name, children, inverted, open_line = stack.pop()
            path = () if name == "." else tuple(name.split("."))
            stack[-1][1].append(_Section(path, name, tuple(_merge(children)), inverted,
                                         open_line))
    variables = frozenset(key for kind, key in tokens if kind in ("variable", "no escape"))
    sections = frozenset(key for kind, key in tokens
                         if kind in ("section", "inverted section"))
    return Template(source=source, text=text, nodes=tuple(_merge(stack[0][1])),
                    top_names=tuple(top), name_lines=name_lines, variables=variables,
                    sections=sections, all_names=tuple(n for n in name_lines if n != "."))


def _merge(nodes: list[Any]) -> list[Any]:
    """Join adjacent literals so rendering appends fewer pieces."""
    out: list[Any] = []
    for n in nodes:
        if isinstance(n, str) and out and isinstance(out[-1], str):
            out[-1] += n
        else:
            out.append(n)
    return out


_MISSING = object()


def _is_table(value: Any) -> bool:
    """A mapping (plain dicts first: the abstract-class check is slow on the hot path)."""
    return value.__class__ is dict or isinstance(value, Mapping)


def _lookup(path: tuple[str, ...], scopes: Sequence[Any]) -> Any:
    if not path:
        return scopes[-1]
    head = path[0]
    for i in range(len(scopes) - 1, -1, -1):
        scope = scopes[i]
        if (scope.__class__ is dict or isinstance(scope, Mapping)) and head in scope:
            value = scope[head]
            break
    else:
        return _MISSING
    for part in path[1:]:
        if _is_table(value) and part in value:
            value = value[part]
        else:
            return _MISSING
    return value


def _truthy(value: Any) -> bool:
    cls = value.__class__
    if cls is str:
        return not value.isspace() and value != ""
    if cls is bool:
        return value  # type: ignore[no-any-return]
    if value is _MISSING or value is None:
        return False
    if cls is list or cls is tuple or cls is dict:
        return len(value) > 0
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, Value):
        return bool(value.text.strip())
    if isinstance(value, (list, tuple, Mapping)):
        return len(value) > 0
    return True


Problem = Callable[[str, str, int], None]
Atom = Callable[[str, str], Any]  # (inserted text, its name) -> the piece to append, or None


def render(template: Template, scopes: list[Any], out: list[Any],
           problem: Problem | None = None, atom: Atom | None = None,
           shape: list[int] | None = None) -> list[Any]:
    """Render into `out` as literal strings and Value atoms. `scopes` is innermost-last.

    `problem(name, message, line)` hears about values that are not text (lists, tables).
    `atom(text, name)`, when given, makes the piece for each inserted text (layouts number
    them), and `shape` receives the render's shape (see promptc/_text/layout.py).
    Recursion follows the template's section nesting (written by a prompt author, shallow),
    never the depth of the data.
    """
    _render_nodes(template.nodes, scopes, out, problem, atom, shape)
    return out


def _render_nodes(nodes: tuple[Any, ...], scopes: list[Any], out: list[Any],
                  problem: Problem | None, atom: Atom | None, shape: list[int] | None) -> None:
    append = out.append
    for node in nodes:
        if node.__class__ is str:
            append(node)
            continue
        value = _lookup(node.path, scopes)
        if node.__class__ is _Var:
            text: str
            if value is _MISSING or value is None:
                if shape is not None:
                    shape.append(0)
                continue
            if value.__class__ is str:
                text = value
            elif isinstance(value, Value):
                if atom is None:
                    append(value)  # a pre-made atom (a finished section)
                    if shape is not None:
                        shape.append(0 if value.text.isspace() or not value.text else 1)
                    continue
                text = value.text
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                text = str(value)
            else:
                if problem is not None:
                    problem(node.name, f"is {type(value).__name__}, not text", node.line)
                continue
            if shape is not None:
                shape.append(0 if not text or text.isspace() else 1)
            if atom is None:
                append(Value(text))
            else:
                piece = atom(text, node.name)
                if piece is not None:
                    append(piece)
            continue
        truthy = _truthy(value)
        if node.inverted:
            if shape is not None:
                shape.append(0 if truthy else 1)
            if not truthy:
                _render_nodes(node.children, scopes, out, problem, atom, shape)
            continue
        if not truthy:
            if shape is not None:
                shape.append(0)
            continue
        if isinstance(value, (list, tuple)):
            if shape is not None:
                shape.append(len(value))
            for item in value:
                scopes.append(item)
                _render_nodes(node.children, scopes, out, problem, atom, shape)
                scopes.pop()
        else:  # a table, or a truthy plain value: either is the section's `{{.}}`
            if shape is not None:
                shape.append(1)
            scopes.append(value)
            _render_nodes(node.children, scopes, out, problem, atom, shape)
            scopes.pop()
