"""Export folders (``handpose export actions`` and ``export poses``) as NumPy arrays with their manifest."""
from __future__ import annotations

import csv
import json
import os
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np

from ._errors import FormatError
from ._files import memory_bytes, open_regular


@dataclass
class Part:
    """One split part (``train``, ``val``, ...; ``all`` without ``--split``). ``N`` examples."""
    name: str
    X: np.ndarray                      #: float32: actions ``N x T [x 2] x C x 21`` (createml) or ``N x T [x 2] x 21 x C`` (ntjc);
                                       #: poses without ``T``; keypoint-csv exports ``N x 21 x 2`` (wrist-relative, scaled)
    y: np.ndarray                      #: int64 ``N``, an index into the export's ``classes``
    mask: Optional[np.ndarray]         #: uint8 ``X.shape[:-2]``: 0 no hand, 1 estimated, 2 interpolated by --complete
    records: List[Dict[str, Any]]      #: manifest.jsonl, one record an example, in X's order
    B: Optional[np.ndarray] = None     #: float32 ``N x T x C x 25`` (or ``x 25 x C``): the body, with --body-joints
    body_mask: Optional[np.ndarray] = None  #: uint8 ``N x T``

    def __len__(self) -> int:
        return len(self.y)


@dataclass
class Export:
    """An export folder: ``kind`` (``actions`` or ``poses``), ``classes``, its parts by name, and
    ``manifest``, the whole of ``dataset.json`` (tool, command, settings, models, counts, skipped inputs)."""
    path: str
    kind: str
    classes: List[str]
    parts: Dict[str, Part]
    manifest: Dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Part:
        return self.parts[name]

    @property
    def settings(self) -> Dict[str, Any]:
        return self.manifest.get("settings", {})


def _json(path: Path) -> Any:
    try:
        with open_regular(path) as f:
            return json.load(f)
    except FileNotFoundError:
        raise FormatError(str(path), "missing: an export folder has it") from None
    except json.JSONDecodeError as e:
        raise FormatError(str(path), f"not JSON: {e.msg}", f"line {e.lineno}, column {e.colno}") from None
    except UnicodeDecodeError:
        raise FormatError(str(path), "not JSON: not UTF-8 text") from None


def _npy(path: Path, dtype: str) -> np.ndarray:
    try:
        with open_regular(path) as f:
            a = np.load(f, allow_pickle=False)
    except FileNotFoundError:
        raise FormatError(str(path), "missing") from None
    except (ValueError, OSError, EOFError) as e:
        raise FormatError(str(path), f"not a NumPy array file: {e}") from None
    if a.dtype != np.dtype(dtype):
        raise FormatError(str(path), f"dtype is {a.dtype}, not {np.dtype(dtype)}")
    return a


def _records(path: Path) -> List[Dict[str, Any]]:
    out = []
    try:
        with open_regular(path) as f:
            for number, line in enumerate(f, 1):
                try:
                    record = json.loads(line)
                except (json.JSONDecodeError, UnicodeDecodeError) as e:
                    raise FormatError(str(path), f"not a JSON record: {getattr(e, 'msg', e)}", f"line {number}") from None
                if not isinstance(record, dict):
                    raise FormatError(str(path), "a record must be a JSON object", f"line {number}")
                out.append(record)
    except FileNotFoundError:
        raise FormatError(str(path), "missing: an export part has it") from None
    return out


def _csv_arrays(path: Path, shape: List[int], settings: Dict[str, Any], kind: str):
    """keypoints.csv: label, X flattened, B flattened, hand masks, body masks (one row an example)."""
    try:
        with open_regular(path, text=True) as f:
            rows = list(csv.reader(f))
    except FileNotFoundError:
        raise FormatError(str(path), "missing") from None
    if not rows:
        raise FormatError(str(path), "empty: no header")
    header, body = rows[0], rows[1:]
    N = len(body)
    x_shape = [N] + list(shape[1:])
    mask_shape = x_shape[:-2]
    C = len(settings.get("features", "xyc"))
    has_body = settings.get("body") is not None
    b_shape = ([N, x_shape[1], C, 25] if settings.get("layout") != "ntjc" else [N, x_shape[1], 25, C]) if has_body else None
    widths = [1, int(np.prod(x_shape[1:])), int(np.prod(b_shape[1:])) if b_shape else 0,
              int(np.prod(mask_shape[1:])) if len(mask_shape) > 1 else 1, x_shape[1] if has_body else 0]
    if len(header) != sum(widths):
        raise FormatError(str(path), f"{len(header)} columns, not the {sum(widths)} dataset.json's shapes need", "line 1")
    try:
        values = np.array([[float(v) for v in row] for row in body], np.float64).reshape(N, sum(widths))
    except ValueError as e:
        raise FormatError(str(path), f"a value is not a number: {e}") from None
    cuts = np.cumsum(widths)[:-1]
    label, x, b, m, bm = np.split(values, cuts, axis=1)
    _whole(path, label, "a label", 0, 2**31 - 1)
    _whole(path, m, "a hand mask", 0, 2)
    _whole(path, bm, "a body mask", 0, 1)
    if not (np.isfinite(x).all() and np.isfinite(b).all()):
        raise FormatError(str(path), "a coordinate is not a finite number")
    return (x.astype(np.float32).reshape(x_shape), label[:, 0].astype(np.int64), m.astype(np.uint8).reshape(mask_shape),
            b.astype(np.float32).reshape(b_shape) if has_body else None, bm.astype(np.uint8) if has_body else None)


