"""UBE's clustering check, side by side (see ube_clustering.sh).

For each dataset (label TAB features per line, gzipped, under
../shared/data/manifold/ or --root): the features are written as word2vec
text (point ids p0, p1, ... as words) with a labels file; wordbench UBE
(`project --method ube --dim 3 --metric euclidean`), openTSNE in 3-D
(perplexity 30, Barnes-Hut: openTSNE's FFT gradient is 2-D only) and scikit-learn's SpectralEmbedding (Laplacian eigenmaps,
3-D, its default kNN graph) each embed it; every embedding and the raw data
are then clustered by the same `wordbench cluster --runs R --restarts 1`
(k = number of classes), NMI x 100 mean ± sd. UBE's and openTSNE's CPU seconds
(user + system, all threads: UBE's whole `wordbench project` process, its
exact kNN search included; openTSNE's `fit()`, its kNN search included) and
wall seconds are measured in the same run with the same thread count; the
ratio is UBE / openTSNE in CPU, one SPEED line per dataset.
"""

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from speedline import speed_line

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_ROOT = os.path.join(HERE, "..", "..", "..", "shared", "data", "manifold")
FILES = {"digits": "digits.tsv.gz", "coil20": "coil20.tsv.gz", "mnist": "mnist-test.tsv.gz"}
PAPER = {"digits": "86.0 (Optdigits 32x32)", "coil20": "92.6", "mnist": "81.2"}


def load(path):
    labels, rows = [], []
    with gzip.open(path, "rt") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            labels.append(parts[0])
            rows.append([float(v) for v in parts[1:]])
    return np.asarray(rows, dtype=np.float64), labels


def write_vectors(path, x):
    with open(path, "w") as f:
        f.write(f"{x.shape[0]} {x.shape[1]}\n")
        for i, row in enumerate(x):
            f.write(f"p{i} " + " ".join(f"{v:.6g}" for v in row) + "\n")


def write_csv(path, y):
    with open(path, "w") as f:
        f.write("word," + ",".join("xyz"[: y.shape[1]]) + "\n")
        for i, row in enumerate(y):
            f.write(f"p{i}," + ",".join(f"{v:.9g}" for v in row) + "\n")


def cluster(args, path, k, labels_path):
    out = subprocess.run(
        [args.bin, "cluster", path, "--k", str(k), "--labels", labels_path,
         "--runs", str(args.runs), "--restarts", "1", "--seed", "1",
         "--threads", str(args.threads), "--json"],
        check=True, capture_output=True, text=True)
    r = json.loads(out.stdout)
    return r["nmi_mean"], r["nmi_sd"]


def run_ube(args, vec, out_csv, n):
    cmd = [args.bin, "project", vec, "--method", "ube", "--dim", "3", "--metric", "euclidean",
           "--top", str(n), "--clusters", "0", "--seed", "1", "--threads", str(args.threads),
           "--quiet", "--out", out_csv]
    for s in args.set:
        cmd += ["--set", s]
    t, c = time.perf_counter(), children_cpu()
    subprocess.run(cmd, check=True)
    return time.perf_counter() - t, children_cpu() - c


def children_cpu():
    """User + system seconds of this process's finished children."""
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_tsne(x, threads):
    from openTSNE import TSNE
    t, c = time.perf_counter(), time.process_time()
    y = TSNE(n_components=3, perplexity=30, negative_gradient_method="bh",
             n_jobs=threads, random_state=1).fit(x)
    return np.asarray(y), time.perf_counter() - t, time.process_time() - c


def run_laplacian(x):
    from sklearn.manifold import SpectralEmbedding
    t = time.perf_counter()
    y = SpectralEmbedding(n_components=3, random_state=1).fit_transform(x)
    return y, time.perf_counter() - t


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--root", default=DEFAULT_ROOT)
    p.add_argument("--data", default="digits")
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--set", action="append", default=[], help="a UBE option, name=value")
    p.add_argument("--skip", default="", help="comma list of tsne,laplacian,raw to skip")
    args = p.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    rows = []
    for name in args.data.split(","):
        x, labels = load(os.path.join(args.root, FILES[name]))
        n, k = x.shape[0], len(set(labels))
        with tempfile.TemporaryDirectory() as tmp:
            vec = os.path.join(tmp, "x.txt")
            lab = os.path.join(tmp, "labels.txt")
            write_vectors(vec, x)
            with open(lab, "w") as f:
                for i, l in enumerate(labels):
                    f.write(f"p{i} {l}\n")
            res = {}
            ube_csv = os.path.join(tmp, "ube.csv")
            t_ube, c_ube = run_ube(args, vec, ube_csv, n)
            res["UBE"] = cluster(args, ube_csv, k, lab)
            t_tsne = c_tsne = float("nan")
            if "tsne" not in skip:
                y, t_tsne, c_tsne = run_tsne(x, args.threads)
                write_csv(os.path.join(tmp, "tsne.csv"), y)
                res["t-SNE"] = cluster(args, os.path.join(tmp, "tsne.csv"), k, lab)
            if "laplacian" not in skip:
                y, _ = run_laplacian(x)
                write_csv(os.path.join(tmp, "le.csv"), y)
                res["Laplacian"] = cluster(args, os.path.join(tmp, "le.csv"), k, lab)
            if "raw" not in skip:
                res["raw"] = cluster(args, vec, k, lab)
        rows.append((name, n, x.shape[1], k, res, (t_ube, c_ube), (t_tsne, c_tsne)))
        print(f"{name}: n={n} p={x.shape[1]} k={k} UBE {t_ube:.1f}s ({c_ube:.1f} CPU s) "
              f"t-SNE {t_tsne:.1f}s ({c_tsne:.1f} CPU s) "
              + " ".join(f"{m} {v[0]:.1f}±{v[1]:.1f}" for m, v in res.items()), file=sys.stderr)
    methods = ["UBE", "t-SNE", "Laplacian", "raw"]
    print("| data | n | p | k | " + " | ".join(f"{m} NMI" for m in methods)
          + " | thesis UBE | UBE CPU s (wall) | openTSNE CPU s (wall) | CPU ratio |")
    print("|---|---|---|---|" + "---|" * len(methods) + "---|---|---|---|")
    for name, n, dim, k, res, (t_ube, c_ube), (t_tsne, c_tsne) in rows:
        cells = [f"{res[m][0]:.1f} ± {res[m][1]:.1f}" if m in res else "-" for m in methods]
        print(f"| {name} | {n} | {dim} | {k} | " + " | ".join(cells)
              + f" | {PAPER[name]} | {c_ube:.1f} ({t_ube:.1f}) | {c_tsne:.1f} ({t_tsne:.1f}) "
              f"| {c_ube / c_tsne:.3f} |")
    print(f"load after: {os.getloadavg()[0]:.1f}")
    for name, n, dim, k, res, (t_ube, c_ube), (t_tsne, c_tsne) in rows:
        if "t-SNE" in res:
            speed_line(f"ube-{name}", c_ube, c_tsne,
                       f"NMI x 100: UBE {res['UBE'][0]:.1f}, t-SNE {res['t-SNE'][0]:.1f}",
                       f"embed {name} ({n} points) in 3-D, kNN search included, {args.threads} threads",
                       "openTSNE 3-D, Barnes-Hut")


if __name__ == "__main__":
    main()
