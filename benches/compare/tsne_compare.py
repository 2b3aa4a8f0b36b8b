#!/usr/bin/env python3
"""wordbench t-SNE vs openTSNE (FFT), side by side, scored the same way.

Inputs (ENGINEERING.md, "t-SNE"):
  - the seeded 20-cluster Gaussian mixture in 100-D (../shared/tools/make_mixture.py),
    N = 10,000 and 50,000, Euclidean;
  - the 10,000 most frequent words of SGNS vectors trained on text8-head with
    `wordbench train --algo sgns` (2 threads, seed 1), unit-normalised (cosine).
Both tools: perplexity 30, 250 iterations at exaggeration 12 then 500, PCA
initialisation, 2 threads, FFT gradient for openTSNE and wordbench's automatic
choice (FFT from 5,000 points). Every layout is scored by
../shared/tools/score_projection.py (exact KL with one common P, 10-NN kept,
trustworthiness, NMI for the mixture). Wall times: openTSNE's fit() call;
wordbench's whole `wordbench project` process (reading the vectors included).
Each timing is repeated (--repeat) and the minimum and median are reported.

Usage: tsne_compare.py [--sizes 10000 50000] [--words 10000] [--repeat 2]
                       [--threads 2] [--work DIR] [--json FILE]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
TOOLS = os.environ.get("WORDBENCH_SHARED_TOOLS", os.path.join(ROOT, "..", "shared", "tools"))
WORDBENCH = os.path.join(ROOT, "target", "release", "wordbench")
CORPUS = os.path.join(ROOT, "assets", "corpora", "text8-head.txt.gz")
PERPLEXITY, EARLY, ITERS, SEED = 30, 250, 500, 1


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def read_vec(path):
    words, rows = [], []
    with open(path, encoding="utf-8") as f:
        for k, line in enumerate(f):
            parts = line.rstrip().split(" ")
            if k == 0 and len(parts) == 2:
                continue
            words.append(parts[0])
            rows.append(np.array(parts[1:], dtype=np.float32))
    return words, np.vstack(rows)


def word_vectors(work, n, threads):
    """The n most frequent words of SGNS vectors trained by wordbench on text8-head."""
    full = os.path.join(work, "sgns_text8head.vec")
    if not os.path.exists(full):
        run([WORDBENCH, "train", CORPUS, "--algo", "sgns", "--threads", str(threads),
             "--seed", "1", "--out", full, "--quiet"])
    out = os.path.join(work, f"words_{n}.vec")
    with open(full, encoding="utf-8") as f, open(out, "w", encoding="utf-8") as g:
        count, dim = f.readline().split()
        n = min(n, int(count))
        g.write(f"{n} {dim}\n")
        for _ in range(n):
            g.write(f.readline())
    return out


def opentsne(x, threads, seed):
    from openTSNE import TSNE
    t = TSNE(perplexity=PERPLEXITY, n_iter=ITERS, early_exaggeration_iter=EARLY,
             early_exaggeration=12, negative_gradient_method="fft", initialization="pca",
             n_jobs=threads, random_state=seed, verbose=False)
    start = time.perf_counter()
    y = np.asarray(t.fit(x))
    return y, time.perf_counter() - start


def wordbench(vec, n, cosine, threads, seed, out):
    cmd = [WORDBENCH, "project", vec, "--method", "tsne", "--top", str(n),
           "--metric", "cosine" if cosine else "euclidean", "--clusters", "0",
           "--perplexity", str(PERPLEXITY), "--set", f"early_iterations={EARLY}",
           "--set", f"iterations={ITERS}", "--threads", str(threads), "--seed", str(seed),
           "--out", out, "--quiet"]
    start = time.perf_counter()
    run(cmd)
    return time.perf_counter() - start


def score(vec, coords, cosine, labels):
    cmd = [sys.executable, os.path.join(TOOLS, "score_projection.py"), vec, coords,
           "--perplexity", str(PERPLEXITY)]
    if cosine:
        cmd.append("--cosine")
    if labels:
        cmd += ["--labels", labels]
    return json.loads(run(cmd, capture_output=True, text=True).stdout)


def compare(name, vec, n, cosine, labels, args):
    words, x = read_vec(vec)
    if cosine:
        x = x / np.linalg.norm(x, axis=1, keepdims=True)
    row = {"data": name, "n": n}
    times = []
    for r in range(args.repeat):
        y, dt = opentsne(x, args.threads, SEED)
        times.append(dt)
        if r == 0:
            path = os.path.join(args.work, f"opentsne_{name}.npy")
            np.save(path, y)
            row["opentsne"] = score(vec, path, cosine, labels)
    row["opentsne"]["wall_min"], row["opentsne"]["wall_median"] = min(times), statistics.median(times)
    times = []
    for r in range(args.repeat):
        path = os.path.join(args.work, f"wordbench_{name}.csv")
        times.append(wordbench(vec, n, cosine, args.threads, SEED, path))
        if r == 0:
            row["wordbench"] = score(vec, path, cosine, labels)
    row["wordbench"]["wall_min"], row["wordbench"]["wall_median"] = min(times), statistics.median(times)
    print(json.dumps(row), flush=True)
    return row


def table(rows):
    head = ("| data | n | tool | exact KL | 10-NN kept | trust. | NMI | wall s (min / median) |\n"
            "|---|---|---|---|---|---|---|---|")
    lines = [head]
    for r in rows:
        for tool in ("opentsne", "wordbench"):
            s = r[tool]
            nmi = f"{s['nmi']:.3f}" if "nmi" in s else "-"
            lines.append(f"| {r['data']} | {r['n']} | {tool} | {s['exact_kl']:.4f} | {s['knn10_kept']:.4f} | "
                         f"{s['trustworthiness']:.4f} | {nmi} | {s['wall_min']:.1f} / {s['wall_median']:.1f} |")
        o, w = r["opentsne"], r["wordbench"]
        kl = w["exact_kl"] / o["exact_kl"] - 1
        lines.append(f"| {r['data']} | {r['n']} | **ratio** | KL {kl:+.2%} | "
                     f"{w['knn10_kept'] - o['knn10_kept']:+.4f} | | | "
                     f"time x{w['wall_min'] / o['wall_min']:.2f} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="*", default=[10000, 50000])
    ap.add_argument("--words", type=int, default=10000, help="0 to skip the word vectors")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", default=os.path.join(ROOT, "target", "tsne-compare"))
    ap.add_argument("--json")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    rows = []
    if args.sizes:
        run([sys.executable, os.path.join(TOOLS, "make_mixture.py"), args.work] + [str(s) for s in args.sizes],
            stdout=subprocess.DEVNULL)
    for n in args.sizes:
        base = os.path.join(args.work, f"mixture_{n}")
        rows.append(compare("mixture", base + ".vec", n, False, base + ".labels.npy", args))
    if args.words:
        vec = word_vectors(args.work, args.words, args.threads)
        rows.append(compare("sgns-words", vec, args.words, True, None, args))
    print(table(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
