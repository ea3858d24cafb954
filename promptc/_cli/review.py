"""Review commands: `snapshot`, `diff` and `new-variant`, and how a review is printed.

A review (see `promptc._review.diff`) is shown as text on a terminal (per changed section: the
changed lines, unified, with word-level highlighting when colour is on), as markdown for a pull
request comment, or as one self-contained HTML page (`html.py`). The same change in several
snapshot cases (one component edited, every variant using it re-rendered) is printed once, and
named in the others.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import attrs

from .args import (UsageError, add_sources, add_target, compiler_from, print_json,
                   source_flags, target_from)
from .format import (Progress, Styled, change_block, clean, clean_line, paint, table, use_colour,
                     word_diff)

if TYPE_CHECKING:
    from .._compile.compiler import Compiler
    from .._review.diff import CaseReview, Hunk, SectionChange
    from .._review.snapshot import Matrix, Rendered

__all__ = ["add_review_commands", "render_text", "render_markdown", "provider_for"]

DEFAULT_LINES = 40


# --- text ----------------------------------------------------------------------------------------

def _signed(n: int) -> str:
    return f"+{n:,}" if n > 0 else f"{n:,}"


def _pairs(lines: Sequence[tuple[str, str]]) -> list[tuple[str, str, str | None]]:
    """(tag, line, the line it replaces or is replaced by) — a run of `-` lines followed by a
    run of `+` lines is paired line by line, for word-level highlighting."""
    out: list[tuple[str, str, str | None]] = []
    i = 0
    while i < len(lines):
        if lines[i][0] != "-":
            out.append((lines[i][0], lines[i][1], None))
            i += 1
            continue
        j, k = change_block(lines, i)
        minus, plus = lines[i:j], lines[j:k]
        for n, (_, text) in enumerate(minus):
            out.append(("-", text, plus[n][1] if n < len(plus) else None))
        for n, (_, text) in enumerate(plus):
            out.append(("+", text, minus[n][1] if n < len(minus) else None))
        i = k
    return out


def _diff_line(tag: str, text: str, other: str | None, colour: bool) -> str:
    if not colour:
        return tag + clean_line(text)
    base = "red" if tag == "-" else "green" if tag == "+" else None
    if base is None:
        return " " + clean_line(text)
    if other is None:
        return paint(tag + clean_line(text), base, sys.stdout)
    old, new = (text, other) if tag == "-" else (other, text)
    runs = word_diff(old, new)[0 if tag == "-" else 1]
    body = "".join(paint(clean_line(t), base + "-word" if changed else base, sys.stdout)
                   for t, changed in runs)
    return paint(tag, base, sys.stdout) + body


def hunk_lines(hunks: Sequence[Hunk], colour: bool) -> list[str]:
    out: list[str] = []
    for h in hunks:
        out.append(paint(h.header, "cyan", sys.stdout) if colour else h.header)
        out.extend(_diff_line(tag, text, other, colour) for tag, text, other in _pairs(h.lines))
    return out


def _section_title(s: SectionChange) -> str:
    cache = f"{s.cache} · " if s.cache else ""
    return f"{clean(s.id)} · {cache}{s.status} · {_signed(s.tokens_delta)} tokens"


def _prefix(case: CaseReview) -> str:
    if case.prefix_moved is None:
        return ""
    tokens = ""
    if case.prefix_tokens and case.prefix_tokens[0] != case.prefix_tokens[1]:
        tokens = f" ({case.prefix_tokens[0]:,} → {case.prefix_tokens[1]:,} tokens)"
    return "moved" + tokens if case.prefix_moved else "unchanged"


def write_sections(out: IO[str], case: CaseReview, lines: int | None, indent: str,
                   seen: dict[Any, str], colour: bool) -> None:
    """Each changed section of a case: a title, then its changed lines (at most `lines`)."""
    first = True
    for s in case.changes:
        if not s.hunks:
            continue
        title = _section_title(s)
        key = s.signature()
        if key in seen:
            out.write(f"{indent}{title}: the same change as in {clean(seen[key])}\n")
            continue
        seen[key] = case.name
        if not first and not indent:
            out.write("\n")
        first = False
        out.write(indent + (paint(title, "bold", sys.stdout) if colour else title) + "\n")
        body = hunk_lines(s.hunks, colour)
        if lines is not None and len(body) > lines:
            more = len(body) - lines
            body = body[:lines] + [f"… {more:,} more line(s) (--lines all shows them; "
                                   "--format html puts them side by side)"]
        for line in body:
            out.write(f"{indent}  {line}\n")


def render_text(out: IO[str], cases: Sequence[CaseReview], lines: int | None,
                seen: dict[Any, str] | None = None) -> None:
    """A two-render diff: the section table, the cached prefix, then the changed lines."""
    colour = use_colour(out)
    seen = {} if seen is None else seen
    for case in cases:
        out.write(f"from {clean(case.before)}\n  to {clean(case.after)}\n\n")
        rows: list[list[Any]] = []
        for s in case.sections:
            colour_of = {"added": "green", "removed": "red", "changed": "yellow"}.get(s.status)
            rows.append([s.id, Styled(s.status, colour_of), s.cache, f"{s.tokens_before:,}",
                         f"{s.tokens_after:,}", _signed(s.tokens_delta)])
        rows.append(["total", "", "", f"{case.tokens_before:,}", f"{case.tokens_after:,}",
                     _signed(case.tokens_delta)])
        out.write(table(["section", "status", "cache", "tokens", "→ tokens", "delta"], rows,
                        "lllrrr") + "\n\n")
        prefix = _prefix(case)
        if prefix:
            out.write("cached prefix (the static block): " + paint(
                prefix, "yellow" if case.prefix_moved else "green", out) + "\n")
        if lines != 0 and any(s.hunks for s in case.changes):
            out.write("\n")
            write_sections(out, case, lines, "", seen, colour)


def render_snapshot_text(out: IO[str], cases: Sequence[CaseReview], lines: int | None) -> None:
    """`snapshot --check`: one line per added, removed or changed file, then per changed
    section its changed lines (the same change in several files is printed once)."""
    colour = use_colour(out)
    seen: dict[Any, str] = {}
    for case in cases:
        name = clean(case.name)
        if case.status == "added":
            out.write(paint(f"added:   {name}", "green", out) +
                      " (not in the snapshot folder yet)\n")
        elif case.status == "removed":
            out.write(paint(f"removed: {name}", "red", out) + " (no longer rendered)\n")
        elif case.status == "changed":
            ids = [clean(s.id) for s in case.changes]
            if case.name.endswith(".json"):  # native tool definitions: no sections, no tokens
                facts = ["tool definitions"]
            else:
                facts = [f"sections: {', '.join(ids)}"] if ids else []
                facts.append(f"{_signed(case.tokens_delta)} tokens")
            if case.prefix_moved is not None:
                facts.append("cached prefix " + ("moved" if case.prefix_moved else "unchanged"))
            out.write(paint(f"changed: {name}", "yellow", out) + f" ({'; '.join(facts)})\n")
            if lines != 0:
                write_sections(out, case, lines, "  ", seen, colour)


# --- markdown ------------------------------------------------------------------------------------

def _md(text: str) -> str:
    """Text for markdown prose or a table cell: escaped, never interpreted."""
    out = clean(text)
    for ch in "\\`*_[]<>|#":
        out = out.replace(ch, "\\" + ch)
    return out


def _code(text: str) -> str:
    """A name as inline code (safe in a table cell too)."""
    body = clean(text).replace("|", "\\|")
    ticks = "``" if "`" in body else "`"
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{ticks}{pad}{body}{pad}{ticks}"


def _fence(lines: Sequence[str]) -> str:
    """A code fence longer than any run of backticks in the block (prompts quote code)."""
    ticks = 3
    for line in lines:
        run = 0
        for ch in line:
            run = run + 1 if ch == "`" else 0
            ticks = max(ticks, run + 1)
    return "`" * ticks


def _md_diff(s: SectionChange, lines: int | None) -> list[str]:
    body = hunk_lines(s.hunks, colour=False)
    if lines is not None and len(body) > lines:
        body = body[:lines] + [f"… {len(body) - lines:,} more line(s)"]
    fence = _fence(body)
    return [fence + "diff", *body, fence, ""]


def render_markdown(cases: Sequence[CaseReview], lines: int | None, title: str) -> str:
    """A review for a pull request comment: a summary, the prompts that changed, then each
    distinct change once as a `diff` block with the prompts it appears in (folded with
    <details> when there are several)."""
    changed = [c for c in cases if c.status != "same"]
    delta = sum(c.tokens_delta for c in changed)
    moved = sum(bool(c.prefix_moved) for c in changed)
    out = [f"### {_md(title)}", ""]
    if not changed:
        out.append(f"No prompt changed ({len(cases)} compared).")
        return "\n".join(out) + "\n"
    out.append(f"**{len(changed)} of {len(cases)} prompt(s) changed** · {_signed(delta)} tokens "
               f"in total · cached prefix moved in {moved}")
    out.append("")
    rows = ["| prompt | status | tokens | Δ tokens | cached prefix | sections |",
            "|---|---|---:|---:|---|---|"]
    for c in changed:
        ids = ", ".join(_code(s.id) for s in c.changes)
        rows.append(f"| {_code(c.name)} | {c.status} | {c.tokens_before:,} → "
                    f"{c.tokens_after:,} | {_signed(c.tokens_delta)} | {_prefix(c) or '–'} "
                    f"| {ids} |")
    if len(changed) > 10:
        out += [f"<details><summary>The {len(changed)} prompts that changed</summary>", "",
                *rows, "", "</details>", ""]
    else:
        out += [*rows, ""]
    # each distinct section change once, with every prompt it appears in
    groups: dict[Any, tuple[SectionChange, list[str]]] = {}
    for c in changed:
        for s in c.changes:
            if s.hunks:
                groups.setdefault(s.signature(), (s, []))[1].append(c.name)
    fold = len(groups) > 1 or len(changed) > 1
    for s, names in groups.values():
        head = f"{_code(s.id)} · {s.cache + ' · ' if s.cache else ''}{s.status} · " \
               f"{_signed(s.tokens_delta)} tokens"
        where = (f"in {_code(names[0])}" if len(names) == 1 else
                 f"in {len(names)} prompts")
        if fold:
            out += [f"<details><summary>{_md(s.id)}: {s.status}, {_signed(s.tokens_delta)} "
                    f"tokens, {where}</summary>", ""]
        out += [f"**{head}** {where}", ""]
        if len(names) > 1:
            shown = ", ".join(_code(n) for n in names[:12])
            more = f" and {len(names) - 12} more" if len(names) > 12 else ""
            out += [f"Prompts: {shown}{more}", ""]
        out += _md_diff(s, lines)
        if fold:
            out += ["</details>", ""]
    return "\n".join(out) + "\n"


# --- commands ------------------------------------------------------------------------------------

def _lines_arg(text: str) -> int | None:
    if text == "all":
        return None
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'all', got {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError("must be ≥ 0")
    return n


def _format(args: argparse.Namespace) -> str:
    return "json" if args.json else str(args.format)


def _emit(args: argparse.Namespace, cases: Sequence[CaseReview], title: str) -> bool:
    """Print the markdown or HTML form if asked; True when done."""
    fmt = _format(args)
    if fmt == "markdown":
        sys.stdout.write(render_markdown(cases, args.lines, title))
        return True
    if fmt == "html":
        from .html import render_html
        sys.stdout.write(render_html(cases, title))
        return True
    return False


def _expected(args: argparse.Namespace, compiler: Compiler, matrix: Matrix,
              strict: bool) -> dict[str, Rendered]:
    """The matrix rendered, with a progress line on a terminal."""
    from .._review.snapshot import expected_files
    n = len(matrix.cases) + len(matrix.tool_cases)
    progress = Progress("rendering snapshots", n, quiet=args.quiet)
    try:
        return expected_files(compiler, matrix, strict=strict, progress=progress)
    finally:
        progress.clear()


def snapshot_command(args: argparse.Namespace, action: str, folder: str | None = None,
                     matrix: str | None = None) -> str:
    """The `promptc snapshot` command line that repeats this run with another action: the same
    matrix, folder and sources, quoted for a POSIX shell."""
    import shlex
    matrix = matrix if matrix is not None else getattr(args, "matrix", None)
    words = ["promptc", "snapshot", action]
    if matrix:
        words += ["--matrix", matrix]
    words += ["--dir", folder if folder is not None else args.dir]
    words += source_flags(args)
    return " ".join(shlex.quote(w) for w in words)


def _matrix_path(args: argparse.Namespace) -> Path | None:
    return Path(args.matrix) if args.matrix else None


def cmd_snapshot(args: argparse.Namespace) -> int:
    from .._review.manifest import matrix_name
    from .._review.snapshot import check_matrix, load_matrix, update_dir
    folder = Path(args.dir)
    if args.update:
        check_matrix(folder, _matrix_path(args), force=args.force)
    compiler = compiler_from(args)
    matrix = load_matrix(args.matrix, compiler)
    if not args.update and not folder.is_dir():
        raise UsageError(f"no snapshot folder at {folder} (write one with "
                         f"`{snapshot_command(args, '--update')}`)")
    expected = _expected(args, compiler, matrix, strict=True)
    if args.update:
        diff = update_dir(folder, expected, allow_foreign=args.force,
                          matrix=matrix_name(_matrix_path(args), folder))
        _report_update(args, folder, len(expected), diff)
        return 0
    from .._review.diff import review_snapshots
    cases = review_snapshots(folder, expected)
    changed = [c for c in cases if c.status != "same"]
    fmt = _format(args)
    if fmt == "json":
        print_json(_check_report(args, changed))
        return 1 if changed else 0
    if _emit(args, cases, f"promptc snapshot review: {folder}"):
        return 1 if changed else 0
    out = sys.stdout
    render_snapshot_text(out, changed, args.lines)
    if not changed:
        out.write(paint(f"ok: {len(expected)} snapshot(s) match {clean(folder)}", "green", out)
                  + "\n")
        return 0
    _other_matrix_note(out, args, folder)
    counts = {k: sum(c.status == k for c in changed) for k in ("added", "changed", "removed")}
    out.write(f"{counts['added']} added, {counts['changed']} changed, {counts['removed']} "
              f"removed; run `{clean(snapshot_command(args, '--update'))}` to accept\n")
    return 1


def _report_update(args: argparse.Namespace, folder: Path, n: int, diff: Any) -> None:
    if _format(args) == "json":
        print_json({"updated": True, "added": list(diff.added), "removed": list(diff.removed),
                    "changed": [c[0] for c in diff.changed]})
    else:
        sys.stdout.write(f"{n} snapshot(s) in {clean(folder)}: {len(diff.added)} added, "
                         f"{len(diff.changed)} changed, {len(diff.removed)} removed\n")


def _check_report(args: argparse.Namespace, changed: Sequence[CaseReview]) -> dict[str, Any]:
    """`snapshot --check --json`: what differs, and the command that accepts it."""
    return {
        "clean": not changed,
        "added": [_file(c) for c in changed if c.status == "added"],
        "removed": [_file(c) for c in changed if c.status == "removed"],
        "changed": [{"case": _file(c), "sections": [s.id for s in c.changes],
                     "diff": "\n".join(s.unified() for s in c.changes if s.hunks),
                     "tokens_delta": c.tokens_delta, "static_prefix_moved": c.prefix_moved,
                     "changes": [s.to_dict() for s in c.changes]}
                    for c in changed if c.status == "changed"],
        "update": snapshot_command(args, "--update")}


def _other_matrix_note(out: IO[str], args: argparse.Namespace, folder: Path) -> None:
    """When the folder was written from another matrix, say so and how to check against it."""
    from .._review.manifest import BUILTIN, read_manifest, same_matrix, shown_matrix
    recorded = read_manifest(folder).matrix
    if recorded is None or same_matrix(recorded, _matrix_path(args), folder):
        return
    theirs = shown_matrix(recorded, folder)
    check = snapshot_command(args, "--check", matrix="" if recorded == BUILTIN else theirs)
    out.write(f"note: {clean(folder)} was written from "
              f"{theirs if recorded == BUILTIN else 'the matrix ' + theirs}; to check it "
              f"against that one: `{clean(check)}`\n")


def _file(case: CaseReview) -> str:
    return case.name if case.name.endswith(".json") else case.name + ".md"


# Which company serves a model family first-hand, by the first word of its normalized id. A
# diff that changes only the model keeps a router or local server (openrouter, ollama, …) and
# moves between these vendors; anything else needs --to-provider.
_VENDORS = {"claude": "anthropic", "gpt": "openai", "chatgpt": "openai", "o1": "openai",
            "o3": "openai", "o4": "openai", "gemini": "google", "grok": "xai", "glm": "zai",
            "kimi": "moonshot", "deepseek": "deepseek"}


def provider_for(model: str, current: str) -> str:
    """The provider for `--to-model` alone: the current one when it is a router or local
    server, else the vendor of the new model's family (UsageError when that is unknown)."""
    from .._model.provider import model_tokens
    if current.strip().lower() not in set(_VENDORS.values()):
        return current
    words = model_tokens(model)
    vendor = _VENDORS.get(words[0]) if words else None
    if vendor is None:
        raise UsageError(f"--to-model {model!r}: which provider serves it? add --to-provider "
                         f"(the first side is {current!r})")
    return vendor


