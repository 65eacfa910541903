import json

import numpy as np
import pytest

import handpose
from conftest import ROOT


@pytest.fixture(scope="session")
def extracted(tmp_path_factory, binary, samples):
    """handpose.extract over two Samples clips and a still, with the npz beside each keypoint file: the
    binary's own arrays, against which load() is checked."""
    out = tmp_path_factory.mktemp("keypoints")
    lines = []
    handpose.extract([samples / "actions/grab_0.mp4", samples / "montage_0.mp4", samples / "poses/fist/fist_0.png"], out,
                     format=["json", "npz"], progress=lines.append)
    assert any("3 done" in l for l in lines), lines
    return out


@pytest.mark.parametrize("name", ["grab_0.mp4", "montage_0.mp4", "fist_0.png"])
def test_load_equals_the_binarys_npz(extracted, name):
    k = handpose.load(extracted / f"{name}.hands.json")
    z = np.load(extracted / f"{name}.npz")
    assert k.schema == "handpose/keypoints@1"
    assert k.landmarks.dtype == np.float32 and k.landmarks.shape[2:] == (21, 3)
    assert k.landmarks.shape[0] == len(z["time"]) == k.header["video"]["frames"]
    np.testing.assert_array_equal(k.time, z["time"])
    np.testing.assert_array_equal(k.frame_index, z["frame"])
    H = k.landmarks.shape[1]
    mask = z["mask"][:, :H]
    assert not z["mask"][:, H:].any(), "the npz has no hand the keypoint file lacks"
    np.testing.assert_array_equal(k.mask, mask)
    assert k.mask.sum() > 0, "hands were found"
    for ours, theirs in ((k.landmarks, "landmarks"), (k.world, "world"), (k.presence, "presence"), (k.handedness, "handedness")):
        np.testing.assert_array_equal(np.where(k.mask[..., None, None] if ours.ndim == 4 else k.mask, ours, 0),
                                      np.where(mask[..., None, None] if ours.ndim == 4 else mask, z[theirs][:, :H], 0))
        assert np.isnan(ours[~k.mask]).all(), f"{theirs} is NaN where no hand is"
    np.testing.assert_array_equal(np.where(k.mask, k.track, -1), z["track"][:, :H])
    assert set(np.unique(k.chirality[k.mask])) <= {0, 1} and (k.chirality[~k.mask] == -1).all()
    assert (k.origin[k.mask] == 0).all(), "every hand is the model's own"
    assert k.bodies is None and k.faces is None
    assert k.width == json.loads(str(z["header"]))["video"]["width"]


def test_reference_files_of_mediapipes_layout_load():
    """Samples' truth files: version 1 without world landmarks, tracks or presence on every hand."""
    k = handpose.load(ROOT / "Samples/actions/grab_0.mp4.truth.hands.json")
    assert k.landmarks.shape == (30, 1, 21, 3) and k.mask.all()
    assert np.isnan(k.world).all() and k.fps == 15


CLIP = ROOT.parent / "shared/corpus/clips/mps_thumbs_up.mp4"


@pytest.mark.skipif(not CLIP.is_file(), reason=f"{CLIP} is absent (Samples' synthetic clips hold hands without a body)")
def test_bodies_and_faces_load_as_the_npz_has_them(tmp_path, binary):
    out = tmp_path / "out"
    handpose.extract(CLIP, out / "body", body=True, format="json,npz", progress=lambda _: None)
    handpose.extract(CLIP, out / "holistic", holistic=True, format=["json", "npz"], progress=lambda _: None)
    body = handpose.load(out / "body/mps_thumbs_up.mp4.hands.json")
    z = np.load(out / "body/mps_thumbs_up.mp4.npz")
    assert body.schema == "handpose/keypoints@2" and body.bodies is not None and body.faces is None
    assert body.bodies.mask.any()
    P = body.bodies.landmarks.shape[1]
    np.testing.assert_array_equal(body.bodies.mask, z["body_mask"][:, :P])
    m = body.bodies.mask
    np.testing.assert_array_equal(body.bodies.landmarks[m], z["body_landmarks"][:, :P][m])
    np.testing.assert_array_equal(body.bodies.visibility[m], z["body_visibility"][:, :P][m])
    np.testing.assert_array_equal(np.where(body.mask, body.person, -1), z["person"][:, :body.landmarks.shape[1]])

    holistic = handpose.load(out / "holistic/mps_thumbs_up.mp4.hands.json")
    z = np.load(out / "holistic/mps_thumbs_up.mp4.npz")
    assert holistic.schema == "handpose/keypoints@3" and holistic.faces is not None
    assert holistic.faces.mask.any() and holistic.faces.landmarks.shape[2:] == (468, 3)
    F = holistic.faces.landmarks.shape[1]
    m = holistic.faces.mask
    np.testing.assert_array_equal(m, z["face_mask"][:, :F])
    np.testing.assert_array_equal(holistic.faces.landmarks[m], z["face_landmarks"][:, :F][m])
    assert holistic.header["settings"]["holistic"].startswith("mediapipe-0.10.14")


