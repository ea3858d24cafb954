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

__all__ = ["Template", "Value", "Flag", "Use", "compile_template", "parsed_template", "render",
           "TAG_PATTERN", "flat_names", "text_of_value"]

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


class Flag(str):
    """A boolean input's value: the text "true" or "false", and a switch in a section
    (`{{#X}}` shows its body for true only, `{{^X}}` for false only)."""

    __slots__ = ()


class Structured:
    """A list or table a template may also insert whole: `text` is what `{{name}}` writes
    (its JSON). Implemented by the runtime inputs' structured values (promptc/_model)."""

    __slots__ = ()

    @property
    def text(self) -> str:
        raise NotImplementedError


@attrs.frozen
class Use:
    """One name a template uses: where (its first line), and inside which sections that
    push a scope (`within`, outermost first; inverted sections push none)."""

    name: str
    line: int
    within: tuple[str, ...]
    section: bool  # a section tag ({{#name}} / {{^name}}), not an inserted value


# Compiled nodes: str (literal) | _Var | _Section (hashed once: a section's nodes key what a
# layout Row keeps for it)
@attrs.frozen(cache_hash=True)
class _Var:
    path: tuple[str, ...]
    name: str
    line: int


@attrs.frozen(cache_hash=True)
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
    uses: tuple[Use, ...] = ()  # every name wherever it stands, once per enclosing sections


def flat_names(template: Template) -> tuple[str, ...] | None:
    """The names of a template that is nothing but literal text and plain `{{name}}`s, in
    order (a base template usually is); None when it has a section or a dotted name."""
    names = []
    for node in template.nodes:
        if isinstance(node, str):
            continue
        if not isinstance(node, _Var) or len(node.path) != 1:
            return None
        names.append(node.name)
    return tuple(names)


MAX_NESTING = 50  # sections inside sections: far beyond any prompt, well inside Python's limits


def _tag_problem(m: re.Match[str]) -> str | None:
    """What is wrong with one complete tag, or None."""
    triple, kind, name = m.groups()
    if triple and not m.group(0).endswith("}}}"):
        return f"unbalanced triple mustache {m.group(0)!r}: close it with }}}}}}"
    if kind == ">":
        return (f"partial tag {{{{> {name}}}}} is not allowed: templates may only use "
                "components and placeholders")
    if kind == "=":
        return "set-delimiter tags are not allowed"
    if not name:
        return "empty tag {{}}"
    if not _NAME.match(name):
        return (f"invalid tag name {name!r} (names are letters, digits, '_', '-' and '.'; a "
                "sigil such as # / ^ > must follow the braces directly)")
    return None


