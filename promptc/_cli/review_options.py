"""What `promptc snapshot` and `diff` share: the output options, printing a review as markdown
or HTML, rendering the snapshot matrix with a progress line, and the `promptc snapshot`
command line that repeats a run."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from .args import UsageError, source_flags
from .format import Progress
from .review import render_markdown

if TYPE_CHECKING:
    from .._compile.compiler import Compiler
    from .._review.diff import CaseReview
    from .._review.snapshot import Matrix, Rendered

__all__ = ["DEFAULT_LINES", "lines_arg", "add_review_output", "output_format", "emit_review",
           "expected_renders", "snapshot_command", "matrix_path", "Chosen", "chosen_matrix",
           "snapshot_folder", "typed"]

DEFAULT_LINES = 40


def lines_arg(text: str) -> int | None:
    """`--lines`: a number, or `all` (None)."""
    if text == "all":
        return None
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'all', got {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError("must be ≥ 0")
    return n


def add_review_output(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("output")
    g.add_argument("--format", default="text", choices=("text", "json", "markdown", "html"),
                   help="text (default); json: the full data; markdown: for a pull request "
                        "comment; html: one self-contained page, side by side")
    g.add_argument("--json", action="store_true", help="the same as --format json")
    g.add_argument("--lines", type=lines_arg, default=DEFAULT_LINES, metavar="N|all",
                   help=f"changed lines shown per section in text and markdown (default "
                        f"{DEFAULT_LINES}; 0: the summary only)")
    g.add_argument("-q", "--quiet", action="store_true",
                   help="no progress line while a large matrix renders")


def output_format(args: argparse.Namespace) -> str:
    return "json" if args.json else str(args.format)


def emit_review(args: argparse.Namespace, cases: Sequence[CaseReview], title: str) -> bool:
    """Print the markdown or HTML form if asked; True when done."""
    fmt = output_format(args)
    if fmt == "markdown":
        sys.stdout.write(render_markdown(cases, args.lines, title))
        return True
    if fmt == "html":
        from .html import render_html
        sys.stdout.write(render_html(cases, title))
        return True
    return False


def expected_renders(args: argparse.Namespace, compiler: Compiler, matrix: Matrix,
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


def matrix_path(args: argparse.Namespace) -> Path | None:
    return Path(args.matrix) if args.matrix else None


def snapshot_folder(given: str | None, compiler: Compiler) -> Path:
    """The snapshot folder: the one given, else the project file's `snapshots` (as a person
    would type it from here), else `snapshots` in the working directory."""
    if given:
        return Path(given)
    return Path(typed(compiler.project.snapshots)) if compiler.project.snapshots else \
        Path("snapshots")


def typed(path: Path) -> str:
    """A path as a person would type it from the working directory: relative when that is
    shorter, else as it is (for messages and the commands promptc suggests)."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)
    return relative if len(relative) < len(str(path)) else str(path)


@attrs.frozen
class Chosen:
    """The matrix a snapshot folder is rendered from (None: the built-in one), and why."""

    path: Path | None
    name: str  # as a person would type it, or "the built-in matrix"
    why: str  # "given", "project", "recorded" (the folder's manifest) or "default"


def chosen_matrix(args: argparse.Namespace, compiler: Compiler, folder: Path) -> Chosen:
    """The matrix for `folder`: the one that wrote it (its manifest records it), which
    `--matrix` or the project file's `matrix` may only repeat (naming another is an error
    naming both); for a folder that records none, `--matrix`, else the project's, else the
    built-in one."""
    from .._review.manifest import BUILTIN, read_manifest, recorded_path, shown_matrix
    given = matrix_path(args)
    project = compiler.project.matrix
    recorded = read_manifest(folder).matrix if folder.is_dir() else None
    if recorded is None:
        path = given or project
        why = "given" if given else "project" if project else "default"
        return Chosen(path, _shown(path), why)
    own = recorded_path(recorded, folder)
    for other, what in ((given, "--matrix"), (project, _project_key(compiler))):
        if other is not None and (own is None or os.path.abspath(other) != str(own)):
            raise UsageError(
                f"{what} names {_shown(other)}, but {folder} was written from "
                f"{shown_matrix(recorded, folder)}; check it against that one (leave "
                f"{what} out), or rewrite it from {_shown(other)} with `promptc snapshot "
                f"--update --dir {folder} --matrix {_shown(other)} --force`")
    return Chosen(own, shown_matrix(recorded, folder) if recorded != BUILTIN else
                  "the built-in matrix", "recorded")


def _project_key(compiler: Compiler) -> str:
    return f"the project file's `matrix` ({typed(Path(compiler.project.file))})"


def _shown(path: Path | None) -> str:
    return "the built-in matrix" if path is None else typed(path)
