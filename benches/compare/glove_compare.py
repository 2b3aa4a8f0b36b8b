#!/usr/bin/env python3
"""wordbench GloVe against Stanford GloVe, side by side.

Run through glove_compare.sh (which makes the venv and builds wordbench).

Protocol (defaults: text8-head, d=100, min-count 5, window 10, x_max 100,
alpha 0.75, eta 0.05, 15 epochs, 2 threads, output W+C):

1. examples/glove_export_cooc writes what `wordbench train --algo glove`
   trains on: vocab.txt (wordbench's vocabulary, frequency order), train.txt
   (the training split: 5% held-out pieces removed, one 10,000-token piece
   per line) and cooc.bin (wordbench's co-occurrence counts as GloVe records).
2. wordbench: `wordbench train CORPUS --algo glove ...` (the CLI, end to end:
   vocabulary pass, counting, 15 epochs, writing the vectors).
3. Stanford GloVe on the same text and vocabulary: `cooccur -window-size L
   -symmetric 1` < train.txt, `shuffle`, `glove -iter 15 -model 2`. Its counts
   must equal wordbench's (same keys; values to float rounding).
4. gensim judges both vector files the same way: evaluate_word_pairs
   (Spearman) on WordSim-353 and SimLex-999, evaluate_word_analogies
   (3CosAdd, restrict_vocab=30000) on the Google set. GloVe's `<unk>` row is
   dropped.

Times: "15 epochs" is wordbench's training loop (the job's elapsed time,
counting excluded) against the `glove` binary's wall time (which also reads
its input and writes its text output, about a second here); "end to end" is
`wordbench train` against cooccur + shuffle + glove (GloVe is handed the
vocabulary, wordbench computes its own). CPU seconds are the children's user
+ system time. The machine may be shared: the 1-minute load average is printed
with each run, and CPU time is the steadier measure under load.

`glove` runs once at each thread count of --peer-threads (default 1 and 2);
the count with fewer CPU seconds is the peer, its efficient setting.

Ends with one SPEED line (speedline.py): end-to-end CPU seconds of wordbench
against cooccur + shuffle + glove (at its cheaper thread count), one run each; or a SKIP line when Stanford
GloVe's binaries are missing.
"""

import argparse
import csv
import os
import re
import resource
import shutil
import subprocess
import sys
import time

import numpy as np

from speedline import skip_line, speed_line


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--corpus")
    ap.add_argument("--dim", type=int, default=100)
    ap.add_argument("--window", type=int, default=10)
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--x-max", type=float, default=100.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--peer-threads", type=int, nargs="+", default=[1, 2],
                    help="thread counts of Stanford GloVe's `glove` to time; the cheaper one is the peer")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min-count", type=int, default=5)
    ap.add_argument("--glove-dir", default=os.environ.get("GLOVE_DIR", "/tmp/glove-stanford"))
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    return ap.parse_args()


def shared_data(root):
    for d in (os.path.join(root, "..", "shared", "data"), "/work/shared/data"):
        if os.path.isdir(d):
            return os.path.abspath(d)
    sys.exit("shared data directory not found (../shared/data)")


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, stdin=None, stdout=None, cwd=None):
    """Runs cmd; returns (wall seconds, CPU seconds, stderr text, 1-min load before)."""
    load = os.getloadavg()[0]
    fin = open(stdin, "rb") if stdin else None
    fout = open(stdout, "wb") if stdout else subprocess.DEVNULL
    c0, t0 = cpu_seconds(), time.perf_counter()
    p = subprocess.run(cmd, stdin=fin, stdout=fout, stderr=subprocess.PIPE, cwd=cwd)
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    for f in (fin, fout):
        if f not in (None, subprocess.DEVNULL):
            f.close()
    err = p.stderr.decode(errors="replace")
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{err}")
    return wall, cpu, err, load


def glove_tools(glove_dir):
    """Paths of Stanford GloVe's cooccur, shuffle and glove binaries in
    glove_dir/build; None (with a message) when they are not there. wordbench
    neither ships nor builds the peer: build it yourself from the authors'
    release and point --glove-dir at it."""
    names = ("cooccur", "shuffle", "glove")
    build = os.path.join(glove_dir, "build")
    if all(os.access(os.path.join(build, n), os.X_OK) for n in names):
        return {n: os.path.join(build, n) for n in names}
    print(f"Stanford GloVe's {', '.join(names)} are not in {build}: build them from the "
          "authors' release and give their folder's parent as --glove-dir", flush=True)
    return None


def read_crec(path):
    dt = np.dtype([("i", "<i4"), ("j", "<i4"), ("x", "<f8")])
    a = np.fromfile(path, dt)
    key = a["i"].astype(np.int64) * (1 << 32) + a["j"].astype(np.int64)
    order = np.argsort(key, kind="stable")
    return key[order], a["x"][order]


def compare_counts(ours, peer):
    ka, xa = read_crec(ours)
    kb, xb = read_crec(peer)
    same = len(ka) == len(kb) and np.array_equal(ka, kb)
    rel = float(np.max(np.abs(xa - xb) / xb)) if same else float("nan")
    return len(ka), len(kb), same, rel