def _keypoint_csv(path: Path):
    try:
        with open_regular(path, text=True) as f:
            rows = [row for row in csv.reader(f) if row]
    except FileNotFoundError:
        raise FormatError(str(path), "missing") from None
    for n, row in enumerate(rows, 1):
        if len(row) != 43:
            raise FormatError(str(path), f"{len(row)} values, not 43 (a class index and 21 x, y)", f"line {n}")
    try:
        values = np.array(rows, np.float64).reshape(len(rows), 43)
    except ValueError as e:
        raise FormatError(str(path), f"a value is not a number: {e}") from None
    _whole(path, values[:, :1], "a class index", 0, 2**31 - 1)
    if not np.isfinite(values[:, 1:]).all():
        raise FormatError(str(path), "a coordinate is not a finite number")
    return values[:, 1:].astype(np.float32).reshape(-1, 21, 2), values[:, 0].astype(np.int64)


def _whole(path: Path, values: np.ndarray, what: str, low: int, high: int) -> None:
    """Labels and masks are whole numbers in their range, as the binary writes them: 6.9 is not a label, nor
    257 a mask (which uint8 would make 1)."""
    bad = ~(np.isfinite(values) & (values == np.round(values)) & (values >= low) & (values <= high))
    if bad.any():
        row = int(np.argwhere(bad)[0][0])
        raise FormatError(str(path), f"{what} is {values[bad][0]:g}, not a whole number from {low} to {high}", f"row {row + 1} of the data")



def load_export(folder: "str | os.PathLike[str]") -> Export:
    """Reads an ``export actions`` or ``export poses`` folder, in any ``--format`` (npy, npz, csv,
    keypoint-csv), into arrays, and checks that its files agree: the same number of examples in X, y, mask,
    B and manifest.jsonl, X's shape as dataset.json records it, labels within the classes, counts per class
    as recorded. Raises :class:`FormatError` naming the file (and line) that does not."""
    root = Path(folder)
    manifest = _json(root / "dataset.json")
    if not isinstance(manifest, dict) or (manifest.get("tool") or {}).get("name") != "handpose":
        raise FormatError(str(root / "dataset.json"), "not a handpose export's dataset.json (tool.name is not handpose)")
    kind = manifest.get("kind")
    if kind not in ("actions", "poses"):
        raise FormatError(str(root / "dataset.json"), f"kind is {json.dumps(kind)}, not actions or poses")
    classes = manifest.get("classes")
    if not isinstance(classes, list) or not all(isinstance(c, str) for c in classes):
        raise FormatError(str(root / "dataset.json"), "classes must be a list of names")
    counts, shapes, settings = manifest.get("counts", {}), manifest.get("shapes", {}), manifest.get("settings", {})
    for key, value in (("counts", counts), ("shapes", shapes), ("settings", settings)):
        if not isinstance(value, dict):
            raise FormatError(str(root / "dataset.json"), f"{key} must be an object, not {type(value).__name__}")
    if not isinstance(settings.get("split") or [], list):
        raise FormatError(str(root / "dataset.json"), "settings.split must be a list of parts")
    names = [s["name"] for s in settings.get("split") or [] if isinstance(s, dict) and "name" in s] or ["all"]
    for name in names:
        # A part is a folder of this export: a plain name, never a path that leads out of it.
        if not isinstance(name, str) or not name or name in (".", "..") or "/" in name or "\0" in name:
            raise FormatError(str(root / "dataset.json"), f"split part name {json.dumps(name)} is not a plain folder name")
    parts: Dict[str, Part] = {}
    for name in names:
        where = root if names == ["all"] else root / name
        if not where.is_dir():
            raise FormatError(str(where), f"missing: dataset.json names the part {name}")
        if _json(where / "classes.json") != classes:
            raise FormatError(str(where / "classes.json"), "differs from dataset.json's classes")
        B = body_mask = mask = None
        shape = shapes.get(name)
        if (where / "X.npy").is_file():
            X, y, mask = _npy(where / "X.npy", "<f4"), _npy(where / "y.npy", "<i8"), _npy(where / "mask.npy", "|u1")
            if (where / "B.npy").is_file():
                B, body_mask = _npy(where / "B.npy", "<f4"), _npy(where / "body_mask.npy", "|u1")
        elif (where / "data.npz").is_file():
            try:
                with zipfile.ZipFile(where / "data.npz") as archive:
                    declared = sum(i.file_size for i in archive.infolist())
            except (zipfile.BadZipFile, OSError) as e:
                raise FormatError(str(where / "data.npz"), f"not a NumPy archive: {e}") from None
            # A few MB of deflated zeros can declare gigabytes: refused before anything is unpacked.
            if memory_bytes() and declared > memory_bytes() // 2:
                raise FormatError(str(where / "data.npz"), f"its members declare {declared} bytes, more than half this machine's memory")
            try:
                with np.load(where / "data.npz", allow_pickle=False) as z:
                    members = {k: z[k] for k in z.files}
            except (ValueError, OSError, EOFError) as e:
                raise FormatError(str(where / "data.npz"), f"not a NumPy archive: {e}") from None
            for key, dtype in (("X", "<f4"), ("y", "<i8"), ("mask", "|u1"), ("B", "<f4"), ("body_mask", "|u1")):
                if key not in members and key in ("X", "y", "mask"):
                    raise FormatError(str(where / "data.npz"), f"has no member {key}")
                if key in members and members[key].dtype != np.dtype(dtype):
                    raise FormatError(str(where / "data.npz"), f"{key} is {members[key].dtype}, not {np.dtype(dtype)}")
            X, y, mask, B, body_mask = members["X"], members["y"], members["mask"], members.get("B"), members.get("body_mask")
        elif (where / "keypoints.csv").is_file():
            if shape is None:
                raise FormatError(str(root / "dataset.json"), f"records no shape for {name}, which keypoints.csv needs")
            X, y, mask, B, body_mask = _csv_arrays(where / "keypoints.csv", shape, settings, kind)
        elif (where / "keypoint.csv").is_file():
            X, y = _keypoint_csv(where / "keypoint.csv")
            shape = None   # dataset.json records the shape X would have in the other formats
        else:
            raise FormatError(str(where), "holds no X.npy, data.npz, keypoints.csv or keypoint.csv")
        records = _records(where / "manifest.jsonl")
        _check(where, name, X, y, mask, B, body_mask, records, classes, counts.get(name), shape, kind, settings)
        parts[name] = Part(name=name, X=X, y=y, mask=mask, records=records, B=B, body_mask=body_mask)
    return Export(path=str(root), kind=kind, classes=classes, parts=parts, manifest=manifest)


