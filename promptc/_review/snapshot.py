"""Snapshot matrices: which (provider/model × context) cases to render, and the files they make.

One `.md` file per case (a short header, then the prompt as one string), one `.md` file per
case asking for it (`split = true`; the built-in matrix does for every variant) with the
default payload's split in the full context (the system prompt as sent, then the first user
message: a review sees what is sent), and one `.json` file per (variant, native format) for
tool definitions. The `promptc snapshot` command and the pytest snapshot tests
render through the same functions, so they agree on every byte.

Matrix format (TOML; paths are relative to the matrix file):

    [contexts]
    full = "contexts/full.json"
    plan = "contexts/plan.json"

    [[case]]
    provider = "anthropic"
    model = "claude-sonnet-4-5"
    variant = "native-next-gen"        # optional: pin the variant (default: resolve)
    contexts = ["full", "plan"]        # optional: default all contexts
    native_tools = false               # optional capability overrides (any ProviderInfo field)
    name = "sonnet"                    # optional: the case's name (default: the variant id)
    tools = ["openai", "anthropic"]    # optional: also snapshot native tool JSON (full context)
    split = true                       # optional: also snapshot the default payload's split
                                       #   (system prompt, first message; full context)
    max_tokens = 6500                  # optional targets, in the full context: prompt + native
    min_static_share = 0.8             #   tool JSON, and the static block's share of the prompt

A case's "full context" is its context named `full`, else the first of its `contexts`.
"""

from __future__ import annotations

import difflib
import json
import re
import shlex
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from .._base.errors import ConfigError
from .._base.files import read_text_file, read_toml, write_text_file
from .._base.suggest import unknown_key
from .._compile.compiler import Compiler
from .._emit.payloads import native_tools
from .._model.formats import DOORS
from .._model.context import PromptContext
from .._model.provider import ProviderInfo
from .manifest import (BUILTIN, HEADER, MANIFEST, matrix_name, ownership, read_manifest,
                       removable, same_matrix, shown_matrix, write_manifest)

__all__ = ["Matrix", "Case", "Target", "load_matrix", "default_matrix_path", "render_case",
           "render_tools", "render_split", "expected_files", "check_dir", "update_dir", "SnapshotDiff",
           "ownership", "MANIFEST", "HEADER", "check_matrix"]

_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
TOOL_FORMATS = DOORS  # what a case's `tools` may name (promptc/_model/formats.py)
_CASE_KEYS = ("provider", "model", "variant", "contexts", "name", "tools", "max_tokens",
              "min_static_share", "split")
_CAP_KEYS = ("context_window", "max_output", "native_tools", "parallel_tools", "images",
             "prompt_caching", "cache_min_tokens")
_MATRIX_KEYS = ("contexts", "case")


def safe_id(text: str) -> str:
    """A file- and pytest-id-safe name: no `/` or `:`."""
    return _ID_UNSAFE.sub("_", text).strip("_")


@attrs.frozen
class Case:
    id: str
    provider: ProviderInfo
    variant: str | None
    context_name: str
    context: PromptContext
    name: str


@attrs.frozen
class Target:
    """A case's token targets in the full context (`promptc tokens --targets` checks them)."""

    name: str
    provider: ProviderInfo
    variant: str | None
    context: PromptContext
    max_tokens: int | None
    min_static_share: float | None


@attrs.frozen
class ToolCase:
    id: str
    provider: ProviderInfo
    variant: str | None
    context: PromptContext
    format: str


@attrs.frozen
class Matrix:
    path: str
    cases: tuple[Case, ...]
    tool_cases: tuple[ToolCase, ...]
    targets: tuple[Target, ...] = ()
    split_cases: tuple[Case, ...] = ()  # one per [[case]], in the full context


def default_matrix_path() -> Path:
    return Path(__file__).resolve().parent.parent / "_data" / "snapshot" / "matrix.toml"


def load_matrix(path: str | Path | None = None, compiler: Compiler | None = None) -> Matrix:
    """Read a matrix file; errors name the file and the field."""
    p = Path(path) if path is not None else default_matrix_path()
    data = read_toml(p, ConfigError)
    unknown = sorted(set(data) - set(_MATRIX_KEYS))
    if unknown:
        raise ConfigError(unknown_key(unknown[0], _MATRIX_KEYS), source=str(p),
                          field=unknown[0])
    table, cases_table = _matrix_tables(data, str(p))
    reader = _MatrixReader(str(p), _load_contexts(p, table, compiler), compiler)
    for i, raw in enumerate(cases_table):
        reader.add(f"case[{i}]", raw)
    return reader.matrix()