class _Sections:
    """The sections open at a point of a template, checked as tags open and close them."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.open: list[tuple[str, str, int]] = []

    def tag(self, kind: str, name: str, line: int) -> None:
        if kind in ("#", "^"):
            self.open.append((kind, name, line))
            if len(self.open) > MAX_NESTING:
                raise TemplateError(f"sections nested more than {MAX_NESTING} deep",
                                    source=self.source, line=line)
        elif kind == "/":
            self.close(name, line)

    def close(self, name: str, line: int) -> None:
        if not self.open:
            raise TemplateError(f"closing tag {{{{/{name}}}}} has no open section",
                                source=self.source, line=line)
        opened_kind, opened, opened_line = self.open.pop()
        if opened != name:
            raise TemplateError(f"closing tag {{{{/{name}}}}} does not match "
                                f"{{{{{opened_kind}{opened}}}}} opened at line {opened_line}",
                                source=self.source, line=line)

    def end(self) -> None:
        if self.open:
            opened_kind, name, opened_line = self.open[-1]
            raise TemplateError(f"section {{{{{opened_kind}{name}}}}} is never closed",
                                source=self.source, line=opened_line)


def _tag_lines(text: str, source: str) -> list[tuple[str, str, int]]:
    """(kind, name, line) for every tag, in order, or a TemplateError naming the line.

    Refuses what chevron would accept or drop without a word: partials, delimiter changes, an
    unbalanced triple mustache (`{{{x}}`), a `{{` that opens no tag, sections nested deeper than
    MAX_NESTING. One pass over the text: each `{{` is matched where it stands.
    """
    out = []
    line = 1
    last = 0
    sections = _Sections(source)
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
        problem = "unclosed tag: this `{{` opens no complete tag (write `{{name}}`, " \
            "`{{#name}}`…`{{/name}}` or `{{! comment }}`)" if m is None else _tag_problem(m)
        if m is None or problem is not None:
            raise TemplateError(problem or "", source=source, line=line)
        triple, kind, name = m.groups()
        sections.tag(kind, name, line)
        out.append((kind or ("&" if triple else ""), name, line))
        at = text.find("{{", m.end())
    sections.end()
    return out


_parsed: Memo[tuple[str, str], Template] = Memo(2048)  # (text, source) -> Template: prompt data shared by every Compiler


def parsed_template(text: str, source: str) -> Template:
    """`compile_template`, once per (text, file) in a process: a template depends on nothing
    else, and a parsed one is immutable. Every Compiler built from the same files shares
    them; no request data is ever kept here."""
    key = (text, source)
    template: Template | None = _parsed.get(key)
    if template is None:
        template = _parsed.put(key, compile_template(text, source))
    return template


def _tokens(text: str, source: str) -> list[tuple[str, str]]:
    """chevron's tokens, its errors as a TemplateError naming the line."""
    try:
        return list(chevron.tokenizer.tokenize(text))
    except chevron.tokenizer.ChevronError as exc:
        msg = " ".join(str(exc).split())
        m = re.search(r"line (\d+)", msg)
        line = int(m.group(1)) if m else None
        msg = re.sub(r"\s*(?:was opened at |at )?line \d+", "", msg)
        raise TemplateError(f"mustache syntax: {msg}", source=source, line=line) from None
    except IndexError:
        raise TemplateError("empty tag {{}}", source=source) from None


def _path(name: str) -> tuple[str, ...]:
    return () if name == "." else tuple(name.split("."))


class _Tree:
    """The nodes being built from the tokens, with every name's first line and the names
    used at the top level."""

    def __init__(self, tags: list[tuple[str, str, int]], source: str) -> None:
        self.lines = iter(tags)
        self.source = source
        self.name_lines: dict[str, int] = {}
        self.top: list[str] = []
        self.uses: dict[tuple[str, tuple[str, ...]], Use] = {}
        self.stack: list[tuple[str, list[Any], bool, int]] = [("", [], False, 0)]

    def token(self, kind: str, key: str) -> None:
        if kind == "literal":
            if key:
                self.stack[-1][1].append(key)
            return
        if kind == "comment":
            return
        if kind in ("partial", "set delimiter"):  # already refused by _tag_lines
            raise TemplateError(f"{kind} tags are not allowed", source=self.source)
        tag = next(self.lines, None)
        line = tag[2] if tag else 0
        if kind == "end":
            self.close()
            return
        self.name(key, line, kind in ("section", "inverted section"))
        if kind in ("variable", "no escape"):
            self.stack[-1][1].append(_Var(_path(key), key, line))
        else:  # a section or an inverted one
            self.stack.append((key, [], kind == "inverted section", line))

    def name(self, key: str, line: int, section: bool) -> None:
        self.name_lines.setdefault(key, line)
        if key != ".":
            within = tuple(name for name, _c, inverted, _l in self.stack[1:] if not inverted)
            self.uses.setdefault((key, within), Use(key, line, within, section))
        head = key.split(".")[0]
        if len(self.stack) == 1 and key != "." and head not in self.top:
            self.top.append(head)

    def close(self) -> None:
        name, children, inverted, open_line = self.stack.pop()
        self.stack[-1][1].append(_Section(_path(name), name, tuple(_merge(children)),
                                          inverted, open_line))


