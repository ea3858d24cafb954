#!/usr/bin/env python3
"""Hold promptc's code to the complexity and size its anchors keep (issue 25), and to no
generated source (issue 36).

    python scripts/check_code.py                       # promptc/, the project's limits
    python scripts/check_code.py --max-share 10 --fail-rank F --max-lines 1100 promptc

Fails (exit 1), naming what is over, when more than `--max-share` percent of the functions and
methods rank C or worse in radon's cyclomatic complexity, when any ranks `--fail-rank` or worse,
when a module is longer than `--max-lines` lines, when a module calls the `exec`, `eval` or
`compile` builtins (source made into code at run time), or when the folder holds a `.marshal`
file. Prints the counts either way. Exit 2: bad arguments, or a folder with no Python in it.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Sequence
from pathlib import Path

import attrs
from radon.complexity import cc_rank, cc_visit
from radon.visitors import Function

ROOT = Path(__file__).resolve().parent.parent
RANKS = "ABCDEF"
GENERATING = frozenset({"exec", "eval", "compile"})  # builtins that turn source into code


@attrs.frozen
class Limits:
    """What the code may not exceed."""

    max_share: float  # percent of functions ranked C or worse
    fail_rank: str  # no function may rank this or worse
    max_lines: int  # per module


@attrs.frozen
class Ranked:
    """One function or method and its radon complexity."""

    where: str  # path:line
    name: str
    complexity: int

    @property
    def rank(self) -> str:
        return str(cc_rank(self.complexity))


@attrs.frozen
class Findings:
    """Everything measured, and what is over the limits."""

    functions: tuple[Ranked, ...]
    sizes: tuple[tuple[str, int], ...]  # (path, lines) of every module
    problems: tuple[str, ...]


def ranked_functions(path: Path, shown: str) -> list[Ranked]:
    """The functions and methods of one module, and the functions nested in them: radon
    leaves a nested function's branches out of its parent's complexity, so it is ranked on
    its own (else a branchy closure would hide from the check)."""
    out: list[Ranked] = []
    pending = [(b, b.fullname) for b in cc_visit(path.read_text(encoding="utf-8"))
               if isinstance(b, Function)]
    while pending:
        block, name = pending.pop()
        out.append(Ranked(f"{shown}:{block.lineno}", name, block.complexity))
        pending += [(c, f"{name}.{c.name}") for c in block.closures]
    return sorted(out, key=lambda r: (int(r.where.rsplit(":", 1)[1]), r.name))


def complexity_problems(functions: Sequence[Ranked], limits: Limits) -> list[str]:
    over = [f for f in functions if f.rank >= "C"]
    out = []
    share = 100 * len(over) / len(functions) if functions else 0.0
    if share > limits.max_share:
        out.append(f"{len(over)} of {len(functions)} functions ({share:.1f}%) rank C or worse; "
                   f"the limit is {limits.max_share:g}%")
    out += [f"{f.where}: {f.name} ranks {f.rank} (complexity {f.complexity}); nothing may "
            f"rank {limits.fail_rank} or worse" for f in functions if f.rank >= limits.fail_rank]
    return out


def size_problems(sizes: Sequence[tuple[str, int]], max_lines: int) -> list[str]:
    return [f"{path}: {lines} lines; the limit is {max_lines}"
            for path, lines in sizes if lines > max_lines]


def generated_source(tree: ast.AST, shown: str) -> list[str]:
    """Each call of the `exec`, `eval` or `compile` builtins in one module (by name, or as an
    attribute of `builtins`); a method of that name (`re.compile`, `compiler.compile`) is
    another function."""
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if (
            isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and func.value.id in ("builtins", "__builtins__")) else None
        if name in GENERATING:
            out.append(f"{shown}:{node.lineno}: calls {name}(): no source is made into code "
                       "at run time")
    return out


def marshal_files(folder: Path) -> list[str]:
    return [f"{_shown(path)}: marshal'd data; ship the data it was made from"
            for path in sorted(folder.rglob("*.marshal"))]


def check(folder: Path, limits: Limits) -> Findings:
    """Measure every module under `folder`; a module that does not parse is a problem."""
    functions: list[Ranked] = []
    sizes: list[tuple[str, int]] = []
    unreadable: list[str] = []
    generated: list[str] = []
    for path in sorted(folder.rglob("*.py")):
        shown = _shown(path)
        text = path.read_text(encoding="utf-8")
        sizes.append((shown, len(text.splitlines())))
        try:
            generated += generated_source(ast.parse(text), shown)
            functions += ranked_functions(path, shown)
        except SyntaxError as exc:
            unreadable.append(f"{shown}:{exc.lineno}: cannot be parsed ({exc.msg})")
    problems = [*unreadable, *complexity_problems(functions, limits),
                *size_problems(sizes, limits.max_lines), *generated, *marshal_files(folder)]
    return Findings(tuple(functions), tuple(sizes), tuple(problems))


def _shown(path: Path) -> str:
    """The path as a reader finds it: relative to the repository when inside it."""
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def summary(findings: Findings) -> str:
    count = len(findings.functions)
    by_rank = {r: sum(f.rank == r for f in findings.functions) for r in RANKS}
    over = sum(by_rank[r] for r in RANKS[2:])
    share = f" ({100 * over / count:.1f}%)" if count else ""
    biggest = max(findings.sizes, key=lambda s: s[1])
    ranks = ", ".join(f"{r} {n}" for r, n in by_rank.items())
    return (f"{count} functions: {ranks}; C or worse: {over}{share}\n"
            f"{len(findings.sizes)} modules, the longest {biggest[0]} ({biggest[1]} lines)")


def _percent(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"a percentage from 0 to 100, got {text}")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"a positive number of lines, got {text}")
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="check_code.py", description=__doc__.split("\n\n")[0])
    p.add_argument("folder", nargs="?", type=Path, default=ROOT / "promptc",
                   help="the package to check (default: promptc/)")
    p.add_argument("--max-share", type=_percent, default=7.0, metavar="PERCENT",
                   help="most functions that may rank C or worse, in percent (default: 7)")
    p.add_argument("--fail-rank", choices=list(RANKS[1:]), default="E",
                   help="no function may rank this or worse (default: E)")
    p.add_argument("--max-lines", type=_positive, default=600, metavar="N",
                   help="longest a module may be, in lines (default: 600)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if not args.folder.is_dir() or not any(args.folder.rglob("*.py")):
        print(f"check_code.py: {args.folder}: not a folder with Python modules", file=sys.stderr)
        return 2
    findings = check(args.folder, Limits(args.max_share, args.fail_rank, args.max_lines))
    print(summary(findings))
    for problem in findings.problems:
        print(problem)
    return 1 if findings.problems else 0


if __name__ == "__main__":
    sys.exit(main())