def cmd_diff(args: argparse.Namespace) -> int:
    from .._review.diff import diff_prompts, review_prompts
    compiler = compiler_from(args)
    if args.snapshots:
        return _diff_snapshots(args, compiler)
    if not (args.to_provider or args.to_model or args.to_context or args.to_variant or
            args.to_date or args.to_cwd):
        raise UsageError("diff needs something to compare: --to-model, --to-provider, "
                         "--to-variant, --to-context, --to-date, --to-cwd, or --snapshots DIR")
    info, ctx = target_from(args, compiler.features)
    to_args = argparse.Namespace(**vars(args))
    to_args.provider = args.to_provider or (provider_for(args.to_model, info.provider)
                                            if args.to_model else info.provider)
    to_args.model = args.to_model or info.model
    to_args.context = args.to_context or args.context
    info_b, ctx_b = target_from(to_args, compiler.features)
    changes = {}
    if args.to_date:
        changes["date"] = args.to_date
    if args.to_cwd:
        changes["cwd"] = args.to_cwd
    if changes:
        ctx_b = attrs.evolve(ctx_b, **changes)
    a = compiler.compile(info, ctx, variant=args.variant, count_tokens=True)
    b = compiler.compile(info_b, ctx_b, variant=args.to_variant or (
        args.variant if not (args.to_model or args.to_provider) else None), count_tokens=True)
    review = review_prompts(a, b)
    fmt = _format(args)
    if fmt == "json":
        print_json(diff_prompts(a, b, review))
    elif not _emit(args, [review], "promptc diff: " + review.name):
        render_text(sys.stdout, [review], args.lines)
    return _threshold(args, review.tokens_delta)


