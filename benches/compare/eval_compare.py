#!/usr/bin/env python3
"""Checks wordbench's evaluation and vector formats against gensim and scipy.

Run through eval_compare.sh (which makes the venv and builds the Rust example).

1. Trains gensim Word2Vec on text8-head (seeded, min_count=3 -> ~32k words,
   100 dims) once and saves it in word2vec text and binary format (cached
   under target/compare-eval/).
2. gensim: evaluate_word_pairs on WordSim-353 and SimLex-999 (scipy's
   spearmanr / pearsonr inside), evaluate_word_analogies on the Google set
   with restrict_vocab = 30000 and 5000 (3CosAdd). An independent numpy
   3CosMul (Levy & Goldberg, cos' = (cos+1)/2, eps 0.001) with the same
   restriction, since gensim's evaluator only does 3CosAdd.
3. wordbench: examples/eval_vectors on the same files (text and binary),
   plus wordbench-written text/binary/GloVe files loaded back by gensim.
4. Asserts agreement: Spearman/Pearson within 1e-4, pairs found, analogy
   questions/answered equal, correct counts equal per section (differences
   are listed with their margin if any).
Prints a summary table and exits non-zero on disagreement.
"""

import argparse
import json
import logging
import os
import subprocess
import sys
import time

import numpy as np
from gensim.models import KeyedVectors, Word2Vec
from gensim.models.word2vec import LineSentence
from scipy import stats

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED = os.path.abspath(os.path.join(ROOT, "..", "shared", "data"))
if not os.path.isdir(SHARED):
    SHARED = "/work/shared/data"
OUT = os.path.join(ROOT, "target", "compare-eval")
EXAMPLE = os.path.join(ROOT, "target", "release", "examples", "eval_vectors")
WS = os.path.join(SHARED, "eval", "wordsim353.tsv")
SL = os.path.join(SHARED, "eval", "simlex999.txt")
QW = os.path.join(SHARED, "eval", "questions-words.txt")
CORPUS = os.path.join(SHARED, "corpora", "text8-head.txt")

FAILURES = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        FAILURES.append(what)


def train(retrain):
    os.makedirs(OUT, exist_ok=True)
    text, binary = os.path.join(OUT, "w2v.txt"), os.path.join(OUT, "w2v.bin")
    if retrain or not (os.path.exists(text) and os.path.exists(binary)):
        t = time.time()
        model = Word2Vec(
            LineSentence(CORPUS), vector_size=100, window=5, min_count=3, sg=1,
            negative=5, epochs=3, workers=2, seed=1,
        )
        print(f"trained gensim Word2Vec in {time.time() - t:.1f}s")
        model.wv.save_word2vec_format(text, binary=False)
        model.wv.save_word2vec_format(binary, binary=True)
    return text, binary