def _matrix_tables(data: Mapping[str, Any], where: str) -> tuple[Mapping[str, Any], list[Any]]:
    """The `[contexts]` table and the `[[case]]` list, each of the right kind."""
    table = data.get("contexts") or {}
    if not isinstance(table, Mapping):
        raise ConfigError("must be a table of context names and files", source=where,
                          field="contexts")
    cases_table = data.get("case") or []
    if not isinstance(cases_table, list):
        raise ConfigError("must be a list of tables ([[case]])", source=where, field="case")
    return table, cases_table


def _load_contexts(p: Path, table: Mapping[str, Any], compiler: Compiler | None
                   ) -> dict[str, PromptContext]:
    """Each named context, read from its file (relative to the matrix); at least one."""
    contexts: dict[str, PromptContext] = {}
    for name, rel in table.items():
        if not isinstance(rel, str):
            raise ConfigError("must be a path", source=str(p), field=f"contexts.{name}")
        contexts[name] = PromptContext.load(
            p.parent / rel, features=compiler.features if compiler is not None else None)
    if not contexts:
        raise ConfigError("a matrix needs at least one context", source=str(p), field="contexts")
    return contexts


def _check_case(raw: Any, field: str, where: str) -> Mapping[str, Any]:
    """A `[[case]]` table with known keys, each of its type."""
    if not isinstance(raw, Mapping):
        raise ConfigError("must be a table", source=where, field=field)
    bad = sorted(set(raw) - {*_CASE_KEYS, *_CAP_KEYS})
    if bad:
        raise ConfigError(unknown_key(bad[0], (*_CASE_KEYS, *_CAP_KEYS)), source=where,
                          field=f"{field}.{bad[0]}")
    if not isinstance(raw.get("provider"), str) or not isinstance(raw.get("model"), str):
        raise ConfigError("needs `provider` and `model` strings", source=where, field=field)
    _check_optional_keys(raw, field, where)
    return raw


def _check_optional_keys(raw: Mapping[str, Any], field: str, where: str) -> None:
    for key in ("variant", "name"):
        if key in raw and not isinstance(raw[key], str):
            raise ConfigError("must be a string", source=where, field=f"{field}.{key}")
    for key in ("contexts", "tools"):
        if key in raw and not _is_string_list(raw[key]):
            raise ConfigError("must be a list of strings", source=where, field=f"{field}.{key}")


def _is_string_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


def _targets_of(raw: Mapping[str, Any], field: str, where: str
                ) -> tuple[int | None, float | None]:
    """A case's `max_tokens` and `min_static_share` (None: not given)."""
    limit, share = raw.get("max_tokens"), raw.get("min_static_share")
    if limit is not None and (type(limit) is not int or limit <= 0):
        raise ConfigError("must be a positive whole number", source=where,
                          field=f"{field}.max_tokens")
    if share is not None and (type(share) not in (int, float) or not 0 <= share <= 1):
        raise ConfigError("must be a number from 0 to 1", source=where,
                          field=f"{field}.min_static_share")
    return limit, None if share is None else float(share)


