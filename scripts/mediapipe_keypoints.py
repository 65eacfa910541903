#!/usr/bin/env python3
"""MediaPipe's hand pipelines over clips and stills, written as keypoint files (handpose/keypoints@1):
the references our two modes follow, run on this machine.

  mediapipe_keypoints.py tasks  --models DIR --out DIR [--noise FRACTION] FILE...   (.venv-tasks: the MediaPipe release make bench-setup installs)
  mediapipe_keypoints.py legacy --out DIR [--noise FRACTION] FILE...                (.venv: mediapipe 0.10.14)

tasks: MediaPipe Tasks' HandLandmarker, clips in VIDEO mode (timestamps i x 1000/30 ms), stills in IMAGE
mode, num_hands 2, every confidence at its default 0.5, with a task bundle made from DIR's
palm_detection_full.tflite and hand_landmark_full.tflite, as ../shared/corpus/reference_tasks was made.
legacy: mp.solutions.hands, clips in video mode, stills in static-image mode, full models, 2 hands, both
confidences 0.5 (the wheel's own models, the ones `make setup` verifies), as ../shared/corpus/reference.
Stills are .jpg, .jpeg and .png; everything is decoded by OpenCV, as MediaPipe's users do.

--noise adds 1 to a seeded random FRACTION of the pixels of every frame (an invisible change): it
measures how far MediaPipe moves from its own output when its input changes that little, which is the
floor under any comparison of another engine with it on clips (tracking feeds each frame's landmarks
into the next frame's crop, so small differences grow).
"""
import argparse, json, os, sys, tempfile, zipfile
import cv2
import numpy as np
import mediapipe as mp

STILLS = (".jpg", ".jpeg", ".png")


def bundle(models, folder):
    path = os.path.join(folder, "hand_landmarker.task")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.write(os.path.join(models, "palm_detection_full.tflite"), "hand_detector.tflite")
        z.write(os.path.join(models, "hand_landmark_full.tflite"), "hand_landmarks_detector.tflite")
    return path


def tasks_hands(result):
    hands = []
    for landmarks, world, handedness in zip(result.hand_landmarks, result.hand_world_landmarks, result.handedness):
        top = handedness[0]
        # Tasks labels hands as seen in the image; its score is that of the label it gives.
        right = top.score if top.category_name == "Right" else 1 - top.score
        hands.append({"chirality": "right" if right >= 0.5 else "left", "handedness": right,
                      "landmarks": [[p.x, p.y, p.z] for p in landmarks],
                      "world": [[p.x, p.y, p.z] for p in world]})
    return hands


def legacy_hands(result):
    hands = []
    for landmarks, world, handedness in zip(result.multi_hand_landmarks or [], result.multi_hand_world_landmarks or [],
                                            result.multi_handedness or []):
        top = handedness.classification[0]
        # The legacy solution labels hands as if the image were mirrored: its "Left" is a right hand.
        right = top.score if top.label == "Left" else 1 - top.score
        hands.append({"chirality": "right" if right >= 0.5 else "left", "handedness": right,
                      "landmarks": [[p.x, p.y, p.z] for p in landmarks.landmark],
                      "world": [[p.x, p.y, p.z] for p in world.landmark]})
    return hands


def perturb(rgb, fraction, seed):
    if fraction <= 0:
        return rgb
    mask = np.random.default_rng(seed).random(rgb.shape[:2]) < fraction
    out = rgb.astype(np.int16)
    out[mask] += 1
    return np.clip(out, 0, 255).astype(np.uint8)


def pictures(path, still):
    """(time in seconds, BGR picture) for each frame, as OpenCV decodes them."""
    if still:
        bgr = cv2.imread(path)
        if bgr is None:
            raise SystemExit(f"{path}: OpenCV cannot read this image")
        yield 0.0, bgr
        return
    capture = cv2.VideoCapture(path)
    if not capture.isOpened():
        raise SystemExit(f"{path}: OpenCV cannot open this clip")
    while True:
        ok, bgr = capture.read()
        if not ok:
            break
        yield capture.get(cv2.CAP_PROP_POS_MSEC) / 1000, bgr
    capture.release()


def run_tasks(path, task, fraction):
    from mediapipe.tasks.python import BaseOptions, vision
    still = path.lower().endswith(STILLS)
    mode = vision.RunningMode.IMAGE if still else vision.RunningMode.VIDEO
    options = vision.HandLandmarkerOptions(base_options=BaseOptions(model_asset_path=task), num_hands=2, running_mode=mode)
    frames, width, height = [], 0, 0
    with vision.HandLandmarker.create_from_options(options) as landmarker:
        for i, (t, bgr) in enumerate(pictures(path, still)):
            height, width = bgr.shape[:2]
            rgb = perturb(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), fraction, i)
            image = mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(rgb))
            result = landmarker.detect(image) if still else landmarker.detect_for_video(image, int(i * 1000 / 30))
            frames.append({"i": i, "t": t, "hands": tasks_hands(result)})
    return {"schema": "handpose/keypoints@1", "source": {"path": path},
            "video": {"width": width, "height": height, "frames": len(frames)}, "frames": frames}


def run_legacy(path, fraction):
    still = path.lower().endswith(STILLS)
    frames, width, height = [], 0, 0
    with mp.solutions.hands.Hands(static_image_mode=still, max_num_hands=2, model_complexity=1,
                                  min_detection_confidence=0.5, min_tracking_confidence=0.5) as hands:
        for i, (t, bgr) in enumerate(pictures(path, still)):
            height, width = bgr.shape[:2]
            rgb = perturb(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), fraction, i)
            frames.append({"i": i, "t": t, "hands": legacy_hands(hands.process(rgb))})
    return {"schema": "handpose/keypoints@1", "source": {"path": path},
            "video": {"width": width, "height": height, "frames": len(frames)}, "frames": frames}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("api", choices=["tasks", "legacy"])
    parser.add_argument("--models")
    parser.add_argument("--out", required=True)
    parser.add_argument("--noise", type=float, default=0)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    if args.api == "tasks" and not args.models:
        parser.error("tasks needs --models")
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        task = bundle(args.models, folder) if args.api == "tasks" else None
        for path in args.files:
            target = os.path.join(args.out, os.path.basename(path) + ".hands.json")
            keypoints = run_tasks(path, task, args.noise) if task else run_legacy(path, args.noise)
            with open(target + ".partial", "w") as f:
                json.dump(keypoints, f)
            os.replace(target + ".partial", target)
    print(f"mediapipe_keypoints {args.api}: {len(args.files)} files in {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
