"""PSDVec reference in numpy, on the counts examples/psdvec_export wrote.

The same pipeline as `--algo psdvec` (docs/methods/psdvec.md), written the
plain dense way: the Jelinek-Mercer target G* and the weights on the dense
core block, Algorithm 1 with a full `numpy.linalg.eigh` per iteration (as the
authors' code does; `--eigh top` asks LAPACK's syevr for the top eigenpairs
only, a faster reference), then one dense ridge solve per noncore word
(in its m x m dual form when the word has m < N core partners). Writes the
vectors (word2vec text) and the wall and CPU seconds of each phase; the shell script
evaluates both sides with `wordbench eval`.

Usage: psdvec_compare.py --work DIR --core 5000 [--dim 500] [--iterations 4]
           [--kappa 0.02] [--cut 0.0002] [--mu 2] [--eigh full|top]
"""
import argparse
import json
import time

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp


def load(work):
    indptr = np.fromfile(f"{work}/x.indptr", dtype="<u8").astype(np.int64)
    indices = np.fromfile(f"{work}/x.indices", dtype="<u4")
    data = np.fromfile(f"{work}/x.data", dtype="<f8")
    n = len(indptr) - 1
    x = sp.csr_matrix((data, indices, indptr), shape=(n, n))
    counts = np.fromfile(f"{work}/counts.u64", dtype="<u8").astype(np.float64)
    words = open(f"{work}/words.txt", encoding="utf-8").read().split("\n")
    return x, counts, words


def mu_of(i, core, mu):
    if i < core:
        return 0.0
    if i < core * 16 // 5:
        return mu
    if i < core * 26 // 5:
        return 2 * mu
    return 4 * mu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--core", type=int, default=5000)
    ap.add_argument("--dim", type=int, default=500)
    ap.add_argument("--iterations", type=int, default=4)
    ap.add_argument("--kappa", type=float, default=0.02)
    ap.add_argument("--cut", type=float, default=0.0002)
    ap.add_argument("--mu", type=float, default=2.0)
    ap.add_argument("--eigh", choices=["full", "top"], default="full")
    a = ap.parse_args()
    x, counts, words = load(a.work)
    n = x.shape[0]
    k = min(a.core, n)
    N, T, kappa = a.dim, a.iterations, a.kappa
    t0 = time.perf_counter()
    u = counts / counts.sum()
    rows = np.asarray(x.sum(axis=1)).ravel()
    coo = x.tocoo()
    off = coo.data[(coo.row != coo.col) & (coo.data > 0)]
    srt = np.sort(off)[::-1]
    c_cut = np.sqrt(srt[min(int(a.cut * len(srt)), len(srt) - 1)])
    x11 = x[:k, :k].toarray()
    with np.errstate(divide="ignore", invalid="ignore"):
        p = (1 - kappa) * x11 / rows[:k, None] + kappa * u[None, :k]
        g = np.log(p) - np.log(u[None, :k])
    g[rows[:k] == 0, :] = 0.0
    w = np.minimum(np.sqrt(x11) / c_cut, 1.0)
    np.fill_diagonal(w, 0.0)
    del x11, p
    stats_s = time.perf_counter() - t0

    # Algorithm 1: X0 = G/2, rank annealed N+T-1 .. N, full eigh each time.
    xk = g / 2
    bcd_s, bcd_cpu, losses = [], [], []
    for t in range(T):
        t1, c1 = time.perf_counter(), time.process_time()
        rank = N + T - 1 - t
        gi = w * g + (1 - w) * xk
        gi = (gi + gi.T) / 2
        if a.eigh == "full":
            lam, q = np.linalg.eigh(gi)
        else:
            lam, q = sla.eigh(gi, subset_by_index=[k - rank, k - 1],
                              driver="evr", overwrite_a=True, check_finite=False)
        top = np.argsort(lam)[::-1][:rank]
        top = top[lam[top] > 0]
        v = q[:, top] * np.sqrt(lam[top])
        xk = v @ v.T
        bcd_s.append(time.perf_counter() - t1)
        bcd_cpu.append(time.process_time() - c1)
        losses.append(float(np.sum(w * (g - xk) ** 2)))
        print(f"reference BCD {t + 1}/{T}: rank {rank}, kept {len(top)}, "
              f"loss {losses[-1]:.6e}, {bcd_s[-1]:.1f}s", flush=True)
    v1 = np.zeros((k, N))
    v1[:, : min(N, v.shape[1])] = v[:, :N]
    del gi, xk, q

    # Noncore words: weighted ridge regression on both directions.
    t2, c2 = time.perf_counter(), time.process_time()
    out = np.zeros((n, N))
    out[:k] = v1
    xr = x[k:, :k].tocsr()          # noncore before core
    xc = x[:k, k:].tocsc()          # core before noncore
    logu = np.log(u)
    for r in range(n - k):
        i = k + r
        fbar = np.zeros(k)
        fg = np.zeros(k)
        s, e = xr.indptr[r], xr.indptr[r + 1]
        j, c = xr.indices[s:e], xr.data[s:e]
        if len(j):
            gw = np.log((1 - kappa) * c / rows[i] + kappa * u[j]) - logu[j]
            wv = np.minimum(np.sqrt(c) / c_cut, 1.0)
            fbar[j] += wv
            fg[j] += wv * gw
        s, e = xc.indptr[r], xc.indptr[r + 1]
        j, c = xc.indices[s:e], xc.data[s:e]
        if len(j):
            gw = np.log((1 - kappa) * c / rows[j] + kappa * u[i]) - logu[i]
            wv = np.minimum(np.sqrt(c) / c_cut, 1.0)
            fbar[j] += wv
            fg[j] += wv * gw
        m = fbar > 0
        if not m.any():
            continue
        mu = mu_of(i, k, a.mu)
        if m.sum() >= N:
            vm = v1[m]
            a_mat = vm.T @ (fbar[m, None] * vm)
            b = vm.T @ fg[m]
            if mu > 0:
                out[i] = np.linalg.solve(a_mat + mu * np.eye(N), b)
            else:
                out[i] = np.linalg.lstsq(a_mat, b, rcond=None)[0]
        else:
            # Fewer partners than dimensions: the same solution from the
            # m x m system, v = B^T (B B^T + mu I)^-1 c with B = D^1/2 V_m.
            sf = np.sqrt(fbar[m])
            bm = sf[:, None] * v1[m]
            kmat = bm @ bm.T
            c = fg[m] / sf
            if mu > 0:
                alpha = np.linalg.solve(kmat + mu * np.eye(len(sf)), c)
            else:
                alpha = np.linalg.lstsq(kmat, c, rcond=None)[0]
            out[i] = bm.T @ alpha
    noncore_s = time.perf_counter() - t2
    noncore_cpu = time.process_time() - c2

    path = f"{a.work}/reference_core{k}.txt"
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"{n} {N}\n")
        for word, row in zip(words, out):
            f.write(word + " " + " ".join(f"{z:.6g}" for z in row) + "\n")
    report = {"n": n, "core": k, "dim": N, "eigh": a.eigh, "stats_seconds": stats_s,
              "bcd_seconds": bcd_s, "bcd_losses": losses,
              "noncore_seconds": noncore_s,
              "bcd_cpu_seconds": bcd_cpu, "noncore_cpu_seconds": noncore_cpu}
    with open(f"{a.work}/reference_core{k}.json", "w") as f:
        json.dump(report, f)
    print(f"reference core {k}: BCD {sum(bcd_s):.1f}s, noncore {noncore_s:.1f}s")


if __name__ == "__main__":
    main()
