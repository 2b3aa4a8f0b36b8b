#!/usr/bin/env python3
"""wordbench t-SNE vs openTSNE (FFT), side by side, scored the same way.

Inputs (docs/methods/projection.md, "Measured"):
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

Wall and CPU seconds are both reported: on a shared machine CPU time (user +
system, all threads) is the steadier measure; runs are interleaved so both
tools see the same load. The run ends with one SPEED line per input
(speedline.py: median CPU s over the repeats, wordbench's whole process
against openTSNE's fit()).

openTSNE runs at each job count of --peer-threads (default 1 and 2), alternating
with wordbench, and the count with the fewest median CPU seconds is the peer
(its efficient setting; its first layout is the one scored).

Usage: tsne_compare.py [--sizes 10000 50000] [--words 10000] [--repeat 2]
                       [--threads 2] [--peer-threads 1 2] [--work DIR] [--vectors SGNS.vec]
                       [--set NAME=VALUE ...] [--json FILE]
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

from speedline import median, speed_line

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
TOOLS = os.environ.get("WORDBENCH_SHARED_TOOLS", os.path.join(ROOT, "..", "shared", "tools"))
WORDBENCH = os.path.join(ROOT, "target", "release", "wordbench")
CORPUS = os.environ.get("WORDBENCH_TEXT8_HEAD",
                        os.path.join(ROOT, "..", "shared", "data", "corpora", "text8-head.txt"))
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


def word_vectors(work, n, threads, full=None):
    """The n most frequent words of SGNS vectors trained by wordbench on text8-head
    (trained once into WORK unless --vectors names an existing file)."""
    full = full or os.path.join(work, "sgns_text8head.vec")
    if not os.path.exists(full):
        run([WORDBENCH, "train", CORPUS, "--algo", "sgns", "--threads", str(threads),
             "--out", full, "--quiet"])
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
    start, cpu = time.perf_counter(), time.process_time()
    y = np.asarray(t.fit(x))
    return y, time.perf_counter() - start, time.process_time() - cpu


def wordbench(vec, n, cosine, threads, seed, out, extra=()):
    cmd = [WORDBENCH, "project", vec, "--method", "tsne", "--top", str(n),
           "--metric", "cosine" if cosine else "euclidean", "--clusters", "0",
           "--perplexity", str(PERPLEXITY), "--set", f"early_iterations={EARLY}",
           "--set", f"iterations={ITERS}", "--threads", str(threads), "--seed", str(seed),
           "--out", out, "--quiet"]
    for e in extra:
        cmd += ["--set", e]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run(cmd)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


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
    row = {"data": name, "n": n, "load_before": os.getloadavg()[0]}
    peer = {t: [] for t in args.peer_threads}
    ours = []
    # Interleaved (openTSNE at each job count, wordbench, openTSNE, ...) so
    # every side sees the same machine load.
    for r in range(args.repeat):
        for jobs in args.peer_threads:
            y, wall, cpu = opentsne(x, jobs, SEED)
            peer[jobs].append((wall, cpu))
            if r == 0:
                np.save(os.path.join(args.work, f"opentsne_{name}_{n}_{jobs}.npy"), y)
        path = os.path.join(args.work, f"wordbench_{name}_{n}.csv")
        ours.append(wordbench(vec, n, cosine, args.threads, SEED, path, args.set))
        if r == 0:
            row["wordbench"] = score(vec, path, cosine, labels)
    # openTSNE's efficient setting: the job count with the fewest median CPU seconds.
    jobs = min(args.peer_threads, key=lambda t: median([c for _, c in peer[t]]))
    row["opentsne"] = score(vec, os.path.join(args.work, f"opentsne_{name}_{n}_{jobs}.npy"), cosine, labels)
    row["opentsne"]["jobs"] = jobs
    row["opentsne_cpus_by_jobs"] = {str(t): [c for _, c in v] for t, v in peer.items()}
    for tool, t in (("opentsne", peer[jobs]), ("wordbench", ours)):
        walls, cpus = [w for w, _ in t], [c for _, c in t]
        row[tool].update(wall_min=min(walls), wall_median=statistics.median(walls),
                         cpu_min=min(cpus), walls=walls, cpus=cpus)
    row["load_after"] = os.getloadavg()[0]
    print(json.dumps(row), flush=True)
    return row


def table(rows):
    head = ("| data | n | tool | exact KL | 10-NN kept | trust. | NMI | wall s (min / median) | CPU s |\n"
            "|---|---|---|---|---|---|---|---|---|")
    lines = [head]
    for r in rows:
        for tool in ("opentsne", "wordbench"):
            s = r[tool]
            nmi = f"{s['nmi']:.3f}" if "nmi" in s else "-"
            lines.append(f"| {r['data']} | {r['n']} | {tool} | {s['exact_kl']:.4f} | {s['knn10_kept']:.4f} | "
                         f"{s['trustworthiness']:.4f} | {nmi} | {s['wall_min']:.1f} / {s['wall_median']:.1f} | "
                         f"{s['cpu_min']:.1f} |")
        o, w = r["opentsne"], r["wordbench"]
        kl = w["exact_kl"] / o["exact_kl"] - 1
        lines.append(f"| {r['data']} | {r['n']} | **ratio** | KL {kl:+.2%} | "
                     f"{w['knn10_kept'] - o['knn10_kept']:+.4f} | | | "
                     f"wall x{w['wall_min'] / o['wall_min']:.2f} | CPU x{w['cpu_min'] / o['cpu_min']:.2f} |")
    return "\n".join(lines)


def print_speed(r, threads):
    """The SPEED line of one input: median CPU s, and KL / 10-NN kept / trustworthiness against openTSNE's."""
    import openTSNE

    o, w = r["opentsne"], r["wordbench"]
    quality = (f"exact KL {w['exact_kl']:.4f} ({w['exact_kl'] / o['exact_kl'] - 1:+.2%}), "
               f"10-NN kept {w['knn10_kept']:.4f} ({w['knn10_kept'] - o['knn10_kept']:+.4f}), "
               f"trustworthiness {w['trustworthiness']:.4f} ({w['trustworthiness'] - o['trustworthiness']:+.4f})")
    what = "mixture" if r["data"] == "mixture" else "SGNS words"
    work = f"t-SNE, {r['n']:,}-point {what}, {threads} threads (whole process)"
    jobs = o["jobs"]
    others = ", ".join(f"{t} jobs {median(c):.1f}" for t, c in r["opentsne_cpus_by_jobs"].items() if int(t) != jobs)
    peer = (f"openTSNE {openTSNE.__version__} (FFT), {jobs} jobs (its `fit()`; its cheaper setting"
            + (f", against {others} CPU s)" if others else ")"))
    speed_line(f"tsne-{r['data']}-{r['n']}", median(w["cpus"]), median(o["cpus"]), quality, work, peer)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="*", default=[10000, 50000])
    ap.add_argument("--words", type=int, default=10000, help="0 to skip the word vectors")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--peer-threads", type=int, nargs="+", default=[1, 2],
                    help="openTSNE job counts to time; the one with the fewest CPU seconds is the peer")
    ap.add_argument("--work", default=os.path.join(ROOT, "target", "tsne-compare"))
    ap.add_argument("--vectors", help="existing SGNS vectors (word2vec text, most frequent first)")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="extra wordbench t-SNE setting (repeatable)")
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
        vec = word_vectors(args.work, args.words, args.threads, args.vectors)
        rows.append(compare("sgns-words", vec, args.words, True, None, args))
    print(table(rows))
    for r in rows:
        print_speed(r, args.threads)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
