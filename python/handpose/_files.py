"""Opening what the loaders read: regular files only, so that a FIFO or a device put in an export folder
is refused by name instead of waiting forever for a writer (the binary's `RegularFile`, in Python)."""
from __future__ import annotations

import io
import os
import stat

from ._errors import FormatError


def open_regular(path: "str | os.PathLike[str]", text: bool = False) -> io.IOBase:
    """Opens ``path`` for reading without blocking, checks on the open descriptor that it is a regular file,
    and returns it as a binary file (``text``: UTF-8 text with universal newlines off, as ``csv`` wants).
    Raises ``FileNotFoundError`` when it is missing and :class:`FormatError` when it is not a regular file."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a device or socket"
            raise FormatError(os.fspath(path), f"is {kind}, not a regular file")
        os.set_blocking(fd, True)
        f = os.fdopen(fd, "r" if text else "rb", **({"newline": "", "encoding": "utf-8"} if text else {}))
    except BaseException:
        os.close(fd)
        raise
    return f


def memory_bytes() -> int:
    """This machine's memory in bytes (0 where it cannot be told): what the loaders refuse to outgrow."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 0
