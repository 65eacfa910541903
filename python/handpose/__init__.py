"""handpose: hand-pose training data from folders of clips and images.

The wheel carries the ``handpose`` binary (on ``PATH`` after ``pip install``, every command as in the
README) and its models; this package runs it and reads what it writes into NumPy arrays::

    import handpose
    handpose.extract("clips/", "keypoints/", recursive=True)
    k = handpose.load("keypoints/wave_0.mp4.hands.json")
    k.landmarks.shape        # (frames, hands, 21, 3); k.mask says which hand slots are real
    data = handpose.load_export("dataset/")      # export actions / export poses folders
"""
from ._binary import binary, extract, run
from ._errors import (BinaryNotFound, CannotRun, CommandError, FormatError, HandposeError, InputError,
                      InputsFailed, Interrupted, UsageError)
from ._export import Export, Part, load_export
from ._keypoints import ORIGINS, Bodies, Faces, Keypoints, load
from ._version import __version__

__all__ = ["binary", "extract", "run", "load", "load_export", "Keypoints", "Bodies", "Faces", "ORIGINS", "Export", "Part",
           "HandposeError", "BinaryNotFound", "FormatError", "CommandError", "InputsFailed", "InputError", "CannotRun",
           "UsageError", "Interrupted", "__version__"]
