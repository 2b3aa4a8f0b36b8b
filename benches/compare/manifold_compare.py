#!/usr/bin/env python3
"""wordbench's graph projections vs scikit-learn's, side by side, scored the same way.

Inputs (docs/methods/manifold.md, "Measured"):
  - the seeded 20-cluster Gaussian mixture in 100-D (../shared/tools/make_mixture.py),
    N = 5,000, Euclidean;
  - the 10,000 most frequent words of SGNS vectors trained on text8-head with
    `wordbench train --algo sgns` (2 threads, seed 1), unit-normalised (cosine).
Both tools: 2 dimensions, k = 10 neighbours, 2 threads; scikit-learn's defaults otherwise
(Isomap: Dijkstra + ARPACK; LLE: standard, reg 1e-3, ARPACK shift-invert; SpectralEmbedding:
nearest-neighbours affinity (0/1, averaged with its transpose), ARPACK shift-invert), wordbench's
defaults except Laplacian eigenmaps' graph: `--set symmetrise=mean` builds scikit-learn's
(A + A^T)/2 with each point among its own k (unit weights, heat = 0). The row
`laplacian-union` is wordbench's default graph (the paper's union, k others) against the same
scikit-learn runs (not timed again; --only laplacian-union to include it). Every layout is
scored by ../shared/tools/score_projection.py (trustworthiness at 10 on its fixed 2,000-point
subsample, 10-NN kept, NMI for the mixture). Times: scikit-learn's fit_transform() call;
wordbench's whole `wordbench project` process (reading the vectors included). Runs are
interleaved and repeated (--repeat); the minimum wall time is compared.

Usage: manifold_compare.py [--mixture 5000] [--words 10000] [--k 10] [--repeat 2]
                           [--threads 2] [--work DIR] [--vectors SGNS.vec] [--only isomap ...]
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
TOOLS = os.environ.get("WORDBENCH_SHARED_TOOLS", os.path.join(ROOT, "..", "shared", "tools"))
WORDBENCH = os.path.join(ROOT, "target", "release", "wordbench")
CORPUS = os.environ.get("WORDBENCH_TEXT8_HEAD",
                        os.path.join(ROOT, "assets", "corpora", "text8-head.txt.gz"))
METHODS = ("isomap", "lle", "laplacian")
# wordbench options per row; the scikit-learn side is the method before "-".
OPTIONS = {"laplacian": ["--set", "symmetrise=mean"], "laplacian-union": []}
SEED = 1


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def read_vec(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for k, line in enumerate(f):
            parts = line.rstrip().split(" ")
            if k == 0 and len(parts) == 2:
                continue
            rows.append(np.array(parts[1:], dtype=np.float32))
    return np.vstack(rows)


def word_vectors(work, n, threads, full=None):
    """The n most frequent words of SGNS vectors trained by wordbench on text8-head."""
    full = full or os.path.join(work, "sgns_text8head.vec")
    if not os.path.exists(full):
        run([WORDBENCH, "train", CORPUS, "--algo", "sgns", "--threads", str(threads),
             "--seed", str(SEED), "--out", full, "--quiet"])
    out = os.path.join(work, f"words_{n}.vec")
    with open(full, encoding="utf-8") as f, open(out, "w", encoding="utf-8") as g:
        count, dim = f.readline().split()
        n = min(n, int(count))
        g.write(f"{n} {dim}\n")
        for _ in range(n):
            g.write(f.readline())
    return out


def sklearn_layout(method, x, k, threads):
    from sklearn.manifold import Isomap, LocallyLinearEmbedding, SpectralEmbedding
    if method == "isomap":
        model = Isomap(n_neighbors=k, n_components=2, n_jobs=threads)
    elif method == "lle":
        model = LocallyLinearEmbedding(n_neighbors=k, n_components=2, reg=1e-3,
                                       random_state=SEED, n_jobs=threads)
    else:
        model = SpectralEmbedding(n_components=2, affinity="nearest_neighbors", n_neighbors=k,
                                  random_state=SEED, n_jobs=threads)
    start = time.perf_counter()
    y = model.fit_transform(x)
    return y, time.perf_counter() - start


def wordbench(method, vec, n, cosine, k, threads, out):
    cmd = [WORDBENCH, "project", vec, "--method", method.split("-")[0], "--top", str(n),
           "--metric", "cosine" if cosine else "euclidean", "--clusters", "0",
           "--neighbours", str(k), "--threads", str(threads), "--seed", str(SEED),
           "--out", out, "--quiet"] + OPTIONS.get(method, [])
    start = time.perf_counter()
    run(cmd)
    return time.perf_counter() - start


def score(vec, coords, cosine, labels):
    cmd = [sys.executable, os.path.join(TOOLS, "score_projection.py"), vec, coords]
    if cosine:
        cmd.append("--cosine")
    if labels:
        cmd += ["--labels", labels]
    return json.loads(run(cmd, capture_output=True, text=True).stdout)


SKLEARN = {}


def compare(name, vec, n, cosine, labels, method, args):
    x = read_vec(vec)[:n]
    if cosine:
        x = x / np.linalg.norm(x, axis=1, keepdims=True)
    row = {"data": name, "n": n, "method": method, "load": os.getloadavg()[0]}
    times = {"sklearn": [], "wordbench": []}
    peer = method.split("-")[0]
    reuse = SKLEARN.get((name, peer))
    for r in range(args.repeat):
        if reuse:
            # The same scikit-learn runs as the row of `peer`.
            row["sklearn"], times["sklearn"] = dict(reuse[0]), reuse[1]
        else:
            y, wall = sklearn_layout(peer, x, args.k, args.threads)
            times["sklearn"].append(wall)
            if r == 0:
                path = os.path.join(args.work, f"sklearn_{peer}_{name}_{n}.npy")
                np.save(path, y)
                row["sklearn"] = score(vec, path, cosine, labels)
        path = os.path.join(args.work, f"wordbench_{method}_{name}_{n}.csv")
        times["wordbench"].append(wordbench(method, vec, n, cosine, args.k, args.threads, path))
        if r == 0:
            row["wordbench"] = score(vec, path, cosine, labels)
    SKLEARN[(name, peer)] = (dict(row["sklearn"]), times["sklearn"])
    for tool, t in times.items():
        row[tool].update(wall_min=min(t), walls=t)
    row["ratio"] = row["sklearn"]["wall_min"] / row["wordbench"]["wall_min"]
    row["trust_diff"] = row["wordbench"]["trustworthiness"] - row["sklearn"]["trustworthiness"]
    print(json.dumps(row), flush=True)
    return row


def table(rows):
    lines = ["| data | n | method | trust. sklearn | trust. wordbench | diff | NMI sk / wb "
             "| sklearn s | wordbench s | speed-up |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        s, w = r["sklearn"], r["wordbench"]
        nmi = f"{s['nmi']:.3f} / {w['nmi']:.3f}" if "nmi" in s else "-"
        lines.append(f"| {r['data']} | {r['n']} | {r['method']} | {s['trustworthiness']:.4f} | "
                     f"{w['trustworthiness']:.4f} | {r['trust_diff']:+.4f} | {nmi} | "
                     f"{s['wall_min']:.2f} | {w['wall_min']:.2f} | {r['ratio']:.1f}x |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mixture", type=int, default=5000)
    ap.add_argument("--words", type=int, default=10000)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", default=os.path.join(HERE, ".work_manifold"))
    ap.add_argument("--vectors", help="SGNS vectors to take the words from (trained if absent)")
    ap.add_argument("--only", nargs="*", default=list(METHODS),
                    help="rows: isomap, lle, laplacian, laplacian-union")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    rows = []
    if args.mixture:
        run([sys.executable, os.path.join(TOOLS, "make_mixture.py"), args.work, str(args.mixture)],
            capture_output=True)
        vec = os.path.join(args.work, f"mixture_{args.mixture}.vec")
        labels = os.path.join(args.work, f"mixture_{args.mixture}.labels.npy")
        for m in args.only:
            rows.append(compare("mixture", vec, args.mixture, False, labels, m, args))
    if args.words:
        vec = word_vectors(args.work, args.words, args.threads, args.vectors)
        for m in args.only:
            rows.append(compare("sgns-words", vec, args.words, True, None, m, args))
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
