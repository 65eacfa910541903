#!/usr/bin/env python3
"""How good are `handpose annotations suggest`'s drafts? On `handpose synth` clips, whose true segments are
known: precision and recall of the drafts at a temporal IoU of 0.5 (each draft matched to at most one true
segment of its clip, best IoU first; Background segments are not gestures and are not to be found), per
class, and the share of clip time that holds no draft (what an annotator need not scrub).

    scripts/suggest_accuracy.py HANDPOSE [--per-class 6] [--seed 3] [--work out/suggest-accuracy] [suggest flags...]
"""
import argparse, csv, os, shutil, subprocess, sys
from collections import defaultdict


def segments(path):
    out = defaultdict(list)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            out[row["video"]].append((float(row["start"]), float(row["end"]), row["label"]))
    return out


def iou(a, b):
    inter = max(0.0, min(a[1], b[1]) - max(a[0], b[0]))
    union = max(a[1], b[1]) - min(a[0], b[0])
    return inter / union if union > 0 else 0.0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("handpose")
    p.add_argument("--per-class", default="6")
    p.add_argument("--seed", default="3")
    p.add_argument("--work", default="out/suggest-accuracy")
    args, extra = p.parse_known_args()
    shutil.rmtree(args.work, ignore_errors=True)
    data, kp, drafts = (os.path.join(args.work, n) for n in ("synth", "keypoints", "drafts.csv"))
    run = lambda *a: subprocess.run([args.handpose, *a], check=True, stdout=subprocess.DEVNULL)
    run("synth", "-o", data, "--per-class", args.per_class, "--montages", args.per_class, "--poses-per-class", "0", "--seed", args.seed)
    run("extract", data, "-r", "-o", kp, "--quiet")
    run("annotations", "suggest", kp, "--root", data, "-o", drafts, *extra)
    truth, found = segments(os.path.join(data, "annotations.csv")), segments(drafts)
    durations = {}
    for clip, segs in truth.items():
        durations[clip] = max(e for _, e, _ in segs)
    matched, per_class, total_truth, total_drafts = 0, defaultdict(lambda: [0, 0]), 0, 0
    for clip in truth:
        t = [s for s in truth[clip] if s[2] != "Background"]
        d = found.get(clip, [])
        total_truth += len(t); total_drafts += len(d)
        for s in t: per_class[s[2]][1] += 1
        pairs = sorted(((iou(a, b), i, j) for i, a in enumerate(t) for j, b in enumerate(d)), reverse=True)
        used_t, used_d = set(), set()
        for v, i, j in pairs:
            if v < 0.5 or i in used_t or j in used_d: continue
            used_t.add(i); used_d.add(j); matched += 1; per_class[t[i][2]][0] += 1
    covered = sum(e - s for clip in found for s, e, _ in found[clip])
    total = sum(durations.values())
    print(f"clips {len(truth)}, true gesture segments {total_truth}, drafts {total_drafts}, matched at tIoU 0.5: {matched}")
    print(f"precision {matched / max(1, total_drafts):.3f}, recall {matched / max(1, total_truth):.3f}")
    print("recall per class: " + ", ".join(f"{c} {m}/{n}" for c, (m, n) in sorted(per_class.items())))
    print(f"clip time without a draft: {1 - covered / total:.3f} of {total:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
