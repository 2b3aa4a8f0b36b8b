"""Learning curves of wordbench's MNB and MNB-FM beside scikit-learn's
MultinomialNB (alpha=1) and LogisticRegression (C=1, liblinear; the paper
chose C by 10-fold cross-validation, we do not), and one MNB-FM fit's speed.

wordbench runs its own protocol (`wordbench classify --json`); scikit-learn
runs the same protocol here (same sizes, the same number of seeded draws,
one-vs-rest tasks, F1 of the minority class averaged over tasks then draws)
on features from a tokenizer that mirrors wordbench's, with the same
stop-word list. The draws are not the same documents (numpy vs wordbench's
generator), so the sklearn columns are context, not a paired comparison.
"""
import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import time

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.naive_bayes import MultinomialNB

from speedline import median, speed_line

TOKEN = re.compile(r"[^\W_]+(?:(?:['\u2019-]|(?<=\d)[.,](?=\d))[^\W_]+)*")
STOP = None  # filled from the Rust source list


def stop_words(root):
    src = open(os.path.join(root, "src/classify/stopwords.rs"), encoding="utf-8").read()
    body = src[src.index("STOP_WORDS"):src.index("];")]
    return set(re.findall(r'"([^"]+)"', body))


def tokens(text):
    return [t for t in (w.lower() for w in TOKEN.findall(text)) if t not in STOP]


def opener(path):
    return gzip.open(path, "rt", encoding="utf-8", errors="replace") if path.endswith(".gz") \
        else open(path, encoding="utf-8", errors="replace")


def read_fasttext(path):
    docs = []
    for line in opener(path):
        words = line.split()
        if not words:
            continue
        labels = [w[9:] for w in words if w.startswith("__label__")]
        docs.append((labels, " ".join(w for w in words if not w.startswith("__label__")), None))
    return docs


def read_tsv(path):
    docs = []
    for line in opener(path):
        split, _id, labels, text = line.rstrip("\n").split("\t", 3)
        docs.append((labels.split(","), text, split))
    return docs


