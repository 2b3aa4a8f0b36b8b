"""Spectral methods and the block Lanczos solver against numpy/scipy.

1. Quality (per method): wordbench trains each configuration through its CLI
   (`wordbench train`, 2 threads) on text8-head with the 30,000 most frequent
   words (min-count 1, max-vocab 30000), window 5 (uniform), d = 100, the
   CLI's default 5% held-out split. The reference reads the co-occurrence
   COUNTS wordbench exports for that exact corpus configuration (so token
   stream and vocabulary are shared; counting itself is checked by
   cooc_compare.sh), then does every transform (PMI/PPMI/SPPMI/M^tau, cds,
   sqrt, log1p) in numpy, the decomposition with scipy (eigsh for the
   symmetric matrices, svds otherwise, tol 1e-6), and its own cosine /
   Spearman evaluation. Both embeddings are also scored by the other side's
   evaluator, and both by wordbench's analogy evaluator (Google analogy,
   3CosAdd over the 30,000 rows; checked against gensim by eval_compare.sh).
   Pass: |rho_ours - rho_ref| <= 0.01 on WordSim-353 and SimLex-999.
   EigenWord and SVD-NS run at tau = -2.5 (thesis ch.4) and -3 (thesis ch.6).
2. Speed: the top-100 algebraic eigenpairs of the EigenWord matrix M^tau
   (tau = -2.5 bits) exported by wordbench: ours (`spectral_bench --import
   --save`) at 1 and 2 threads and scipy's eigsh(which='LA', tol=1e-6) with
   one BLAS thread, each its own process, run alternately --repeat times;
   the CPU seconds (user+sys of the whole process) and wall time of each,
   and the max relative residual |Ax - lx|/|l| of every solve recomputed
   here from the saved pairs with the same code.
3. The reference matrix of docs/methods/linalg.md ("Reference matrix"): the
   PPMI (natural log) of text8-head's 30,000 most frequent words, window 5,
   built here as that note describes (OOV tokens kept as gaps, the file as one
   sequence); wordbench's solver must find lambda_1 = 1075.73228,
   lambda_100 = 139.79839 and sigma_100 = 141.08042.
"""

import argparse
import collections
import gzip
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh, svds
from scipy.stats import spearmanr

try:
    from threadpoolctl import threadpool_limits
except ImportError:  # older venvs: the 1-thread scipy timing is skipped
    threadpool_limits = None

K = 100
TAU = -2.5
REFERENCE = {"lambda_1": 1075.73228, "lambda_100": 139.79839, "sigma_100": 141.08042}

# name, --algo, --set assignments, reference recipe
CONFIGS = [
    ("svd-ppmi (U)", "svd", {}, dict(input="ppmi", power=0.0)),
    ("svd-ppmi (US)", "svd", {"power": "1"}, dict(input="ppmi", power=1.0)),
    ("svd-ppmi cds .75", "svd", {"cds": "0.75"}, dict(input="ppmi", cds=0.75, power=0.0)),
    ("svd-sppmi k=5", "svd", {"input": "sppmi"}, dict(input="sppmi", power=0.0)),
    ("svd-sqrt", "svd", {"input": "sqrt"}, dict(input="sqrt", power=0.0)),
    ("svd-log", "svd", {"input": "log"}, dict(input="log", power=0.0)),
    ("eigenword tau -2.5", "eigenword", {}, dict(input="tpmi", target="eigen")),
    ("eigenword tau -3", "eigenword", {"tau": "-3"}, dict(input="tpmi", tau=-3.0, target="eigen")),
    ("svd-ns tau -2.5", "svd-ns", {}, dict(input="tpmi", power=0.0)),
    ("svd-ns tau -3", "svd-ns", {"tau": "-3"}, dict(input="tpmi", tau=-3.0, power=0.0)),
    ("svd-ns pmi-shift", "svd-ns", {"pmi_shift": "true"}, dict(input="tpmi-shift", power=0.0)),
]


def uptime():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def read_csr(prefix):
    n, m = map(int, open(prefix + ".shape").read().split())
    indptr = np.fromfile(prefix + ".indptr", dtype="<i8")
    indices = np.fromfile(prefix + ".indices", dtype="<i4")
    data = np.fromfile(prefix + ".data", dtype="<f8")
    return sp.csr_matrix((data, indices, indptr), shape=(n, m))