def broken(tmp_path, document, text=None):
    path = tmp_path / "broken.hands.json"
    path.write_text(text if text is not None else json.dumps(document))
    return path


def test_malformed_files_raise_a_typed_error_naming_file_and_place(tmp_path, extracted):
    good = json.loads((extracted / "grab_0.mp4.hands.json").read_text())
    text = (extracted / "grab_0.mp4.hands.json").read_text()

    with pytest.raises(handpose.FormatError) as e:
        handpose.load(broken(tmp_path, None, text[: len(text) // 2]))       # cut in half: an error, never a shorter file
    assert "broken.hands.json" in str(e.value) and "line 1, column" in str(e.value)
    assert isinstance(e.value, ValueError) and isinstance(e.value, handpose.HandposeError)

    doc = json.loads(json.dumps(good))
    n = next(i for i, f in enumerate(doc["frames"]) if f["hands"])
    doc["frames"][n]["hands"][0]["landmarks"] = doc["frames"][n]["hands"][0]["landmarks"][:20]
    with pytest.raises(handpose.FormatError, match=rf"frame {n} .*hand 0: landmarks has shape \[20, 3\]"):
        handpose.load(broken(tmp_path, doc))

    doc = json.loads(json.dumps(good))
    doc["frames"][n]["hands"][0]["presence"] = 1.5
    with pytest.raises(handpose.FormatError, match="presence must be a number in 0..1"):
        handpose.load(broken(tmp_path, doc))

    doc = json.loads(json.dumps(good))
    doc["frames"][1]["i"] = 0
    with pytest.raises(handpose.FormatError, match="frame 1: frames are out of order"):
        handpose.load(broken(tmp_path, doc))

    with pytest.raises(handpose.FormatError, match="not a handpose keypoint file"):
        handpose.load(broken(tmp_path, {"schema": "other", "video": {}, "frames": []}))
    with pytest.raises(handpose.FormatError, match="whole number within 32 bits"):
        doc = json.loads(json.dumps(good)); doc["frames"][n]["hands"][0]["track"] = 2**63
        handpose.load(broken(tmp_path, doc))
    path = tmp_path / "broken.hands.json"
    path.write_bytes(text.encode()[:10] + b"\xff\xfe")
    with pytest.raises(handpose.FormatError, match="broken.hands.json"):
        handpose.load(path)


def test_files_the_binary_refuses_are_refused_here_too(tmp_path, extracted):
    """Cut short (fewer frames than video.frames says), emptied, an edited lastGoodFrame, a key given twice, a
    coordinate of 1e30, a width that is a bool: each an error as the binary's, never a shorter or other result."""
    good = json.loads((extracted / "grab_0.mp4.hands.json").read_text())
    n = next(i for i, f in enumerate(good["frames"]) if f["hands"])
    def edited(change):
        doc = json.loads(json.dumps(good))
        change(doc)
        return broken(tmp_path, doc)
    with pytest.raises(handpose.FormatError, match="cut short or edited"):
        handpose.load(edited(lambda d: d.update(frames=d["frames"][:5])))
    with pytest.raises(handpose.FormatError, match="cut short or edited"):
        handpose.load(edited(lambda d: d.update(frames=[])))
    with pytest.raises(handpose.FormatError, match="lastGoodFrame"):
        handpose.load(edited(lambda d: d.update(incomplete={"error": "x", "lastGoodFrame": 0})))
    with pytest.raises(handpose.FormatError, match="outside -10..10"):
        handpose.load(edited(lambda d: d["frames"][n]["hands"][0]["landmarks"][0].__setitem__(0, 1e30)))
    with pytest.raises(handpose.FormatError, match="video.width"):
        handpose.load(edited(lambda d: d["video"].__setitem__("width", True)))
    text = (extracted / "grab_0.mp4.hands.json").read_text().rstrip()
    assert text.endswith("}")
    twice = tmp_path / "twice.hands.json"
    twice.write_text(text[:-1] + ', "frames": []}')
    with pytest.raises(handpose.FormatError, match="given twice"):
        handpose.load(twice)


def test_a_later_version_with_fields_this_one_does_not_know_loads(tmp_path, extracted):
    doc = json.loads((extracted / "grab_0.mp4.hands.json").read_text())
    doc["schema"] = "handpose/keypoints@9"
    doc["somethingNew"] = {"a": 1}
    for f in doc["frames"]:
        f["newPerFrame"] = 1
        for h in f["hands"]:
            h["origin"] = "a-kind-not-known-yet"
    k = handpose.load(broken(tmp_path, doc))
    assert k.schema == "handpose/keypoints@9" and k.header["somethingNew"] == {"a": 1}
    assert (k.origin[k.mask] == -1).all(), "an origin not known is not taken as estimated"
