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

Large mode (--large N, issue #35's 200,000 points): the same generator drawn for N rows (its
50,000-row cap raised to N, so the rows are not the 50,000-point set's), Euclidean, the rows
of --only run once each, one process at a time, every one under `/usr/bin/time -f "%U %S %e %M"`
(process CPU = user + system, wall, peak RSS: wordbench's whole process, and for scikit-learn a
child process that loads the .npy and runs fit_transform, its fit wall also reported). The
peer runs with --peer-threads jobs and BLAS/OpenMP threads (1: its most CPU-efficient setting
on 2 cores, measured) and is stopped after --timeout seconds. Exact Isomap is not run by
scikit-learn at this size (a dense N x N geodesic matrix); wordbench refuses it up front, and
`isomap-landmarks` runs landmark Isomap (--set landmarks=1000). Scores on a sample, since the
common scorer's O(N^2) steps do not finish at this size: trustworthiness at 10 on the scorer's
own 2,000-point subsample (numpy seed 0), 10-NN kept for the same 2,000 points as queries
against all N, and k-means NMI (k = 20, 10 starts) on the whole layout.

Usage: manifold_compare.py [--mixture 5000] [--words 10000] [--k 10] [--repeat 2]
                           [--threads 2] [--work DIR] [--vectors SGNS.vec] [--only isomap ...]
       manifold_compare.py --large 200000 [--only laplacian lle isomap isomap-landmarks]
                           [--peer-threads 1] [--timeout 1200] [--no-peer]
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
OPTIONS = {"laplacian": ["--set", "symmetrise=mean"], "laplacian-union": [],
           "isomap-landmarks": ["--set", "landmarks=1000"]}
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


def large_mixture(work, n):
    """make_mixture.py's generator with its row cap raised to n: its seed and constants are
    read from the tool itself, so the rows follow it."""
    sys.path.insert(0, TOOLS)
    import make_mixture as mm
    seed, centres_k, dim, centre_std, cluster_std = mm.SEED, mm.K, mm.D, mm.CENTER_STD, mm.CLUSTER_STD
    vec = os.path.join(work, f"mixture_{n}.vec")
    npy = os.path.join(work, f"mixture_{n}.npy")
    labels = os.path.join(work, f"mixture_{n}.labels.npy")
    if not os.path.exists(vec):
        rng = np.random.default_rng(seed)
        centres = rng.normal(0.0, centre_std, (centres_k, dim))
        lab = rng.integers(0, centres_k, n)
        x = (centres[lab] + rng.normal(0.0, cluster_std, (n, dim))).astype(np.float32)
        np.save(npy, x)
        np.save(labels, lab.astype(np.int32))
        with open(vec, "w", encoding="utf-8") as f:
            f.write(f"{n} {dim}\n")
            for i in range(n):
                f.write(f"c{lab[i]:02d}_{i} " + " ".join(f"{v:.6f}" for v in x[i]) + "\n")
    return vec, npy, labels


def timed(cmd, timeout, env=None, memory_gb=0):
    """Runs cmd under /usr/bin/time; (user + system s, wall s, peak RSS MB, stdout, stderr),
    or None if it ran past timeout seconds (its process group is then killed). memory_gb > 0
    caps its address space, so that a run that would exhaust a shared machine fails instead."""
    import resource
    import signal
    import tempfile

    def limit():
        if memory_gb > 0:
            cap = int(memory_gb * 2**30)
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        p = subprocess.Popen(["/usr/bin/time", "-f", "%U %S %e %M", "-o", t.name] + cmd,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env, start_new_session=True, preexec_fn=limit)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            return None
        fields = t.read().split()
        if p.returncode != 0 or len(fields) < 4:
            return {"failed": p.returncode, "stderr": err.strip().splitlines()[-3:]}
        user, system, wall, rss = (float(v) for v in fields[-4:])
        return {"cpu": user + system, "wall": wall, "rss_mb": rss / 1024, "stdout": out, "stderr": err}


def sampled_scores(x, y, labels):
    """Trustworthiness and 10-NN kept on the scorer's 2,000-point subsample, NMI on all."""
    from sklearn.cluster import KMeans
    from sklearn.manifold import trustworthiness
    from sklearn.metrics import normalized_mutual_info_score
    from sklearn.neighbors import NearestNeighbors
    n = x.shape[0]
    sub = np.sort(np.random.default_rng(0).choice(n, 2000, replace=False))
    res = {"trustworthiness": float(trustworthiness(x[sub], y[sub], n_neighbors=10))}
    _, hi = NearestNeighbors(n_neighbors=11, algorithm="brute").fit(x).kneighbors(x[sub])
    _, lo = NearestNeighbors(n_neighbors=11, algorithm="kd_tree").fit(y).kneighbors(y[sub])
    res["knn10_kept_sample"] = float(np.mean([len(np.intersect1d(a[1:], b[1:])) for a, b in zip(hi, lo)]) / 10)
    if labels is not None:
        pred = KMeans(n_clusters=len(np.unique(labels)), n_init=10, random_state=0).fit_predict(y)
        res["nmi"] = float(normalized_mutual_info_score(labels, pred))
    return res


def read_csv_coords(path, n):
    y = np.zeros((n, 2))
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip().split(",")
            if len(parts) < 3 or not parts[0].startswith("c"):
                continue
            y[int(parts[0].split("_")[1])] = (float(parts[1]), float(parts[2]))
    return y


def child(method, npy, out, k, threads):
    """The scikit-learn run of large mode, in its own process so that it is timed alone."""
    x = np.load(npy)
    y, wall = sklearn_layout(method, x, k, threads)
    np.save(out, y)
    print(json.dumps({"fit_wall": wall, "fit_cpu": time.process_time()}))


def large(args):
    """--large N: one timed run per tool and method (see the module docstring)."""
    n = args.large
    vec, npy, labels_path = large_mixture(args.work, n)
    x, labels = np.load(npy).astype(np.float64), np.load(labels_path)
    peer_env = dict(os.environ, OMP_NUM_THREADS=str(args.peer_threads),
                    OPENBLAS_NUM_THREADS=str(args.peer_threads), MKL_NUM_THREADS=str(args.peer_threads))
    rows = []
    for method in args.only:
        row = {"n": n, "method": method, "load_before": os.getloadavg()[0]}
        out = os.path.join(args.work, f"wordbench_{method}_{n}.csv")
        cmd = [WORDBENCH, "project", vec, "--method", method.split("-")[0], "--top", str(n),
               "--metric", "euclidean", "--clusters", "0", "--neighbours", str(args.k),
               "--threads", str(args.threads), "--seed", str(SEED), "--out", out] + OPTIONS.get(method, [])
        r = None if args.no_ours else timed(cmd, args.timeout)
        if args.no_ours:
            pass
        elif r is None or "failed" in r:
            row["wordbench"] = r or {"timeout": args.timeout}
        else:
            row["wordbench"] = {key: r[key] for key in ("cpu", "wall", "rss_mb")}
            row["wordbench"]["log"] = [l for l in r["stderr"].splitlines() if l.strip()][-6:]
            row["wordbench"].update(sampled_scores(x, read_csv_coords(out, n), labels))
        peer = method.split("-")[0]
        if not args.no_peer and method != "isomap-landmarks" and peer != "isomap":
            out = os.path.join(args.work, f"sklearn_{peer}_{n}.npy")
            r = timed([sys.executable, os.path.abspath(__file__), "--child", peer, npy, out,
                       str(args.k), str(args.peer_threads)], args.timeout, peer_env, args.peer_memory_gb)
            if r is None or "failed" in r:
                row["sklearn"] = r or {"timeout": args.timeout}
            else:
                row["sklearn"] = {key: r[key] for key in ("cpu", "wall", "rss_mb")}
                row["sklearn"].update(json.loads(r["stdout"].strip().splitlines()[-1]))
                row["sklearn"].update(sampled_scores(x, np.load(out), labels))
        row["load_after"] = os.getloadavg()[0]
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        method, npy, out, k, threads = sys.argv[2:7]
        child(method, npy, out, int(k), int(threads))
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mixture", type=int, default=5000)
    ap.add_argument("--words", type=int, default=10000)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", default=os.path.join(HERE, ".work_manifold"))
    ap.add_argument("--vectors", help="SGNS vectors to take the words from (trained if absent)")
    ap.add_argument("--only", nargs="*", default=list(METHODS),
                    help="rows: isomap, lle, laplacian, laplacian-union (large mode: isomap-landmarks)")
    ap.add_argument("--large", type=int, default=0,
                    help="large mode: this many mixture rows, one timed run per tool (e.g. 200000)")
    ap.add_argument("--peer-threads", type=int, default=1, help="large mode: scikit-learn's jobs and BLAS threads")
    ap.add_argument("--timeout", type=int, default=1200, help="large mode: seconds before a run is stopped")
    ap.add_argument("--no-peer", action="store_true", help="large mode: wordbench only")
    ap.add_argument("--no-ours", action="store_true", help="large mode: scikit-learn only")
    ap.add_argument("--peer-memory-gb", type=float, default=10,
                    help="large mode: address-space cap of the scikit-learn process (0: none)")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    if args.large:
        large(args)
        return
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
