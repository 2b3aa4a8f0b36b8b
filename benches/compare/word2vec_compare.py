#!/usr/bin/env python3
"""wordbench SGNS/CBOW against gensim's Word2Vec, side by side.

Run through word2vec_compare.sh (which makes the venv and builds the Rust
examples). For each algorithm (sgns, cbow) and seed (1..3 by default):

1. gensim Word2Vec (workers = --peer-workers, by default --threads; several
   counts may be given, e.g. `--peer-workers 1 2`): d=100, window 5, min_count 5, 5 epochs,
   5 negatives, sample 1e-3, hs=0, cbow_mean=1, alpha 0.025 (sgns) / 0.05
   (cbow) decaying linearly to alpha*1e-4 (word2vec.c's floor, which
   wordbench uses). The corpus is gensim's Text8Corpus (10,000-word
   sentences, like wordbench's units), loaded into memory once so that
   file reading does not count against gensim.
2. wordbench through examples/train_word2vec (the library: Corpus::open with
   min-count 5 and no held-out split, then the training engine), 2 threads.
3. Both vector files are scored by gensim's evaluators (evaluate_word_pairs
   on WordSim-353 and SimLex-999: Spearman; evaluate_word_analogies with
   restrict_vocab=30000: accuracy) and by wordbench's (examples/eval_vectors,
   same protocol), so neither side is judged only by its own code.

Speed: words/s = raw corpus tokens (2,139,748 for text8-head, OOV included,
before subsampling) x epochs / wall seconds of training. For gensim that is
model.train(); for wordbench the whole job (encoding the corpus to ids
included); vocabulary building is excluded for both. CPU seconds are counted
two ways: the training call alone on both sides (gensim's train(), our job:
equal work, the ratio the issue's bar is judged on) and, for wordbench, the
whole process too (vocabulary building and writing the vectors included,
which gensim's timing leaves out). Runs are sequential and the 1-minute load
average is printed with each timing (the machine is shared).

Runs alternate: per seed, gensim at each worker count, then each wordbench
variant. gensim's *efficient setting* is the worker count whose train() took
the fewest CPU seconds (median over the seeds); every ratio is against it.

Prints a table, one SPEED line per wordbench variant (speedline.py: CPU
seconds, the median over seeds, wordbench's training call against gensim's
train() at its efficient setting), and checks the issue's bars: quality no more than 0.02 (analogy:
2 points) below gensim, SGNS speed at least 1.2x gensim's.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import gensim
from gensim.models import KeyedVectors, Word2Vec
from gensim.models.word2vec import Text8Corpus

from speedline import median, speed_line

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED = os.path.abspath(os.path.join(ROOT, "..", "shared", "data"))
if not os.path.isdir(SHARED):
    SHARED = "/work/shared/data"
OUT = os.path.join(ROOT, "target", "compare-word2vec")
TRAIN = os.path.join(ROOT, "target", "release", "examples", "train_word2vec")
EVAL = os.path.join(ROOT, "target", "release", "examples", "eval_vectors")
WS = os.path.join(SHARED, "eval", "wordsim353.tsv")
SL = os.path.join(SHARED, "eval", "simlex999.txt")
QW = os.path.join(SHARED, "eval", "questions-words.txt")
CORPUS = os.path.join(SHARED, "corpora", "text8-head.txt")

LR = {"sgns": 0.025, "cbow": 0.05}
EPOCHS = 5


def load():
    return os.getloadavg()[0]


def cpu(who):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def train_gensim(algo, seed, sentences, tokens, workers, path):
    model = Word2Vec(
        vector_size=100, window=5, min_count=5, sg=1 if algo == "sgns" else 0, hs=0, negative=5,
        sample=1e-3, cbow_mean=1, alpha=LR[algo], min_alpha=LR[algo] * 1e-4, workers=workers,
        seed=seed, epochs=EPOCHS,
    )
    model.build_vocab(sentences)
    before = load()
    c, t = cpu(resource.RUSAGE_SELF), time.perf_counter()
    model.train(sentences, total_examples=model.corpus_count, epochs=EPOCHS)
    seconds, cpu_s = time.perf_counter() - t, cpu(resource.RUSAGE_SELF) - c
    model.wv.save_word2vec_format(path)
    return {"seconds": seconds, "words_per_sec": tokens * EPOCHS / seconds, "cpu": cpu_s, "train_cpu": cpu_s,
            "words_per_cpu_sec": tokens * EPOCHS / cpu_s, "vocab": len(model.wv), "load": before}


def train_ours(algo, seed, threads, path, extra=()):
    before, c = load(), cpu(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        [TRAIN, CORPUS, algo, str(seed), str(threads), path, f"epochs={EPOCHS}", f"lr={LR[algo]}", *extra],
        check=True, capture_output=True, text=True,
    )
    report = json.loads(out.stdout.strip().splitlines()[-1])
    report["load"] = before
    # The whole process: vocabulary building and writing the vectors count against wordbench here.
    report["cpu"] = cpu(resource.RUSAGE_CHILDREN) - c
    report["words_per_cpu_sec"] = report["tokens"] * EPOCHS / report["cpu"]
    return report  # report["train_cpu"]: the training call alone, from the example


def eval_gensim(path):
    kv = KeyedVectors.load_word2vec_format(path)
    ws = kv.evaluate_word_pairs(WS)[1][0]
    sl = kv.evaluate_word_pairs(SL)[1][0]
    analogy = kv.evaluate_word_analogies(QW, restrict_vocab=30000)[0]
    return {"ws353": ws, "simlex": sl, "analogy": 100.0 * analogy}


def eval_ours(path):
    out = subprocess.run(
        [EVAL, path, "--similarity", WS, "--similarity", SL, "--analogy", QW, "--restrict", "30000"],
        check=True, capture_output=True, text=True,
    )
    r = json.loads(out.stdout)
    sims = {s["dataset"]: s["spearman"] for s in r["similarity"]}
    return {"ws353": sims["wordsim353"], "simlex": sims["simlex999"], "analogy": 100.0 * r["analogy"]["total"]}


def mean(xs):
    return sum(xs) / len(xs)


def gensim_impl(workers):
    return f"gensim-{workers}w"


def efficient(args, results, algo):
    """gensim's efficient setting for `algo`: the worker count of --peer-workers whose
    train() took the fewest CPU seconds (median over the seeds)."""
    return min(args.peer_workers, key=lambda w: median([r["cpu"] for r in results[(algo, gensim_impl(w))]]))


def word2vec_order(algo):
    """The batch value that is word2vec.c's order: the variant named plain `wordbench`."""
    return "pair" if algo == "sgns" else "example"


