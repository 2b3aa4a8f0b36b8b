#!/usr/bin/env python3
"""Compares two wordbench counts files (docs/counts.md, version 1) by word.

  spark_counts.py OURS.wbc THEIRS.wbc [--exact]

Prints the vocabulary sizes, non-zeros, and for the cells: how many are
bit-for-bit equal, how many differ and by how much (largest absolute and
relative difference), cells only in one file, and word counts that differ.
With --exact, exits 1 unless both files hold the same words with the same
counts and every cell is bit-for-bit equal.
"""
import struct
import sys

import numpy as np


def read(path):
    data = open(path, "rb").read()
    if data[:8] != b"WBCOUNTS":
        sys.exit(f"{path}: not a counts file")
    (version,) = struct.unpack_from("<I", data, 8)
    if version != 1:
        sys.exit(f"{path}: counts file version {version}, expected 1")
    n, tokens, word_bytes = struct.unpack_from("<QQQ", data, 24)
    off = 64
    counts = np.frombuffer(data, "<u8", n, off)
    off += 8 * n
    ends = np.frombuffer(data, "<u8", n, off)
    off += 8 * n
    blob = data[off : off + word_bytes]
    off += (word_bytes + 7) // 8 * 8
    ends = [int(e) for e in ends]
    starts = [0] + ends[:-1]
    words = [blob[s:e].decode() for s, e in zip(starts, ends)]
    (nnz,) = struct.unpack_from("<Q", data, len(data) - 24)
    cells = np.frombuffer(data, np.dtype([("col", "<u4"), ("pad", "<u4"), ("val", "<f8")]), nnz, off)
    off += 16 * nnz
    ptr = np.frombuffer(data, "<u8", n + 1, off)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr).astype(np.int64))
    return words, counts, rows, cells["col"].astype(np.int64), cells["val"], tokens


def main():
    ours_path, theirs_path = sys.argv[1], sys.argv[2]
    exact = "--exact" in sys.argv[3:]
    w1, c1, r1, k1, v1, t1 = read(ours_path)
    w2, c2, r2, k2, v2, t2 = read(theirs_path)
    print(f"words: {len(w1)} vs {len(w2)}; non-zeros: {len(v1)} vs {len(v2)}; tokens: {t1} vs {t2}")
    ok = True
    if set(w1) != set(w2):
        only1, only2 = set(w1) - set(w2), set(w2) - set(w1)
        print(f"DIFFERENT VOCABULARIES: {len(only1)} words only in ours, {len(only2)} only in theirs")
        sys.exit(1)
    # Map their ids to ours.
    index = {w: i for i, w in enumerate(w1)}
    to_ours = np.array([index[w] for w in w2], dtype=np.int64)
    count_diff = int(np.sum(c1[to_ours] != c2))
    print(f"word counts differing: {count_diff}")
    ok &= count_diff == 0
    n = len(w1)
    key1 = r1 * n + k1
    key2 = to_ours[r2] * n + to_ours[k2]
    o1, o2 = np.argsort(key1), np.argsort(key2)
    key1, v1 = key1[o1], v1[o1]
    key2, v2 = key2[o2], v2[o2]
    common, i1, i2 = np.intersect1d(key1, key2, assume_unique=True, return_indices=True)
    a, b = v1[i1], v2[i2]
    same = int(np.sum(a == b))
    diff = a != b
    print(f"cells in both: {len(common)}; bit-for-bit equal: {same}; differing: {int(diff.sum())}")
    print(f"cells only in ours: {len(key1) - len(common)}; only in theirs: {len(key2) - len(common)}")
    worst = 0.0
    if diff.any():
        absd = np.abs(a - b)
        rel = absd / np.maximum(np.abs(a), 1e-300)
        worst = rel.max()
        print(f"largest difference: {absd.max():.3e} absolute, {worst:.3e} relative")
    same_cells = ok and len(common) == len(key1) == len(key2)
    ok = same_cells and same == len(common)
    if ok:
        print("EQUAL: bit for bit")
    elif same_cells and worst <= 1e-12:
        print("EQUAL TO ROUNDING: the same cells, values within 1e-12 relative (sums added in another order)")
    else:
        print("NOT EQUAL")
    if exact and not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
