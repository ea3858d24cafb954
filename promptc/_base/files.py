"""Reading data files the same way everywhere: UTF-8, BOM dropped, CRLF folded, size bounded.

Every problem (missing file, not a regular file, too large, bad encoding, bad JSON or TOML) raises
the caller's error class naming the file and, where there is one, the line.
"""

from __future__ import annotations

import json
import os
import re
import stat
import threading
import tomllib
from pathlib import Path
from typing import Any, BinaryIO, NoReturn

from .errors import PromptcError

__all__ = ["read_text_file", "read_toml", "parse_toml", "read_data_file", "parse_json",
           "write_text_file",
           "MAX_DATA_FILE", "read_text_stream", "decode_text"]

MAX_DATA_FILE = 4 * 1024 * 1024  # prompt data: templates, variant.toml, tool specs


def read_text_file(path: Path, error: type[PromptcError], limit: int = MAX_DATA_FILE,
                   allow_nul: bool = False) -> str:
    """The file's text. Only regular files are read, and never more than `limit` bytes (a FIFO
    or a link to a device would otherwise hang or read without end)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise error("file not found", source=str(path)) from None
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror or exc}", source=str(path)) from None
    except ValueError as exc:  # an embedded NUL in the path
        raise error(f"cannot read: {exc}", source=repr(str(path))) from None
    if stat.S_ISDIR(info.st_mode):
        raise error("is a directory, not a file", source=str(path))
    if not stat.S_ISREG(info.st_mode):
        raise error("is not a regular file", source=str(path))
    if info.st_size > limit:
        raise error(f"file is {info.st_size} bytes, over the {limit}-byte limit",
                    source=str(path))
    try:
        with open(path, "rb") as handle:
            raw = handle.read(limit + 1)
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror or exc}", source=str(path)) from None
    if len(raw) > limit:
        raise error(f"file is over the {limit}-byte limit", source=str(path))
    return decode_text(raw, str(path), error, allow_nul)


def read_text_stream(stream: BinaryIO, source: str, error: type[PromptcError],
                     limit: int = MAX_DATA_FILE, allow_nul: bool = False) -> str:
    """A stream's text (stdin), held to the same limit and rules as a file's: never more than
    `limit` bytes read."""
    raw = stream.read(limit + 1)
    if len(raw) > limit:
        raise error(f"is over the {limit}-byte limit", source=source)
    return decode_text(raw, source, error, allow_nul)


def decode_text(raw: bytes, source: str, error: type[PromptcError], allow_nul: bool = False
                ) -> str:
    """Bytes read as promptc reads every text: UTF-8 (a BOM dropped), line ends as LF, no NUL
    unless allowed."""
    path = source
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise error(f"not valid UTF-8 (byte {exc.start})", source=str(path), line=line) from None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not allow_nul and "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise error("contains a NUL byte", source=str(path), line=line)
    return text


def parse_toml(text: str, path: Path | str, error: type[PromptcError]) -> dict[str, Any]:
    """TOML text as a table; a syntax error names the file, line and column."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        _raise_toml(error, exc, str(path), text)
    except RecursionError:
        raise error("invalid TOML: nested too deeply", source=str(path)) from None


def read_toml(path: Path, error: type[PromptcError], limit: int = MAX_DATA_FILE
              ) -> dict[str, Any]:
    """Read and parse one TOML file: the one helper every loader uses."""
    return parse_toml(read_text_file(path, error, limit), path, error)


def read_data_file(path: Path, error: type[PromptcError], limit: int) -> Any:
    """Read a `.json` or `.toml` file into plain data."""
    suffix = path.suffix.lower()
    if suffix not in (".json", ".toml"):
        raise error(f"unsupported file type {suffix or '(none)'}: use .json or .toml",
                    source=str(path))
    text = read_text_file(path, error, limit, allow_nul=True)
    if suffix == ".toml":
        return parse_toml(text, path, error)
    data = parse_json(text, path, error)
    _check_surrogates(text, path, error)
    return data


_NOT_JSON = re.compile(r"(?<=[:\[,])\s*-?(?:NaN|Infinity)\b")  # in a value's place
_LONG_NUMBER = re.compile(r"\d{4300,}")  # Python refuses to convert more digits to an int