def _check(where: Path, name: str, X, y, mask, B, body_mask, records, classes, counts, shape, kind, settings) -> None:
    def fail(message: str, file: str = "") -> None:
        raise FormatError(str(where / file) if file else str(where), message)
    if y.ndim != 1:
        fail(f"y has shape {list(y.shape)}, not (N,)", "y.npy")
    N = len(y)
    if X.shape[0] != N:
        fail(f"X has {X.shape[0]} examples and y {N}")
    if mask is not None and tuple(mask.shape) != tuple(X.shape[:-2]):
        fail(f"mask has shape {list(mask.shape)}, not X's {list(X.shape[:-2])}")
    if mask is not None and mask.size and mask.max() > 2:
        fail("mask holds a value other than 0, 1 and 2", "mask.npy")
    if (B is None) != (body_mask is None) or (B is not None and (B.shape[0] != N or body_mask.shape != (N, B.shape[1]))):
        fail("B and body_mask do not agree with each other or with y")
    if len(records) != N:
        fail(f"{len(records)} records for {N} examples", "manifest.jsonl")
    if shape is not None and list(X.shape) != list(shape):
        fail(f"X has shape {list(X.shape)}, dataset.json records {shape}")
    if N and (y.min() < 0 or y.max() >= len(classes)):
        fail(f"a label is outside the {len(classes)} classes")
    if counts is not None and dict(Counter(classes[i] for i in y.tolist())) != counts:
        fail(f"the examples per class differ from dataset.json's counts for {name}")
    labels = y.tolist()
    for n, r in enumerate(records, 1):
        if r.get("split") != name:
            raise FormatError(str(where / "manifest.jsonl"), f"split is {json.dumps(r.get('split'))}, not {name}", f"line {n}")
        # The record names y's class; exports before handpose 0.1.0's fix named a flipped copy's original class.
        before = r.get("label_before_flip")
        named = {classes[labels[n - 1]]} | ({classes[before]} if isinstance(before, int) and 0 <= before < len(classes) else set())
        if r.get("label") not in named:
            raise FormatError(str(where / "manifest.jsonl"), f"label is {json.dumps(r.get('label'))[:40]}, but y says {classes[labels[n - 1]]}", f"line {n}")