def our_epochs(metrics_csv):
    """Per-epoch mean of the step losses, training seconds and last perplexity."""
    losses, elapsed, ppl = {}, 0.0, None
    with open(metrics_csv) as f:
        for row in csv.DictReader(f):
            losses.setdefault(int(row["epoch"]), []).append(float(row["loss"]))
            elapsed = float(row["elapsed"])
            if row["perplexity"]:
                ppl = float(row["perplexity"])
    return [sum(v) / len(v) for _, v in sorted(losses.items())], elapsed, ppl


def evaluate(path, no_header, data):
    from gensim.models import KeyedVectors

    if no_header:
        # GloVe text: drop the <unk> row it appends, then read as headerless word2vec text.
        clean = path + ".nounk"
        with open(path) as fin, open(clean, "w") as fout:
            for line in fin:
                if not line.startswith("<unk> "):
                    fout.write(line)
        kv = KeyedVectors.load_word2vec_format(clean, binary=False, no_header=True)
    else:
        kv = KeyedVectors.load_word2vec_format(path, binary=False)
    out = {"words": len(kv)}
    for name, file in (("ws353", "wordsim353.tsv"), ("simlex", "simlex999.txt")):
        _, spearman, oov = kv.evaluate_word_pairs(os.path.join(data, "eval", file))
        out[name] = float(spearman.statistic if hasattr(spearman, "statistic") else spearman[0])
        out[name + "_oov"] = float(oov)
    score, sections = kv.evaluate_word_analogies(os.path.join(data, "eval", "questions-words.txt"),
                                                 restrict_vocab=30000)
    total = next(s for s in sections if s["section"] == "Total accuracy")
    out["analogy"] = float(score)
    out["analogy_n"] = len(total["correct"]) + len(total["incorrect"])
    return out


def print_speed(a, ours, peer, q_ours, q_peer):
    """The SPEED line: end-to-end CPU s (count + train + write) of both, gensim's scores."""
    if not peer:
        skip_line("glove", f"Stanford GloVe's binaries are not in {a.glove_dir}/build (--glove-dir)")
        return
    diff = {k: q_ours[k] - q_peer[k] for k in ("ws353", "simlex", "analogy")}
    quality = (f"WS-353 {q_ours['ws353']:.4f} ({diff['ws353']:+.4f}), "
               f"SimLex-999 {q_ours['simlex']:.4f} ({diff['simlex']:+.4f}), "
               f"analogy {100 * q_ours['analogy']:.2f}% ({100 * diff['analogy']:+.2f} points)")
    if ours["losses"] and peer["losses"]:
        quality += f"; last epoch's loss {ours['losses'][-1]:.5f} vs {peer['losses'][-1]:.5f}"
    work = (f"GloVe, {os.path.basename(a.corpus or 'text8-head')}, count + {a.epochs} epochs + write, "
            f"d = {a.dim}, {a.threads} threads")
    others = ", ".join(f"{t} threads {c:.1f}" for t, c in peer["glove_cpu_by_threads"].items()
                       if t != peer["threads"])
    peer_name = (f"Stanford GloVe (`cooccur`, `shuffle`, `glove`), `glove` on {peer['threads']} threads "
                 "(its cheaper setting" + (f"; `glove` CPU s at {others})" if others else ")"))
    speed_line("glove", ours["cpu"], peer["cpu"], quality, work, peer_name)


