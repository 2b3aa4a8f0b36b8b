#!/usr/bin/env python3
"""Interpolated Kneser-Ney n-gram baseline (default n = 4) for `--algo mpnnlm`
on text8-style corpora (one lowercase line, no punctuation), on the split and
vocabulary wordbench uses with its default corpus options:

- the text is cut into units of 10,000 tokens; unit u is held out when
  floor((u + 1) * 0.05) > floor(u * 0.05) (5%), the rest is training text;
- the vocabulary is the training words seen at least 5 times; out-of-
  vocabulary tokens are dropped (as wordbench's encoder does);
- each unit is one sentence: padded with n - 1 start symbols, ended by </s>;
- perplexity on the first `--heldout-tokens` (1,000) held-out tokens, the last
  unit cut short not ended (as mpnnlm's model ppl).

Interpolated Kneser-Ney (Chen & Goodman 1998): one absolute discount per
order D = n1 / (n1 + 2 n2), raw counts at the highest order, continuation
counts below, the unigram level interpolated with the uniform distribution.
Prints one JSON line (train tokens and vocabulary size: compare with
wordbench's log line to check the split).

Usage: python3 benches/compare/mpnnlm_kn4.py CORPUS [--order 4] [--heldout-tokens 1000]
"""
import argparse
import json
import math
from collections import Counter, defaultdict


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--order", type=int, default=4)
    ap.add_argument("--heldout-tokens", type=int, default=1000)
    ap.add_argument("--unit", type=int, default=10_000)
    ap.add_argument("--heldout", type=float, default=0.05)
    ap.add_argument("--min-count", type=int, default=5)
    a = ap.parse_args()
    n = a.order
    tokens = open(a.corpus, encoding="utf-8").read().lower().split()
    units = [tokens[i:i + a.unit] for i in range(0, len(tokens), a.unit)]
    held = lambda u: math.floor((u + 1) * a.heldout) > math.floor(u * a.heldout)
    train = [s for u, s in enumerate(units) if not held(u)]
    test = [s for u, s in enumerate(units) if held(u)]
    counts = Counter(w for s in train for w in s)
    vocab = {w for w, c in counts.items() if c >= a.min_count}
    train = [[w for w in s if w in vocab] for s in train]
    test = [[w for w in s if w in vocab] for s in test]
    START, END = "<s>", "</s>"

    grams = [None] + [Counter() for _ in range(n)]
    for s in train:
        p = [START] * (n - 1) + s + [END]
        for i in range(n - 1, len(p)):
            grams[n][tuple(p[i + 1 - n:i + 1])] += 1
    for k in range(n - 1, 0, -1):
        for g in grams[k + 1]:
            grams[k][g[1:]] += 1
    totals, discount = [None], [None]
    for k in range(1, n + 1):
        t = defaultdict(lambda: [0, 0])
        for g, c in grams[k].items():
            e = t[g[:-1]]
            e[0] += c
            e[1] += 1
        totals.append(t)
        n1 = sum(1 for c in grams[k].values() if c == 1)
        n2 = sum(1 for c in grams[k].values() if c == 2)
        discount.append(n1 / (n1 + 2 * n2) if n1 + n2 else 0.5)

    def prob(h, w):
        p = 1.0 / (len(vocab) + 1)
        for k in range(1, n + 1):
            ctx = tuple(h[len(h) + 1 - k:]) if k > 1 else ()
            t = totals[k].get(ctx)
            if t:
                c = grams[k].get(ctx + (w,), 0)
                d = discount[k]
                p = max(c - d, 0) / t[0] + d * t[1] / t[0] * p
        return p

    left, ll, count = a.heldout_tokens, 0.0, 0
    for s in test:
        if left == 0:
            break
        take = s[:left]
        left -= len(take)
        p = [START] * (n - 1) + take + ([END] if len(take) == len(s) else [])
        for i in range(n - 1, len(p)):
            ll += math.log(prob(p[i + 1 - n:i], p[i]))
            count += 1
    print(json.dumps({
        "order": n,
        "train_tokens": sum(len(s) for s in train),
        "vocabulary": len(vocab),
        "heldout_predictions": count,
        "perplexity": round(math.exp(-ll / count), 2),
        "discounts": [round(d, 3) for d in discount[1:]],
    }))


if __name__ == "__main__":
    main()
