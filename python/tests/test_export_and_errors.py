import importlib.util
import json
import os
import shutil
import subprocess

import numpy as np
import pytest

import handpose
from conftest import run


@pytest.fixture(scope="session")
def exports(tmp_path_factory, binary, samples):
    """Samples extracted once, then exported as make run exports them, in npy, npz and csv, and its poses."""
    out = tmp_path_factory.mktemp("exports")
    handpose.extract(samples, out / "keypoints", recursive=True, progress=lambda _: None)
    common = ["export", "actions", str(samples / "annotations.csv"), "--keypoints", str(out / "keypoints"), "--fps", "15",
              "--window", "15", "--split", "train=0.75,val=0.25", "--seed", "1", "--augment", "flip", "--copies", "1",
              "--flip-labels", "swipe_left:swipe_right"]
    for fmt in ("npy", "npz", "csv"):
        run(binary, *common, "-o", str(out / f"actions-{fmt}"), "--format", fmt)
    run(binary, "export", "poses", str(samples / "poses"), "--keypoints", str(out / "keypoints/poses"), "-o", str(out / "poses"))
    run(binary, "export", "poses", str(samples / "poses"), "--keypoints", str(out / "keypoints/poses"), "-o", str(out / "poses-kcsv"),
        "--format", "keypoint-csv")
    return out


def test_load_export_reads_every_format_alike(exports):
    npy = handpose.load_export(exports / "actions-npy")
    assert npy.kind == "actions" and set(npy.parts) == {"train", "val"}
    train = npy["train"]
    direct = np.load(exports / "actions-npy/train/X.npy")
    np.testing.assert_array_equal(train.X, direct)
    assert train.X.dtype == np.float32 and train.y.dtype == np.int64 and train.mask.dtype == np.uint8
    assert train.X.shape[1:] == (15, 3, 21) and train.mask.shape == train.X.shape[:2]
    assert len(train.records) == len(train) and train.records[0]["split"] == "train"
    assert npy.classes == json.loads((exports / "actions-npy/train/classes.json").read_text())
    assert npy.settings["window"] == 15
    flipped = [r for p in npy.parts.values() for r in p.records if "label_before_flip" in r]
    assert flipped, "--flip-labels made relabelled copies"
    for p in npy.parts.values():
        assert [r["label"] for r in p.records] == [npy.classes[i] for i in p.y], "each record names y's class"
    for fmt in ("npz", "csv"):
        other = handpose.load_export(exports / f"actions-{fmt}")
        for name in ("train", "val"):
            np.testing.assert_array_equal(other[name].y, npy[name].y)
            np.testing.assert_array_equal(other[name].mask, npy[name].mask)
            np.testing.assert_allclose(other[name].X, npy[name].X, rtol=0, atol=1e-6 if fmt == "csv" else 0)
    poses = handpose.load_export(exports / "poses")
    assert poses.kind == "poses" and "all" in poses.parts and poses["all"].X.ndim == 3
    kcsv = handpose.load_export(exports / "poses-kcsv")
    assert kcsv["all"].X.shape == (len(poses["all"]), 21, 2) and kcsv["all"].mask is None
    np.testing.assert_array_equal(kcsv["all"].y, poses["all"].y)


