#!/usr/bin/env python3
"""make wheel: out/handpose-<version>-py3-none-manylinux_2_34_x86_64.whl, one wheel holding

- the self-contained ``handpose`` binary, installed by pip on PATH as the environment's ``bin/handpose``;
- what ``make install SELFCONTAINED=1`` puts beside it in ``share/`` (the models, the review page, bench's
  scripts, the licence notices of the models and of every library linked in, shell completions), installed
  by pip into the environment's ``share/``, where the binary looks (``<binary>/../share/handpose``);
- the Python package ``handpose`` (python/handpose): ``extract``, ``load``, ``load_export``, ``handpose.torch``.

The version is the binary's ``--version``; the build stops if the Python package says another.
Packed by ``wheel pack`` (the ``wheel`` package), which writes RECORD.

    build-wheel.py --installed PREFIX --out OUTDIR      (PREFIX: what make install SELFCONTAINED=1 wrote)
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TAG = "py3-none-manylinux_2_34_x86_64"


def main() -> int:
    args = argparse.ArgumentParser()
    args.add_argument("--installed", required=True, help="the tree make install SELFCONTAINED=1 PREFIX=... wrote")
    args.add_argument("--out", required=True)
    a = args.parse_args()
    installed = Path(a.installed).resolve()
    binary_path = installed / "bin/handpose"

    version = subprocess.run([str(binary_path), "--version"], check=True, capture_output=True, text=True).stdout.strip()
    declared = re.search(r'__version__ = "([^"]+)"', (ROOT / "python/handpose/_version.py").read_text()).group(1)
    if version != declared:
        print(f"build-wheel: the binary is {version} but python/handpose/_version.py says {declared}", file=sys.stderr)
        return 3
    if not list((installed / "share/handpose/models").glob("*.tflite")) or not (installed / "share/handpose/licenses/NOTICE").is_file():
        print(f"build-wheel: {installed} lacks the models or the licence notices: not a make install SELFCONTAINED=1 tree", file=sys.stderr)
        return 3

    with tempfile.TemporaryDirectory(dir=ROOT / ".build-selfcontained") as work:
        tree = Path(work) / "tree"
        shutil.copytree(ROOT / "python/handpose", tree / "handpose", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        data = tree / f"handpose-{version}.data"
        (data / "scripts").mkdir(parents=True)
        shutil.copy2(binary_path, data / "scripts/handpose")     # make install stripped its debug information
        os.chmod(data / "scripts/handpose", 0o755)
        shutil.copytree(installed / "share", data / "data/share")

        info = tree / f"handpose-{version}.dist-info"
        info.mkdir()
        readme = (ROOT / "python/README.md").read_text()
        (info / "METADATA").write_text(
            "Metadata-Version: 2.1\n"
            "Name: handpose\n"
            f"Version: {version}\n"
            "Summary: Hand, body and face pose training data from folders of clips and images, on the CPU (MediaPipe's models)\n"
            "Requires-Python: >=3.9\n"
            "Requires-Dist: numpy>=1.21\n"
            "Provides-Extra: torch\n"
            "Requires-Dist: torch>=1.13; extra == \"torch\"\n"
            "Classifier: Operating System :: POSIX :: Linux\n"
            "Classifier: Programming Language :: Python :: 3\n"
            "Description-Content-Type: text/markdown\n"
            "\n" + readme)
        (info / "WHEEL").write_text(
            "Wheel-Version: 1.0\n"
            "Generator: handpose scripts/build-wheel.py\n"
            "Root-Is-Purelib: false\n"
            f"Tag: {TAG}\n")
        out = Path(a.out).resolve()
        out.mkdir(parents=True, exist_ok=True)
        staged = Path(work) / "wheel"
        staged.mkdir()
        packed = subprocess.run([sys.executable, "-m", "wheel", "pack", str(tree), "-d", str(staged)], capture_output=True, text=True)
        if packed.returncode != 0:
            print(f"build-wheel: wheel pack failed: {packed.stdout}{packed.stderr}", file=sys.stderr)
            return 3
        built = next(staged.glob("*.whl"))
        expected = f"handpose-{version}-{TAG}.whl"
        if built.name != expected:
            print(f"build-wheel: wheel pack wrote {built.name}, not {expected}", file=sys.stderr)
            return 3
        os.replace(built, out / expected)  # the same file system: the finished wheel appears whole
        print(out / expected)
    return 0


if __name__ == "__main__":
    sys.exit(main())
