"""Keypoint files (``.hands.json``, every schema version) as NumPy arrays."""
from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import numpy as np

from ._errors import FormatError
from ._files import memory_bytes, open_regular

ORIGINS = ("", "backward", "interpolated", "fallback")


@dataclass
class Bodies:
    """The people ``extract --body`` or ``--holistic`` found: ``P`` slots a frame, the most any frame has."""
    landmarks: np.ndarray      #: float32 ``T x P x 33 x 3``, x and y normalised to the frame; NaN where no body
    world: np.ndarray          #: float32 ``T x P x 33 x 3``, metres around the hips' midpoint; NaN where none
    visibility: np.ndarray     #: float32 ``T x P x 33``
    presence: np.ndarray       #: float32 ``T x P x 33``
    score: np.ndarray          #: float32 ``T x P``, the pose presence
    track: np.ndarray          #: int32 ``T x P``, the person's identity across frames; -1 where no body
    mask: np.ndarray           #: bool ``T x P``, True where a body is


@dataclass
class Faces:
    """The faces ``extract --holistic`` found: ``F`` slots a frame."""
    landmarks: np.ndarray      #: float32 ``T x F x 468 x 3`` (478 with refined irises); NaN where no face
    presence: np.ndarray       #: float32 ``T x F``
    person: np.ndarray         #: int32 ``T x F``, the body it was found from; -1 where none
    mask: np.ndarray           #: bool ``T x F``


@dataclass
class Keypoints:
    """One keypoint file. ``T`` frames, ``H`` hand slots a frame (the most any frame has), in the file's
    order. Absent slots are NaN in float arrays, -1 in integer ones and False in ``mask``."""
    path: str
    schema: str                #: e.g. ``handpose/keypoints@2``
    source: str                #: the clip or image, relative to the folder extract was given
    width: int
    height: int
    fps: Optional[float]       #: average frame rate; None for stills
    time: np.ndarray           #: float64 ``T``, presentation time in seconds
    frame_index: np.ndarray    #: int64 ``T``, the decoded frame's index
    landmarks: np.ndarray      #: float32 ``T x H x 21 x 3``: x, y normalised to the frame (top-left origin), z depth
    world: np.ndarray          #: float32 ``T x H x 21 x 3``, metres around the hand's centre (NaN if not recorded)
    presence: np.ndarray       #: float32 ``T x H``, the landmark model's presence score
    handedness: np.ndarray     #: float32 ``T x H``, probability of a right hand
    chirality: np.ndarray      #: int8 ``T x H``: 0 left, 1 right, -1 no hand
    track: np.ndarray          #: int32 ``T x H``, identity across frames; -1 no hand
    origin: np.ndarray         #: int8 ``T x H``, index into ``ORIGINS`` ("" estimated as MediaPipe does, "backward",
                               #: "interpolated", "fallback"); -1 no hand or a kind this version does not know
    person: np.ndarray         #: int32 ``T x H``, the body in ``bodies`` the hand belongs to; -1 none or unknown
    mask: np.ndarray           #: bool ``T x H``, True where a hand is
    bodies: Optional[Bodies]   #: None when bodies were not looked for
    faces: Optional[Faces]     #: None when faces were not looked for
    header: Dict[str, Any] = field(default_factory=dict)  #: tool, settings, models, joints, incomplete, ...

    @property
    def incomplete(self) -> bool:
        """True when decoding stopped early (``header["incomplete"]`` says where)."""
        return "incomplete" in self.header


def _unique_keys(pairs: list) -> dict:
    """A JSON object whose keys are all different: Python would keep a repeated key's last value, the binary
    its first, and the same file would read two ways."""
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {json.dumps(key)[:40]} is given twice in one object")
        out[key] = value
    return out


def _array(value: Any, shape: tuple, path: str, where: str, what: str) -> np.ndarray:
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise FormatError(path, f"{what} is not a list of numbers", where) from None
    if a.shape != shape:
        raise FormatError(path, f"{what} has shape {list(a.shape)}, not {list(shape)}", where)
    if not np.isfinite(a).all():
        raise FormatError(path, f"{what} holds a value that is not a finite number", where)
    # As the binary reads them (InputRange): a coordinate past ±10 frames (or metres) is no coordinate but damage.
    if a.size and np.abs(a).max() > 10:
        raise FormatError(path, f"{what} holds a value outside -10..10, which no landmark has", where)
    return a


def _score(value: Any, path: str, where: str, what: str) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or not 0 <= value <= 1:
        raise FormatError(path, f"{what} must be a number in 0..1, not {json.dumps(value)[:40]}", where)
    return float(value)


def _optional(item: dict, key: str, target: np.ndarray, at: tuple, read, *args) -> None:
    """``target[at] = read(item[key], *args)`` when the item has the field (absent or null: left as it is)."""
    if item.get(key) is not None:
        target[at] = read(item[key], *args)


