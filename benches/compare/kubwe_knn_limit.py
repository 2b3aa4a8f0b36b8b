"""How many distances does 99% recall of the k nearest neighbours cost on
word vectors in d = 100, for a search far better informed than the thesis'
VP-tree? Best-first search (as in HNSW or a k-NN-graph search) on the *exact*
K-nearest-neighbour graph of the points — an idealised index: building it
already costs a brute-force pass — started from the query's own K graph
neighbours, keeping the `ef` best candidates. Prints recall@k and distances
per query for K in {16, 32} and several ef, on 200 sampled queries.

    python benches/compare/kubwe_knn_limit.py VECTORS.vec [--n 20000] [--k 148]
    python benches/compare/kubwe_knn_limit.py uniform       # random points on the sphere

Needs numpy (e.g. the venv another compare script made:
benches/compare/.venv/bin/python). Vectors: word2vec text format, e.g.
`wordbench train text8-head.txt --algo kubwe --min-count 5 --set p=13
--set sweeps=20 --out kubwe13.vec`.
"""
import argparse
import heapq

import numpy as np


def load(path, n):
    rows = []
    with open(path) as f:
        f.readline()
        for line in f:
            rows.append(np.array(line.rstrip().split(" ")[1:], dtype=np.float32))
            if len(rows) == n:
                break
    y = np.stack(rows)
    return y / np.linalg.norm(y, axis=1, keepdims=True)


def exact_knn(y, k):
    """Row i: the k nearest other rows by cosine, nearest first."""
    n = len(y)
    out = np.empty((n, k), dtype=np.int64)
    for s in range(0, n, 2000):
        sims = y[s : s + 2000] @ y.T
        sims[np.arange(len(sims)), np.arange(s, s + len(sims))] = -9.0
        idx = np.argpartition(-sims, k, axis=1)[:, :k]
        order = np.argsort(-np.take_along_axis(sims, idx, 1), axis=1)
        out[s : s + 2000] = np.take_along_axis(idx, order, 1)
    return out


def best_first(y, graph, q, ef):
    """Best-first search from q's graph neighbours; returns (ids, distances computed)."""
    yq, seen, computed = y[q], {q}, 0
    frontier, best = [], []  # max-heap on similarity / min-heap of the ef best
    for a in graph[q]:
        seen.add(a)
        s = float(y[a] @ yq)
        computed += 1
        heapq.heappush(frontier, (-s, a))
        heapq.heappush(best, (s, a))
    while frontier:
        neg, a = heapq.heappop(frontier)
        if len(best) >= ef and -neg < best[0][0]:
            break
        for b in graph[a]:
            if b in seen:
                continue
            seen.add(b)
            s = float(y[b] @ yq)
            computed += 1
            if len(best) < ef or s > best[0][0]:
                heapq.heappush(frontier, (-s, b))
                heapq.heappush(best, (s, b))
                if len(best) > ef:
                    heapq.heappop(best)
    return best, computed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vectors", help="word2vec text file, or 'uniform'")
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--k", type=int, default=148)
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    if args.vectors == "uniform":
        y = rng.standard_normal((args.n, 100)).astype(np.float32)
        y /= np.linalg.norm(y, axis=1, keepdims=True)
    else:
        y = load(args.vectors, args.n)
    n, k = len(y), args.k
    truth = exact_knn(y, k)
    queries = rng.choice(n, 200, replace=False)
    for degree in (16, 32):
        graph = truth[:, :degree]
        for ef in (k, 2 * k, 4 * k, 8 * k):
            recall = computed = 0.0
            for q in queries:
                best, c = best_first(y, graph, q, ef)
                got = {a for _, a in heapq.nlargest(k, best)}
                recall += len(got & set(truth[q])) / k
                computed += c
            print(
                f"n={n} d={y.shape[1]} k={k} graph K={degree} ef={ef}: "
                f"recall {recall / len(queries):.4f}, "
                f"{computed / len(queries):.0f} distances per query ({computed / len(queries) / n:.0%} of n)"
            )


if __name__ == "__main__":
    main()
