"""`promptc snapshot`: render the snapshot matrix and check a folder of snapshot files against
it (per changed section: the changed lines, the token delta, whether the cached prefix moved),
or update the folder."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .args import (COMMANDS, Command, CommandFactory, UsageError, add_command, add_sources,
                   compiler_from, print_json)
from .format import clean, paint
from .review import render_snapshot_text
from .review_options import (Chosen, add_review_output, chosen_matrix, emit_review,
                             expected_renders, matrix_path, output_format, snapshot_command,
                             snapshot_folder, typed)

if TYPE_CHECKING:
    from .._review.diff import CaseReview
    from .._review.snapshot import Rendered

__all__ = ["cmd_snapshot", "add_snapshot_command"]


def cmd_snapshot(args: argparse.Namespace) -> int:
    from .._review.snapshot import check_matrix, load_matrix
    compiler = compiler_from(args)
    args.dir = typed(snapshot_folder(args.dir, compiler))
    folder = Path(args.dir)
    if args.update:
        path = matrix_path(args) or compiler.project.matrix
        if path is None and not args.force:  # the matrix that wrote the folder, if any
            path = chosen_matrix(args, compiler, folder).path
        check_matrix(folder, path, force=args.force)
        chosen = Chosen(path, "", "given")
    else:
        if not folder.is_dir():
            raise UsageError(f"no snapshot folder at {folder} (write one with "
                             f"`{snapshot_command(args, '--update')}`)")
        chosen = chosen_matrix(args, compiler, folder)
    matrix = load_matrix(chosen.path, compiler)
    expected = expected_renders(args, compiler, matrix, strict=True)
    if args.update:
        return _update(args, folder, expected, chosen.path)
    return _check(args, folder, expected, chosen)


def _update(args: argparse.Namespace, folder: Path, expected: dict[str, Rendered],
            matrix: Path | None) -> int:
    from .._review.manifest import matrix_name
    from .._review.snapshot import update_dir
    diff = update_dir(folder, expected, allow_foreign=args.force,
                      matrix=matrix_name(matrix, folder))
    if output_format(args) == "json":
        print_json({"updated": True, "added": list(diff.added), "removed": list(diff.removed),
                    "changed": [c[0] for c in diff.changed]})
    else:
        sys.stdout.write(f"{len(expected)} snapshot(s) in {clean(folder)}: {len(diff.added)} "
                         f"added, {len(diff.changed)} changed, {len(diff.removed)} removed\n")
    return 0


def _check(args: argparse.Namespace, folder: Path, expected: dict[str, Rendered],
           chosen: Chosen) -> int:
    """Compare the folder with the renders; exit 1 when anything differs."""
    from .._review.diff import review_snapshots
    cases = review_snapshots(folder, expected)
    changed = [c for c in cases if c.status != "same"]
    update, blocked = _update_command(args, folder, expected)
    if output_format(args) == "json":
        print_json({**_check_report(changed, update), "matrix": chosen.name,
                    "blocked": list(blocked)})
    elif not emit_review(args, cases, f"promptc snapshot review: {folder}"):
        _write_check(sys.stdout, folder, changed, len(expected), update, chosen, args.lines,
                     blocked)
    return 1 if changed else 0


def _update_command(args: argparse.Namespace, folder: Path, expected: Mapping[str, Rendered]
                    ) -> tuple[str, tuple[str, ...]]:
    """The command that accepts this check's differences, as it must be typed, and the files
    to move away before it can run (a file of the user's where a snapshot goes: an update
    refuses it whatever the flags). With --force when the folder holds other files promptc
    did not write (an update refuses such a folder without it, and with it leaves those files
    alone). A folder written from another matrix never gets here: the check refuses it,
    naming both."""
    from .._review.snapshot import check_dir
    command = snapshot_command(args, "--update")
    if not folder.is_dir():
        return command, ()
    state = check_dir(folder, expected)
    foreign = set(state.foreign) - set(state.blocked)
    return (f"{command} --force" if foreign else command), state.blocked


def _write_check(out: IO[str], folder: Path, changed: Sequence[CaseReview], n: int,
                 update: str, chosen: Chosen, lines: int | None,
                 blocked: Sequence[str] = ()) -> None:
    render_snapshot_text(out, changed, lines)
    matrix = f" (rendered from {clean(chosen.name)}{_WHY[chosen.why]})"
    if not changed:
        out.write(paint(f"ok: {n} snapshot(s) match {clean(folder)}", "green", out) + matrix +
                  "\n")
        return
    out.write(f"{clean(folder)}{matrix}\n")
    counts = {k: sum(c.status == k for c in changed) for k in ("added", "changed", "removed")}
    first = ""
    if blocked:
        shown = ", ".join(clean(name) for name in blocked[:5]) + (" …" if len(blocked) > 5
                                                                   else "")
        first = (f"move away {len(blocked)} file(s) promptc did not write that stand where "
                 f"snapshots go ({shown}), then ")
    out.write(f"{counts['added']} added, {counts['changed']} changed, {counts['removed']} "
              f"removed; {first}run `{clean(update)}` to accept\n")


def _check_report(changed: Sequence[CaseReview], update: str) -> dict[str, Any]:
    """`snapshot --check --json`: what differs, and the command that accepts it."""
    return {
        "clean": not changed,
        "added": [_file(c) for c in changed if c.status == "added"],
        "removed": [_file(c) for c in changed if c.status == "removed"],
        "changed": [_changed_entry(c) for c in changed if c.status == "changed"],
        "update": update}


def _changed_entry(case: CaseReview) -> dict[str, Any]:
    return {"case": _file(case), "sections": [s.id for s in case.changes],
            "diff": "\n".join(s.unified() for s in case.changes if s.hunks),
            "tokens_delta": case.tokens_delta, "static_prefix_moved": case.prefix_moved,
            "changes": [s.to_dict() for s in case.changes]}


_WHY = {"recorded": ", which wrote the folder", "project": ", the project file's",
        "given": "", "default": ""}


def _file(case: CaseReview) -> str:
    return case.name if case.name.endswith(".json") else case.name + ".md"


def add_snapshot_command(sub: Any, commands: dict[str, Command] = COMMANDS,
                         command: CommandFactory = add_command) -> None:
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
                   help="matrix TOML (default: the one that wrote the folder, else the "
                        "project file's `matrix`, else the built-in one; see: promptc help "
                        "matrix)")
    p.add_argument("--dir", default=None, metavar="DIR",
                   help="snapshot folder (default: the project file's `snapshots`, else "
                        "snapshots)")
    add_review_output(p)
    add_sources(p)
    commands["snapshot"] = cmd_snapshot