def _int(value: Any, path: str, where: str, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or abs(value) > 2**31 - 1:
        raise FormatError(path, f"{what} must be a whole number within 32 bits, not {json.dumps(value)[:40]}", where)
    return value


def load(path: "str | os.PathLike[str]") -> Keypoints:
    """Reads a keypoint file (``handpose/keypoints@1``, ``@2`` with bodies, ``@3`` with faces, and later
    versions, whose fields this one does not know are kept in ``header`` or left out) into arrays.
    Raises :class:`FormatError` naming the file, and the frame and hand, when it is not one: not JSON,
    another schema, landmarks that are not 21 finite points, scores outside 0..1, frames out of order."""
    path = os.fspath(path)
    try:
        with open_regular(path) as f:
            document = json.load(f, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as e:
        raise FormatError(path, f"not JSON: {e.msg}", f"line {e.lineno}, column {e.colno}") from None
    except UnicodeDecodeError:
        raise FormatError(path, "not JSON: not UTF-8 text") from None
    except ValueError as e:   # a key given twice (`_unique_keys`)
        raise FormatError(path, f"not a keypoint file: {e}") from None
    except RecursionError:
        raise FormatError(path, "not a keypoint file: nested too deep") from None
    if not isinstance(document, dict):
        raise FormatError(path, "not a keypoint file: the top level is not an object")
    schema = document.get("schema", "")
    if not isinstance(schema, str) or not re.fullmatch(r"handpose/keypoints@[1-9][0-9]*", schema):
        raise FormatError(path, f"not a handpose keypoint file: schema is {json.dumps(schema)[:60]}")
    video, frames = document.get("video"), document.get("frames")
    if not isinstance(video, dict) or not isinstance(frames, list):
        raise FormatError(path, "a keypoint file needs `video` (an object) and `frames` (a list)")
    for key in ("width", "height"):
        if type(video.get(key)) is not int or not 0 < video[key] <= 1_048_576:
            raise FormatError(path, f"video.{key} must be a whole number of pixels, 1 to 1048576")
    # The binary's rules (KeypointFile.check): a file cut short or edited is an error, never fewer frames.
    if type(video.get("frames")) is not int or video["frames"] != len(frames):
        raise FormatError(path, f"video.frames says {json.dumps(video.get('frames'))[:20]} frames but the file holds {len(frames)}: "
                                "it was cut short or edited")
    if not frames:
        raise FormatError(path, "it holds no frames, so it covers none of its input's: extract it again")
    damage = document.get("incomplete")
    if damage is not None:
        last = frames[-1].get("i") if isinstance(frames[-1], dict) else None
        if not isinstance(damage, dict) or damage.get("lastGoodFrame") != last or type(last) is not int:
            raise FormatError(path, f"incomplete.lastGoodFrame does not name its last frame ({json.dumps(last)[:20]}): it was edited")
    fps = video.get("fps")
    if fps is not None and (not isinstance(fps, (int, float)) or not math.isfinite(fps) or fps <= 0):
        raise FormatError(path, "video.fps must be a positive number")

    T = len(frames)
    time = np.zeros(T, np.float64)
    index = np.zeros(T, np.int64)
    hands: List[list] = []
    has_bodies = has_faces = False
    for n, frame in enumerate(frames):
        where = f"frame {n}"
        if not isinstance(frame, dict) or not isinstance(frame.get("hands"), list):
            raise FormatError(path, "a frame needs `hands` (a list)", where)
        i, t = frame.get("i"), frame.get("t")
        index[n] = _int(i, path, where, "frame index `i`")
        if not isinstance(t, (int, float)) or isinstance(t, bool) or not math.isfinite(t):
            raise FormatError(path, "frame time `t` must be a finite number", where)
        time[n] = t
        if n and (index[n] <= index[n - 1] or time[n] < time[n - 1]):
            raise FormatError(path, "frames are out of order (index and time must increase)", where)
        hands.append(frame["hands"])
        has_bodies = has_bodies or "bodies" in frame
        has_faces = has_faces or "faces" in frame

    H = max((len(h) for h in hands), default=0)
    # Arrays are dense (every frame as many slots as the fullest frame has hands): a file of one crowded frame
    # among thousands would take more memory than the machine has. Refused by name before allocating.
    dense = T * H * (21 * 3 * 4 * 2 + 4 * 5 + 3)
    if memory_bytes() and dense > memory_bytes() // 2:
        raise FormatError(path, f"{T} frames of up to {H} hands take {dense} bytes as dense arrays, more than half this machine's memory")
    landmarks = np.full((T, H, 21, 3), np.nan, np.float32)
    world = np.full((T, H, 21, 3), np.nan, np.float32)
    presence = np.full((T, H), np.nan, np.float32)
    handedness = np.full((T, H), np.nan, np.float32)
    chirality = np.full((T, H), -1, np.int8)
    track = np.full((T, H), -1, np.int32)
    origin = np.full((T, H), -1, np.int8)
    person = np.full((T, H), -1, np.int32)
    for n, frame_hands in enumerate(hands):
        for h, hand in enumerate(frame_hands):
            where = f"frame {n} (i {index[n]}), hand {h}"
            if not isinstance(hand, dict):
                raise FormatError(path, "a hand must be an object", where)
            landmarks[n, h] = _array(hand.get("landmarks"), (21, 3), path, where, "landmarks")
            if hand.get("world") is not None:
                world[n, h] = _array(hand["world"], (21, 3), path, where, "world")
            _optional(hand, "presence", presence, (n, h), _score, path, where, "presence")
            handedness[n, h] = _score(hand.get("handedness"), path, where, "handedness")
            side = hand.get("chirality")
            if side not in ("left", "right"):
                raise FormatError(path, f"chirality must be left or right, not {json.dumps(side)[:40]}", where)
            chirality[n, h] = 1 if side == "right" else 0
            _optional(hand, "track", track, (n, h), _int, path, where, "track")
            kind = hand.get("origin", "")
            origin[n, h] = ORIGINS.index(kind) if kind in ORIGINS else -1
            _optional(hand, "person", person, (n, h), _int, path, where, "person")
    mask = chirality >= 0

    bodies = _bodies(frames, index, path) if has_bodies else None
    faces = _faces(frames, index, path) if has_faces else None
    header = {k: v for k, v in document.items() if k != "frames"}
    source = document.get("source", {})
    return Keypoints(path=path, schema=schema, source=str(source.get("path", "")) if isinstance(source, dict) else "",
                     width=video["width"], height=video["height"], fps=float(fps) if fps is not None else None,
                     time=time, frame_index=index, landmarks=landmarks, world=world, presence=presence,
                     handedness=handedness, chirality=chirality, track=track, origin=origin, person=person, mask=mask,
                     bodies=bodies, faces=faces, header=header)


def _slots(frames: list, key: str, path: str) -> List[list]:
    out = []
    for n, frame in enumerate(frames):
        items = frame.get(key, [])
        if not isinstance(items, list):
            raise FormatError(path, f"`{key}` must be a list", f"frame {n}")
        out.append(items)
    return out


def _bodies(frames: list, index: np.ndarray, path: str) -> Bodies:
    per_frame = _slots(frames, "bodies", path)
    T, P = len(frames), max((len(b) for b in per_frame), default=0)
    b = Bodies(landmarks=np.full((T, P, 33, 3), np.nan, np.float32), world=np.full((T, P, 33, 3), np.nan, np.float32),
               visibility=np.full((T, P, 33), np.nan, np.float32), presence=np.full((T, P, 33), np.nan, np.float32),
               score=np.full((T, P), np.nan, np.float32), track=np.full((T, P), -1, np.int32), mask=np.zeros((T, P), bool))
    for n, bodies in enumerate(per_frame):
        for p, body in enumerate(bodies):
            where = f"frame {n} (i {index[n]}), body {p}"
            if not isinstance(body, dict):
                raise FormatError(path, "a body must be an object", where)
            b.landmarks[n, p] = _array(body.get("landmarks"), (33, 3), path, where, "body landmarks")
            if body.get("world") is not None:
                b.world[n, p] = _array(body["world"], (33, 3), path, where, "body world")
            for key, target in (("visibility", b.visibility), ("presence", b.presence)):
                if body.get(key) is not None:
                    values = _array(body[key], (33,), path, where, f"body {key}")
                    if ((values < 0) | (values > 1)).any():
                        raise FormatError(path, f"body {key} must be in 0..1", where)
                    target[n, p] = values
            _optional(body, "score", b.score, (n, p), _score, path, where, "body score")
            _optional(body, "track", b.track, (n, p), _int, path, where, "body track")
            b.mask[n, p] = True
    return b


def _faces(frames: list, index: np.ndarray, path: str) -> Faces:
    per_frame = _slots(frames, "faces", path)
    T, F = len(frames), max((len(f) for f in per_frame), default=0)
    first = next((face.get("landmarks") for faces in per_frame for face in faces if isinstance(face, dict)), None)
    N = len(first) if isinstance(first, list) and len(first) in (468, 478) else 468
    out = Faces(landmarks=np.full((T, F, N, 3), np.nan, np.float32), presence=np.full((T, F), np.nan, np.float32),
                person=np.full((T, F), -1, np.int32), mask=np.zeros((T, F), bool))
    for n, faces in enumerate(per_frame):
        for k, face in enumerate(faces):
            where = f"frame {n} (i {index[n]}), face {k}"
            if not isinstance(face, dict):
                raise FormatError(path, "a face must be an object", where)
            points = face.get("landmarks")
            out.landmarks[n, k] = _array(points, (N, 3), path, where, f"face landmarks (as the file's first face: {N} points)")
            _optional(face, "presence", out.presence, (n, k), _score, path, where, "face presence")
            _optional(face, "person", out.person, (n, k), _int, path, where, "face person")
            out.mask[n, k] = True
    return out