class _MatrixReader:
    """The matrix's cases, read one `[[case]]` table at a time."""

    def __init__(self, where: str, contexts: dict[str, PromptContext],
                 compiler: Compiler | None) -> None:
        self.where = where
        self.contexts = contexts
        self.compiler = compiler
        self.cases: list[Case] = []
        self.split_cases: list[Case] = []
        self.tool_cases: list[ToolCase] = []
        self.targets: list[Target] = []
        self.seen: set[str] = set()

    def add(self, field: str, table: Any) -> None:
        raw = _check_case(table, field, self.where)
        caps = {k: raw[k] for k in _CAP_KEYS if k in raw}
        info = ProviderInfo.from_dict({"id": raw["provider"], "model": raw["model"], **caps},
                                      source=self.where)
        variant = raw.get("variant")
        resolved = self._resolved(variant, info)  # resolved even when named: a bad model fails
        name = raw.get("name") or resolved
        model = f"{raw['provider']}_{raw['model']}"
        own = raw.get("contexts") or list(self.contexts)
        for ctx_name in own:
            self._add_case(field, f"{name}__{model}__{ctx_name}", info, variant, ctx_name, name)
        # the case's own full context (else its first) for its token targets and tool JSON
        full = self.contexts["full" if "full" in own else own[0]]
        limit, share = _targets_of(raw, field, self.where)
        self.targets.append(Target(name, info, variant, full, limit, share))
        split = raw.get("split", False)
        if not isinstance(split, bool):
            raise ConfigError("must be true or false", source=self.where, field=f"{field}.split")
        if split:
            full_name = "full" if "full" in own else own[0]
            self.split_cases.append(Case(safe_id(f"{name}__{model}__split"), info, variant,
                                         full_name, full, name))
        for fmt in raw.get("tools") or []:
            if fmt not in TOOL_FORMATS:
                raise ConfigError(f"tool format must be one of {list(TOOL_FORMATS)}",
                                  source=self.where, field=f"{field}.tools")
            self.tool_cases.append(ToolCase(safe_id(f"tools__{name}__{model}__{fmt}"), info,
                                            variant, full, fmt))

    def _resolved(self, variant: str | None, info: ProviderInfo) -> str:
        """The case's default name: the variant it pins, or the one its model resolves to."""
        if self.compiler is not None:
            return variant or self.compiler.resolve(info).variant.id
        return variant or "auto"

    def _add_case(self, field: str, case_name: str, info: ProviderInfo, variant: str | None,
                  ctx_name: str, name: str) -> None:
        if ctx_name not in self.contexts:
            raise ConfigError(f"unknown context {ctx_name!r}", source=self.where,
                              field=f"{field}.contexts")
        cid = safe_id(case_name)
        if cid in self.seen:
            raise ConfigError(f"duplicate case {cid!r}", source=self.where, field=field)
        self.seen.add(cid)
        self.cases.append(Case(cid, info, variant, ctx_name, self.contexts[ctx_name], name))

    def matrix(self) -> Matrix:
        if not self.cases:
            raise ConfigError("a matrix needs at least one [[case]]", source=self.where,
                              field="case")
        return Matrix(self.where, tuple(self.cases), tuple(self.tool_cases), tuple(self.targets),
                      tuple(self.split_cases))


@attrs.frozen
class Rendered:
    """A snapshot file's text, and which lines of it each section occupies (1-based, inclusive)."""

    text: str
    sections: tuple[tuple[str, int, int], ...] = ()
    caches: tuple[str, ...] = ()  # each section's cache class, in the order of `sections`
    static_chars: int = 0  # length of the prompt's static (cached) prefix, for the review


def render_case(compiler: Compiler, case: Case, strict: bool = True) -> str:
    """The snapshot file text for one case: a header, a blank line, the prompt."""
    return render_case_lines(compiler, case, strict).text


def render_case_lines(compiler: Compiler, case: Case, strict: bool = True) -> Rendered:
    prompt = compiler.compile(case.provider, case.context, strict=strict, variant=case.variant,
                              count_tokens=True)
    tokens = prompt.tokens
    if tokens is None:  # count_tokens=True above: never
        raise RuntimeError("internal error: a snapshot prompt was not counted")
    estimate = ", estimated" if tokens.estimated else ""
    sections = " ".join(f"{s.id}={s.tokens}" for s in prompt.sections)
    body_spans = [(section.id, prompt.text.count("\n", 0, start) + 1,
                   prompt.text.count("\n", 0, end) + 1)
                  for section, (start, end) in zip(prompt.sections, prompt.spans)]
    caches = tuple(s.cache for s in prompt.sections)
    header = (
        "<!-- promptc snapshot\n"
        f"variant: {prompt.variant.id}\n"
        f"model: {case.provider.provider}/{case.provider.model}\n"
        f"context: {case.context_name}\n"
        f"tokens: {tokens.total} ({tokens.encoding}{estimate})\n"
        f"sections: {sections}\n"
        f"{spans_line(body_spans, caches)}\n"
        "-->\n\n"
    )
    offset = header.count("\n")
    spans = tuple((sid, offset + first, offset + last) for sid, first, last in body_spans)
    return Rendered(header + prompt.text + "\n", spans, caches, len(prompt.static_prefix))


def spans_line(spans: list[tuple[str, int, int]], caches: tuple[str, ...]) -> str:
    """The header line that says where each section's lines are (relative to the prompt's
    first line) and its cache class, so a later review knows the old side's sections exactly
    (read back by `filereview.header_spans`)."""
    return "spans: " + " ".join(f"{sid}={first}-{last}/{cache}"
                                for (sid, first, last), cache in zip(spans, caches))


SYSTEM_MARK = "<!-- the system prompt -->"
MESSAGE_MARK = "<!-- the first user message -->"