def write_csr(prefix, a):
    a = a.tocsr()
    a.sort_indices()
    a.indptr.astype("<i8").tofile(prefix + ".indptr")
    a.indices.astype("<i4").tofile(prefix + ".indices")
    a.data.astype("<f8").tofile(prefix + ".data")
    with open(prefix + ".shape", "w") as f:
        f.write(f"{a.shape[0]} {a.shape[1]}\n")


# ---------------------------------------------------------------- transforms


def pmi_cells(x, log, cds=None):
    """PMI on the stored cells of the counts x (COO arrays)."""
    c = x.tocoo()
    rows = np.asarray(x.sum(axis=1)).ravel()
    cols = np.asarray(x.sum(axis=0)).ravel()
    total = rows.sum()
    if cds is None:
        log_pc = np.log(cols / total, where=cols > 0, out=np.full(cols.shape, -np.inf))
    else:
        z = np.power(cols[cols > 0], cds).sum()
        log_pc = np.where(cols > 0, cds * np.log(np.maximum(cols, 1e-300)) - np.log(z), -np.inf)
    v = np.log(c.data / total) - np.log(rows[c.row] / total) - log_pc[c.col]
    return c.row, c.col, v / np.log(log)


def matrix(x, recipe):
    n = x.shape[0]
    kind = recipe["input"]
    if kind == "sqrt":
        return x.sqrt()
    if kind == "log":
        y = x.copy()
        y.data = np.log1p(y.data) / np.log(2.0)
        return y
    r, c, v = pmi_cells(x, 2.0, recipe.get("cds"))
    tau = recipe.get("tau", TAU)
    if kind == "ppmi":
        keep = v > 0
    elif kind == "sppmi":
        v = v - np.log2(5.0)
        keep = v > 0
    elif kind == "tpmi":
        keep = v > tau
    elif kind == "tpmi-shift":
        v = v - tau
        keep = v > 0
    else:
        raise ValueError(kind)
    return sp.csr_matrix((v[keep], (r[keep], c[keep])), shape=(n, n))


def reference_vectors(m, recipe):
    """Eigen/SVD with scipy, vectors as the pipeline defines them."""
    symmetric = abs(m - m.T).max() <= 1e-12 * abs(m).max()
    v0 = np.random.default_rng(0).standard_normal(m.shape[0])
    if recipe.get("target") == "eigen":
        w, u = eigsh(m, k=K, which="LA", tol=1e-6, v0=v0)
        return u
    if symmetric:
        w, u = eigsh(m, k=K, which="LM", tol=1e-6, v0=v0)
        s = np.abs(w)
    else:
        u, s, _ = svds(m, k=K, tol=1e-6, v0=v0)
    return u * np.power(s, recipe.get("power", 0.0))


# ---------------------------------------------------------------- evaluation


def read_pairs(path):
    pairs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            a, b, s = line.rstrip("\n").split("\t")[:3]
            pairs.append((a.lower(), b.lower(), float(s)))
    return pairs


def similarity(vectors, index, pairs):
    norms = np.linalg.norm(vectors, axis=1)
    cos, gold = [], []
    for a, b, s in pairs:
        if a in index and b in index:
            i, j = index[a], index[b]
            d = norms[i] * norms[j]
            cos.append(float(vectors[i] @ vectors[j] / d) if d > 0 else 0.0)
            gold.append(s)
    return spearmanr(cos, gold).correlation, len(gold)


def read_w2v_text(path):
    with open(path, encoding="utf-8") as f:
        n, d = map(int, f.readline().split())
        words, rows = [], np.zeros((n, d))
        for i, line in enumerate(f):
            parts = line.rstrip().split(" ")
            words.append(parts[0])
            rows[i] = np.array(parts[1:], dtype=float)
    return words, rows


# ---------------------------------------------------------------- parts


def write_w2v_text(path, words, vectors):
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"{len(words)} {vectors.shape[1]}\n")
        for w, row in zip(words, vectors):
            f.write(w + " " + " ".join(f"{x:.7g}" for x in row) + "\n")


def evaluate(evaluator, path, sets):
    """Our evaluator (checked against gensim by eval_compare.sh) on a vector file."""
    ev = json.loads(run([evaluator, path, "--similarity", sets["ws"], "--similarity", sets["sl"],
                         "--analogy", sets["an"]]).stdout)
    sims = {r["dataset"]: r["spearman"] for r in ev["similarity"]}
    a = ev["analogy"]
    return sims["wordsim353"], sims["simlex999"], a["total"], a["answered"]


