#!/usr/bin/env python3
"""Compare two folders of MediaPipe Holistic .pose files (pose-format's video_to_pose layout), component by
component: handpose extract --holistic against video_to_pose, or video_to_pose against itself on changed pixels.

  holistic_compare.py A B [--only NAME...] [--json]        (pose-format and NumPy)

Files are paired by their path relative to A and B (*.pose); B is the reference. Both must have the same
header (components, points, limbs, colours, format, frame size) and frame count, or the file fails; a
different fps is noted (FFmpeg releases estimate a GIF's average rate differently). Frames are paired by index. Per component:
  frames   frames paired
  only A   frames where the component is present in A and absent in B (present: any confidence > 0)
  only B   the reverse
  both     frames where it is present in both
  mean p95 deviation of the points' x, y over the frames present in both, in shoulder widths: for the image
           components (pose, face, hands) B's pose shoulder width in pixels (landmarks 11 and 12) in that
           frame; for POSE_WORLD_LANDMARKS, the world points in metres (video_to_pose stores x * width and
           y * height; divided back here) and B's world shoulder width.
`overall` pools every file. --json prints the pooled table as JSON.
"""
import argparse, json, os, sys
import numpy as np
from pose_format import Pose


def files(folder):
    out = {}
    for root, _, names in os.walk(folder):
        for n in names:
            if n.endswith(".pose"):
                p = os.path.join(root, n)
                out[os.path.relpath(p, folder)] = p
    return out


def read(path):
    with open(path, "rb") as f:
        return Pose.read(f.read())


def header_key(pose):
    h = pose.header
    return [(c.name, c.format, list(c.points), [tuple(l) for l in c.limbs], [tuple(x) for x in c.colors]) for c in h.components], \
        (h.dimensions.width, h.dimensions.height)


def compare(a_path, b_path, acc):
    a, b = read(a_path), read(b_path)
    if header_key(a) != header_key(b):
        return "headers differ"
    fa, fb = a.body.data.shape[0], b.body.data.shape[0]
    if fa != fb:
        return "frame counts differ: %d and %d" % (fa, fb)
    if abs(float(a.body.fps) - float(b.body.fps)) > 1e-3:
        # FFmpeg's probe of a GIF's average rate differs between releases (Debian's 5.1, PyAV's own): noted, compared on.
        acc.setdefault("_fps", []).append("%s: fps %.4f and %.4f" % (os.path.basename(a_path), a.body.fps, b.body.fps))
    w, h = b.header.dimensions.width, b.header.dimensions.height
    start = 0
    spans = {}
    for c in b.header.components:
        spans[c.name] = (start, start + len(c.points))
        start += len(c.points)
    da, db = np.asarray(a.body.data.data)[:, 0], np.asarray(b.body.data.data)[:, 0]
    ca, cb = np.asarray(a.body.confidence)[:, 0], np.asarray(b.body.confidence)[:, 0]
    ps, pe = spans["POSE_LANDMARKS"]
    ws, we = spans["POSE_WORLD_LANDMARKS"]
    shoulder = np.linalg.norm(db[:, ps + 11, :2] - db[:, ps + 12, :2], axis=1)
    world_b = db[:, ws:we, :2] / (w, h)
    world_shoulder = np.linalg.norm(world_b[:, 11] - world_b[:, 12], axis=1)
    for name, (s, e) in spans.items():
        pa, pb = (ca[:, s:e] > 0).any(axis=1), (cb[:, s:e] > 0).any(axis=1)
        r = acc.setdefault(name, {"frames": 0, "only A": 0, "only B": 0, "both": 0, "dev": []})
        r["frames"] += fa
        r["only A"] += int((pa & ~pb).sum())
        r["only B"] += int((~pa & pb).sum())
        both = pa & pb
        r["both"] += int(both.sum())
        if not both.any():
            continue
        if name == "POSE_WORLD_LANDMARKS":
            xa, xb = da[both, s:e, :2] / (w, h), db[both, s:e, :2] / (w, h)
            unit = world_shoulder[both]
        else:
            xa, xb = da[both, s:e, :2], db[both, s:e, :2]
            unit = shoulder[both]
        d = np.linalg.norm(xa - xb, axis=2) / np.maximum(unit, 1e-9)[:, None]
        r["dev"].append(d.ravel())
    return None


def table(acc):
    rows = {}
    for name, r in acc.items():
        if name.startswith("_"):
            continue
        dev = np.concatenate(r["dev"]) if r["dev"] else np.zeros(0)
        rows[name] = {"frames": r["frames"], "only A": r["only A"], "only B": r["only B"], "both": r["both"],
                      "mean": float(dev.mean()) if dev.size else None, "p95": float(np.percentile(dev, 95)) if dev.size else None}
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a"); ap.add_argument("b")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    fa, fb = files(args.a), files(args.b)
    names = sorted(set(fa) & set(fb)) if not args.only else args.only
    acc, failed = {}, []
    for n in names:
        if n not in fa or n not in fb:
            failed.append((n, "missing in %s" % (args.a if n not in fa else args.b)))
            continue
        problem = compare(fa[n], fb[n], acc)
        if problem:
            failed.append((n, problem))
    rows = table(acc)
    if args.json:
        print(json.dumps({"files": len(names), "failed": failed, "fps": acc.get("_fps", []), "components": rows}))
    else:
        print("%-22s %7s %7s %7s %7s %8s %8s" % ("component", "frames", "only A", "only B", "both", "mean", "p95"))
        for name, r in rows.items():
            fmt = lambda v: "%8.4f" % v if v is not None else "%8s" % "-"
            print("%-22s %7d %7d %7d %7d %s %s" % (name, r["frames"], r["only A"], r["only B"], r["both"], fmt(r["mean"]), fmt(r["p95"])))
        for note in acc.get("_fps", []):
            print("note %s" % note)
        for n, why in failed:
            print("FAILED %s: %s" % (n, why))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
