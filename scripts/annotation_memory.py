#!/usr/bin/env python3
"""Peak memory and time of `handpose validate` on one annotation file of N segments in each format a
user brings: Create ML CSV, Create ML JSON, ELAN (.eaf, one tier) and Label Studio (a project export,
tasks of 1,000 labels). The files are generated (same clip, labels and times in each) in a temporary
folder beside one real clip; each validate runs alone, measured by /usr/bin/time (maximum resident set
size). The same is run on 10 segments, so the fixed cost of each reader (its code, its libraries) is told
from the cost per segment. Usage:
    scripts/annotation_memory.py HANDPOSE CLIP [--segments 1000000]
Prints one line per format and size, and the ratio of each to the CSV's peak at that size. Every
validate must finish (exit 0, or 2 for the generated segments that run past the clip's end), else the
script stops. (README's figures come from this.)"""
import argparse, json, os, shutil, subprocess, sys, tempfile

LABELS = ["wave", "point", "grab", "pinch"]

def write_files(folder, n, clip):
    times = [(i * 100, i * 100 + 80) for i in range(n)]   # milliseconds
    with open(os.path.join(folder, "big.csv"), "w") as f:
        f.write("video,label,start,end\n")
        for i, (a, b) in enumerate(times):
            f.write(f"{clip},{LABELS[i % 4]},{a / 1000:.3f},{b / 1000:.3f}\n")
    with open(os.path.join(folder, "big.json"), "w") as f:
        f.write("[\n" + ",\n".join(json.dumps({"video": clip, "label": LABELS[i % 4], "start": a / 1000, "end": b / 1000})
                                   for i, (a, b) in enumerate(times)) + "\n]\n")
    with open(os.path.join(folder, "big.eaf"), "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<ANNOTATION_DOCUMENT AUTHOR="" DATE="2026-01-01T00:00:00+00:00" FORMAT="3.0" VERSION="3.0">\n')
        f.write(f' <HEADER MEDIA_FILE="" TIME_UNITS="milliseconds">\n  <MEDIA_DESCRIPTOR MEDIA_URL="file:///elsewhere/{clip}" MIME_TYPE="video/mp4" RELATIVE_MEDIA_URL="./{clip}"/>\n </HEADER>\n <TIME_ORDER>\n')
        for i, (a, b) in enumerate(times):
            f.write(f'  <TIME_SLOT TIME_SLOT_ID="ts{2 * i + 1}" TIME_VALUE="{a}"/>\n  <TIME_SLOT TIME_SLOT_ID="ts{2 * i + 2}" TIME_VALUE="{b}"/>\n')
        f.write(' </TIME_ORDER>\n <TIER LINGUISTIC_TYPE_REF="default-lt" TIER_ID="RH">\n')
        for i in range(n):
            f.write(f'  <ANNOTATION>\n   <ALIGNABLE_ANNOTATION ANNOTATION_ID="a{i + 1}" TIME_SLOT_REF1="ts{2 * i + 1}" TIME_SLOT_REF2="ts{2 * i + 2}">\n'
                    f'    <ANNOTATION_VALUE>{LABELS[i % 4]}</ANNOTATION_VALUE>\n   </ALIGNABLE_ANNOTATION>\n  </ANNOTATION>\n')
        f.write(' </TIER>\n <LINGUISTIC_TYPE GRAPHIC_REFERENCES="false" LINGUISTIC_TYPE_ID="default-lt" TIME_ALIGNABLE="true"/>\n</ANNOTATION_DOCUMENT>\n')
    # Label Studio: a project export, tasks of 1,000 labels each (one video per task, here the same clip),
    # ranges in frames at 25 fps (given by --frame-rate: the export does not record it).
    with open(os.path.join(folder, "big-ls.json"), "w") as f:
        f.write("[\n")
        for t, first in enumerate(range(0, n, 1000)):
            results = ",\n".join(json.dumps({"id": f"r{i}", "type": "timelinelabels", "from_name": "label", "to_name": "video",
                                              "value": {"ranges": [{"start": a * 25 // 1000 + 1, "end": b * 25 // 1000}],
                                                        "timelinelabels": [LABELS[i % 4]]}})
                                  for i, (a, b) in enumerate(times[first:first + 1000], start=first))
            f.write(("," if t else "") + '{"id": %d, "data": {"video": "/data/local-files/?d=%s"}, "annotations": [{"id": %d, "result": [\n%s\n]}]}\n'
                    % (t + 1, clip, t + 1, results))
        f.write("]\n")

def measure(handpose, path, extra):
    r = subprocess.run(["/usr/bin/time", "-f", "%M %e", handpose, "validate", path, "--max-diagnostics", "2", *extra],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    kb, seconds = r.stderr.strip().splitlines()[-1].split()
    return int(kb) / 1024, float(seconds), r.returncode

def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("handpose"); p.add_argument("clip"); p.add_argument("--segments", type=int, default=1_000_000)
    a = p.parse_args()
    for n in (10, a.segments):
        folder = tempfile.mkdtemp(prefix="handpose-annotation-memory-")
        try:
            shutil.copy(a.clip, os.path.join(folder, "clip.mp4"))
            write_files(folder, n, "clip.mp4")
            print(f"handpose validate on {n:,} segments of one clip (peak resident memory, wall time):")
            rows = [("Create ML CSV", "big.csv", []), ("Create ML JSON", "big.json", []), ("ELAN", "big.eaf", []),
                    ("Label Studio", "big-ls.json", ["--media-root", folder, "--frame-rate", "25"])]
            base = None
            for name, file, extra in rows:
                mb, s, rc = measure(a.handpose, os.path.join(folder, file), extra)
                if rc not in (0, 2):
                    sys.exit(f"{name}: validate exited {rc}: the figures would not be of a full run")
                base = base or mb
                print(f"  {name:15s} {mb:7.1f} MB  {s:6.2f} s  ({mb / base:.3f} x CSV)")
        finally:
            shutil.rmtree(folder)

if __name__ == "__main__":
    sys.exit(main())