def wordbench(exe, args, threads):
    out = subprocess.run([exe, "classify", "--json", "--threads", str(threads)] + args,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def ours(exe, args, threads, sizes, resamples):
    v = wordbench(exe, args + ["--labelled", ",".join(map(str, sizes)),
                               "--resamples", str(resamples)], threads)
    return {(p["labelled"], p["method"]): p for p in v["points"]}


def minority_f1(y_true, y_pred):
    pos = int(np.sum(y_true == 1))
    minority = 1 if 2 * pos <= len(y_true) else 0
    return f1_score(y_true, y_pred, pos_label=minority, zero_division=0.0)


def sklearn_curve(train, test, tasks, sizes, resamples, seed=1):
    """Mean/std over draws of the task-averaged minority-class F1 for MNB and LR.
    `test is None`: the documents not drawn are the test set (and the
    vectorizer sees everything, as wordbench's vocabulary does)."""
    texts = [t for _, t, _ in train] + ([t for _, t, _ in test] if test else [])
    cv = CountVectorizer(tokenizer=tokens, lowercase=False, token_pattern=None).fit(texts)
    Xtr = cv.transform([t for _, t, _ in train])
    Xte_fixed = cv.transform([t for _, t, _ in test]) if test else None
    rows = {}
    rng = np.random.default_rng(seed)
    for r in range(resamples):
        pool = rng.permutation(len(train))[: max(sizes)]
        rest = np.setdiff1d(np.arange(len(train)), pool)
        for n in sizes:
            idx = pool[:n]
            for name in ("sk-mnb", "sk-lr"):
                scores = []
                for task in tasks:
                    ytr = np.array([1 if task in l else 0 for l, _, _ in train])
                    if test:
                        Xte, yte = Xte_fixed, np.array([1 if task in l else 0 for l, _, _ in test])
                    else:
                        Xte, yte = Xtr[rest], ytr[rest]
                    y = ytr[idx]
                    if len(set(y)) < 2:
                        pred = np.full(len(yte), y[0])
                    elif name == "sk-mnb":
                        pred = MultinomialNB(alpha=1.0).fit(Xtr[idx], y).predict(Xte)
                    else:
                        pred = LogisticRegression(C=1.0, solver="liblinear").fit(Xtr[idx], y).predict(Xte)
                    scores.append(minority_f1(yte, pred))
                rows.setdefault((n, name), []).append(np.mean(scores))
    return {k: (float(np.mean(v)), float(np.std(v, ddof=1)) if len(v) > 1 else 0.0) for k, v in rows.items()}


def table(title, sizes, ours_rows, sk_rows, paper=None):
    print(f"\n{title}: F1 of the minority class, mean ± std over draws")
    head = f"{'labelled':>9} {'MNB-FM':>15} {'MNB':>15} {'sk MNB':>15} {'sk LogReg':>15}"
    if paper:
        head += f" {'paper FM/MNB':>14}"
    print(head)
    for n in sizes:
        fm, nb = ours_rows[(n, "mnb-fm")]["f1"], ours_rows[(n, "mnb")]["f1"]
        line = f"{n:>9} {fm['mean']:>8.3f} ± {fm['std']:.3f} {nb['mean']:>8.3f} ± {nb['std']:.3f}"
        for k in ("sk-mnb", "sk-lr"):
            m, s = sk_rows[(n, k)]
            line += f" {m:>8.3f} ± {s:.3f}"
        if paper:
            line += f" {paper[n][0]:>6.3f}/{paper[n][1]:.3f}"
        print(line)


def merge(rows_list):
    """Average wordbench's per-domain points (each already a mean over draws)."""
    out = {}
    for key in rows_list[0]:
        ms = [r[key]["f1"]["mean"] for r in rows_list]
        ss = [r[key]["f1"]["std"] for r in rows_list]
        out[key] = {"f1": {"mean": float(np.mean(ms)), "std": float(np.mean(ss))}}
    return out


def merge_sk(rows_list):
    return {k: (float(np.mean([r[k][0] for r in rows_list])), float(np.mean([r[k][1] for r in rows_list])))
            for k in rows_list[0]}


def main():
    global STOP
    ap = argparse.ArgumentParser()
    ap.add_argument("--wordbench", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--resamples", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", default=None)
    ap.add_argument("--only", default="reuters,amazon,polarity,speed")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    STOP = stop_words(root)
    work = a.work or os.path.join(root, "target", "classify-compare")
    os.makedirs(work, exist_ok=True)
    only = set(a.only.split(","))
    lab = os.path.join(a.data, "labeled")
    sizes = [10, 100, 1000]
    exe = a.wordbench

    if "reuters" in only:
        path = os.path.join(lab, "reuters-apte.tsv.gz")
        docs = read_tsv(path)
        train = [d for d in docs if d[2] == "train"]
        test = [d for d in docs if d[2] == "test"]
        o = ours(exe, ["--train", path, "--test", path], a.threads, sizes, a.resamples)
        counts = {}
        for l, _, _ in train:
            for x in l:
                counts[x] = counts.get(x, 0) + 1
        tasks = sorted(counts, key=lambda x: -counts[x])[:10]
        sk = sklearn_curve(train, test, tasks, sizes, a.resamples)
        table("Reuters ApteMod, 10 largest categories one-vs-rest (train split drawn, test split scored, "
              "marginals from the test split)", sizes, o, sk,
              paper={10: (0.306, 0.336), 100: (0.554, 0.222), 1000: (0.729, 0.452)})

    if "amazon" in only:
        path = os.path.join(lab, "amazon-multidomain.fasttext.txt.gz")
        docs = read_fasttext(path)
        os_, sks = [], []
        for dom in ("books", "dvd", "electronics", "kitchen"):
            o = ours(exe, ["--train", path, "--within", dom, "--label", "pos"], a.threads, sizes, a.resamples)
            os_.append(o)
            mine = [d for d in docs if dom in d[0]]
            sks.append(sklearn_curve(mine, None, ["pos"], sizes, a.resamples))
        table("Amazon multi-domain (4 domains, positive vs negative within each, 2,000 reviews a domain; "
              "the rest of the domain is test set and marginals)", sizes, merge(os_), merge_sk(sks),
              paper={10: (0.542, 0.508), 100: (0.587, 0.456), 1000: (0.687, 0.465)})

    if "polarity" in only:
        path = os.path.join(lab, "rt-polarity.fasttext.txt")
        docs = read_fasttext(path)
        o = ours(exe, ["--train", path, "--label", "pos"], a.threads, sizes, a.resamples)
        sk = sklearn_curve(docs, None, ["pos"], sizes, a.resamples)
        table("rt-polarity (10,662 sentences; what is not drawn is test set and marginals)", sizes, o, sk)

    if "speed" in only:
        speed(exe, a, lab, work)


def speed(exe, a, lab, work, repeat=3):
    """One MNB-FM fit (Reuters `earn`, 1000 labelled) with the marginals of
    100,000 unlabelled documents: text8-head cut into 100,000 lines.

    The counting row is equal work: wordbench's marginal pass and
    scikit-learn's `CountVectorizer.fit_transform` read the same 100,000
    documents (nothing else) with the same tokenizer and stop words, and the
    token totals are printed side by side. Both are measured in CPU seconds
    (wordbench's pass: its threads' CPU during the pass, from the JSON;
    scikit-learn: this process's `time.process_time()`), `repeat` runs each,
    alternating, medians; wall seconds beside them."""
    corpus = os.path.join(a.data, "corpora", "text8-head.txt")
    words = open(corpus, encoding="utf-8").read().split()
    per = len(words) // 100_000
    unl = os.path.join(work, "text8-100k-docs.txt")
    with open(unl, "w", encoding="utf-8") as f:
        for i in range(100_000):
            f.write(" ".join(words[i * per:(i + 1) * per]) + "\n")
    path = os.path.join(lab, "reuters-apte.tsv.gz")
    texts = [l.rstrip("\n") for l in open(unl, encoding="utf-8")]
    ours_runs, sk_runs = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        v = wordbench(exe, ["--train", path, "--test", path, "--marginals", unl, "--label", "earn",
                            "--labelled", "1000", "--resamples", "1"], a.threads)
        total = time.perf_counter() - t0
        ours_runs.append((v, total))
        t0, c0 = time.perf_counter(), time.process_time()
        cv = CountVectorizer(tokenizer=tokens, lowercase=False, token_pattern=None)
        U = cv.fit_transform(texts)
        sk_runs.append((time.process_time() - c0, time.perf_counter() - t0))
    v, total = ours_runs[-1]
    pts = {p["method"]: p for p in v["points"]}
    mc = v["marginal_corpus"]
    ours_cpu = median([r[0]["marginal_corpus"]["cpu_seconds"] for r in ours_runs])
    ours_wall = median([r[0]["marginal_corpus"]["seconds"] for r in ours_runs])
    sk_cpu = median([r[0] for r in sk_runs])
    sk_wall = median([r[1] for r in sk_runs])
    sk_tokens = int(U.sum())
    # MultinomialNB on 1000 labelled Reuters documents, vectorized beforehand
    # (not the same work as our fit, which counts the labelled documents).
    docs = read_tsv(path)
    train = [d for d in docs if d[2] == "train"]
    idx = np.random.default_rng(1).permutation(len(train))[:1000]
    X = CountVectorizer(tokenizer=tokens, lowercase=False, token_pattern=None).fit_transform(
        [train[i][1] for i in idx])
    y = np.array([1 if "earn" in train[i][0] else 0 for i in idx])
    c0 = time.process_time()
    for _ in range(20):
        MultinomialNB(alpha=1.0).fit(X, y)
    sk_fit = (time.process_time() - c0) / 20
    print(f"\nSpeed, {a.threads} threads, {repeat} runs each, alternating, medians; load "
          f"{os.getloadavg()[0]:.1f}: marginals of {mc['documents']:,} unlabelled documents, "
          f"one fit on 1000 labelled Reuters documents (task earn)")
    print(f"tokens counted: wordbench {mc['tokens']:,}, scikit-learn {sk_tokens:,}")
    print(f"{'':<38}{'wordbench':>12}{'scikit-learn':>14}{'ratio':>8}")
    print(f"{'count the documents, CPU s':<38}{ours_cpu:>12.3f}{sk_cpu:>14.3f}{ours_cpu / sk_cpu:>8.3f}")
    print(f"{'count the documents, wall s':<38}{ours_wall:>12.3f}{sk_wall:>14.3f}")
    print(f"{'fit MNB-FM (ms, wall)':<38}{pts['mnb-fm']['fit_seconds'] * 1e3:>12.2f}{'-':>14}")
    print(f"{'fit MNB (ms; ours wall, counts too)':<38}{pts['mnb']['fit_seconds'] * 1e3:>12.2f}"
          f"{sk_fit * 1e3:>14.2f}  (sklearn CPU, ready matrix: not the same work)")
    print(f"{'whole classify command (s, wall)':<38}{total:>12.2f}")
    print("paper, Table 8 (100k unlabelled documents, their machine): MNB-FM 5.50 s, MNB 3.61 s")
    speed_line("mnbfm-marginals", ours_cpu, sk_cpu,
               f"tokens counted: ours {mc['tokens']:,}, scikit-learn {sk_tokens:,}",
               "count 100,000 unlabelled documents (text8-head cut into lines)",
               "scikit-learn CountVectorizer.fit_transform (1 thread)")


if __name__ == "__main__":
    sys.exit(main())