def _line_of(text: str, match: re.Match[str] | None) -> int | None:
    return text.count("\n", 0, match.start()) + 1 if match else None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(text: str, path: Path | str, error: type[PromptcError]) -> Any:
    """JSON text to plain data, strictly: `NaN` and `Infinity` (which json.loads accepts), a
    number of thousands of digits and nesting deeper than the parser can go are errors naming
    the file (and the line), never a ValueError or RecursionError."""
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise error(f"invalid JSON: {exc.msg} (column {exc.colno})", source=str(path),
                    line=exc.lineno) from None
    except RecursionError:
        raise error("invalid JSON: nested too deeply to read", source=str(path)) from None
    except ValueError as exc:
        constant = _NOT_JSON.search(text)
        if "JSON number" in str(exc):
            raise error(f"invalid JSON: {exc}", source=str(path),
                        line=_line_of(text, constant)) from None
        raise error("invalid JSON: a number of more than 4,300 digits", source=str(path),
                    line=_line_of(text, _LONG_NUMBER.search(text))) from None


# A \uD800-\uDFFF escape (after an even run of backslashes it is plain text, not an escape).
_SURROGATE_ESCAPE = re.compile(r"(\\+)u([dD][89a-fA-F][0-9a-fA-F]{2})")


def _lone_surrogate(text: str) -> tuple[int, int] | None:
    """(offset, code) of the first surrogate escape in JSON text that is not half of a pair.

    json.loads accepts `"\\ud800"` and returns a string no UTF-8 writer can encode, so such a
    value would only fail later, far from the file that carried it.
    """
    high: tuple[int, int, int] | None = None  # (offset, end, code) of an unpaired high half
    for m in _SURROGATE_ESCAPE.finditer(text):
        if len(m.group(1)) % 2 == 0:
            continue
        start = m.end(1) - 1
        code = int(m.group(2), 16)
        if code >= 0xDC00:
            if high is not None and high[1] == start:
                high = None
                continue
            return (high[0], high[2]) if high is not None else (start, code)
        if high is not None:
            return high[0], high[2]
        high = (start, m.end(), code)
    return (high[0], high[2]) if high is not None else None


def _check_surrogates(text: str, path: Path, error: type[PromptcError]) -> None:
    if "\\u" not in text:
        return
    lone = _lone_surrogate(text)
    if lone is not None:
        offset, code = lone
        line = text.count("\n", 0, offset) + 1
        column = offset - text.rfind("\n", 0, offset)
        raise error(f"invalid JSON: \\u{code:04x} is a lone surrogate, not a character "
                    f"(column {column})", source=str(path), line=line)


_TOML_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)")


def _raise_toml(error: type[PromptcError], exc: Exception, path: str, text: str) -> NoReturn:
    msg = str(exc)
    m = _TOML_AT.search(msg)
    line = int(m.group(1)) if m else None
    if line is None and "end of document" in msg:
        line = text.rstrip("\n").count("\n") + 1
    msg = _TOML_AT.sub("", msg) + (f" (column {m.group(2)})" if m else "")
    raise error(f"invalid TOML: {msg}", source=path, line=line) from None


def write_text_file(path: Path, text: str, root: Path, error: type[PromptcError]) -> None:
    """Write `text` (UTF-8, LF) to `path`, which must lie inside `root`.

    Never through a symbolic link, never outside `root` (a link among the folders on the way
    counts), and atomically: the text goes to a temporary file in the same folder, which then
    replaces `path` in one step, so a kill mid-write leaves the old file or the new one, never
    half of either.
    """
    import tempfile
    Path(root).mkdir(parents=True, exist_ok=True)
    root_real = Path(root).resolve()
    existing = path.parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent  # stops at `root` at the latest: it exists now
    if not existing.resolve().is_relative_to(root_real):
        raise error(f"is outside {str(root)!r} (through a symbolic link on the way); nothing "
                    "was written", source=str(path))
    if path.is_symlink():
        raise error("is a symbolic link; promptc does not write through links, nothing was "
                    "written", source=str(path))
    if path.exists() and not path.is_file():
        raise error("is not a regular file; nothing was written", source=str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.parent.resolve().is_relative_to(root_real):
        raise error(f"is outside {str(root)!r}; nothing was written", source=str(path))
    mode = _mode_for(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                         suffix=".tmp")
    try:
        if hasattr(os, "fchmod"):  # mkstemp makes the file 0600: give it the usual mode
            os.fchmod(handle, mode)
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _mode_for(path: Path) -> int:
    """The permissions a written file gets: an existing file's own, else what the process's
    umask gives any new file (0644 under the usual 022), as `open` would."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~_umask()


_UMASK_LOCK = threading.Lock()


def _umask() -> int:
    """The process's umask: read from /proc where there is one (reading it elsewhere means
    setting it, briefly, under a lock)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_LOCK:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask
