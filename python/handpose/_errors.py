"""The errors handpose raises: one base class, each naming the file or the command that failed."""
from __future__ import annotations

from typing import Optional, Sequence


class HandposeError(Exception):
    """Every error this package raises."""


class BinaryNotFound(HandposeError, FileNotFoundError):
    """The bundled ``handpose`` binary is not where the installed package says it is."""

    def __init__(self, looked: Sequence[str]) -> None:
        self.looked = list(looked)
        super().__init__("the handpose binary was not found; looked at: " + ", ".join(self.looked)
                         + " (reinstall the wheel, or set HANDPOSE_BINARY to the binary's path)")


class FormatError(HandposeError, ValueError):
    """A keypoint file or an export folder that cannot be read as one: ``path`` names the file, ``where``
    the frame, hand or line when it applies."""

    def __init__(self, path: str, message: str, where: Optional[str] = None) -> None:
        self.path, self.message, self.where = str(path), message, where
        super().__init__(f"{self.path}: {where + ': ' if where else ''}{message}")


class CommandError(HandposeError):
    """The binary ran and exited non-zero. ``exit_code`` is its exit code (README, "Exit codes"),
    ``message`` the lines it printed that say what failed, ``output`` everything it printed."""

    exit_code: int = -1

    def __init__(self, command: Sequence[str], exit_code: int, message: str, output: str) -> None:
        self.command, self.exit_code, self.message, self.output = list(command), exit_code, message, output
        super().__init__(f"handpose {' '.join(self.command[1:2])} exited {exit_code}: {message}")


class InputsFailed(CommandError):
    """Exit 1: the run finished but some inputs failed (each is named; the others are done)."""


class InputError(CommandError):
    """Exit 2: the inputs hold errors (annotation errors, keypoints of another clip, nothing to export)."""


class CannotRun(CommandError):
    """Exit 3: could not run: models not found, an output that cannot be written, a named file absent."""


class UsageError(CommandError):
    """Exit 64: the command line is wrong (an option this version does not take, a bad value)."""


class Interrupted(CommandError):
    """Exit 130: interrupted by a signal; what was done is kept, and a rerun resumes."""


EXIT_CODES = {1: InputsFailed, 2: InputError, 3: CannotRun, 64: UsageError, 130: Interrupted}
