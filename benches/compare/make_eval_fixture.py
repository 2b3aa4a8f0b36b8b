#!/usr/bin/env python3
"""Makes the tiny evaluation fixture under tests/fixtures/eval/ and prints the
reference numbers gensim and scipy compute on it (pasted into
tests/it/eval_reference.rs).

Needs the vectors eval_compare.sh trains (target/compare-eval/w2v.txt).
Run: benches/compare/.venv/bin/python benches/compare/make_eval_fixture.py

Files written:
- vectors.txt    word2vec text, written here (frequency order, a few upper-case
                 variants at the end to exercise case-insensitive matching);
- vectors.bin    the same vectors written by gensim, binary;
- vectors.glove  the same vectors written by gensim without header (GloVe);
- similarity.tsv WordSim-353 pairs (some out of vocabulary, tied scores, a header);
- analogy.txt    Google questions from four sections, some out of vocabulary.
"""

import os

import numpy as np
from gensim.models import KeyedVectors
from scipy import stats

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "fixtures", "eval")
SHARED = "/work/shared/data/eval"
DIM = 16
RESTRICT = 150


def main():
    kv = KeyedVectors.load_word2vec_format(os.path.join(ROOT, "target", "compare-eval", "w2v.txt"))
    known = kv.key_to_index
    os.makedirs(OUT, exist_ok=True)

    # Analogy questions: the first few of four sections whose words are known.
    wanted = {"capital-common-countries": 10, "family": 8, "gram3-comparative": 8, "gram7-past-tense": 8}
    questions, section, counts = [], None, {}
    for line in open(os.path.join(SHARED, "questions-words.txt"), encoding="utf8"):
        if line.startswith(":"):
            section = line[1:].strip()
            continue
        ws = line.split()
        if section in wanted and counts.get(section, 0) < wanted[section] and all(w.lower() in known for w in ws):
            counts[section] = counts.get(section, 0) + 1
            questions.append((section, ws))
    words = {w.lower() for _, q in questions for w in q}

    # Similarity pairs: the first 40 known pairs plus 4 with an unknown word.
    pairs, unknown = [], []
    for line in open(os.path.join(SHARED, "wordsim353.tsv"), encoding="utf8"):
        if line.startswith("#"):
            continue
        a, b, s = line.rstrip("\n").split("\t")
        if a in known and b in known and len(pairs) < 40:
            pairs.append((a, b, s))
        elif not (a in known and b in known) and len(unknown) < 4:
            unknown.append((a, b, s))
    words |= {w for a, b, _ in pairs for w in (a, b)}
    words |= set(kv.index_to_key[:40])  # frequent distractors
    vocab = sorted(words, key=lambda w: known[w])
    # 16 dims: projection on the top singular vectors of these rows.
    m = np.stack([kv[w] for w in vocab]).astype(np.float64)
    _, _, vt = np.linalg.svd(m, full_matrices=False)
    small = np.round(m @ vt[:DIM].T, 4).astype(np.float32)
    # Case variants, least frequent: near their lowercase word.
    rng = np.random.default_rng(7)
    firsts = {}
    for sec, q in questions:
        firsts.setdefault(sec, q[3].lower())
    answers = list(firsts.values())
    variants = [answers[0].capitalize(), answers[1].upper(), answers[2].capitalize()]
    rows = [small[vocab.index(v.lower())] + np.round(rng.normal(0, 0.05, DIM), 4).astype(np.float32) for v in variants]
    vocab += variants
    small = np.vstack([small, np.stack(rows)])

    path = os.path.join(OUT, "vectors.txt")
    with open(path, "w", encoding="utf8") as f:
        f.write(f"{len(vocab)} {DIM}\n")
        for w, v in zip(vocab, small):
            f.write(w + " " + " ".join(f"{x:.4f}" for x in v) + "\n")
    fx = KeyedVectors.load_word2vec_format(path)
    fx.save_word2vec_format(os.path.join(OUT, "vectors.bin"), binary=True)
    fx.save_word2vec_format(os.path.join(OUT, "vectors.glove"), binary=False, write_header=False)

    with open(os.path.join(OUT, "similarity.tsv"), "w", encoding="utf8") as f:
        f.write("# WordSim-353 pairs (fixture); unknown words on purpose\n")
        f.write("Word 1\tWord 2\tHuman (mean)\n")
        for a, b, s in pairs[:20] + unknown + pairs[20:]:
            f.write(f"{a}\t{b}\t{s}\n")
    with open(os.path.join(OUT, "analogy.txt"), "w", encoding="utf8") as f:
        last = None
        for sec, q in questions:
            if sec != last:
                f.write(f": {sec}\n")
                last = sec
            f.write(" ".join(q) + "\n")
        f.write("Athens Greece Zzyzx Qqqland\n")  # unknown words: not answered

    print(f"{len(vocab)} words x {DIM}, {len(pairs) + len(unknown)} pairs, {len(questions) + 1} questions")
    print("// gensim", __import__("gensim").__version__, "scipy", __import__("scipy").__version__)
    # Similarity: gensim's evaluate_word_pairs wants exactly 3 tab fields, so the
    # header line is skipped by gensim as invalid; ours skips it as a header.
    sim_path = os.path.join(OUT, "similarity.tsv")
    pearson, spearman, oov = fx.evaluate_word_pairs(sim_path)
    gold = [float(s) for a, b, s in pairs]
    cos = [float(fx.similarity(a, b)) for a, b, _ in pairs]
    print(f"similarity: gensim spearman {spearman[0]!r} pearson {pearson[0]!r} oov% {oov!r}")
    print(f"similarity: scipy on gensim cosines spearman {stats.spearmanr(gold, cos)[0]!r} pearson {stats.pearsonr(gold, cos)[0]!r}")
    f64 = []
    for a, b, _ in pairs:
        u, v = fx[a].astype(np.float64), fx[b].astype(np.float64)
        f64.append(u @ v / np.sqrt((u @ u) * (v @ v)))  # symmetric: repeated pairs tie exactly
    print(f"similarity: scipy on f64 cosines spearman {stats.spearmanr(gold, f64)[0]!r} pearson {stats.pearsonr(gold, f64)[0]!r}")
    for restrict in (RESTRICT, 100000):
        _, secs = fx.evaluate_word_analogies(os.path.join(OUT, "analogy.txt"), restrict_vocab=restrict)
        print(f"analogy 3cosadd restrict {restrict}: " + ", ".join(
            f"{s['section']}: {len(s['correct'])}/{len(s['correct']) + len(s['incorrect'])}" for s in secs))
        print(f"analogy 3cosmul restrict {restrict}: {cosmul(fx, os.path.join(OUT, 'analogy.txt'), restrict)[0]}")
        print(f"  gensim 3cosadd predictions: {gensim_predictions(fx, os.path.join(OUT, 'analogy.txt'), restrict)}")
        print(f"  numpy 3cosmul predictions: {cosmul(fx, os.path.join(OUT, 'analogy.txt'), restrict)[1]}")


