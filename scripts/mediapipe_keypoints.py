#!/usr/bin/env python3
"""MediaPipe's hand pipelines over clips and stills, written as keypoint files (handpose/keypoints@1):
the references our two modes follow, run on this machine; and its pose landmarker (handpose/keypoints@2).

  mediapipe_keypoints.py tasks  --models DIR --out DIR [--noise FRACTION] FILE...   (.venv-tasks: the MediaPipe release make bench-setup installs)
  mediapipe_keypoints.py legacy --out DIR [--noise FRACTION] FILE...                (.venv: mediapipe 0.10.14)
  mediapipe_keypoints.py pose   --models DIR --out DIR [--noise FRACTION [--seed N]] FILE...   (.venv-tasks)

tasks: MediaPipe Tasks' HandLandmarker, clips in VIDEO mode (timestamps i x 1000/30 ms), stills in IMAGE
mode, num_hands 2, every confidence at its default 0.5, with a task bundle made from DIR's
palm_detection_full.tflite and hand_landmark_full.tflite, as ../shared/corpus/reference_tasks was made.
legacy: mp.solutions.hands, clips in video mode, stills in static-image mode, full models, 2 hands, both
confidences 0.5 (the wheel's own models, the ones `make setup` verifies), as ../shared/corpus/reference.
pose: MediaPipe Tasks' PoseLandmarker, clips in VIDEO mode with each frame's own time (ms) as its
timestamp (its smoothing filters depend on it), stills in IMAGE mode, num_poses 1, every confidence at its
default 0.5, no segmentation masks, with a task bundle made from DIR's pose_detection.tflite and
pose_landmark_full.tflite (the latter, which has no TFLite metadata, given the input metadata Tasks needs:
see with_image_metadata). Each frame has "hands": [] and "bodies": 33 landmarks (normalised to the
frame), their visibility and presence, and 33 world landmarks (metres, hip-centred) per body; the file
names its tool and settings. The reference for parity of our pose pipeline with MediaPipe's.
Stills are .jpg, .jpeg and .png; everything is decoded by OpenCV, as MediaPipe's users do.

--noise adds 1 to a seeded random FRACTION of the pixels of every frame (an invisible change): it
measures how far MediaPipe moves from its own output when its input changes that little, which is the
floor under any comparison of another engine with it on clips (tracking feeds each frame's landmarks
into the next frame's crop, so small differences grow). --seed N changes other pixels (N = 0, the
default, the ones every earlier run changed): the spread over seeds is the floor's own spread.
"""
import argparse, json, os, sys, tempfile, zipfile
import cv2
import numpy as np
import mediapipe as mp

STILLS = (".jpg", ".jpeg", ".png")


# Each task bundle: DIR's model files under the names the Tasks graph looks them up by
# (hand_landmarker_graph.cc, pose_landmarker_graph.cc: k...DetectorTFLiteName).
BUNDLES = {
    "tasks": ("hand_landmarker.task", [("palm_detection_full.tflite", "hand_detector.tflite"),
                                       ("hand_landmark_full.tflite", "hand_landmarks_detector.tflite")]),
    "pose": ("pose_landmarker.task", [("pose_detection.tflite", "pose_detector.tflite"),
                                      ("pose_landmark_full.tflite", "pose_landmarks_detector.tflite")]),
}


def bundle(models, folder, api):
    name, members = BUNDLES[api]
    path = os.path.join(folder, name)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for model, member in members:
            source = os.path.join(models, model)
            if api == "pose" and model == "pose_landmark_full.tflite" and not has_metadata(source):
                z.writestr(member, with_image_metadata(source, 0.0, 255.0))
            else:
                z.write(source, member)
    return path


def has_metadata(path):
    from mediapipe.tasks.metadata import schema_py_generated as tfl
    with open(path, "rb") as f:
        model = tfl.Model.GetRootAsModel(f.read(), 0)
    return any(model.Metadata(k).Name() == b"TFLITE_METADATA" for k in range(model.MetadataLength()))