def quality(args, work, corpus, sets):
    x = read_csr(os.path.join(work, "counts"))
    vocab = [w.rstrip("\n") for w in open(os.path.join(work, "vocab.txt"), encoding="utf-8")]
    index = {w: i for i, w in enumerate(vocab)}
    bench = os.path.join(args.root, "target/release/wordbench")
    evaluator = os.path.join(args.root, "target/release/examples/eval_vectors")
    rows = []
    for name, algo, assignments, recipe in CONFIGS:
        if args.only and not any(o in name for o in args.only):
            continue
        stem = algo + "-" + "-".join(f"{k}{v}" for k, v in assignments.items())
        out = os.path.join(work, stem + ".txt")
        cmd = [bench, "train", corpus, "--algo", algo, "--min-count", "1", "--max-vocab", "30000",
               "--threads", str(args.threads), "--seed", "1", "--out", out, "-q",
               "--set", "window=5", "--set", f"dim={K}"]
        for k, v in assignments.items():
            cmd += ["--set", f"{k}={v}"]
        t = time.time()
        run(cmd)
        ours_s = time.time() - t
        ws_ours, sl_ours, an_ours, n_an = evaluate(evaluator, out, sets)
        words, ours_vec = read_w2v_text(out)
        assert words == vocab, "vocabulary differs from the exported one"
        t = time.time()
        ref_vec = reference_vectors(matrix(x, recipe), recipe)
        ref_s = time.time() - t
        ws_ref, n_ws = similarity(ref_vec, index, sets["ws_pairs"])
        sl_ref, n_sl = similarity(ref_vec, index, sets["sl_pairs"])
        ws_cross, _ = similarity(ours_vec, index, sets["ws_pairs"])
        sl_cross, _ = similarity(ours_vec, index, sets["sl_pairs"])
        ref_out = os.path.join(work, stem + ".ref.txt")
        write_w2v_text(ref_out, vocab, ref_vec)
        ws_ref_by_rust, sl_ref_by_rust, an_ref, _ = evaluate(evaluator, ref_out, sets)
        ok = bool(abs(ws_ours - ws_ref) <= 0.01 and abs(sl_ours - sl_ref) <= 0.01)
        rows.append(dict(method=name, ws_ours=ws_ours, ws_ref=ws_ref, sl_ours=sl_ours, sl_ref=sl_ref,
                         an_ours=an_ours, an_ref=an_ref, an_answered=n_an,
                         ws_ours_by_python=ws_cross, sl_ours_by_python=sl_cross,
                         ws_ref_by_rust=ws_ref_by_rust, sl_ref_by_rust=sl_ref_by_rust, ws_pairs=n_ws,
                         sl_pairs=n_sl, ours_s=ours_s, ref_s=ref_s, ok=ok))
        print(f"{name:18s} WS353 ours {ws_ours:.4f} ref {ws_ref:.4f} (d {ws_ours - ws_ref:+.4f})  "
              f"SimLex ours {sl_ours:.4f} ref {sl_ref:.4f} (d {sl_ours - sl_ref:+.4f})  "
              f"analogy ours {an_ours:.4f} ref {an_ref:.4f}  "
              f"[ours {ours_s:.1f}s end to end, ref {ref_s:.1f}s]  {'ok' if ok else 'MISMATCH'}",
              flush=True)
    if rows:
        print(f"pairs found: WS353 {rows[0]['ws_pairs']}/{len(sets['ws_pairs'])}, "
              f"SimLex {rows[0]['sl_pairs']}/{len(sets['sl_pairs'])}, "
              f"analogy questions answered {rows[0]['an_answered']}")
        print("\n| method | WS-353 ours | WS-353 scipy | SimLex ours | SimLex scipy | Google analogy ours "
              "| Google analogy scipy | ours s (end to end) | scipy s (solve) |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['method']} | {r['ws_ours']:.4f} | {r['ws_ref']:.4f} | {r['sl_ours']:.4f} | "
                  f"{r['sl_ref']:.4f} | {r['an_ours']:.4f} | {r['an_ref']:.4f} | {r['ours_s']:.1f} | "
                  f"{r['ref_s']:.1f} |")
    return rows


def max_residual(a, w, v):
    r = a @ v - v * w
    return float(np.max(np.linalg.norm(r, axis=0) / np.abs(w)))


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, env=None):
    """Runs cmd; returns (wall s, CPU s user+sys of the whole child process, stdout)."""
    before, t = cpu_children(), time.time()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    return time.time() - t, cpu_children() - before, out.stdout


def load_pairs(prefix, n):
    w = np.fromfile(prefix + ".values", dtype="<f8")
    v = np.fromfile(prefix + ".vectors", dtype="<f8").reshape(n, len(w))
    return w, v


