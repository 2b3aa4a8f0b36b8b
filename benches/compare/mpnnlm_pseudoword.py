#!/usr/bin/env python3
"""Sense lean of a pseudo-word's prototypes (`--algo mpnnlm`, prototype
creation): does a prototype of "churchcomputer" side with the religion words
or with the computing words?

The two topics are the `--topic-size` (50) nearest neighbours of each real
word ("church", "computer") in vectors trained on the original corpus
(`--reference`, e.g. SGNS), words in both lists dropped. A prototype's lean is
its mean cosine to the first topic's words minus its mean cosine to the
second's, both read in the MPNNLM vectors being scored (each word's first
prototype). A split into senses shows as one prototype leaning each way; on
the original corpus the real words lean about +0.29 ("church") and -0.50
("computer") in a one-epoch MPNNLM.

Usage:
  python3 benches/compare/mpnnlm_pseudoword.py --reference sgns.vec MPNNLM.vec [MPNNLM.vec ...]
      [--words church computer] [--pseudo churchcomputer] [--topic-size 50] [--neighbours 8]

Input files are word2vec text files (a `count dim` header), as `wordbench
train --out` writes them. Prints one line per prototype of the pseudo-word
(and of the real words, when present): lean, both mean cosines, neighbours.
"""
import argparse

import numpy as np


def load(path):
    words, rows = [], []
    with open(path, encoding="utf-8") as f:
        f.readline()
        for line in f:
            parts = line.rstrip().split(" ")
            words.append(parts[0])
            rows.append(np.asarray(parts[1:], dtype=np.float64))
    m = np.vstack(rows)
    m /= np.linalg.norm(m, axis=1, keepdims=True) + 1e-12
    return words, m


def nearest(words, m, word, n):
    order = np.argsort(-(m @ m[words.index(word)]))
    return [words[j] for j in order if words[j] != word][:n]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("vectors", nargs="+")
    ap.add_argument("--reference", required=True)
    ap.add_argument("--words", nargs=2, default=["church", "computer"])
    ap.add_argument("--pseudo", default=None)
    ap.add_argument("--topic-size", type=int, default=50)
    ap.add_argument("--neighbours", type=int, default=8)
    args = ap.parse_args()
    pseudo = args.pseudo or "".join(args.words)
    rw, rm = load(args.reference)
    first, second = (nearest(rw, rm, w, args.topic_size) for w in args.words)
    both = set(first) & set(second)
    first = [w for w in first if w not in both]
    second = [w for w in second if w not in both]
    for path in args.vectors:
        words, m = load(path)
        index = {w: i for i, w in enumerate(words)}
        a = m[[index[w] for w in first if w in index]]
        b = m[[index[w] for w in second if w in index]]
        print(f"== {path}")
        for w in words:
            if w.split("#")[0] not in (pseudo, *args.words):
                continue
            v = m[index[w]]
            ca, cb = float((a @ v).mean()), float((b @ v).mean())
            near = " ".join(nearest(words, m, w, args.neighbours))
            print(f"{w:20s} lean {ca - cb:+.3f} ({args.words[0]} {ca:.3f}, {args.words[1]} {cb:.3f})  {near}")


if __name__ == "__main__":
    main()