def ours(vectors, *extra):
    args = [EXAMPLE, vectors, "--similarity", WS, "--similarity", SL, *extra]
    t = time.time()
    run = subprocess.run(args, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        sys.exit(f"eval_vectors failed: {run.stderr}")
    return json.loads(run.stdout), run.stderr.strip(), time.time() - t


def gensim_pairs(kv, path):
    pearson, spearman, oov = kv.evaluate_word_pairs(path)
    total = sum(1 for line in open(path, encoding="utf8") if line.strip() and not line.startswith("#"))
    found = round(total * (1 - oov / 100))
    return {"spearman": spearman[0], "pearson": pearson[0], "pairs": total, "found": found}


def scipy_pairs(kv, path):
    """Independent: float64 cosines, lowercase lookup, scipy on the result."""
    gold, model = [], []
    for line in open(path, encoding="utf8"):
        if not line.strip() or line.startswith("#"):
            continue
        a, b, s = line.lower().split("\t")
        if a in kv.key_to_index and b in kv.key_to_index:
            u, v = kv[a].astype(np.float64), kv[b].astype(np.float64)
            # Symmetric in u, v, so a pair listed twice (WordSim's "money bank" /
            # "bank money") gets exactly tied cosines, as in gensim and wordbench.
            model.append(u @ v / np.sqrt((u @ u) * (v @ v)))
            gold.append(float(s))
    return stats.spearmanr(gold, model)[0], stats.pearsonr(gold, model)[0]


def gensim_analogy(kv, restrict):
    t = time.time()
    _, sections = kv.evaluate_word_analogies(QW, restrict_vocab=restrict)
    secs = time.time() - t
    per = {s["section"]: (len(s["correct"]), len(s["correct"]) + len(s["incorrect"])) for s in sections[:-1]}
    return per, secs


def numpy_cosmul(kv, restrict, eps=0.001):
    """Levy & Goldberg 3CosMul over the first `restrict` rows, questions lowercased."""
    vocab = {w: i for i, w in enumerate(kv.index_to_key[:restrict])}
    unit = kv.vectors[:restrict].astype(np.float64)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    per, section = {}, None
    questions = []
    for line in open(QW, encoding="utf8"):
        if line.startswith(":"):
            section = line[1:].strip()
            per[section] = [0, 0]
            continue
        ws = line.lower().split()
        if len(ws) == 4 and all(w in vocab for w in ws):
            questions.append((section, [vocab[w] for w in ws]))
    ids = np.array([q for _, q in questions])
    for start in range(0, len(ids), 512):
        blk = ids[start:start + 512]
        ca, cb, cc = ((unit[blk[:, k]] @ unit.T + 1) / 2 for k in range(3))
        score = cb * cc / (ca + eps)
        rows = np.arange(len(blk))
        for k in range(3):
            score[rows, blk[:, k]] = -np.inf
        pred = score.argmax(axis=1)
        for (section, q), p in zip(questions[start:start + 512], pred):
            per[section][1] += 1
            per[section][0] += int(p == q[3])
    return {s: tuple(v) for s, v in per.items()}


def compare_analogy(label, ours_result, reference):
    r = ours_result
    sections = {s["section"]: s for s in r["sections"]}
    diffs = []
    for name, (correct, answered) in reference.items():
        s = sections[name]
        if s["answered"] != answered or s["correct"] != correct:
            diffs.append(f"{name}: ours {s['correct']}/{s['answered']} ref {correct}/{answered}")
    ref_c = sum(c for c, _ in reference.values())
    ref_a = sum(a for _, a in reference.values())
    check(r["answered"] == ref_a, f"{label}: answered ours {r['answered']} ref {ref_a}")
    check(not diffs, f"{label}: correct ours {r['correct']} ref {ref_c} (accuracy {r['total']:.5f} vs {ref_c / ref_a:.5f})"
          + ("" if not diffs else "; " + "; ".join(diffs)))
    sem = [(c, a) for n, (c, a) in reference.items() if not n.startswith("gram")]
    syn = [(c, a) for n, (c, a) in reference.items() if n.startswith("gram")]
    for key, part in (("semantic", sem), ("syntactic", syn)):
        want = sum(c for c, _ in part) / sum(a for _, a in part)
        check(abs(r[key] - want) < 1e-12, f"{label}: {key} {r[key]:.5f} vs {want:.5f}")


def formats_round_trip(kv, text):
    """Files wordbench writes load in gensim with identical vectors."""
    out = {f: os.path.join(OUT, f"ours.{f}") for f in ("txt", "bin", "glove")}
    run = subprocess.run(
        [EXAMPLE, text, "--save-text", out["txt"], "--save-binary", out["bin"], "--save-glove", out["glove"]],
        capture_output=True, text=True, check=False,
    )
    if run.returncode != 0:
        sys.exit(f"eval_vectors --save failed: {run.stderr}")
    loaded = {
        "txt": KeyedVectors.load_word2vec_format(out["txt"], binary=False),
        "bin": KeyedVectors.load_word2vec_format(out["bin"], binary=True),
        "glove": KeyedVectors.load_word2vec_format(out["glove"], binary=False, no_header=True),
    }
    for name, back in loaded.items():
        same = back.index_to_key == kv.index_to_key and np.array_equal(back.vectors, kv.vectors)
        check(same, f"gensim loads wordbench's {name} file: {len(back.index_to_key)} words, vectors bit-identical")


def timing_full_set():
    """All 19,544 questions answerable: seeded random 30,000 x 100 vectors holding every question word."""
    path = os.path.join(OUT, "synthetic30k.txt")
    if not os.path.exists(path):
        words, seen = [], set()
        for line in open(QW, encoding="utf8"):
            if not line.startswith(":"):
                for w in line.lower().split():
                    if w not in seen:
                        seen.add(w)
                        words.append(w)
        rng = np.random.default_rng(1)
        words += [f"filler{i}" for i in range(30000 - len(words))]
        words = [words[i] for i in rng.permutation(len(words))]
        vecs = rng.standard_normal((len(words), 100)).astype(np.float32)
        with open(path, "w", encoding="utf8") as f:
            f.write(f"{len(words)} 100\n")
            for w, v in zip(words, vecs):
                f.write(w + " " + " ".join(str(x) for x in v) + "\n")
    for method in ("3cosadd", "3cosmul"):
        _, log, _ = ours(path, "--analogy", QW, "--method", method)
        print(f"synthetic 30000 x 100, {log.splitlines()[-1]}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--retrain", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    text, binary = train(args.retrain)
    kv = KeyedVectors.load_word2vec_format(text, binary=False)
    kv_bin = KeyedVectors.load_word2vec_format(binary, binary=True)
    print(f"vectors: {len(kv.index_to_key)} x {kv.vector_size}")
    check(np.array_equal(kv.vectors, kv_bin.vectors), "gensim's own text and binary files hold the same vectors")

    results = {}
    for restrict in (30000, 5000):
        for method in ("3cosadd", "3cosmul"):
            res, log, secs = ours(text, "--analogy", QW, "--restrict", str(restrict), "--method", method)
            results[(restrict, method)] = (res, log, secs)
    res_bin, _, _ = ours(binary, "--analogy", QW)
    base = results[(30000, "3cosadd")][0]

    print("\n== similarity (gensim evaluate_word_pairs, scipy) ==")
    for path, mine, mine_bin in zip((WS, SL), base["similarity"], res_bin["similarity"]):
        g = gensim_pairs(kv, path)
        sp, pe = scipy_pairs(kv, path)
        name = mine["dataset"]
        print(f"{name}: ours spearman {mine['spearman']:.6f} pearson {mine['pearson']:.6f} found {mine['found']}/{mine['pairs']}"
              f" | gensim {g['spearman']:.6f} {g['pearson']:.6f} {g['found']}/{g['pairs']} | scipy-f64 {sp:.6f} {pe:.6f}")
        check(abs(mine["spearman"] - g["spearman"]) < 1e-4, f"{name}: spearman vs gensim, diff {abs(mine['spearman'] - g['spearman']):.2e}")
        check(abs(mine["pearson"] - g["pearson"]) < 1e-4, f"{name}: pearson vs gensim, diff {abs(mine['pearson'] - g['pearson']):.2e}")
        check(abs(mine["spearman"] - sp) < 1e-9, f"{name}: spearman vs scipy on f64 cosines, diff {abs(mine['spearman'] - sp):.2e}")
        check(abs(mine["pearson"] - pe) < 1e-9, f"{name}: pearson vs scipy on f64 cosines, diff {abs(mine['pearson'] - pe):.2e}")
        check((mine["found"], mine["pairs"]) == (g["found"], g["pairs"]), f"{name}: found/pairs equal gensim's")
        check(mine == mine_bin, f"{name}: binary file gives the same result as text")

    print("\n== analogy (gensim evaluate_word_analogies 3CosAdd; numpy 3CosMul) ==")
    for restrict in (30000, 5000):
        ref, gsecs = gensim_analogy(kv, restrict)
        res, log, secs = results[(restrict, "3cosadd")]
        a = res["analogy"]
        print(f"restrict {restrict}: ours total {a['total']:.5f} ({a['correct']}/{a['answered']} of {a['questions']})"
              f" semantic {a['semantic']:.5f} syntactic {a['syntactic']:.5f}; gensim took {gsecs:.1f}s; ours: {log.splitlines()[-1]}")
        compare_analogy(f"3cosadd restrict {restrict} vs gensim", a, ref)
        check(a["questions"] == 19544, f"questions {a['questions']} == 19544")
        ref_mul = numpy_cosmul(kv, restrict)
        res, log, _ = results[(restrict, "3cosmul")]
        a = res["analogy"]
        print(f"restrict {restrict}: ours 3CosMul total {a['total']:.5f} ({a['correct']}/{a['answered']}); ours: {log.splitlines()[-1]}")
        compare_analogy(f"3cosmul restrict {restrict} vs numpy", a, ref_mul)
    check(res_bin["analogy"] == base["analogy"], "binary file gives the same analogy result as text")

    print("\n== formats ==")
    formats_round_trip(kv, text)

    print("\n== timing, full Google set answered ==")
    timing_full_set()

    print(f"\n{len(FAILURES)} disagreement(s)")
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
