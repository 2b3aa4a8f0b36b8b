"""Algorithm 1 of Sedov & Yang in numpy/scipy, on the S and W0 that
`examples/dsnmf_export` wrote, against wordbench's loss curves and times.

For every r: the same iterations from the same start in float64 (W never
rounded), D(S||S_hat) of the relaxed iterate and of its rows projected onto
the simplex after every iteration, compared with ours (relative difference);
seconds per iteration (update + evaluation, both losses computed as ours does)
and CPU seconds per iteration (user + system of every thread: this process's
`time.process_time()`, ours from the export's JSON), and the ratio ours /
reference in CPU. Z = S / S_hat is evaluated on the non-zeros of S only, in
chunks of non-zeros (never N x N) gathered into two buffers allocated once
(an earlier version allocated 2 x CHUNK x r doubles per chunk, 100-200 MB
that the allocator mapped and unmapped every time: most of its CPU went to
page faults). numpy's BLAS threads are the caller's OMP/OPENBLAS_NUM_THREADS.
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

from speedline import speed_line

EPS = 1e-12
CHUNK = 1 << 14  # non-zeros per gathered block (CHUNK x r doubles, reused)


def load_s(work):
    indptr = np.fromfile(os.path.join(work, "S.indptr"), dtype="<u8").astype(np.int64)
    indices = np.fromfile(os.path.join(work, "S.indices"), dtype="<u4").astype(np.int32)
    data = np.fromfile(os.path.join(work, "S.data"), dtype="<f8")
    n = len(indptr) - 1
    s = sp.csr_matrix((data, indices, indptr), shape=(n, n))
    rows = np.repeat(np.arange(n, dtype=np.int32), np.diff(indptr))
    return s, rows


def inv(x):
    out = np.zeros_like(x)
    np.divide(1.0, x, out=out, where=x > 0)
    return out


def s_hat_on(rows, cols, left, right):
    """(left @ right.T)[rows, cols] in chunks of non-zeros, gathered into
    two CHUNK x r buffers allocated once per call."""
    out = np.empty(len(rows))
    r = left.shape[1]
    gl, gr = np.empty((CHUNK, r)), np.empty((CHUNK, r))
    for a in range(0, len(rows), CHUNK):
        b = min(a + CHUNK, len(rows))
        m = b - a
        np.take(left, rows[a:b], axis=0, out=gl[:m])
        np.take(right, cols[a:b], axis=0, out=gr[:m])
        np.einsum("ij,ij->i", gl[:m], gr[:m], out=out[a:b])
    return out


def evaluate(s, rows, w):
    """(D relaxed, D projected, ZW, diag(W^T Z W), 1/s) at w."""
    cols, data = s.indices, s.data
    col = w.sum(axis=0)
    inv_s = inv(col)
    shat = s_hat_on(rows, cols, w * inv_s, w) + EPS
    z = data / shat
    fit = np.sum(data * np.log(z) - data)
    zmat = sp.csr_matrix((z, cols, s.indptr), shape=s.shape)
    zw = zmat @ w
    diag = np.einsum("ik,ik->k", w, zw)
    rho = w.sum(axis=1)
    wt = w * inv(rho)[:, None]
    col_t = wt.sum(axis=0)
    shat_t = s_hat_on(rows, cols, wt * inv(col_t), wt) + EPS
    feasible = np.sum(data * np.log(data / shat_t) - data) + col_t.sum()
    return fit + col.sum(), feasible, zw, diag, inv_s


def update(w, zw, diag, inv_s):
    """One multiplicative update, everything from the evaluated w."""
    plus = diag * inv_s * inv_s
    inv_plus = 1.0 / (plus + EPS)
    minus = 2.0 * zw * inv_s
    a = w @ inv_plus
    b = np.einsum("ik,ik->i", w * inv_plus, minus)
    return w * (minus * a[:, None] + 1.0) / (plus[None, :] * a[:, None] + b[:, None] + EPS)


def run(s, rows, w, iterations):
    relaxed, feasible, seconds, cpu = [], [], [], []
    d, f, zw, diag, inv_s = evaluate(s, rows, w)
    relaxed.append(d)
    feasible.append(f)
    for _ in range(iterations):
        t, c = time.perf_counter(), time.process_time()
        w = update(w, zw, diag, inv_s)
        d, f, zw, diag, inv_s = evaluate(s, rows, w)
        seconds.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        relaxed.append(d)
        feasible.append(f)
    return relaxed, feasible, seconds, cpu


def compare(args):
    """Runs the reference for every r against ours in `args.work`; returns
    whether every loss curve is within the tolerance."""
    s, rows = load_s(args.work)
    n = s.shape[0]
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "?")
    print(f"S: {n} x {n}, {s.nnz} non-zeros; BLAS threads {threads}; load {os.getloadavg()[0]:.1f}")
    results, ok = [], True
    header = ("| r | iterations | max rel. diff D (relaxed) | max rel. diff D (projected) | ours s/iter "
              "| numpy/scipy s/iter | ours CPU s/iter | numpy/scipy CPU s/iter | CPU ratio |")
    lines = [header, "|---|---|---|---|---|---|---|---|---|"]
    for r in [int(x) for x in args.dims.split(",")]:
        ours = json.load(open(os.path.join(args.work, f"ours_r{r}.json")))
        w0 = np.fromfile(os.path.join(args.work, f"W0_r{r}.f32"), dtype="<f4").reshape(n, r)
        relaxed, feasible, seconds, cpu = run(s, rows, w0.astype(np.float64), args.iterations)
        k = min(len(relaxed), len(ours["relaxed"]))
        rel = lambda a, b: max(abs(x - y) / abs(y) for x, y in zip(a[:k], b[:k]))
        d_rel = rel(ours["relaxed"], relaxed)
        d_feas = rel(ours["feasible"], feasible)
        t_ours, t_ref = float(np.median(ours["seconds"])), float(np.median(seconds))
        c_ours, c_ref = float(np.median(ours["cpu_seconds"])), float(np.median(cpu))
        ok &= d_rel <= args.tolerance and d_feas <= args.tolerance
        lines.append(
            f"| {r} | {k - 1} | {d_rel:.1e} | {d_feas:.1e} | {t_ours:.3f} | {t_ref:.3f} "
            f"| {c_ours:.3f} | {c_ref:.3f} | {c_ours / c_ref:.3f} |"
        )
        results.append(dict(r=r, iterations=k - 1, max_rel_relaxed=d_rel, max_rel_feasible=d_feas,
                            ours_threads=ours.get("threads"), reference_threads=threads,
                            ours_seconds=t_ours, reference_seconds=t_ref,
                            ours_cpu=c_ours, reference_cpu=c_ref,
                            reference_relaxed=relaxed, reference_feasible=feasible))
        print(lines[-1], flush=True)
    print("\n".join(lines))
    print(f"load after: {os.getloadavg()[0]:.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f)
    return ok


def summary(paths):
    """CPU seconds per iteration of both sides at every thread count run
    (one result JSON per count), and one SPEED line per r: each side at its
    setting with the fewest CPU seconds."""
    runs = [json.load(open(p)) for p in paths]
    dims = [row["r"] for row in runs[0]]
    print("\nCPU seconds per iteration (user + system, all threads; medians over the iterations)")
    head = "| r |" + "".join(f" ours, {row[0]['ours_threads']} thr |" for row in runs)
    head += "".join(f" numpy/scipy, {row[0]['reference_threads']} BLAS thr |" for row in runs)
    head += " ratio, efficient settings |"
    print(head)
    print("|---" * (2 + 2 * len(runs)) + "|")
    for i, r in enumerate(dims):
        ours = [(row[i]["ours_cpu"], row[i]["ours_threads"]) for row in runs]
        ref = [(row[i]["reference_cpu"], row[i]["reference_threads"]) for row in runs]
        best_ours, best_ref = min(ours), min(ref)
        line = f"| {r} |" + "".join(f" {c:.3f} |" for c, _ in ours) + "".join(f" {c:.3f} |" for c, _ in ref)
        print(line + f" {best_ours[0] / best_ref[0]:.3f} |")
    for i, r in enumerate(dims):
        ours = min((row[i]["ours_cpu"], row[i]["ours_threads"]) for row in runs)
        ref = min((row[i]["reference_cpu"], row[i]["reference_threads"]) for row in runs)
        diff = max(max(row[i]["max_rel_relaxed"], row[i]["max_rel_feasible"]) for row in runs)
        speed_line(f"dsnmf-r{r}", ours[0], ref[0],
                   f"loss curves within {diff:.1e} relative",
                   f"one DSNMF iteration (update + both losses), text8-head 20k words, r = {r}, "
                   f"wordbench {ours[1]} thread(s)",
                   f"numpy/scipy float64, {ref[1]} BLAS thread(s)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work")
    ap.add_argument("--dims", default="50,100,200")
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--tolerance", type=float, default=1e-6)
    ap.add_argument("--json")
    ap.add_argument("--summary", nargs="+", metavar="RESULT_JSON",
                    help="print the CPU table and SPEED lines from finished runs")
    args = ap.parse_args()
    if args.summary:
        summary(args.summary)
        return
    if not compare(args):
        print(f"FAIL: a loss curve differs by more than {args.tolerance} (relative)")
        sys.exit(1)


if __name__ == "__main__":
    main()