def gensim_predictions(kv, path, restrict):
    """The word gensim's evaluate_word_analogies picks for each answered question (its own code path)."""
    ok_keys = kv.index_to_key[:restrict]
    ok_vocab = {k.upper(): kv.get_index(k) for k in reversed(ok_keys)}
    preds = []
    for line in open(path, encoding="utf8"):
        if line.startswith(":"):
            continue
        a, b, c, d = [w.upper() for w in line.split()]
        if not all(w in ok_vocab for w in (a, b, c, d)):
            continue
        original, kv.key_to_index = kv.key_to_index, ok_vocab
        sims = kv.most_similar(positive=[b, c], negative=[a], topn=5, restrict_vocab=restrict)
        kv.key_to_index = original
        predicted = None
        for word, _ in sims:
            predicted = word
            if word.upper() in ok_vocab and word.upper() not in {a, b, c}:
                break
        preds.append(predicted)
    return preds


def cosmul(kv, path, restrict, eps=0.001):
    """Levy & Goldberg 3CosMul, case-insensitive like gensim (first row of each upper-cased form)."""
    keys = kv.index_to_key[:restrict]
    first = {}
    for i, k in enumerate(keys):
        first.setdefault(k.upper(), i)
    cls = np.array([first[k.upper()] for k in keys])
    unit = kv.vectors[:restrict].astype(np.float64)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    out, sec, preds = {}, None, []
    for line in open(path, encoding="utf8"):
        if line.startswith(":"):
            sec = line[1:].strip()
            out[sec] = [0, 0]
            continue
        ws = [w.upper() for w in line.split()]
        if not all(w in first for w in ws):
            continue
        a, b, c, d = (first[w] for w in ws)
        ca, cb, cc = ((unit @ unit[i] + 1) / 2 for i in (a, b, c))
        score = cb * cc / (ca + eps)
        score[np.isin(cls, [a, b, c])] = -np.inf
        best = int(np.argmax(score))
        preds.append(keys[best])
        out[sec][1] += 1
        out[sec][0] += int(cls[best] == d)
    return ", ".join(f"{s}: {c}/{n}" for s, (c, n) in out.items()), preds


if __name__ == "__main__":
    main()
