"""Algorithm 1 of Sedov & Yang in numpy/scipy, on the S and W0 that
`examples/dsnmf_export` wrote, against wordbench's loss curves and times.

For every r: the same iterations from the same start in float64 (W never
rounded), D(S||S_hat) of the relaxed iterate and of its rows projected onto
the simplex after every iteration, compared with ours (relative difference);
seconds per iteration (update + evaluation, both losses computed as ours does)
and the ratio reference / ours. Z = S / S_hat is evaluated on the non-zeros of
S only, in chunks of non-zeros (never N x N).
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

EPS = 1e-12
CHUNK = 1 << 17  # non-zeros per gathered block (CHUNK x r doubles)


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
    """(left @ right.T)[rows, cols] in chunks of non-zeros."""
    out = np.empty(len(rows))
    for a in range(0, len(rows), CHUNK):
        b = min(a + CHUNK, len(rows))
        out[a:b] = np.einsum("ij,ij->i", left[rows[a:b]], right[cols[a:b]])
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
    relaxed, feasible, seconds = [], [], []
    d, f, zw, diag, inv_s = evaluate(s, rows, w)
    relaxed.append(d)
    feasible.append(f)
    for _ in range(iterations):
        t = time.perf_counter()
        w = update(w, zw, diag, inv_s)
        d, f, zw, diag, inv_s = evaluate(s, rows, w)
        seconds.append(time.perf_counter() - t)
        relaxed.append(d)
        feasible.append(f)
    return relaxed, feasible, seconds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--dims", default="50,100,200")
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--tolerance", type=float, default=1e-6)
    ap.add_argument("--json")
    args = ap.parse_args()
    s, rows = load_s(args.work)
    n = s.shape[0]
    print(f"S: {n} x {n}, {s.nnz} non-zeros; load {os.getloadavg()[0]:.1f}")
    results, ok = [], True
    header = "| r | iterations | max rel. diff D (relaxed) | max rel. diff D (projected) | ours s/iter | numpy/scipy s/iter | ratio |"
    lines = [header, "|---|---|---|---|---|---|---|"]
    for r in [int(x) for x in args.dims.split(",")]:
        ours = json.load(open(os.path.join(args.work, f"ours_r{r}.json")))
        w0 = np.fromfile(os.path.join(args.work, f"W0_r{r}.f32"), dtype="<f4").reshape(n, r)
        relaxed, feasible, seconds = run(s, rows, w0.astype(np.float64), args.iterations)
        k = min(len(relaxed), len(ours["relaxed"]))
        rel = lambda a, b: max(abs(x - y) / abs(y) for x, y in zip(a[:k], b[:k]))
        d_rel = rel(ours["relaxed"], relaxed)
        d_feas = rel(ours["feasible"], feasible)
        t_ours = float(np.median(ours["seconds"]))
        t_ref = float(np.median(seconds))
        ok &= d_rel <= args.tolerance and d_feas <= args.tolerance
        lines.append(
            f"| {r} | {k - 1} | {d_rel:.1e} | {d_feas:.1e} | {t_ours:.3f} | {t_ref:.3f} | {t_ref / t_ours:.1f}x |"
        )
        results.append(dict(r=r, iterations=k - 1, max_rel_relaxed=d_rel, max_rel_feasible=d_feas,
                            ours_seconds=t_ours, reference_seconds=t_ref, ratio=t_ref / t_ours,
                            reference_relaxed=relaxed, reference_feasible=feasible))
        print(lines[-1], flush=True)
    print("\n".join(lines))
    print(f"load after: {os.getloadavg()[0]:.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f)
    if not ok:
        print(f"FAIL: a loss curve differs by more than {args.tolerance} (relative)")
        sys.exit(1)


if __name__ == "__main__":
    main()
