"""Side-by-side co-occurrence counting: wordbench vs numpy/scipy (vs GloVe).

All counters see the same token stream: the corpus split on whitespace
(text8 is already lowercase a-z, so this equals wordbench's tokenizer), the
vocabulary of words with count >= min-count sorted by (count desc, word),
out-of-vocabulary tokens removed before windowing, the whole file as one
sentence, symmetric windows with harmonic 1/d weights. The script asserts
that the matrices agree (nnz, total, sample cells) and prints CPU seconds.

Timings: "count" is the counting of an in-memory id array into a CSR matrix,
the same work on both sides. It is measured in CPU seconds (user + system of
every thread: wordbench's threads during its count, from `cooc_count`'s
JSON; numpy's `time.process_time()`, one core, as numpy/scipy count), with
wall seconds beside them: --repeat runs of each side, alternating, medians.
The ratio is ours / numpy in CPU. GloVe's `cooccur` reads the text, counts
and writes its binary output, so its number is end to end (wall and CPU of
its process); wordbench's end-to-end figure adds the time to read the corpus
twice (vocabulary pass and encoding) to its count time, by the clock.
"""

import argparse
import collections
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.sparse as sp

from speedline import median, speed_line


def read_tokens(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return f.read().split()


def vocabulary(tokens, min_count):
    counts = collections.Counter(tokens)
    kept = [(w, c) for w, c in counts.items() if c >= min_count]
    kept.sort(key=lambda wc: (-wc[1], wc[0]))
    return kept


def encode(tokens, vocab):
    index = {w: i for i, (w, _) in enumerate(vocab)}
    ids = np.fromiter((index.get(t, -1) for t in tokens), dtype=np.int64, count=len(tokens))
    return ids[ids >= 0].astype(np.int32)


def numpy_count(ids, n, window, harmonic=True):
    """Left-context pairs at each offset d, summed as sparse matrices; X + X^T."""
    left = sp.csr_matrix((n, n), dtype=np.float64)
    for d in range(1, window + 1):
        w = np.full(len(ids) - d, 1.0 / d if harmonic else 1.0)
        left = left + sp.coo_matrix((w, (ids[:-d], ids[d:])), shape=(n, n)).tocsr()
    x = (left + left.T).tocsr()
    x.sum_duplicates()
    x.sort_indices()
    return x


def timed(fn):
    """(wall s, CPU s of this process, fn's result)."""
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - t, time.process_time() - c, out


def run_wordbench(root, corpus, window, min_count, cells, threads=None, repeat=1):
    exe = os.path.join(root, "target", "release", "examples", "cooc_count")
    cmd = [exe, corpus, "--window", str(window), "--weighting", "harmonic",
           "--kind", "symmetric", "--min-count", str(min_count), "--heldout", "0",
           "--max-unit-tokens", "1000000000", "--repeat", str(repeat)]
    for a, b in cells:
        cmd += ["--cell", f"{a}:{b}"]
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads)) if threads else None
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out)


def build_glove(src):
    c = os.path.join(src, "cooccur.c")
    exe = os.path.join(src, "cooccur")
    if not os.path.exists(c):
        return None
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(c):
        subprocess.run(["gcc", "-O3", "-march=native", "-funroll-loops", "-o", exe, c, "-lm"],
                       check=True)
    return exe


def run_glove(exe, corpus_txt, vocab, window, tmp):
    vocab_file = os.path.join(tmp, "vocab.txt")
    with open(vocab_file, "w", encoding="utf-8") as f:
        for w, c in vocab:
            f.write(f"{w} {c}\n")
    out_file = os.path.join(tmp, "cooccur.bin")
    cmd = [exe, "-verbose", "0", "-symmetric", "1", "-window-size", str(window),
           "-vocab-file", vocab_file, "-memory", "4.0", "-distance-weighting", "1",
           "-overflow-file", os.path.join(tmp, "overflow")]
    with open(corpus_txt, "rb") as fin, open(out_file, "wb") as fout:
        t, c = time.perf_counter(), children_cpu()
        subprocess.run(cmd, stdin=fin, stdout=fout, stderr=subprocess.DEVNULL, check=True)
        seconds, cpu = time.perf_counter() - t, children_cpu() - c
    rec = np.fromfile(out_file, dtype=np.dtype([("i", "<i4"), ("j", "<i4"), ("v", "<f8")]))
    n = len(vocab)
    x = sp.coo_matrix((rec["v"], (rec["i"] - 1, rec["j"] - 1)), shape=(n, n)).tocsr()
    return seconds, cpu, x, len(rec)


