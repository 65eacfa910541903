"""Writes still images of many sizes and encodings, as cameras and editors write them, for the decode sweep.

Usage: make_stills.py OUT_DIR WIDTHS HEIGHTS   (comma-separated lists)
Pillow encodes JPEG with libjpeg-turbo: 4:2:0, 4:2:2, 4:4:4 and greyscale; PNG as RGB, RGBA and palette.
Prints one line per file written.
"""
import sys
from pathlib import Path

from PIL import Image

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
widths = [int(v) for v in sys.argv[2].split(",")]
heights = [int(v) for v in sys.argv[3].split(",")]

for w in widths:
    for h in heights:
        # A gradient with detail in every channel, so chroma subsampling has something to do.
        rgb = Image.new("RGB", (w, h))
        rgb.putdata([((x * 255) // max(w - 1, 1), (y * 255) // max(h - 1, 1), ((x + y) * 37) % 256)
                     for y in range(h) for x in range(w)])
        for name, sampling in (("420", 2), ("422", 1), ("444", 0)):
            rgb.save(out / f"jpeg{name}_{w}x{h}.jpg", quality=90, subsampling=sampling)
        rgb.convert("L").save(out / f"grey_{w}x{h}.jpg", quality=90)
        rgb.save(out / f"rgb_{w}x{h}.png")
        rgba = rgb.copy()
        rgba.putalpha(128)
        rgba.save(out / f"rgba_{w}x{h}.png")
        rgb.convert("P", palette=Image.ADAPTIVE, colors=16).save(out / f"palette_{w}x{h}.png")
