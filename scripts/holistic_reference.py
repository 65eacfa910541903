#!/usr/bin/env python3
"""pose-format's video_to_pose, on many files, optionally on changed pixels: MediaPipe Holistic (legacy
mp.solutions.holistic of mediapipe 0.10.14, video_to_pose's configuration: model_complexity 1) through
pose_format.utils.holistic.load_holistic, the function video_to_pose calls, with the frames read as
video_to_pose reads them (simple_video_utils.read_frames_exact) and the same header (width, height, fps).

  holistic_reference.py --out DIR [--noise F --seed S] [--refine-face] FILE...     (.venv-holistic: make holistic-venv)

--noise F adds 1 to F of each frame's pixel values (saturating; which ones: --seed), for MediaPipe's own floor.
--refine-face runs video_to_pose's --additional-config refine_face_landmarks=true (478 face points).
Each FILE's pose goes to DIR/<name>.pose. A fresh Holistic per file, as video_to_pose starts one per run.
"""
import argparse, os, sys
import numpy as np
from simple_video_utils.metadata import video_metadata
from simple_video_utils.frames import read_frames_exact
from pose_format.utils.holistic import load_holistic


def refine_options_loaded():
    """Whether RefineLandmarksFromHeatmapCalculator's options are in Python's protobuf pool. MediaPipe's Python
    solutions rebuild their graph through Python protobufs, which drop the options of any calculator whose
    _pb2 module was not imported: video_to_pose never imports this one, so its pose refinement runs with the
    calculator's default kernel (9), not the graph's 7. A reference that loaded it would not be video_to_pose."""
    from google.protobuf import descriptor_pool
    try:
        descriptor_pool.Default().FindMessageTypeByName("mediapipe.RefineLandmarksFromHeatmapCalculatorOptions")
        return True
    except KeyError:
        return False


def main():
    if refine_options_loaded():
        sys.exit("holistic_reference.py: RefineLandmarksFromHeatmapCalculatorOptions is loaded, so Holistic would refine "
                 "with kernel 7, unlike video_to_pose; run this script as it is")
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--noise", type=float, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--refine-face", action="store_true")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    for path in args.files:
        meta = video_metadata(path)
        frames = list(read_frames_exact(path))
        if args.noise > 0:
            noisy = []
            for f in frames:
                f = f.copy()
                mask = rng.random(f.shape) < args.noise
                f[mask] = np.minimum(f[mask].astype(np.int16) + 1, 255).astype(np.uint8)
                noisy.append(f)
            frames = noisy
        # reuse=False: a new Holistic for each file, as one video_to_pose run has.
        config = {"model_complexity": 1}
        if args.refine_face:
            config["refine_face_landmarks"] = True
        pose = load_holistic(frames, fps=meta.fps, width=meta.width, height=meta.height,
                             additional_holistic_config=config, reuse=False)
        target = os.path.join(args.out, os.path.basename(path) + ".pose")
        with open(target + ".partial", "wb") as f:
            pose.write(f)
        os.replace(target + ".partial", target)
        print(target, file=sys.stderr)


if __name__ == "__main__":
    main()
