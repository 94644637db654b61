"""The 8x8 digits for `gpump gan --data`, and a picture of samples beside them.

    /usr/bin/python3 gan/testdata/digits.py export digits.npy
    /usr/bin/python3 gan/testdata/digits.py picture digits.npy out.png s1.npy [s2.npy ...]

export writes the 1,797 images of scikit-learn's load_digits (Debian's
python3-sklearn ships them) as a 1797x64 float64 array, each pixel's 0..16
scaled to 0..1. picture draws the first 100 rows of each file as a 10x10
grid of 8x8 images, panels side by side left to right (data first), each
pixel 4x4 screen pixels, values clipped to 0..1, black on white; it writes
the PNG with zlib alone (no plotting library needed).
"""
import struct
import sys
import zlib

import numpy as np


def export(path):
    from sklearn.datasets import load_digits

    x = load_digits().data.astype(np.float64) / 16.0
    np.save(path, x)


def png(path, img):
    """Writes a 2-D uint8 array as a greyscale PNG."""
    h, w = img.shape
    raw = b"".join(b"\x00" + img[r].tobytes() for r in range(h))

    def chunk(kind, data):
        c = struct.pack(">I", len(data)) + kind + data
        return c + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
        f.write(chunk(b"IEND", b""))


def picture(out, paths, n=10, scale=4, gap=2, margin=16):
    cell = 8 * scale + gap
    panel = n * cell
    img = np.full((panel + 2 * margin, len(paths) * (panel + margin) + margin), 255, np.uint8)
    for p, path in enumerate(paths):
        x = np.load(path)[: n * n]
        if x.shape[1] != 64:
            sys.exit(f"{path}: rows of {x.shape[1]}, want 64")
        x0 = margin + p * (panel + margin)
        for i, row in enumerate(x):
            v = np.clip(row.reshape(8, 8), 0, 1)
            tile = np.kron(255 - 255 * v, np.ones((scale, scale))).astype(np.uint8)
            r, c = divmod(i, n)
            img[margin + r * cell : margin + r * cell + 8 * scale, x0 + c * cell : x0 + c * cell + 8 * scale] = tile
    png(out, img)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "export":
        export(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "picture":
        picture(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
