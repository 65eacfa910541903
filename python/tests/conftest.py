"""The Python package's tests run the real binary (HANDPOSE_BINARY: make test passes the one swift test built)
on the real Samples/ with the real models (HANDPOSE_MODELS: Models/), and read what it writes."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))


@pytest.fixture(scope="session")
def binary() -> str:
    path = os.environ.get("HANDPOSE_BINARY", "")
    if not path or not os.access(path, os.X_OK):
        reason = f"HANDPOSE_BINARY is not an executable ({path!r}); make test sets it after swift test builds the binary"
        if os.environ.get("CI", "").lower() in ("true", "1", "yes"):
            pytest.fail(reason)   # under CI every prerequisite is there: a skip would pass without running
        pytest.skip(reason)
    if not os.environ.get("HANDPOSE_MODELS"):
        os.environ["HANDPOSE_MODELS"] = str(ROOT / "Models")
    return path


@pytest.fixture(scope="session")
def samples(tmp_path_factory, binary) -> Path:
    """A copy of Samples/ (clips, stills, annotations) to extract and export from."""
    out = tmp_path_factory.mktemp("samples") / "Samples"
    shutil.copytree(ROOT / "Samples", out, ignore=shutil.ignore_patterns("*.truth.hands.json"))
    return out


def run(binary: str, *arguments: str) -> str:
    done = subprocess.run([binary, *arguments], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout
