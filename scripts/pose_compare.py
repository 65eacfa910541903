#!/usr/bin/env python3
"""Compare two folders of pose keypoint files (handpose/keypoints@2, frames with "bodies"), as
scripts/mediapipe_keypoints.py pose writes them.

  pose_compare.py A B [--only NAME...]     (python3 and NumPy only)

Files are paired by their path relative to A and B (*.json); B is the reference. Frames are paired by
index ("i"); in each frame, bodies are matched greedily by the smallest mean distance between their
landmarks (x, y in pixels, from the files' "video" width and height). A matched body's deviation is
the x, y distance of each landmark from B's, in units of the torso size of B's body: the distance in
pixels between its mid-shoulder (landmarks 11, 12) and its mid-hip (23, 24).

Columns, per file and then `overall` (every landmark of every file pooled):
  frames    frames paired by index
  count     % of those frames in which A and B have the same number of bodies
  bodies    bodies matched
  mean p95  mean and 95th percentile deviation of all 33 landmarks (torso sizes)
  upper     the same over the 25 upper-body landmarks 0..24
--only compares just those files (paths relative to the folders), `overall` pooling them alone.
"""
import argparse, json, os, sys
import numpy as np

UPPER = 25


def keypoint_files(folder):
    found = {}
    for root, _, names in os.walk(folder):
        for name in names:
            if name.endswith(".json"):
                path = os.path.join(root, name)
                found[os.path.relpath(path, folder)] = path
    return found


def pixels(body, width, height):
    return np.asarray(body["landmarks"], dtype=np.float64)[:, :2] * (width, height)


def torso(points):
    return np.linalg.norm((points[11] + points[12]) / 2 - (points[23] + points[24]) / 2)


def compare_file(a_path, b_path):
    """(frames, frames whose body counts agree, deviations of matched bodies as an [n, 33] array)."""
    with open(a_path) as f:
        a = json.load(f)
    with open(b_path) as f:
        b = json.load(f)
    wa, ha = a["video"]["width"], a["video"]["height"]
    wb, hb = b["video"]["width"], b["video"]["height"]
    a_frames = {frame["i"]: frame.get("bodies", []) for frame in a["frames"]}
    frames, agree, deviations = 0, 0, []
    for frame in b["frames"]:
        if frame["i"] not in a_frames:
            continue
        frames += 1
        bodies_a = [pixels(body, wa, ha) for body in a_frames[frame["i"]]]
        bodies_b = [pixels(body, wb, hb) for body in frame.get("bodies", [])]
        agree += len(bodies_a) == len(bodies_b)
        pairs = sorted((np.linalg.norm(pa - pb, axis=1).mean(), j, k)
                       for j, pa in enumerate(bodies_a) for k, pb in enumerate(bodies_b))
        used_a, used_b = set(), set()
        for _, j, k in pairs:
            if j in used_a or k in used_b:
                continue
            used_a.add(j)
            used_b.add(k)
            size = torso(bodies_b[k])
            if size > 0:
                deviations.append(np.linalg.norm(bodies_a[j] - bodies_b[k], axis=1) / size)
    return frames, agree, np.array(deviations).reshape(-1, 33)


def line(name, frames, agree, deviations):
    count = f"{100 * agree / frames:6.1f}%" if frames else "      -"
    if len(deviations):
        stats = (f"{deviations.mean():8.4f} {np.percentile(deviations, 95):8.4f}"
                 f"   {deviations[:, :UPPER].mean():8.4f} {np.percentile(deviations[:, :UPPER], 95):8.4f}")
    else:
        stats = f"{'-':>8} {'-':>8}   {'-':>8} {'-':>8}"
    return f"{name:<40} {frames:6d} {count} {len(deviations):6d} {stats}"


def main():
    parser = argparse.ArgumentParser(description="Compare two folders of pose keypoint files; B is the reference.")
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--only", nargs="+")
    args = parser.parse_args()
    for folder in (args.a, args.b):
        if not os.path.isdir(folder):
            raise SystemExit(f"pose_compare: {folder} is not a folder of keypoint files")
    a_files, b_files = keypoint_files(args.a), keypoint_files(args.b)
    common = sorted(set(a_files) & set(b_files))
    if args.only:
        missing = [n for n in args.only if n not in common]
        if missing:
            raise SystemExit(f"pose_compare: not in both folders: {', '.join(missing)}")
        common = sorted(args.only)
    for name in sorted(set(a_files) ^ set(b_files)):
        print(f"only in {'A' if name in a_files else 'B'}: {name}", file=sys.stderr)
    if not common:
        raise SystemExit("pose_compare: no file is in both folders")
    print(f"{'file':<40} {'frames':>6} {'count':>7} {'bodies':>6} {'mean':>8} {'p95':>8}   {'upper':>8} {'p95':>8}")
    total_frames, total_agree, everything = 0, 0, []
    for name in common:
        frames, agree, deviations = compare_file(a_files[name], b_files[name])
        print(line(name, frames, agree, deviations))
        total_frames += frames
        total_agree += agree
        everything.append(deviations)
    print(line("overall", total_frames, total_agree, np.concatenate(everything)))
    print("columns: frames, count agreement, bodies matched, mean and p95 deviation of the 33 landmarks"
          " (torso sizes of B's body), the same over the upper-body landmarks 0..24")


if __name__ == "__main__":
    main()