def with_image_metadata(path, mean, std):
    """The model with TFLite metadata naming its input an RGB image normalised as (pixel - mean) / std.
    The pose landmark model of the wheels (mediapipe/modules/pose_landmark) has no metadata, which the
    Tasks graph reads its input normalisation from and refuses to run without ("Input tensor has type
    float32: it requires specifying NormalizationOptions metadata"). mean 0, std 255 is the [0, 1]
    range the legacy graph gives it (pose_landmark_by_roi_cpu.pbtxt, output_tensor_float_range); the
    weights are unchanged. Written as MetadataPopulator writes metadata (metadata.py), whose writer
    needs a module this wheel lacks."""
    import flatbuffers
    from mediapipe.tasks.metadata import metadata_schema_py_generated as md, schema_py_generated as tfl
    with open(path, "rb") as f:
        model = tfl.ModelT.InitFromObj(tfl.Model.GetRootAsModel(f.read(), 0))
    image = md.TensorMetadataT()
    image.name = "image"
    image.content = md.ContentT()
    image.content.contentPropertiesType = md.ContentProperties.ImageProperties
    image.content.contentProperties = md.ImagePropertiesT()
    image.content.contentProperties.colorSpace = md.ColorSpaceType.RGB
    normalization = md.ProcessUnitT()
    normalization.optionsType = md.ProcessUnitOptions.NormalizationOptions
    normalization.options = md.NormalizationOptionsT()
    normalization.options.mean, normalization.options.std = [mean], [std]
    image.processUnits = [normalization]
    graph = model.subgraphs[0]
    subgraph = md.SubGraphMetadataT()
    subgraph.inputTensorMetadata = [image]
    subgraph.outputTensorMetadata = []
    for k in graph.outputs:
        output = md.TensorMetadataT()
        output.name = graph.tensors[k].name.decode()
        output.content = md.ContentT()
        output.content.contentPropertiesType = md.ContentProperties.FeatureProperties
        output.content.contentProperties = md.FeaturePropertiesT()
        subgraph.outputTensorMetadata.append(output)
    metadata = md.ModelMetadataT()
    metadata.name = "PoseLandmarkDetector"
    metadata.subgraphMetadata = [subgraph]
    metadata.minParserVersion = "1.0.0"
    b = flatbuffers.Builder(0)
    b.Finish(metadata.Pack(b), b"M001")
    buffer = tfl.BufferT()
    buffer.data = b.Output()
    model.buffers.append(buffer)
    field = tfl.MetadataT()
    field.name, field.buffer = "TFLITE_METADATA", len(model.buffers) - 1
    model.metadata = (model.metadata or []) + [field]
    b = flatbuffers.Builder(0)
    b.Finish(model.Pack(b), b"TFL3")
    return bytes(b.Output())


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


def pose_bodies(result):
    # visibility and presence are each landmark's, as the Tasks graph returns them (already through a sigmoid).
    return [{"landmarks": [[p.x, p.y, p.z] for p in landmarks],
             "visibility": [p.visibility for p in landmarks], "presence": [p.presence for p in landmarks],
             "world": [[p.x, p.y, p.z] for p in world]}
            for landmarks, world in zip(result.pose_landmarks, result.pose_world_landmarks)]


# --seed: which pixels --noise changes (frame i uses generator i + 1,000,003 x seed; seed 0 is the default).
NOISE_SEED = 0


def perturb(rgb, fraction, seed):
    if fraction <= 0:
        return rgb
    mask = np.random.default_rng(seed + NOISE_SEED).random(rgb.shape[:2]) < fraction
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


def run_pose(path, task, fraction):
    from mediapipe.tasks.python import BaseOptions, vision
    still = path.lower().endswith(STILLS)
    mode = vision.RunningMode.IMAGE if still else vision.RunningMode.VIDEO
    options = vision.PoseLandmarkerOptions(base_options=BaseOptions(model_asset_path=task), running_mode=mode, num_poses=1,
                                           min_pose_detection_confidence=0.5, min_pose_presence_confidence=0.5,
                                           min_tracking_confidence=0.5, output_segmentation_masks=False)
    frames, width, height, last = [], 0, 0, -1
    with vision.PoseLandmarker.create_from_options(options) as landmarker:
        for i, (t, bgr) in enumerate(pictures(path, still)):
            height, width = bgr.shape[:2]
            rgb = perturb(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), fraction, i)
            image = mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(rgb))
            # The frame's own time in ms (the pose graph's One-Euro filters run on timestamps, so a clip
            # at 15 fps must not be passed off as 30), kept strictly increasing as Tasks requires.
            last = max(last + 1, int(round(t * 1000)))
            result = landmarker.detect(image) if still else landmarker.detect_for_video(image, last)
            frames.append({"i": i, "t": t, "hands": [], "bodies": pose_bodies(result)})
    return {"schema": "handpose/keypoints@2", "source": {"path": path},
            "tool": {"name": "mediapipe", "version": mp.__version__},
            "settings": {"mode": "image" if still else "video", "numPoses": 1, "rules": "tasks"},
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
    parser.add_argument("api", choices=["tasks", "legacy", "pose"])
    parser.add_argument("--models")
    parser.add_argument("--out", required=True)
    parser.add_argument("--noise", type=float, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    global NOISE_SEED
    NOISE_SEED = 1_000_003 * args.seed
    if args.api in ("tasks", "pose") and not args.models:
        parser.error(f"{args.api} needs --models")
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        task = bundle(args.models, folder, args.api) if args.api != "legacy" else None
        for path in args.files:
            target = os.path.join(args.out, os.path.basename(path) + ".hands.json")
            if args.api == "pose":
                keypoints = run_pose(path, task, args.noise)
            else:
                keypoints = run_tasks(path, task, args.noise) if task else run_legacy(path, args.noise)
            with open(target + ".partial", "w") as f:
                json.dump(keypoints, f)
            os.replace(target + ".partial", target)
    print(f"mediapipe_keypoints {args.api}: {len(args.files)} files in {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