def _diff_snapshots(args: argparse.Namespace, compiler: Compiler) -> int:
    from .._review.diff import review_snapshots, snapshot_report
    from .._review.snapshot import load_matrix
    folder = Path(args.snapshots)
    if not folder.is_dir():
        raise UsageError(f"--snapshots {str(folder)!r}: no such folder (write one with "
                         f"`{snapshot_command(args, '--update', folder=str(folder))}`)")
    matrix = load_matrix(args.matrix, compiler)
    cases = review_snapshots(folder, _expected(args, compiler, matrix, strict=False))
    growth = max((c.tokens_delta for c in cases if c.status != "same"), default=0)
    if _format(args) == "json":
        print_json(snapshot_report(folder, cases))
    elif not _emit(args, cases, f"promptc review: {folder}"):
        changed = [c for c in cases if c.status != "same"]
        rows = [[c.name, c.status, *(("", "", "") if c.name.endswith(".json") else (
                    f"{c.tokens_before:,}", f"{c.tokens_after:,}", _signed(c.tokens_delta))),
                 _prefix(c), ", ".join(s.id for s in c.changes)] for c in changed]
        out = sys.stdout
        if rows:
            out.write(table(["case", "status", "before", "after", "delta", "cached prefix",
                             "sections"], rows, "llrrrll", max_lines=2) + "\n\n")
            render_snapshot_text(out, [c for c in changed if c.status == "changed"],
                                 args.lines)
        else:
            out.write("no differences\n")
    return _threshold(args, growth)