def batch_of(algo, impl):
    """The `batch` value of a wordbench variant's name (`wordbench` or `wordbench-BATCH`)."""
    return impl.split("-")[1] if "-" in impl else word2vec_order(algo)


def speed_lines(args, results, impls):
    """One SPEED line per wordbench variant: median CPU s over the seeds (wordbench's training
    call, gensim's train() at its efficient setting: equal work) and the mean scores by gensim's
    evaluators against gensim's."""
    seeds = len(args.seeds)
    for algo in args.algos:
        workers = efficient(args, results, algo)
        base = results[(algo, gensim_impl(workers))]
        theirs = {k: mean([r["by_gensim"][k] for r in base]) for k in ["ws353", "simlex", "analogy"]}
        for impl in [i for i in impls(algo) if not i.startswith("gensim")]:
            runs = results[(algo, impl)]
            ours = {k: mean([r["by_gensim"][k] for r in runs]) for k in ["ws353", "simlex", "analogy"]}
            batch = batch_of(algo, impl)
            variant = f"`batch={batch}`"
            quality = (f"WS-353 {ours['ws353']:.4f} ({ours['ws353'] - theirs['ws353']:+.4f}), "
                       f"SimLex-999 {ours['simlex']:.4f} ({ours['simlex'] - theirs['simlex']:+.4f}), "
                       f"analogy {ours['analogy']:.2f}% ({ours['analogy'] - theirs['analogy']:+.2f} points); "
                       f"mean of {seeds} seed(s), gensim's evaluators")
            work = (f"{algo.upper()}, text8-head, {EPOCHS} epochs, d = 100, {args.threads} threads "
                    f"({variant}, its training call; whole process median "
                    f"{median([r['cpu'] for r in runs]):.2f} CPU s)")
            others = [w for w in args.peer_workers if w != workers]
            chosen = (f"{workers} worker{'s' if workers > 1 else ''}" +
                      (f" (its efficient setting: fewer CPU s than {', '.join(map(str, others))})" if others else ""))
            peer = f"gensim {gensim.__version__} `Word2Vec`, {chosen}, its `train()` alone"
            key = f"{algo}-{batch}"
            speed_line(key, median([r["train_cpu"] for r in runs]), median([r["train_cpu"] for r in base]),
                       quality, work, peer)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--algos", nargs="+", default=["sgns", "cbow"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--peer-workers", nargs="+", type=int, default=None,
                    help="gensim's worker count(s), default --threads; with several, ratios are against "
                         "the one that took the fewest CPU seconds (its efficient setting)")
    ap.add_argument("--keep", action="store_true", help="keep the vector files under target/compare-word2vec")
    ap.add_argument("--sgns-batch", nargs="+", default=["pair"], choices=["pair", "window"],
                    help="wordbench SGNS variants (batch=pair is word2vec.c's; window shares negatives per centre)")
    ap.add_argument("--cbow-batch", nargs="+", default=["example"], choices=["example", "window"],
                    help="wordbench CBOW variants (batch=example is word2vec.c's; window scores a centre's "
                         "targets, drawn one centre ahead, in one pass)")
    args = ap.parse_args()
    args.peer_workers = args.peer_workers or [args.threads]
    os.makedirs(OUT, exist_ok=True)

    sentences = list(Text8Corpus(CORPUS))
    tokens = sum(len(s) for s in sentences)
    print(f"corpus {CORPUS}: {tokens} tokens in {len(sentences)} sentences; {os.cpu_count()} CPUs; "
          f"our threads {args.threads}, gensim workers {' '.join(map(str, args.peer_workers))}", flush=True)
    results = {}

    def impls(algo):
        peers = [gensim_impl(w) for w in args.peer_workers]
        batches = args.sgns_batch if algo == "sgns" else args.cbow_batch
        return peers + ["wordbench" if b == word2vec_order(algo) else f"wordbench-{b}" for b in batches]

    for algo in args.algos:
        for seed in args.seeds:
            for impl in impls(algo):
                path = os.path.join(OUT, f"{impl}-{algo}-{seed}.txt")
                if impl.startswith("gensim"):
                    workers = int(impl[len("gensim-"):-1])
                    run = train_gensim(algo, seed, sentences, tokens, workers, path)
                else:
                    run = train_ours(algo, seed, args.threads, path, [f"batch={batch_of(algo, impl)}"])
                run["by_gensim"] = eval_gensim(path)
                run["by_wordbench"] = eval_ours(path)
                if not args.keep:
                    os.remove(path)
                results.setdefault((algo, impl), []).append(run)
                g, w = run["by_gensim"], run["by_wordbench"]
                print(f"  {algo} {impl:16} seed {seed}: {run['words_per_sec']:>9.0f} words/s "
                      f"({run['seconds']:.1f}s, {run['train_cpu']:.2f} CPU s training, {run['cpu']:.2f} whole, load {run['load']:.2f}), vocab {run['vocab']}, "
                      f"WS353 {g['ws353']:.4f}/{w['ws353']:.4f} SimLex {g['simlex']:.4f}/{w['simlex']:.4f} "
                      f"analogy {g['analogy']:.2f}/{w['analogy']:.2f} (gensim eval/wordbench eval)", flush=True)

    print()
    print("words/s = raw corpus tokens (OOV included, before subsampling) x epochs / training wall seconds,")
    print("vocabulary building excluded; words/CPU s = the same per CPU second (user + system, all threads;")
    print("for wordbench the whole process, vocabulary building and writing the vectors included), the steadier")
    print("measure on a shared machine. Scores: mean over seeds " + ", ".join(map(str, args.seeds)) +
          "; Spearman for WS353/SimLex, accuracy % (restrict 30000) for analogy.")
    print()
    header = f"{'algo':5} {'impl':16} {'words/s':>9} {'ratio':>6} {'w/CPU s':>9} {'ratio':>6} | {'WS353':>7} {'SimLex':>7} {'analogy':>7} " \
             f"| wordbench eval: {'WS353':>7} {'SimLex':>7} {'analogy':>7}"
    print(header)
    print("-" * len(header))
    failures = []
    for algo in args.algos:
        peer = gensim_impl(efficient(args, results, algo))
        base = results[(algo, peer)]
        base_wps = mean([r["words_per_sec"] for r in base])
        base_cps = mean([r["words_per_cpu_sec"] for r in base])
        means = {}
        for impl in impls(algo):
            runs = results[(algo, impl)]
            wps = mean([r["words_per_sec"] for r in runs])
            cps = mean([r["words_per_cpu_sec"] for r in runs])
            g = {k: mean([r["by_gensim"][k] for r in runs]) for k in ["ws353", "simlex", "analogy"]}
            w = {k: mean([r["by_wordbench"][k] for r in runs]) for k in ["ws353", "simlex", "analogy"]}
            means[impl] = g
            print(f"{algo:5} {impl:16} {wps:>9.0f} {wps / base_wps:>5.2f}x {cps:>9.0f} {cps / base_cps:>5.2f}x | {g['ws353']:>7.4f} {g['simlex']:>7.4f} "
                  f"{g['analogy']:>7.2f} | {'':15} {w['ws353']:>7.4f} {w['simlex']:>7.4f} {w['analogy']:>7.2f}")
        theirs = means[peer]
        print(f"{algo:5} ratios against {peer} (gensim's efficient setting: fewest CPU s, median over seeds)")
        for impl in [i for i in impls(algo) if not i.startswith("gensim")]:
            ours = means[impl]
            for key, slack in [("ws353", 0.02), ("simlex", 0.02), ("analogy", 2.0)]:
                if ours[key] < theirs[key] - slack:
                    failures.append(f"{algo} {impl} {key}: {ours[key]:.4f} < gensim {theirs[key]:.4f} - {slack}")
            if algo == "sgns":
                ratio = mean([r["words_per_sec"] for r in results[(algo, impl)]]) / base_wps
                if ratio < 1.2:
                    failures.append(f"sgns {impl} speed ratio {ratio:.2f} < 1.2")
            # Issue 35's bar, reported rather than enforced: every mean score within 0.01 of
            # gensim's (analogy as a fraction, so 1 point) and at most 0.25x its CPU seconds.
            cpu_ratio = median([r["train_cpu"] for r in results[(algo, impl)]]) / median([r["train_cpu"] for r in base])
            whole_ratio = median([r["cpu"] for r in results[(algo, impl)]]) / median([r["cpu"] for r in base])
            short = [f"{k} {ours[k] - theirs[k]:+.4f}" for k, slack in [("ws353", 0.01), ("simlex", 0.01), ("analogy", 1.0)]
                     if ours[k] < theirs[k] - slack]
            print(f"{algo:5} {impl:16} CPU {cpu_ratio:.3f}x gensim's (median CPU s of the training calls; "
                  f"our whole process {whole_ratio:.3f}x); issue 35's bar (<= 0.25x, scores "
                  f"within 0.01): {'met' if cpu_ratio <= 0.25 and not short else 'not met'}"
                  + (f" (below by more than 0.01: {', '.join(short)})" if short else ""))
    print()
    speed_lines(args, results, impls)
    print()
    if failures:
        print("NOT MET: " + "; ".join(failures))
        return 1
    print("met: quality within 0.02 (analogy 2 points) of gensim" +
          (", SGNS speed >= 1.2x gensim" if "sgns" in args.algos else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
