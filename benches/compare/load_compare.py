"""Opening a large pre-trained text file: wordbench vs gensim.

Generates (once, under target/compare-load/) a GloVe-style text file of
400,000 words x 300 dimensions (the shape of glove.6B.300d: no header, values
like -0.12345), then loads it with `wordbench neighbors FILE WORD` and with
gensim's `KeyedVectors.load_word2vec_format(FILE, no_header=True)` followed by
`most_similar(WORD)`, each under `/usr/bin/time -v`, and prints wall time and
peak resident memory next to the size of the f32 matrix itself.

Usage: load_compare.py WORDBENCH_BINARY [--rows N] [--dim D] [--repeat R]
"""

import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def generate(path, rows, dim, seed=1):
    """Writes `rows` lines `wN v1 .. vdim`, values uniform in (-1, 1) with 5 decimals."""
    rng = np.random.default_rng(seed)
    block = 10_000
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        for start in range(0, rows, block):
            n = min(block, rows - start)
            ints = rng.integers(-99_999, 100_000, size=(n, dim))
            a = np.abs(ints)
            cells = np.empty((n, dim, 9), dtype=np.uint8)
            cells[:, :, 0] = np.where(ints < 0, ord("-"), ord("+"))
            cells[:, :, 1] = ord("0")
            cells[:, :, 2] = ord(".")
            for k in range(5):
                cells[:, :, 3 + k] = ord("0") + (a // 10 ** (4 - k)) % 10
            cells[:, :, 8] = ord(" ")
            cells[:, -1, 8] = ord("\n")
            body = cells.reshape(n, dim * 9)
            for i in range(n):
                f.write(b"w%d " % (start + i) + body[i].tobytes().replace(b"+", b""))
    os.replace(tmp, path)


def timed(cmd):
    """Runs `cmd` under /usr/bin/time -v: (wall s, CPU s, peak RSS bytes, stdout)."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr[-2000:]}")
    field = lambda name: re.search(name + r": ([\d.]+)", p.stderr).group(1)
    rss = int(field(r"Maximum resident set size \(kbytes\)"))
    cpu = float(field(r"User time \(seconds\)")) + float(field(r"System time \(seconds\)"))
    return wall, cpu, rss * 1024, p.stdout


GENSIM = """
import sys
from gensim.models import KeyedVectors
kv = KeyedVectors.load_word2vec_format(sys.argv[1], binary=False, no_header=True)
for w, c in kv.most_similar(sys.argv[2], topn=10):
    print(f"  {w:<20} {c:.4f}")
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("wordbench")
    ap.add_argument("--rows", type=int, default=400_000)
    ap.add_argument("--dim", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    work = os.path.join(ROOT, "target", "compare-load")
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, f"glove-{args.rows}x{args.dim}.txt")
    if not os.path.exists(path):
        t0 = time.perf_counter()
        generate(path, args.rows, args.dim)
        print(f"generated {path} in {time.perf_counter() - t0:.1f} s")
    size = os.path.getsize(path)
    matrix = args.rows * args.dim * 4
    word = "w12345"
    print(f"file {size / 1e6:.0f} MB, {args.rows} x {args.dim}; f32 matrix {matrix / 1e6:.0f} MB")
    # Warm the page cache so neither pays for the disk.
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass
    results = {"wordbench": [], "gensim": []}
    for _ in range(args.repeat):
        results["wordbench"].append(timed([args.wordbench, "neighbors", path, word, "-k", "10"]))
        results["gensim"].append(timed([sys.executable, "-c", GENSIM, path, word]))
    top_ours = results["wordbench"][0][3].split()[1::2][:10]
    top_theirs = results["gensim"][0][3].split()[0::2][:10]
    best = {name: (min(r[0] for r in runs), min(r[1] for r in runs), max(r[2] for r in runs))
            for name, runs in results.items()}
    print(f"| {'':9} | wall s | CPU s | peak RSS MB | RSS / f32 matrix |")
    print("|---|---|---|---|---|")
    for name, (wall, cpu, rss) in best.items():
        print(f"| {name:9} | {wall:6.1f} | {cpu:5.1f} | {rss / 1e6:11.0f} | {rss / matrix:16.2f} |")
    (w_ours, c_ours, _), (w_theirs, c_theirs, _) = best["wordbench"], best["gensim"]
    print(f"speed-up (gensim / wordbench): wall {w_theirs / w_ours:.1f}x, CPU {c_theirs / c_ours:.1f}x")
    print(f"same 10 neighbours of {word}: {top_ours == top_theirs}")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