def render_split(compiler: Compiler, case: Case, strict: bool = True) -> str:
    """The default payload's split for one case: the system prompt as sent, then the first user
    message (none when the prompt goes as one string)."""
    return render_split_lines(compiler, case, strict).text


def render_split_lines(compiler: Compiler, case: Case, strict: bool = True) -> Rendered:
    prompt = compiler.compile(case.provider, case.context, strict=strict, variant=case.variant,
                              count_tokens=True)
    message = prompt.message or "(none: the whole prompt is the system prompt)"
    body = f"{SYSTEM_MARK}\n\n{prompt.system}\n\n{MESSAGE_MARK}\n\n{message}"
    at = len(SYSTEM_MARK) + 2
    after = at + len(prompt.system) + len(MESSAGE_MARK) + 4
    placed = [(s, a + at, b + at) for s, (a, b) in zip(prompt.system_sections,
                                                       prompt.system_spans)]
    placed += [(s, a + after, b + after) for s, (a, b) in zip(prompt.message_sections,
                                                              prompt.message_spans)]
    lines = [(s.id, body.count("\n", 0, a) + 1, body.count("\n", 0, b) + 1)
             for s, a, b in placed]
    caches = tuple(s.cache for s, _a, _b in placed)
    total = sum(prompt.count_tokens(s.text) if s.tokens is None else s.tokens
                for s, _a, _b in placed)
    tokens = " ".join(f"{s.id}={s.tokens if s.tokens is not None else prompt.count_tokens(s.text)}"
                      for s, _a, _b in placed)
    header = ("<!-- promptc snapshot: the default payload\n"
              f"variant: {prompt.variant.id}\n"
              f"model: {case.provider.provider}/{case.provider.model}\n"
              f"context: {case.context_name}\n"
              f"placement: {prompt.dynamic}\n"
              f"tokens: {total} (the sections' own)\n"
              f"sections: {tokens}\n"
              f"{spans_line(lines, caches)}\n"
              "-->\n\n")
    offset = header.count("\n")
    spans = tuple((sid, offset + first, offset + last) for sid, first, last in lines)
    static = at + len(prompt.system) if prompt.dynamic == "message" else 0
    return Rendered(header + body + "\n", spans, caches, static)


def render_tools(compiler: Compiler, case: ToolCase) -> str:
    prompt = compiler.compile(case.provider, case.context, strict=True, variant=case.variant)
    data = native_tools(prompt.tools, case.format)
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def expected_files(compiler: Compiler, matrix: Matrix, strict: bool = True,
                   progress: Callable[[int, str], None] | None = None) -> dict[str, Rendered]:
    """{file name: rendered file} for every case of the matrix. `progress(done, name)` is
    called before each case (the CLI's status line on a large matrix)."""
    out: dict[str, Rendered] = {}
    for c in matrix.cases:
        if progress is not None:
            progress(len(out), c.id)
        out[f"{c.id}.md"] = render_case_lines(compiler, c, strict)
    for c in matrix.split_cases:
        if progress is not None:
            progress(len(out), c.id)
        out[f"{c.id}.md"] = render_split_lines(compiler, c, strict)
    for t in matrix.tool_cases:
        if progress is not None:
            progress(len(out), t.id)
        out[f"{t.id}.json"] = Rendered(render_tools(compiler, t))
    return out


@attrs.frozen
class SnapshotDiff:
    added: tuple[str, ...]
    removed: tuple[str, ...]
    changed: tuple[tuple[str, str, tuple[str, ...]], ...]  # (name, unified diff, sections)
    # the folder's text of each changed file, so the review does not read it again
    old: Mapping[str, str] = attrs.field(factory=dict, eq=False, repr=False)
    foreign: tuple[str, ...] = ()  # entries promptc did not write: left alone
    blocked: tuple[str, ...] = ()  # foreign entries with the name of an expected snapshot

    @property
    def clean(self) -> bool:
        return not (self.added or self.removed or self.changed)


def _touched_sections(old: list[str], new: Rendered, new_lines: list[str]) -> tuple[str, ...]:
    """Sections of the new render whose lines a change touches (deletions count where they
    would sit). Lines outside every section (headers, separators) are reported as `(layout)`."""
    touched: list[str] = []
    matcher = difflib.SequenceMatcher(None, old, new_lines, autojunk=False)
    for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        lo, hi = j1 + 1, max(j2, j1 + 1)  # 1-based inclusive range in the new file
        hit = False
        for sid, first, last in new.sections:
            if first <= hi and lo <= last:
                hit = True
                if sid not in touched:
                    touched.append(sid)
        if not hit and "(layout)" not in touched:
            touched.append("(layout)")
    return tuple(touched)