def _threshold(args: argparse.Namespace, growth: int) -> int:
    if args.max_growth_tokens is not None and growth > args.max_growth_tokens:
        sys.stderr.write(f"promptc: prompt grew by {growth} tokens, over the limit of "
                         f"{args.max_growth_tokens}\n")
        return 1
    return 0


def cmd_new_variant(args: argparse.Namespace) -> int:
    from .._review.scaffold import new_variant
    compiler = compiler_from(args)
    path = new_variant(compiler, args.id, args.base, Path(args.dir) if args.dir else None,
                       force=args.force)
    sys.stdout.write(f"wrote {clean(path)}\n")
    sys.stdout.write(f"try: promptc render --variant {clean(args.id)} --provider P --model M\n")
    return 0


def _review_output(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("output")
    g.add_argument("--format", default="text", choices=("text", "json", "markdown", "html"),
                   help="text (default); json: the full data; markdown: for a pull request "
                        "comment; html: one self-contained page, side by side")
    g.add_argument("--json", action="store_true", help="the same as --format json")
    g.add_argument("--lines", type=_lines_arg, default=DEFAULT_LINES, metavar="N|all",
                   help=f"changed lines shown per section in text and markdown (default "
                        f"{DEFAULT_LINES}; 0: the summary only)")
    g.add_argument("-q", "--quiet", action="store_true",
                   help="no progress line while a large matrix renders")


def add_review_commands(sub: Any, commands: dict[str, Callable[[argparse.Namespace], int]],
                        command: Callable[..., argparse.ArgumentParser]) -> None:
    p = command(sub, "snapshot", "render the snapshot matrix; check or update a folder",
                "Render every case of the snapshot matrix (see: promptc help matrix) and "
                "compare it with a folder of snapshot files: per changed section, the changed "
                "lines, the token delta and whether the cached prefix moved. --update "
                "rewrites the folder instead.",
                ["promptc snapshot --check --builtins-only",
                 "promptc snapshot --update --builtins-only",
                 "promptc snapshot --builtins-only --format markdown > review.md"],
                "0 the folder matches (or was updated) · 1 differences · 2 bad usage, a bad "
                "matrix or a missing folder")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="compare with the folder (the default); exit 1 on differences")
    mode.add_argument("--update", action="store_true",
                      help="rewrite the snapshot files in the folder with the current renders "
                           "(only files promptc wrote are changed or removed)")
    p.add_argument("--force", action="store_true",
                   help="with --update: update even though the folder holds files promptc did "
                        "not write (they are left alone)")
    p.add_argument("--matrix", metavar="FILE",
                   help="matrix TOML (default: the built-in one; see: promptc help matrix)")
    p.add_argument("--dir", default="snapshots", metavar="DIR",
                   help="snapshot folder (default: snapshots)")
    _review_output(p)
    add_sources(p)
    commands["snapshot"] = cmd_snapshot

    p = command(sub, "diff", "section-aware diff between two renders, or against a snapshot "
                             "folder",
                "Compare two renders section by section (change the model, provider, variant, "
                "context, date or cwd with the --to-… options), or the working tree's "
                "renders with a snapshot folder: per section the changed lines, the token "
                "delta, and whether the cached prefix moved.",
                ["promptc diff --provider anthropic --model claude-sonnet-4-5 "
                 "--to-model claude-opus-4-5",
                 "promptc diff --provider openai --model gpt-4.1 --variant generic "
                 "--to-variant compact",
                 "promptc diff --snapshots snapshots --max-growth-tokens 200 --format html "
                 "> review.html"],
                "0 ok (differences are not failures) · 1 --max-growth-tokens crossed · 2 bad "
                "usage, bad input or a missing folder")
    add_target(p)
    g = p.add_argument_group("the other side (unset: the same as the first)")
    g.add_argument("--to-provider", metavar="P",
                   help="provider id (default with --to-model: the new model's vendor, or "
                        "the same router or local server)")
    g.add_argument("--to-model", metavar="M", help="model id")
    g.add_argument("--to-variant", metavar="ID", help="variant id instead of matching")
    g.add_argument("--to-context", metavar="FILE", help="another context file")
    g.add_argument("--to-date", metavar="YYYY-MM-DD", help="another date")
    g.add_argument("--to-cwd", metavar="DIR", help="another working directory")
    g = p.add_argument_group("against a snapshot folder")
    g.add_argument("--snapshots", metavar="DIR",
                   help="compare the working tree's renders with this snapshot folder")
    g.add_argument("--matrix", metavar="FILE", help="with --snapshots: the matrix (default: "
                                                    "the built-in one)")
    p.add_argument("--max-growth-tokens", type=int, metavar="N",
                   help="exit 1 when a prompt grows by more than N tokens (a CI gate)")
    _review_output(p)
    commands["diff"] = cmd_diff

    p = command(sub, "new-variant", "scaffold a variant that extends another",
                "Write a commented variant.toml that extends BASE: the new variant renders "
                "exactly like its base until you uncomment a [match] table or add "
                "components/<id>.md next to it.",
                ["promptc new-variant mine --from generic",
                 "promptc new-variant acme --from generic --dir promptc_acme/data",
                 "promptc new-variant mine --from next-gen --force"],
                "0 written · 2 bad usage, an unknown BASE, or a variant that exists (without "
                "--force)", "promptc help folders · docs/authoring.md in the promptc "
                            "repository")
    p.add_argument("id", help="the new variant's id")
    p.add_argument("--from", dest="base", required=True, metavar="BASE",
                   help="the variant to extend (`promptc variants` lists them)")
    p.add_argument("--dir", metavar="DIR",
                   help="folder to write into (default: the project's .promptc/)")
    p.add_argument("--force", action="store_true", help="overwrite an existing variant.toml")
    add_sources(p)
    commands["new-variant"] = cmd_new_variant