def main():
    a = parse_args()
    data = shared_data(a.root)
    corpus = a.corpus or os.path.join(data, "corpora", "text8-head.txt")
    work = os.path.join(a.root, "target", "compare-glove")
    os.makedirs(work, exist_ok=True)
    wb = os.path.join(a.root, "target", "release", "wordbench")
    export = os.path.join(a.root, "target", "release", "examples", "glove_export_cooc")
    print(f"corpus {corpus}: d={a.dim} window={a.window} x_max={a.x_max:g} alpha=0.75 eta=0.05 "
          f"epochs={a.epochs} threads={a.threads} min-count={a.min_count} output W+C", flush=True)

    r = subprocess.run([export, corpus, work, "--window", str(a.window), "--min-count", str(a.min_count)],
                       check=True, capture_output=True, text=True)
    print("export:", r.stdout.strip(), flush=True)

    # wordbench, end to end through the CLI.
    ours_vec, metrics = os.path.join(work, "ours.txt"), os.path.join(work, "ours.csv")
    wall, cpu, err, load = timed([
        wb, "train", corpus, "--algo", "glove", "--dim", str(a.dim), "--set", f"epochs={a.epochs}",
        "--set", f"window={a.window}", "--set", f"x_max={a.x_max}", "--threads", str(a.threads),
        "--seed", str(a.seed), "--min-count", str(a.min_count), "--out", ours_vec,
        "--metrics-out", metrics, "--quiet"])
    losses, train_s, ppl = our_epochs(metrics)
    ours = {"wall": wall, "cpu": cpu, "train": train_s, "load": load, "losses": losses, "ppl": ppl}
    print(f"wordbench: end to end {wall:.1f}s wall, {cpu:.1f}s CPU; {a.epochs} epochs {train_s:.1f}s "
          f"(load {load:.1f}); held-out perplexity {ppl}", flush=True)

    peer = None
    tools = glove_tools(a.glove_dir)
    if tools is None:
        print("Stanford GloVe unavailable: pass --glove-dir DIR (with build/ or src/) to compare")
    else:
        pc, ps, pv = (os.path.join(work, n) for n in ("peer_cooc.bin", "peer_shuf.bin", "peer"))
        vocab = os.path.join(work, "vocab.txt")
        c = timed([tools["cooccur"], "-verbose", "0", "-symmetric", "1", "-window-size", str(a.window),
                   "-vocab-file", vocab, "-memory", "4.0", "-overflow-file", os.path.join(work, "overflow")],
                  stdin=os.path.join(work, "train.txt"), stdout=pc)
        s = timed([tools["shuffle"], "-verbose", "0", "-memory", "4.0", "-temp-file",
                   os.path.join(work, "temp_shuffle")], stdin=pc, stdout=ps)
        # `cooccur` and `shuffle` run on one thread; `glove` runs at each
        # count of --peer-threads and the count with fewer CPU seconds is the
        # peer (its efficient setting), its vectors the ones judged.
        runs = {}
        for t in a.peer_threads:
            runs[t] = timed([tools["glove"], "-input-file", ps, "-vocab-file", vocab,
                             "-save-file", f"{pv}-{t}", "-verbose", "2", "-vector-size", str(a.dim),
                             "-threads", str(t), "-iter", str(a.epochs), "-eta", "0.05", "-alpha", "0.75",
                             "-x-max", str(a.x_max), "-binary", "0", "-model", "2"])
            print(f"Stanford GloVe glove, {t} threads: {runs[t][0]:.1f}s wall, {runs[t][1]:.1f}s CPU "
                  f"(load {runs[t][3]:.1f})", flush=True)
        peer_threads = min(runs, key=lambda t: runs[t][1])
        g = runs[peer_threads]
        shutil.copyfile(f"{pv}-{peer_threads}.txt", f"{pv}.txt")
        costs = [float(x) for x in re.findall(r"iter: \d+, cost: ([0-9.eE+-]+)", g[2])]
        peer = {"wall": c[0] + s[0] + g[0], "cpu": c[1] + s[1] + g[1], "train": g[0], "train_cpu": g[1],
                "load": g[3], "losses": costs, "cooccur": c[0], "shuffle": s[0],
                "threads": peer_threads, "glove_cpu_by_threads": {t: r[1] for t, r in runs.items()}}
        print(f"Stanford GloVe: cooccur {c[0]:.1f}s, shuffle {s[0]:.1f}s, glove {g[0]:.1f}s wall "
              f"({g[1]:.1f}s CPU, load {g[3]:.1f})", flush=True)
        n_ours, n_peer, same, rel = compare_counts(os.path.join(work, "cooc.bin"), pc)
        print(f"counts: wordbench nnz {n_ours}, GloVe nnz {n_peer}, same cells {same}, "
              f"max relative difference {rel:.2e}", flush=True)

    q_ours = evaluate(ours_vec, False, data)
    q_peer = evaluate(os.path.join(work, "peer.txt"), True, data) if peer else None

    print()
    print(f"{'':28}{'wordbench':>14}{'Stanford GloVe':>16}{'diff':>10}")
    for key, label in (("ws353", "WordSim-353 Spearman"), ("simlex", "SimLex-999 Spearman"),
                       ("analogy", "Google analogy (30k) acc")):
        p = q_peer[key] if q_peer else float("nan")
        print(f"{label:28}{q_ours[key]:>14.4f}{p:>16.4f}{q_ours[key] - p:>+10.4f}")
    print(f"{'analogy questions used':28}{q_ours['analogy_n']:>14}{q_peer['analogy_n'] if q_peer else '-':>16}")
    print(f"{'words':28}{q_ours['words']:>14}{q_peer['words'] if q_peer else '-':>16}")
    if peer:
        print(f"{f'{a.epochs} epochs, wall s':28}{ours['train']:>14.1f}{peer['train']:>16.1f}"
              f"{'  ratio %.2fx' % (peer['train'] / ours['train']):>10}")
        print(f"{'end to end, wall s':28}{ours['wall']:>14.1f}{peer['wall']:>16.1f}"
              f"{'  ratio %.2fx' % (peer['wall'] / ours['wall']):>10}")
        print(f"{'end to end, CPU s':28}{ours['cpu']:>14.1f}{peer['cpu']:>16.1f}"
              f"{'  ratio %.2fx' % (peer['cpu'] / ours['cpu']):>10}")
        print("loss per epoch (glove.c's cost: mean of 1/2 f(x)(w.c+b+b~-ln x)^2 over the non-zeros):")
        for e, (lo, lp) in enumerate(zip(ours["losses"], peer["losses"])):
            print(f"  epoch {e + 1:2}  wordbench {lo:.6f}  GloVe {lp:.6f}")
    print("(ratio = Stanford GloVe time / wordbench time; > 1 means wordbench is faster)")
    print_speed(a, ours, peer, q_ours, q_peer)
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