def children_cpu():
    """User + system seconds of this process's finished children."""
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("corpus", nargs="?")
    p.add_argument("--root", required=True)
    p.add_argument("--windows", default="5,10")
    p.add_argument("--min-count", type=int, default=5)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--threads", type=int, default=None,
                   help="wordbench's threads (RAYON_NUM_THREADS; default: every core)")
    p.add_argument("--glove-src", default=os.environ.get("GLOVE_SRC", "/tmp/glove"))
    args = p.parse_args()

    tmp = tempfile.mkdtemp(prefix="cooc_compare_")
    try:
        corpus = args.corpus
        if corpus is None:
            shared = os.path.join(args.root, "..", "shared", "data", "corpora", "text8-head.txt")
            corpus = shared if os.path.exists(shared) else os.path.join(
                args.root, "assets", "corpora", "text8-head.txt.gz")
        corpus_txt = corpus
        if corpus.endswith(".gz"):  # GloVe reads plain text from stdin
            corpus_txt = os.path.join(tmp, "corpus.txt")
            with gzip.open(corpus, "rb") as fin, open(corpus_txt, "wb") as fout:
                shutil.copyfileobj(fin, fout)

        tokens = read_tokens(corpus)
        vocab = vocabulary(tokens, args.min_count)
        ids = encode(tokens, vocab)
        n = len(vocab)
        words = [w for w, _ in vocab]
        print(f"corpus {corpus}: {len(tokens):,} tokens, vocabulary {n:,} (min-count "
              f"{args.min_count}), {len(ids):,} in-vocabulary tokens", flush=True)
        glove = build_glove(args.glove_src)
        if glove is None:
            print(f"(no GloVe source at {args.glove_src}/cooccur.c: GloVe column skipped)")

        rows = []
        for window in [int(w) for w in args.windows.split(",")]:
            np_runs, wb_runs = [], []
            x = cells = None
            for _ in range(args.repeat):
                np_s, np_cpu, x = timed(lambda: numpy_count(ids, n, window))
                np_runs.append((np_s, np_cpu))
                if cells is None:
                    # Sample cells: the heaviest ones, and some rare pairs.
                    coo = x.tocoo()
                    order = np.argsort(-coo.data)
                    picks = list(order[:10]) + list(order[-5:]) + list(order[len(order) // 2:][:5])
                    cells = [(words[coo.row[k]], words[coo.col[k]]) for k in picks]
                    cells.append((words[-1], words[0]))
                wb_runs.append(run_wordbench(args.root, corpus, window, args.min_count, cells,
                                             args.threads))
            wb = wb_runs[-1]
            assert wb["vocabulary"] == n, (wb["vocabulary"], n)
            assert wb["tokens"] == len(ids), (wb["tokens"], len(ids))
            assert wb["nnz"] == x.nnz, f"nnz: wordbench {wb['nnz']} numpy {x.nnz}"
            assert close(wb["total"], x.sum()), (wb["total"], x.sum())
            index = {w: i for i, w in enumerate(words)}
            for a, b, v in wb["cells"]:
                expect = x[index[a], index[b]]
                assert close(v, expect), f"cell {a}:{b}: wordbench {v} numpy {expect}"
            row = {"L": window, "nnz": x.nnz, "tokens": len(ids),
                   "wb_s": median([r["count_seconds"] for r in wb_runs]),
                   "wb_cpu_s": median([r["count_cpu_seconds"] for r in wb_runs]),
                   "wb_read_s": median([r["read_seconds"] for r in wb_runs]),
                   "threads": wb["threads"],
                   "np_s": median([r[0] for r in np_runs]), "np_cpu_s": median([r[1] for r in np_runs])}
            if glove:
                g_s, g_cpu, g, g_nnz = run_glove(glove, corpus_txt, vocab, window, tmp)
                assert g_nnz == x.nnz, f"nnz: GloVe {g_nnz} numpy {x.nnz}"
                for a, b, v in wb["cells"]:
                    gv = g[index[a], index[b]]
                    assert close(v, gv), f"cell {a}:{b}: wordbench {v} GloVe {gv}"
                row["glove_s"], row["glove_cpu_s"] = g_s, g_cpu
            rows.append(row)
            print(f"L={window}: nnz {x.nnz:,} agree (numpy{', GloVe' if glove else ''}); "
                  f"{len(cells)} sample cells agree", flush=True)

        print(f"\n{args.repeat} runs of each side, alternating, medians; load {os.getloadavg()[0]:.1f}")
        head = (f"| L | nnz | wordbench count, CPU s ({rows[0]['threads']} threads) | numpy/scipy count, CPU s "
                f"| ratio (CPU) | wordbench wall s | numpy wall s |")
        sep = "|---|---|---|---|---|---|---|"
        if glove:
            head += " wordbench read+count, wall s | GloVe cooccur end to end, wall s (CPU s) |"
            sep += "---|---|"
        print(head)
        print(sep)
        for r in rows:
            line = (f"| {r['L']} | {r['nnz']:,} | {r['wb_cpu_s']:.3f} | {r['np_cpu_s']:.3f} "
                    f"| {r['wb_cpu_s'] / r['np_cpu_s']:.3f} | {r['wb_s']:.3f} | {r['np_s']:.3f} |")
            if glove:
                line += f" {r['wb_s'] + r['wb_read_s']:.3f} | {r['glove_s']:.3f} ({r['glove_cpu_s']:.3f}) |"
            print(line)
        for r in rows:
            speed_line(f"cooc-L{r['L']}", r["wb_cpu_s"], r["np_cpu_s"],
                       f"nnz {r['nnz']:,}, total and sample cells agree",
                       f"count {r['tokens']:,} ids, symmetric harmonic window {r['L']}, "
                       f"wordbench {r['threads']} threads",
                       "numpy/scipy sparse counter (1 thread)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