def eigsh_child(matrix_dir, out, seed):
    """The scipy side of the speed part, run as its own process: read the
    exported matrix, eigsh, save the pairs (timed from outside)."""
    a = read_csr(os.path.join(matrix_dir, "matrix"))
    a.indptr = a.indptr.astype(np.int32)
    v0 = np.random.default_rng(seed).standard_normal(a.shape[0])
    w, v = eigsh(a, k=K, which="LA", tol=1e-6, v0=v0)
    w.astype("<f8").tofile(out + ".values")
    np.ascontiguousarray(v).astype("<f8").tofile(out + ".vectors")


def speed(args, work):
    """CPU seconds (user+sys of the whole process: reading the matrix, the
    solve, writing the pairs) of ours at 1 and 2 threads and of scipy's eigsh
    with one BLAS thread, alternating; residuals recomputed here."""
    a = read_csr(os.path.join(work, "matrix"))
    n = a.shape[0]
    bench = os.path.join(args.root, "target/release/examples/spectral_bench")
    one = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    print(f"EigenWord matrix: n = {n}, nnz = {a.nnz}, top-{K} algebraic, tol 1e-6; "
          "CPU = user+sys of the whole process", flush=True)
    results = []
    for rep in range(args.repeat):
        for who in ("ours-1", "ours-2", "scipy-1"):
            out = os.path.join(work, f"pairs-{who}")
            load = uptime()
            if who.startswith("ours"):
                threads = who[-1]
                wall, cpu, stdout = timed([bench, "--import", work, "--algo", "eigenword",
                                           "--threads", threads, "--set", f"dim={K}",
                                           "--save", out])
                solve = json.loads(stdout.strip().splitlines()[-1])["solve"][0]
                extra = dict(matvecs=solve["matvecs"], solve_s=solve["seconds"],
                             status=solve["status"])
            else:
                wall, cpu, _ = timed([sys.executable, os.path.abspath(__file__), "--root", args.root,
                                      "--eigsh-child", work, out, str(rep)], env=one)
                extra = {}
            w, v = load_pairs(out, n)
            res = max_residual(a, w, v)
            row = dict(run=rep + 1, who=who, wall_s=wall, cpu_s=cpu, residual=res, load=load,
                       lambda_1=float(np.max(w)), lambda_k=float(np.min(w)), **extra)
            results.append(row)
            print(f"run {rep + 1} {who:8s} CPU {cpu:6.2f} s  wall {wall:6.2f} s  max residual "
                  f"{res:.2e}  lambda_1 {row['lambda_1']:.6f} lambda_100 {row['lambda_k']:.6f}  "
                  f"load {load}  {extra.get('matvecs', '')}", flush=True)
    by = collections.defaultdict(list)
    for r in results:
        by[r["who"]].append(r)
    ref = np.sort(load_pairs(os.path.join(work, "pairs-scipy-1"), n)[0])
    for who in ("ours-1", "ours-2"):
        w = np.sort(load_pairs(os.path.join(work, f"pairs-{who}"), n)[0])
        print(f"{who}: eigenvalues agree with scipy's to {np.max(np.abs(w - ref) / np.abs(ref)):.1e}")
    print("\n| run | load | ours 1 thread CPU s | residual | ours 2 threads CPU s | residual | "
          "scipy 1 BLAS thread CPU s | residual | ratio 1 thread | ratio 2 threads |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for rep in range(args.repeat):
        o1, o2, sc = (by[w][rep] for w in ("ours-1", "ours-2", "scipy-1"))
        print(f"| {rep + 1} | {o1['load'].split()[0]} | {o1['cpu_s']:.2f} | {o1['residual']:.1e} | "
              f"{o2['cpu_s']:.2f} | {o2['residual']:.1e} | {sc['cpu_s']:.2f} | {sc['residual']:.1e} | "
              f"{o1['cpu_s'] / sc['cpu_s']:.2f} | {o2['cpu_s'] / sc['cpu_s']:.2f} |")
    return results


def engineering_reference(args, corpus, work):
    tokens = read_tokens(corpus)
    counts = collections.Counter(tokens)
    vocab = sorted(counts.items(), key=lambda wc: (-wc[1], wc[0]))[:30000]
    index = {w: i for i, (w, _) in enumerate(vocab)}
    n = len(vocab)
    ids = np.fromiter((index.get(t, -1) for t in tokens), dtype=np.int64, count=len(tokens))
    left = sp.csr_matrix((n, n))
    for d in range(1, 6):
        a, b = ids[:-d], ids[d:]
        ok = (a >= 0) & (b >= 0)
        left = left + sp.coo_matrix((np.ones(ok.sum()), (a[ok], b[ok])), shape=(n, n)).tocsr()
    x = (left + left.T).tocsr()
    x.sum_duplicates()
    r, c, v = pmi_cells(x, np.e)
    keep = v > 0
    ppmi = sp.csr_matrix((v[keep], (r[keep], c[keep])), shape=(n, n))
    ref_dir = os.path.join(work, "engineering")
    os.makedirs(ref_dir, exist_ok=True)
    write_csr(os.path.join(ref_dir, "matrix"), ppmi)
    bench = os.path.join(args.root, "target/release/examples/spectral_bench")
    got = {}
    for which in ("la", "lm"):
        out = run([bench, "--import", ref_dir, "--algo", "eigenword", "--which", which,
                   "--threads", str(args.threads), "--set", f"dim={K}"])
        solve = json.loads(out.stdout.strip().splitlines()[-1])["solve"][0]
        vals = solve["values"]
        if which == "la":
            got["lambda_1"], got["lambda_100"] = vals[0], vals[-1]
        else:
            got["sigma_100"] = abs(vals[-1])
        got[f"residual_{which}"] = solve["max_true_residual"]
    print(f"reference matrix (docs/methods/linalg.md): n = {n}, nnz = {ppmi.nnz} (note: 4,791,844)")
    for key, want in REFERENCE.items():
        print(f"  {key}: wordbench {got[key]:.5f}  reference {want:.5f}  "
              f"(diff {got[key] - want:+.1e})")
    return dict(nnz=ppmi.nnz, **got)


def read_tokens(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return f.read().split()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("corpus", nargs="?")
    p.add_argument("--root", required=True)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--work")
    p.add_argument("--skip-quality", action="store_true")
    p.add_argument("--skip-speed", action="store_true")
    p.add_argument("--skip-reference", action="store_true")
    p.add_argument("--json", help="write all results here")
    p.add_argument("--only", action="append", help="quality: only methods whose name contains this")
    p.add_argument("--matrix", help="speed: an exported matrix directory (skips the export)")
    p.add_argument("--eigsh-child", nargs=3, metavar=("DIR", "OUT", "SEED"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.eigsh_child:
        d, out, seed = args.eigsh_child
        eigsh_child(d, out, int(seed))
        return

    corpus = args.corpus or os.path.join(args.root, "../shared/data/corpora/text8-head.txt")
    tmp = tempfile.mkdtemp(prefix="spectral_compare_")
    if not os.path.exists(corpus):
        bundled = os.path.join(args.root, "assets/corpora/text8-head.txt.gz")
        corpus = os.path.join(tmp, "text8-head.txt")
        with gzip.open(bundled, "rb") as f, open(corpus, "wb") as g:
            shutil.copyfileobj(f, g)
    work = args.work or tmp
    os.makedirs(work, exist_ok=True)
    eval_dir = os.path.join(args.root, "assets/eval")
    sets = dict(ws=os.path.join(eval_dir, "wordsim353.tsv"), sl=os.path.join(eval_dir, "simlex999.txt"),
                an=os.path.join(eval_dir, "questions-words.txt"))
    sets["ws_pairs"] = read_pairs(sets["ws"])
    sets["sl_pairs"] = read_pairs(sets["sl"])

    bench = os.path.join(args.root, "target/release/examples/spectral_bench")
    if args.matrix:
        work = args.matrix
    else:
        print(f"load average {uptime()}; exporting counts and the EigenWord matrix", flush=True)
        out = run([bench, corpus, "--algo", "eigenword", "--min-count", "1", "--max-vocab", "30000",
                   "--set", "window=5", "--no-solve", "--export", work, "--threads", str(args.threads)])
        print(out.stdout.strip())

    results = {}
    if not args.skip_quality:
        results["quality"] = quality(args, work, corpus, sets)
    if not args.skip_speed:
        results["speed"] = speed(args, work)
    if not args.skip_reference:
        results["engineering_reference"] = engineering_reference(args, corpus, work)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    if args.work is None:
        shutil.rmtree(tmp, ignore_errors=True)
    failed = [r["method"] for r in results.get("quality", []) if not r["ok"]]
    if failed:
        print("MISMATCH:", ", ".join(failed))
        sys.exit(1)


if __name__ == "__main__":
    main()