def compile_template(text: str, source: str) -> Template:
    """Parse `text` (from `source`, for messages) into a Template, or raise TemplateError."""
    text = text.replace("\r\n", "\n")
    tags = _tag_lines(text, source)
    tokens = _tokens(text, source)
    tree = _Tree(tags, source)
    for kind, key in tokens:
        tree.token(kind, key)
    variables = frozenset(key for kind, key in tokens if kind in ("variable", "no escape"))
    sections = frozenset(key for kind, key in tokens
                         if kind in ("section", "inverted section"))
    return Template(source=source, text=text, nodes=tuple(_merge(tree.stack[0][1])),
                    top_names=tuple(tree.top), name_lines=tree.name_lines,
                    variables=variables, sections=sections,
                    all_names=tuple(n for n in tree.name_lines if n != "."),
                    uses=tuple(tree.uses.values()))


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
    return isinstance(value, (dict, Mapping))  # a dict is found without the abstract check


def _lookup(path: tuple[str, ...], scopes: Sequence[Any]) -> Any:
    """A name's value: its first part from the innermost table that has it, each further part
    from the value found so far (_MISSING when a part is not there); `{{.}}` is the innermost."""
    if not path:
        return scopes[-1]
    head = path[0]
    for scope in reversed(scopes):
        if isinstance(scope, str):  # text (a section's usual item) is no table: said fast
            continue
        if isinstance(scope, (dict, Mapping)) and head in scope:
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
    """Whether a section shows: not for a missing value, false, blank text or an empty list or
    table; for any number (0 too)."""
    if value is _MISSING or value is None:
        return False
    if isinstance(value, bool):
        return value
    if type(value) is Flag:
        return value == "true"
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, Value):
        return bool(value.text.strip())
    if isinstance(value, (list, tuple, dict, Mapping)):
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
    _Renderer(out, problem, atom, shape).nodes(template.nodes, scopes)
    return out


def _ignore(_count: int) -> None:
    pass


def text_of_value(value: Any) -> str | None:
    """The text a value inserts: text (a text subclass, such as a boolean input's or trusted
    text, as the text it is), a number, a structured input's JSON; None for anything else (a
    plain list or table, a boolean)."""
    if type(value) is str:
        text: str = value
        return text
    if isinstance(value, str):
        return str(value)
    if isinstance(value, Structured):
        return value.text
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


_text = text_of_value


class _Renderer:
    """One render: literal strings and Value atoms appended to `out`, in order."""

    __slots__ = ("append", "problem", "atom", "shape")

    def __init__(self, out: list[Any], problem: Problem | None, atom: Atom | None,
                 shape: list[int] | None) -> None:
        self.append = out.append
        self.problem = problem
        self.atom = atom
        self.shape = shape.append if shape is not None else _ignore

    def nodes(self, nodes: tuple[Any, ...], scopes: list[Any]) -> None:
        for node in nodes:
            if isinstance(node, str):
                self.append(node)
            elif isinstance(node, _Var):
                self.variable(node, _lookup(node.path, scopes))
            else:
                self.section(node, scopes, _lookup(node.path, scopes))

    def variable(self, node: _Var, value: Any) -> None:
        if value is _MISSING or value is None:
            self.shape(0)
        elif isinstance(value, Value) and self.atom is None:
            self.append(value)  # a pre-made atom (a finished section)
            self.shape(0 if value.text.isspace() or not value.text else 1)
        else:
            self.insert(node, value.text if isinstance(value, Value) else _text(value), value)

    def insert(self, node: _Var, text: str | None, value: Any) -> None:
        if text is None:
            if self.problem is not None:
                self.problem(node.name, f"is {type(value).__name__}, not text", node.line)
            return
        self.shape(0 if not text or text.isspace() else 1)
        if self.atom is None:
            self.append(Value(text))
            return
        piece = self.atom(text, node.name)
        if piece is not None:
            self.append(piece)

    def section(self, node: _Section, scopes: list[Any], value: Any) -> None:
        truthy = _truthy(value)
        if node.inverted or not truthy:
            shown = node.inverted and not truthy
            self.shape(1 if shown else 0)
            if shown:
                self.nodes(node.children, scopes)
            return
        items = value if isinstance(value, (list, tuple)) else (value,)
        # a list: its items; a table, or a truthy plain value: the section's `{{.}}`
        self.shape(len(items))
        for item in items:
            scopes.append(item)
            self.nodes(node.children, scopes)
            scopes.pop()
