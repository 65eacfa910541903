"""Prints, as JSON, the SHA-256 of every array handpose.load and handpose.load_export give for the files
named: SelfContainedTests runs it with the wheel's Python package in a bare Debian root and with the checkout's in
.venv, on the same files, and requires the same output.
    dump_arrays.py KEYPOINT_FILE EXPORT_FOLDER"""
import hashlib
import json
import sys

import numpy as np

import handpose


def digest(a):
    if a is None:
        return None
    a = np.ascontiguousarray(a)
    return [str(a.dtype), list(a.shape), hashlib.sha256(a.tobytes()).hexdigest()]


k = handpose.load(sys.argv[1])
out = {"version": handpose.__version__, "keypoints": {name: digest(getattr(k, name)) for name in
       ("time", "frame_index", "landmarks", "world", "presence", "handedness", "chirality", "track", "origin", "person", "mask")}}
export = handpose.load_export(sys.argv[2])
out["export"] = {"kind": export.kind, "classes": export.classes,
                 "parts": {name: {"X": digest(p.X), "y": digest(p.y), "mask": digest(p.mask), "records": len(p.records)}
                           for name, p in export.parts.items()}}
print(json.dumps(out, sort_keys=True))
