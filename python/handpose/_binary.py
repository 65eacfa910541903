"""The bundled ``handpose`` binary: where it is, and running it."""
from __future__ import annotations

import numbers
import os
import shutil
import subprocess
import sys
from typing import Callable, Iterable, List, Optional, Sequence, Union

from ._errors import EXIT_CODES, BinaryNotFound, CommandError

PathLike = Union[str, "os.PathLike[str]"]


def binary() -> str:
    """The path of the ``handpose`` binary this package runs: ``HANDPOSE_BINARY`` when set, else the one
    the wheel installed (pip puts it in the environment's ``bin``, its models in ``share/handpose``), else,
    for a package run from a source tree, ``handpose`` on ``PATH``. Raises :class:`BinaryNotFound` naming
    every place looked at."""
    looked: List[str] = []
    override = os.environ.get("HANDPOSE_BINARY")
    if override:
        if os.access(override, os.X_OK) and os.path.isfile(override):
            return override
        raise BinaryNotFound([f"HANDPOSE_BINARY={override}"])
    from importlib import metadata
    try:
        files = metadata.distribution("handpose").files or []
    except metadata.PackageNotFoundError:  # not installed as a distribution: running from a source tree
        files = []
    for file in files:
        if file.name == "handpose" and "bin" in file.parts:
            path = os.path.normpath(str(file.locate()))
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return path
            # The wheel's own binary is missing or broken: never run another version found on PATH instead.
            raise BinaryNotFound([path + " (installed with this package, but missing or not executable)"])
    on_path = shutil.which("handpose")
    if on_path:
        return on_path
    looked.append("handpose on PATH")
    raise BinaryNotFound(looked)


def _flag(name: str, value: object) -> List[str]:
    """One flag as one argument, ``--name=value``, so that no value (a path starting with ``-``, a negative
    number) is read as a flag of its own. ``True`` is the bare flag, ``False`` and ``None`` leave it out; any
    other value must be a number, a string, a path or a list of those."""
    flag = "--" + name.replace("_", "-")
    if value is True:
        return [flag]
    if value is False or value is None:
        return []
    def text(v: object) -> str:
        # numbers.Real takes NumPy's scalars (np.int64, np.float32) too.
        if isinstance(v, bool) or not isinstance(v, (numbers.Real, str, os.PathLike)):
            raise TypeError(f"{name}={value!r}: a flag takes True or False, an option a number, a string or a path")
        return os.fspath(v) if isinstance(v, os.PathLike) else str(v)
    if isinstance(value, (list, tuple, set, frozenset)):
        return [flag + "=" + ",".join(text(v) for v in value)]
    return [flag + "=" + text(value)]


def run(arguments: Sequence[str], progress: Optional[Callable[[str], None]] = None) -> str:
    """Runs ``handpose ARGUMENTS...``, passing each line it prints to ``progress`` as it comes (by default
    to standard error), and returns all it printed. A non-zero exit raises the :class:`CommandError`
    subclass of its exit code, with the lines that name what failed."""
    command = [binary(), *arguments]
    sink = progress if progress is not None else (lambda line: print(line, file=sys.stderr, flush=True))
    lines: List[str] = []
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
                          errors="replace") as process:
        assert process.stdout is not None
        for line in process.stdout:
            line = line.rstrip("\n")
            lines.append(line)
            sink(line)
        code = process.wait()
    output = "\n".join(lines)
    if code != 0:
        # The binary's message: from its first "error:" line on (what follows explains it), else the
        # lines naming failed inputs, else its last lines.
        first = next((n for n, l in enumerate(lines) if l.lstrip().lower().startswith("error")), None)
        named = lines[first:first + 40] if first is not None else [l for l in lines if "failed" in l.lower()][-40:]
        message = "\n".join(named or lines[-10:])
        raise EXIT_CODES.get(code, CommandError)(command, code, message, output)
    return output


def extract(inputs: Union[PathLike, Iterable[PathLike]], output: PathLike, *,
            progress: Optional[Callable[[str], None]] = None, **options: object) -> str:
    """``handpose extract --output=OUTPUT [flags] -- INPUTS`` with ``options`` as its flags, each one argument:
    ``recursive=True`` is ``--recursive``, ``format=["json", "npz"]`` is ``--format=json,npz``, ``max_hands=2``
    is ``--max-hands=2``; a flag set to False or None is left out. The inputs come after ``--``, so a folder
    named like a flag (``--help``) is an input. Every flag of ``handpose extract --help`` is taken. Streams the
    binary's progress lines to ``progress`` (default: standard error) and returns what it printed;
    raises :class:`InputsFailed` (exit 1, with each failed input named), :class:`CannotRun` (exit 3:
    models not found, an output that cannot be written), :class:`UsageError` (exit 64) and so on."""
    paths = [inputs] if isinstance(inputs, (str, os.PathLike)) else list(inputs)
    arguments = ["extract", "--output=" + os.fspath(output)]
    for name, value in options.items():
        arguments += _flag("recursive" if name == "r" else name, value)
    # After `--` every argument is an input, even one named like a flag (`-o`, `--help`).
    return run(arguments + ["--", *(os.fspath(p) for p in paths)], progress)
