"""Reading text files the same way everywhere: UTF-8, BOM dropped, CRLF folded, size bounded."""

from __future__ import annotations

from pathlib import Path

from ._errors import PromptcError

__all__ = ["read_text_file"]


def read_text_file(path: Path, error: type[PromptcError], limit: int,
                   allow_nul: bool = False) -> str:
    """The file's text; every problem raises `error` naming the file (and the line, if any)."""
    try:
        size = path.stat().st_size
        if size > limit:
            raise error(f"file is {size} bytes, over the {limit}-byte limit", source=str(path))
        raw = path.read_bytes()
    except FileNotFoundError:
        raise error("file not found", source=str(path)) from None
    except IsADirectoryError:
        raise error("is a directory, not a file", source=str(path)) from None
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror or exc}", source=str(path)) from None
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
