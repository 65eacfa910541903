"""PyTorch access to export folders (``pip install handpose[torch]``): importing this module needs torch."""
from __future__ import annotations

import os
from typing import Any, Callable, Optional, Tuple

try:
    import torch
    from torch.utils.data import Dataset
except ImportError as e:   # said with the way to get it, not only "No module named 'torch'"
    raise ImportError(f"handpose.torch needs PyTorch ({e}): pip install 'handpose[torch]'") from e

from ._export import Export, load_export


class ActionWindows(Dataset):
    """The examples of one part of an export folder (``export actions`` or ``export poses``) as a
    ``Dataset``: item ``i`` is ``(X[i], y[i], mask[i])`` as tensors (float32, int64, uint8), with
    ``(B[i], body_mask[i])`` after them when the export has the body (``--body-joints``) and ``body=True``.
    ``transform``, when given, is applied to ``X[i]`` (a tensor). ``records[i]`` is the example's
    manifest record (its clip, segment, window, augmentation). The arrays are read once, checked by
    :func:`handpose.load_export`, and shared by the tensors (no copy)."""

    def __init__(self, folder: "str | os.PathLike[str] | Export", part: str = "train", *, body: bool = False,
                 transform: Optional[Callable[[torch.Tensor], torch.Tensor]] = None) -> None:
        export = folder if isinstance(folder, Export) else load_export(folder)
        if part not in export.parts:
            raise KeyError(f"{export.path} has no part {part!r}; it has {sorted(export.parts)}")
        self.export, self.part = export, export.parts[part]
        if body and self.part.B is None:
            raise ValueError(f"{export.path} has no body arrays (export actions --body-joints upper writes them)")
        if self.part.mask is None:
            raise ValueError(f"{export.path} is a keypoint-csv export (no mask); export it as npy, npz or csv")
        self.body, self.transform = body, transform
        self.X, self.y = torch.from_numpy(self.part.X), torch.from_numpy(self.part.y)
        self.mask = torch.from_numpy(self.part.mask)
        self.B = torch.from_numpy(self.part.B) if body else None
        self.body_mask = torch.from_numpy(self.part.body_mask) if body else None
        self.classes, self.records = export.classes, self.part.records

    def __len__(self) -> int:
        return len(self.part)

    def __getitem__(self, i: int) -> Tuple[Any, ...]:
        x = self.X[i]
        if self.transform is not None:
            x = self.transform(x)
        if self.body:
            return x, self.y[i], self.mask[i], self.B[i], self.body_mask[i]
        return x, self.y[i], self.mask[i]
