"""How much of KUBWE's repulsion the k nearest neighbours carry.

For sampled words i of a trained embedding (word2vec text, unit rows), the
full repulsion v2 = sum_{j != i} K(y_i . y_j) y_j with K(c) = ((c + 1)/2)^p
against the truncated one over the k nearest j only (what kubwe-fast uses).
Prints the share of the kernel weight in the k nearest and the cosine between
the truncated and the full force (the normalised update only sees the
direction). Positive contexts are not excluded (the PPMI is not at hand):
they are near neighbours, so the shares are upper bounds.

Usage: benches/compare/.venv/bin/python benches/compare/kubwe_farfield.py VECTORS
           [--p 13] [--k 148 1000 3000] [--sample 500]
(numpy only: `python3 -m venv benches/compare/.venv && .venv/bin/pip install numpy`).
"""

import argparse

import numpy as np


def load(path):
    with open(path, encoding="utf-8") as f:
        n, d = map(int, f.readline().split())
        y = np.empty((n, d), dtype=np.float32)
        for i in range(n):
            y[i] = np.asarray(f.readline().rstrip().split(" ")[1:], dtype=np.float32)
    return y / np.linalg.norm(y, axis=1, keepdims=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vectors")
    ap.add_argument("--p", type=int, default=13)
    ap.add_argument("--k", type=int, nargs="+", default=[148, 1000, 3000])
    ap.add_argument("--sample", type=int, default=500)
    args = ap.parse_args()
    y = load(args.vectors)
    n = y.shape[0]
    rows = np.random.default_rng(1).choice(n, size=min(args.sample, n), replace=False)
    c = y[rows] @ y.T
    c[np.arange(len(rows)), rows] = -1.0  # K(-1) = 0: no self-repulsion
    w = ((c + 1.0) / 2.0) ** args.p
    full = w @ y
    order = np.argsort(-c, axis=1)
    print(f"{args.vectors}: n={n} d={y.shape[1]} p={args.p}, {len(rows)} sampled words")
    print("| k | weight share of the k nearest | cos(truncated, full force) |")
    print("|---|---|---|")
    for k in args.k:
        keep = np.zeros_like(w, dtype=bool)
        np.put_along_axis(keep, order[:, :k], True, axis=1)
        wk = np.where(keep, w, 0.0)
        trunc = wk @ y
        share = wk.sum(1) / w.sum(1)
        cos = (trunc * full).sum(1) / (
            np.linalg.norm(trunc, axis=1) * np.linalg.norm(full, axis=1)
        )
        print(f"| {k} | {np.median(share):.3f} | {np.median(cos):.3f} |")


if __name__ == "__main__":
    main()