def check_dir(folder: Path, expected: Mapping[str, Rendered]) -> SnapshotDiff:
    """The folder's snapshot files against the new renders; files promptc did not write are
    listed apart (`foreign`) and never compared, removed or overwritten."""
    owned, foreign = ownership(folder)
    stale = owned - set(expected)
    kept = stale - removable(folder, owned)  # snapshot-like, but never written by an update
    foreign |= kept
    owned -= kept
    blocked = sorted(set(expected) & foreign)
    added = tuple(sorted(set(expected) - owned - foreign))
    removed = tuple(sorted(owned - set(expected)))
    changed = []
    olds: dict[str, str] = {}
    for name in sorted(set(expected) & owned):
        old = read_text_file(folder / name, ConfigError)
        new = expected[name]
        if old != new.text:
            old_lines = old.splitlines(True)
            new_lines = new.text.splitlines(True)
            diff = "".join(difflib.unified_diff(old_lines, new_lines, f"a/{name}",
                                                f"b/{name}"))
            body_old = old_lines[_header_len(old_lines):]
            body_new = new_lines[_header_len(new_lines):]
            offset = _header_len(new_lines)
            shifted = Rendered(new.text, tuple((sid, a - offset, b - offset)
                                               for sid, a, b in new.sections))
            sections = _touched_sections(body_old, shifted, body_new) if new.sections else ()
            changed.append((name, diff, sections))
            olds[name] = old
    return SnapshotDiff(added, removed, tuple(changed), olds, tuple(sorted(foreign)),
                        tuple(blocked))


def _header_len(lines: list[str]) -> int:
    """Lines of the `<!-- promptc snapshot … -->` header plus its blank line."""
    if not lines or not lines[0].startswith("<!-- promptc snapshot"):
        return 0
    for i, line in enumerate(lines):
        if line.startswith("-->"):
            return i + 2
    return 0


def update_dir(folder: Path, expected: Mapping[str, Rendered],
               allow_foreign: bool = False, matrix: str = BUILTIN) -> SnapshotDiff:
    """Make `folder` hold exactly the expected snapshots, touching only files promptc owns.

    A folder that holds other files is refused unless `allow_foreign` (they are then left
    alone); a file of the user's where a snapshot should go is always refused. Every write is
    atomic and never follows a symbolic link (see `write_text_file`), and the manifest records
    what was written and from which matrix (`matrix`, see `manifest.matrix_name`), so a later
    update removes only its own files.
    """
    diff = check_dir(folder, expected)
    if diff.blocked:
        raise ConfigError(f"{len(diff.blocked)} file(s) promptc did not write stand where "
                          f"snapshots go: {', '.join(diff.blocked[:5])}; move them away",
                          source=str(folder))
    if diff.foreign and not allow_foreign:
        shown = ", ".join(diff.foreign[:5]) + (" …" if len(diff.foreign) > 5 else "")
        raise ConfigError(f"holds {len(diff.foreign)} file(s) promptc did not write ({shown}); "
                          "use a folder of its own, or pass --force to update the snapshots "
                          "anyway (those files are left alone)", source=str(folder))
    for name in (*diff.added, *(c[0] for c in diff.changed)):
        write_text_file(folder / name, expected[name].text, folder, ConfigError)
    for name in diff.removed:
        (folder / name).unlink()
    write_manifest(folder, list(expected), matrix)
    return diff


def check_matrix(folder: Path, matrix_path: Path | None, force: bool = False) -> None:
    """Refuse to update a folder another matrix wrote (`ConfigError`, one sentence naming
    both), unless `force`. A folder without a recorded matrix is anyone's."""
    recorded = read_manifest(folder).matrix if folder.is_dir() else None
    if force or recorded is None or same_matrix(recorded, matrix_path, folder):
        return
    given = (shown_matrix(matrix_name(matrix_path, folder), folder) if matrix_path is not None
             else "the built-in matrix")
    theirs = shown_matrix(recorded, folder)
    flag = "" if recorded == BUILTIN else f" --matrix {shlex.quote(theirs)}"
    raise ConfigError(f"written from {_the(theirs)}, not {_the(given)}; update it with"
                      f"{flag or 'out --matrix'}, or add --force to rewrite it from "
                      f"{_the(given)}", source=str(folder))


def _the(matrix: str) -> str:
    return matrix if matrix.startswith("the built-in") else f"the matrix {matrix}"