def test_a_broken_export_names_the_file(exports, tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(exports / "actions-npy", bad)
    lines = (bad / "train/manifest.jsonl").read_text().splitlines()
    (bad / "train/manifest.jsonl").write_text("\n".join(lines[:-1]) + "\n")          # one record lost
    with pytest.raises(handpose.FormatError, match=r"train/manifest.jsonl: .*records for"):
        handpose.load_export(bad)
    (bad / "train/manifest.jsonl").write_text("\n".join(lines[:3] + ["{not json"] + lines[4:]) + "\n")
    with pytest.raises(handpose.FormatError, match=r"manifest.jsonl: line 4: not a JSON record"):
        handpose.load_export(bad)
    (bad / "train/manifest.jsonl").write_text("\n".join(lines) + "\n")
    X = np.load(bad / "train/X.npy")
    np.save(bad / "train/X.npy", X[:-1])                                                  # an array cut short
    with pytest.raises(handpose.FormatError, match=r"X has \d+ examples and y \d+"):
        handpose.load_export(bad)
    (bad / "train/X.npy").write_bytes((exports / "actions-npy/train/X.npy").read_bytes()[:1000])   # a file cut in half
    with pytest.raises(handpose.FormatError, match=r"train/X.npy: not a NumPy array file"):
        handpose.load_export(bad)
    with pytest.raises(handpose.FormatError, match=r"dataset.json: missing"):
        handpose.load_export(tmp_path)


def test_extract_errors_are_typed_and_carry_the_binarys_message(tmp_path, binary, samples, monkeypatch):
    monkeypatch.chdir(tmp_path)   # no ./Models here: only HANDPOSE_MODELS names the models
    bad = tmp_path / "in"
    bad.mkdir()
    shutil.copy(samples / "actions/grab_0.mp4", bad / "good.mp4")
    (bad / "bad.mp4").write_bytes(os.urandom(20000))
    with pytest.raises(handpose.InputsFailed) as e:
        handpose.extract(bad, tmp_path / "out", progress=lambda _: None)
    assert e.value.exit_code == 1 and "bad.mp4" in e.value.message
    assert (tmp_path / "out/good.mp4.hands.json").is_file(), "the other input is done"

    with pytest.raises(handpose.UsageError) as e:
        handpose.extract(bad, tmp_path / "out2", no_such_flag=True, progress=lambda _: None)
    assert e.value.exit_code == 64

    models = os.environ["HANDPOSE_MODELS"]
    try:
        os.environ["HANDPOSE_MODELS"] = str(tmp_path / "no-models-here")
        with pytest.raises(handpose.CannotRun) as e:
            handpose.extract(bad / "good.mp4", tmp_path / "out3", progress=lambda _: None)
        assert e.value.exit_code == 3 and "no-models-here" in e.value.message
    finally:
        os.environ["HANDPOSE_MODELS"] = models

    was = os.environ["HANDPOSE_BINARY"]
    try:
        os.environ["HANDPOSE_BINARY"] = str(tmp_path / "no-binary")
        with pytest.raises(handpose.BinaryNotFound, match="no-binary"):
            handpose.extract(bad, tmp_path / "out4")
    finally:
        os.environ["HANDPOSE_BINARY"] = was


def test_one_version(binary):
    assert subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip() == handpose.__version__


def test_action_windows(exports):
    if importlib.util.find_spec("torch") is None:
        reason = "torch is not installed in this Python (make setup puts it in .venv-torch, which make pytest runs)"
        if os.environ.get("CI", "").lower() in ("true", "1", "yes"):
            pytest.fail(reason)   # under CI every prerequisite is installed: a skip would pass without running
        pytest.skip(reason)
    from handpose.torch import ActionWindows
    from torch.utils.data import DataLoader
    data = ActionWindows(exports / "actions-npy", "train")
    x, y, m = data[0]
    assert x.shape == (15, 3, 21) and int(y) == int(data.part.y[0]) and m.shape == (15,)
    batches = list(DataLoader(data, batch_size=4))
    assert sum(len(b[0]) for b in batches) == len(data)
    import torch
    assert batches[0][0].dtype == torch.float32 and batches[0][1].dtype == torch.int64 and batches[0][2].dtype == torch.uint8
    flipped = ActionWindows(exports / "actions-npy", "val", transform=lambda x: x.flip(-1))
    assert torch.equal(flipped[0][0], torch.from_numpy(data.export["val"].X[0]).flip(-1))
    with pytest.raises(KeyError, match="no part 'test'"):
        ActionWindows(exports / "actions-npy", "test")


def test_paths_named_like_flags_are_inputs_and_options_are_typed(tmp_path, binary, samples):
    """A folder named `--help`, `-o` or `--shard=1/2` is an input like any other, never a flag; a value that
    starts with `-` reaches its flag; a non-bool for a flag or an object for an option is a TypeError."""
    for name in ("--help", "-o", "--shard=1/2", "--failed-inputs-ok"):
        folder = tmp_path / name
        folder.mkdir(parents=True)
        shutil.copy(samples / "actions/grab_0.mp4", folder / "clip.mp4")
        out = tmp_path / ("out" + name.replace("/", "_"))
        handpose.extract(str(folder), out, progress=lambda _: None)
        assert (out / "clip.mp4.hands.json").is_file(), name
    with pytest.raises(handpose.UsageError) as e:
        handpose.extract(tmp_path / "-o", tmp_path / "neg", max_hands=-1, progress=lambda _: None)
    assert "max-hands" in e.value.message and "Missing value" not in e.value.message
    with pytest.raises(handpose.UsageError):
        handpose.extract(tmp_path / "-o", tmp_path / "flag", recursive=1, progress=lambda _: None)
    with pytest.raises(TypeError):
        handpose.extract(tmp_path / "-o", tmp_path / "obj", max_hands=object(), progress=lambda _: None)
    handpose.extract(tmp_path / "-o", tmp_path / "numpy", max_hands=np.int64(1), progress=lambda _: None)
    assert (tmp_path / "numpy/clip.mp4.hands.json").is_file(), "a NumPy integer is a number"


def test_special_files_and_part_names_leading_out_are_refused(exports, tmp_path):
    """A FIFO in an export folder (or given as a keypoint file) is refused by name, not waited on; a split part
    named with a path (`../x`, `/tmp/x`) is refused, not read from outside the folder."""
    import signal

    def timed_out(*_):
        raise AssertionError("a loader waited on a FIFO")
    signal.signal(signal.SIGALRM, timed_out)
    signal.alarm(60)
    try:
        bad = tmp_path / "bad"
        shutil.copytree(exports / "actions-npy", bad)
        for name in ("train/y.npy", "train/manifest.jsonl", "dataset.json"):
            original = (bad / name).read_bytes()
            (bad / name).unlink()
            os.mkfifo(bad / name)
            with pytest.raises(handpose.FormatError, match=name.replace(".", r"\.") + r": is a FIFO"):
                handpose.load_export(bad)
            (bad / name).unlink()
            (bad / name).write_bytes(original)
        os.mkfifo(tmp_path / "k.hands.json")
        with pytest.raises(handpose.FormatError, match=r"is a FIFO"):
            handpose.load(tmp_path / "k.hands.json")
    finally:
        signal.alarm(0)
    manifest = json.loads((bad / "dataset.json").read_text())
    for name in ("../outside", "/tmp/outside"):
        manifest["settings"]["split"][0]["name"] = name
        (bad / "dataset.json").write_text(json.dumps(manifest))
        with pytest.raises(handpose.FormatError, match=r"not a plain folder name"):
            handpose.load_export(bad)


def test_csv_values_and_archive_sizes_are_checked_not_converted(exports, tmp_path, monkeypatch):
    """A label of 6.9 or a mask of 257 in keypoints.csv is an error naming the file, not 6 and 1; an .npz whose
    members declare more than half the machine's memory, or a keypoint file whose dense arrays would, is refused
    before anything is unpacked (the machine's memory made small here, so a real export trips it)."""
    import csv as csvmodule
    bad = tmp_path / "csv"
    shutil.copytree(exports / "actions-csv", bad)
    rows = list(csvmodule.reader((bad / "train/keypoints.csv").read_text().splitlines()))
    header = rows[0]
    mask_column = next(n for n, name in enumerate(header) if name.startswith("mask_"))
    for column, value, what in ((0, "6.9", "a label"), (mask_column, "257", "a hand mask")):
        edited = [list(r) for r in rows]
        edited[1][column] = value
        with open(bad / "train/keypoints.csv", "w", newline="") as f:
            csvmodule.writer(f).writerows(edited)
        with pytest.raises(handpose.FormatError, match=what + r" is .*not a whole number"):
            handpose.load_export(bad)
    import handpose._files as files
    monkeypatch.setattr(files, "memory_bytes", lambda: 1000)
    import handpose._export as export_module, handpose._keypoints as keypoints_module
    monkeypatch.setattr(export_module, "memory_bytes", lambda: 1000)
    monkeypatch.setattr(keypoints_module, "memory_bytes", lambda: 1000)
    with pytest.raises(handpose.FormatError, match=r"data.npz: its members declare \d+ bytes"):
        handpose.load_export(exports / "actions-npz")
    with pytest.raises(handpose.FormatError, match=r"as dense arrays, more than half"):
        handpose.load(next((exports / "keypoints/actions").glob("*.hands.json")))


def test_a_manifest_of_the_wrong_types_is_a_format_error(exports, tmp_path):
    """settings or counts that are not objects, a split that is not a list, a 0-d y.npy: FormatError naming the
    file, not Python's AttributeError or TypeError."""
    bad = tmp_path / "types"
    shutil.copytree(exports / "actions-npy", bad)
    good = (bad / "dataset.json").read_text()
    for key, value, match in (("settings", [], "settings must be an object"), ("counts", [1], "counts must be an object")):
        doc = json.loads(good)
        doc[key] = value
        (bad / "dataset.json").write_text(json.dumps(doc))
        with pytest.raises(handpose.FormatError, match=match):
            handpose.load_export(bad)
    doc = json.loads(good)
    doc["settings"]["split"] = "train"
    (bad / "dataset.json").write_text(json.dumps(doc))
    with pytest.raises(handpose.FormatError, match="settings.split must be a list"):
        handpose.load_export(bad)
    (bad / "dataset.json").write_text(good)
    np.save(bad / "train/y.npy", np.array(3, np.int64))
    with pytest.raises(handpose.FormatError, match=r"y.npy: y has shape \[\], not"):
        handpose.load_export(bad)
