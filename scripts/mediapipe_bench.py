#!/usr/bin/env python3
"""MediaPipe over clips as its users run it, for `handpose bench extract` (which times this process from
outside: wall clock, CPU seconds and memory of the whole process tree, the same way as handpose's).

  mediapipe_bench.py tasks  --models DIR [--workers N] CLIP...   (.venv-tasks: the MediaPipe release make bench-setup installs)
  mediapipe_bench.py legacy [--workers N] CLIP...                (.venv: mediapipe 0.10.14)
  mediapipe_bench.py body   --models DIR [--workers N] CLIP...   (.venv-tasks)

Each clip is read by OpenCV (cv2.VideoCapture, BGR to RGB), as MediaPipe's users read it, and run through
one landmarker made for that clip: tasks = HandLandmarker in VIDEO mode (timestamps i x 1000/30 ms) with
a task bundle of DIR's palm_detection_full.tflite and hand_landmark_full.tflite, num_hands 2, every
confidence at its default 0.5 (handpose's default mode); body = that HandLandmarker and a PoseLandmarker
(VIDEO mode, each frame's own time as its timestamp, a bundle of DIR's pose_detection.tflite and
pose_landmark_full.tflite, num_poses 1, confidences 0.5) on every frame, the two a user of Tasks runs for
hands and body (handpose's extract --body); legacy = mp.solutions.hands, video mode, full
models, 2 hands, confidences 0.5. --workers 1 runs everything in this one process; N > 1 hands one clip
at a time to a pool of N worker processes (concurrent.futures.ProcessPoolExecutor), the loop a user
writes to use every core. Prints JSON {frames, hands, bodies} on standard output.
"""
import argparse, concurrent.futures, json, tempfile
import cv2
import mediapipe as mp
# The task bundle and OpenCV's reading of a clip, as in the parity runs (this script's folder).
from mediapipe_keypoints import bundle, pictures


def frames_of(path):
    for _, bgr in pictures(path, still=False):
        yield cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


def run_clip(api, task, path):
    """(frames, hands, bodies) of one clip."""
    frames = hands = bodies = 0
    if api == "tasks":
        from mediapipe.tasks.python import BaseOptions, vision
        options = vision.HandLandmarkerOptions(base_options=BaseOptions(model_asset_path=task), num_hands=2,
                                               running_mode=vision.RunningMode.VIDEO)
        with vision.HandLandmarker.create_from_options(options) as landmarker:
            for i, rgb in enumerate(frames_of(path)):
                image = mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb)
                hands += len(landmarker.detect_for_video(image, int(i * 1000 / 30)).hand_landmarks)
                frames += 1
    elif api == "body":
        from mediapipe.tasks.python import BaseOptions, vision
        hand_task, pose_task = task
        hand_options = vision.HandLandmarkerOptions(base_options=BaseOptions(model_asset_path=hand_task), num_hands=2,
                                                    running_mode=vision.RunningMode.VIDEO)
        pose_options = vision.PoseLandmarkerOptions(base_options=BaseOptions(model_asset_path=pose_task), num_poses=1,
                                                    running_mode=vision.RunningMode.VIDEO)
        with vision.HandLandmarker.create_from_options(hand_options) as hand_landmarker, \
                vision.PoseLandmarker.create_from_options(pose_options) as pose_landmarker:
            last = -1
            for t, bgr in pictures(path, still=False):
                image = mp.Image(image_format=mp.ImageFormat.SRGB, data=cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
                last = max(last + 1, int(round(t * 1000)))
                hands += len(hand_landmarker.detect_for_video(image, last).hand_landmarks)
                bodies += len(pose_landmarker.detect_for_video(image, last).pose_landmarks)
                frames += 1
    else:
        with mp.solutions.hands.Hands(static_image_mode=False, max_num_hands=2, model_complexity=1,
                                      min_detection_confidence=0.5, min_tracking_confidence=0.5) as solution:
            for rgb in frames_of(path):
                hands += len(solution.process(rgb).multi_hand_landmarks or [])
                frames += 1
    return frames, hands, bodies


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("api", choices=["tasks", "legacy", "body"])
    parser.add_argument("--models")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("clips", nargs="+")
    args = parser.parse_args()
    if args.api != "legacy" and not args.models:
        parser.error(f"{args.api} needs --models")
    with tempfile.TemporaryDirectory() as folder:
        task = {"tasks": lambda: bundle(args.models, folder, "tasks"),
                "body": lambda: (bundle(args.models, folder, "tasks"), bundle(args.models, folder, "pose")),
                "legacy": lambda: None}[args.api]()
        if args.workers == 1:
            results = [run_clip(args.api, task, c) for c in args.clips]
        else:
            with concurrent.futures.ProcessPoolExecutor(max_workers=args.workers) as pool:
                results = list(pool.map(run_clip, [args.api] * len(args.clips), [task] * len(args.clips), args.clips))
    print(json.dumps({"frames": sum(r[0] for r in results), "hands": sum(r[1] for r in results),
                      "bodies": sum(r[2] for r in results)}))


if __name__ == "__main__":
    main()
