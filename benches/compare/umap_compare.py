#!/usr/bin/env python3
"""wordbench UMAP vs umap-learn, side by side, scored the same way.

Inputs (docs/umap.md):
  - the seeded 20-cluster Gaussian mixture in 100-D (make_mixture.py, as the
    t-SNE comparison), N = 10,000 by default, Euclidean;
  - optionally (--vectors) the most frequent --words words of SGNS vectors in
    word2vec text format, unit-normalised (cosine for both tools).
Both tools: n_neighbors 15, min_dist 0.1, spread 1, automatic epochs (500 up
to 10,000 points), negative_sample_rate 5, spectral start, seed 1.
umap-learn runs with random_state=1 (so its SGD is sequential, its
reproducible mode) in a child process; it first fits 300 random points so
that numba compiles its functions, and that compile time is reported apart
from the timed fit(). wordbench runs the release example `umap_layout`
(--threads T). Every process is timed by `/usr/bin/time -f "%U %S %e"`
(user + system CPU of the whole process, and wall). Layouts are scored by
score_projection.py (trustworthiness k=10 on a fixed 2,000-point subsample,
10-NN kept, k-means NMI against the mixture labels). The run ends with one
SPEED line per input (speedline.py: median CPU s over the repeats,
wordbench's whole process against umap-learn's fit() alone, numba's compile
and the imports left out).

Usage: umap_compare.py [--sizes 10000] [--repeat 1] [--threads 2] [--work DIR]
                       [--vectors SGNS.vec] [--words 10000] [--json FILE]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

from speedline import median, speed_line

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
TOOLS = os.environ.get("WORDBENCH_SHARED_TOOLS", os.path.join(ROOT, "..", "shared", "tools"))
EXAMPLE = os.path.join(ROOT, "target", "release", "examples", "umap_layout")
SEED = 1


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def timed(cmd):
    """Runs cmd under /usr/bin/time; (its stdout, user + system CPU s, wall s)."""
    p = run(["/usr/bin/time", "-f", "TIME %U %S %e"] + cmd, capture_output=True, text=True)
    line = [l for l in p.stderr.splitlines() if l.startswith("TIME ")][-1]
    user, system, wall = (float(v) for v in line.split()[1:])
    return p.stdout, user + system, wall


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


def child(vec, out, cosine):
    """The umap-learn run (in its own process, so /usr/bin/time sees only it)."""
    start = time.perf_counter()
    import umap
    import_s = time.perf_counter() - start
    _, x = read_vec(vec)
    metric = "cosine" if cosine else "euclidean"
    warm = np.random.default_rng(0).normal(size=(300, x.shape[1])).astype(np.float32)
    t, c = time.perf_counter(), time.process_time()
    umap.UMAP(n_neighbors=15, min_dist=0.1, metric=metric, random_state=SEED).fit(warm)
    compile_wall, compile_cpu = time.perf_counter() - t, time.process_time() - c
    t, c = time.perf_counter(), time.process_time()
    y = umap.UMAP(n_neighbors=15, min_dist=0.1, metric=metric, random_state=SEED).fit_transform(x)
    fit_wall, fit_cpu = time.perf_counter() - t, time.process_time() - c
    np.save(out, y.astype(np.float32))
    print(json.dumps({"import_s": import_s, "compile_wall": compile_wall, "compile_cpu": compile_cpu,
                      "fit_wall": fit_wall, "fit_cpu": fit_cpu}))


def umap_learn(vec, out, cosine):
    stdout, cpu, wall = timed([sys.executable, os.path.abspath(__file__), "--child", vec, out]
                              + (["--cosine"] if cosine else []))
    r = json.loads(stdout.strip().splitlines()[-1])
    r.update(process_cpu=cpu, process_wall=wall)
    return r


def wordbench(vec, out, cosine, threads):
    cmd = [EXAMPLE, vec, out, "--threads", str(threads), "--seed", str(SEED)]
    if cosine:
        cmd += ["--set", "metric=cosine"]
    stdout, cpu, wall = timed(cmd)
    r = json.loads(stdout.strip().splitlines()[-1])
    r.update(process_cpu=cpu, process_wall=wall)
    return r


def score(vec, coords, cosine, labels):
    cmd = [sys.executable, os.path.join(TOOLS, "score_projection.py"), vec, coords]
    if cosine:
        cmd.append("--cosine")
    if labels:
        cmd += ["--labels", labels]
    return json.loads(run(cmd, capture_output=True, text=True).stdout)


def compare(name, vec, n, cosine, labels, args):
    row = {"data": name, "n": n, "load_before": os.getloadavg()[0]}
    runs = {"umap-learn": [], "wordbench": []}
    # Interleaved so both see the same machine load.
    for r in range(args.repeat):
        path = os.path.join(args.work, f"umaplearn_{name}_{n}.npy")
        runs["umap-learn"].append(umap_learn(vec, path, cosine))
        if r == 0:
            row["umap-learn"] = score(vec, path, cosine, labels)
        path = os.path.join(args.work, f"wordbench_{name}_{n}.npy")
        runs["wordbench"].append(wordbench(vec, path, cosine, args.threads))
        if r == 0:
            row["wordbench"] = score(vec, path, cosine, labels)
    for tool, rs in runs.items():
        cpus = [r["process_cpu"] for r in rs]
        row[tool].update(cpu_min=min(cpus), cpu_median=statistics.median(cpus),
                         wall_min=min(r["process_wall"] for r in rs), runs=rs)
    row["load_after"] = os.getloadavg()[0]
    print(json.dumps(row), flush=True)
    return row


def table(rows):
    lines = ["| data | n | tool | trust. (k=10) | 10-NN kept | NMI | process CPU s (min / median) | "
             "process wall s | numba compile CPU s | fit() CPU s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        for tool in ("umap-learn", "wordbench"):
            s = r[tool]
            first = s["runs"][0]
            nmi = f"{s['nmi']:.3f}" if "nmi" in s else "-"
            compile_cpu = f"{first['compile_cpu']:.1f}" if "compile_cpu" in first else "-"
            fit = f"{first['fit_cpu']:.1f}" if "fit_cpu" in first else "-"
            lines.append(f"| {r['data']} | {r['n']} | {tool} | {s['trustworthiness']:.4f} | "
                         f"{s['knn10_kept']:.4f} | {nmi} | {s['cpu_min']:.1f} / {s['cpu_median']:.1f} | "
                         f"{s['wall_min']:.1f} | {compile_cpu} | {fit} |")
        u, w = r["umap-learn"], r["wordbench"]
        fit_cpu = min(x["fit_cpu"] for x in u["runs"])
        lines.append(f"| {r['data']} | {r['n']} | **wordbench / umap-learn** | "
                     f"{w['trustworthiness'] - u['trustworthiness']:+.4f} | "
                     f"{w['knn10_kept'] - u['knn10_kept']:+.4f} | | "
                     f"CPU x{w['cpu_min'] / u['cpu_min']:.2f} (x{w['cpu_min'] / fit_cpu:.2f} of fit() alone) | "
                     f"wall x{w['wall_min'] / u['wall_min']:.2f} | | |")
    return "\n".join(lines)


def print_speed(r, threads):
    """The SPEED line of one input: median CPU s (whole process against fit()), trustworthiness
    and 10-NN kept against umap-learn's."""
    from importlib.metadata import version

    u, w = r["umap-learn"], r["wordbench"]
    quality = (f"trustworthiness {w['trustworthiness']:.4f} ({w['trustworthiness'] - u['trustworthiness']:+.4f}), "
               f"10-NN kept {w['knn10_kept']:.4f} ({w['knn10_kept'] - u['knn10_kept']:+.4f})")
    if "nmi" in w and "nmi" in u:
        quality += f", NMI {w['nmi']:.3f} ({w['nmi'] - u['nmi']:+.3f})"
    what = "mixture" if r["data"] == "mixture" else "SGNS words"
    work = f"UMAP, {r['n']:,} points ({what}), {threads} threads (whole process)"
    peer = f"umap-learn {version('umap-learn')}'s `fit()` (numba's compile left out)"
    ours = median([x["process_cpu"] for x in w["runs"]])
    speed_line(f"umap-{r['data']}-{r['n']}", ours, median([x["fit_cpu"] for x in u["runs"]]), quality, work, peer)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], "--cosine" in sys.argv[4:])
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="*", default=[10000])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", default=os.path.join(ROOT, "target", "umap-compare"))
    ap.add_argument("--vectors", help="SGNS vectors (word2vec text, most frequent first)")
    ap.add_argument("--words", type=int, default=10000)
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
    if args.vectors:
        out = os.path.join(args.work, f"words_{args.words}.vec")
        with open(args.vectors, encoding="utf-8") as f, open(out, "w", encoding="utf-8") as g:
            count, dim = f.readline().split()
            n = min(args.words, int(count))
            g.write(f"{n} {dim}\n")
            for _ in range(n):
                g.write(f.readline())
        rows.append(compare("sgns-words", out, n, True, None, args))
    print(table(rows))
    for r in rows:
        print_speed(r, args.threads)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
