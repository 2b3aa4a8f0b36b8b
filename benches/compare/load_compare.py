"""Opening a large pre-trained text file: wordbench vs gensim.

Generates (once, under target/compare-load/) a GloVe-style text file of
400,000 words x 300 dimensions (the shape of glove.6B.300d: no header, values
like -0.12345), then loads it with `wordbench neighbors FILE WORD` and with
gensim's `KeyedVectors.load_word2vec_format(FILE, no_header=True)` followed by
`most_similar(WORD)`, each under `/usr/bin/time -v`, and prints wall time and
peak resident memory next to the size of the f32 matrix itself.

The same vectors are then written as word2vec binary (by `wordbench convert`)
and both load that too (gensim with `binary=True`). The generated files are
removed at the end unless --keep. Each file ends with one SPEED line
(speedline.py: median CPU s of the whole processes over the repeats).

gensim runs twice per repeat, with its BLAS at the default thread count and
at one thread (OPENBLAS_NUM_THREADS=1); the cheaper is the peer.

Usage: load_compare.py WORDBENCH_BINARY [--rows N] [--dim D] [--repeat R] [--no-binary] [--keep]
"""

import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np

from speedline import median, speed_line

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


def timed(cmd, env=None):
    """Runs `cmd` under /usr/bin/time -v: (wall s, CPU s, peak RSS bytes, stdout)."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True,
                       env=None if env is None else {**os.environ, **env})
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr[-2000:]}")
    field = lambda name: re.search(name + r": ([\d.]+)", p.stderr).group(1)
    rss = int(field(r"Maximum resident set size \(kbytes\)"))
    cpu = float(field(r"User time \(seconds\)")) + float(field(r"System time \(seconds\)"))
    return wall, cpu, rss * 1024, p.stdout


# The peer's BLAS settings timed: the default thread count, and one thread.
PEER_BLAS = {"": "default BLAS threads", "-1blas": "1 BLAS thread"}
ONE_BLAS = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

GENSIM = """
import sys
from gensim.models import KeyedVectors
binary = sys.argv[3] == "binary"
kv = KeyedVectors.load_word2vec_format(sys.argv[1], binary=binary, no_header=not binary)
for w, c in kv.most_similar(sys.argv[2], topn=10):
    print(f"  {w:<20} {c:.4f}")
"""


def print_speed(kind, args, results, same, word, size):
    """The SPEED line of one file: median CPU s of the whole processes, and whether both listed
    the same neighbours."""
    from importlib.metadata import version

    cpu = {name: median([r[1] for r in runs]) for name, runs in results.items()}
    rss = {name: max(r[2] for r in runs) / 1e6 for name, runs in results.items()}
    # gensim's efficient setting: its BLAS (used by most_similar) on 1 thread
    # or on the default count, whichever took fewer CPU seconds.
    blas = min(PEER_BLAS, key=lambda b: cpu[f"gensim{b}"])
    other = next(b for b in PEER_BLAS if b != blas)
    other_cpu = cpu[f"gensim{other}"]
    cpu["gensim"], rss["gensim"] = cpu[f"gensim{blas}"], rss[f"gensim{blas}"]
    quality = (f"same 10 neighbours of {word}: {'yes' if same else 'NO'}; "
               f"peak RSS {rss['wordbench']:.0f} MB vs {rss['gensim']:.0f} MB")
    what = "a GloVe text file" if kind == "text" else "a word2vec binary file"
    work = f"opening and querying {what}, {args.rows:,} x {args.dim} ({size / 1e6:.0f} MB), `wordbench neighbors`"
    peer = (f"gensim {version('gensim')} `load_word2vec_format` + `most_similar`, {PEER_BLAS[blas]} "
            f"(its cheaper setting; {PEER_BLAS[other]}: {other_cpu:.1f} CPU s)")
    speed_line(f"load-{kind}-{args.rows}x{args.dim}", cpu["wordbench"], cpu["gensim"], quality, work, peer)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("wordbench")
    ap.add_argument("--rows", type=int, default=400_000)
    ap.add_argument("--dim", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--no-binary", action="store_true", help="skip the word2vec binary row")
    ap.add_argument("--keep", action="store_true", help="keep the generated files for another run")
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
    files = [("GloVe text", path, "text")]
    if not args.no_binary:
        # The same vectors as word2vec binary (what GoogleNews ships), written
        # by wordbench itself; not timed.
        binary = path[: -len(".txt")] + ".bin"
        subprocess.run([args.wordbench, "convert", path, binary], check=True, capture_output=True)
        files.append(("word2vec binary", binary, "binary"))
    print(f"| file | reader | wall s | CPU s | peak RSS MB | RSS / f32 matrix |")
    print("|---|---|---|---|---|---|")
    summary, speeds = [], []
    for label, file, kind in files:
        # Warm the page cache so neither pays for the disk.
        with open(file, "rb") as f:
            while f.read(1 << 24):
                pass
        results = {"wordbench": [], "gensim": [], "gensim-1blas": []}
        for _ in range(args.repeat):
            results["wordbench"].append(timed([args.wordbench, "neighbors", file, word, "-k", "10"]))
            results["gensim"].append(timed([sys.executable, "-c", GENSIM, file, word, kind]))
            results["gensim-1blas"].append(timed([sys.executable, "-c", GENSIM, file, word, kind], ONE_BLAS))
        top_ours = results["wordbench"][0][3].split()[1::2][:10]
        top_theirs = results["gensim"][0][3].split()[0::2][:10]
        best = {name: (min(r[0] for r in runs), min(r[1] for r in runs), max(r[2] for r in runs))
                for name, runs in results.items()}
        for name, (wall, cpu, rss) in best.items():
            print(f"| {label} ({os.path.getsize(file) / 1e6:.0f} MB) | {name:9} | {wall:6.1f} | {cpu:5.1f} "
                  f"| {rss / 1e6:11.0f} | {rss / matrix:16.2f} |")
        peer = min(("gensim", "gensim-1blas"), key=lambda name: best[name][1])
        (w_ours, c_ours, _), (w_theirs, c_theirs, _) = best["wordbench"], best[peer]
        speeds.append((kind, results, top_ours == top_theirs, os.path.getsize(file)))
        summary.append(f"{label}: speed-up (gensim / wordbench) wall {w_theirs / max(w_ours, 1e-3):.1f}x, "
                       f"CPU {c_theirs / max(c_ours, 1e-3):.1f}x; same 10 neighbours of {word}: {top_ours == top_theirs}")
    for line in summary:
        print(line)
    for kind, results, same, size in speeds:
        print_speed(kind, args, results, same, word, size)
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    if not args.keep:
        for _, file, _ in files:
            os.remove(file)
        print(f"removed the generated files (--keep keeps them under {work})")

if __name__ == "__main__":
    main()
