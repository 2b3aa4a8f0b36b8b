#!/usr/bin/env python3
"""Writes a synthetic corpus of about --tokens tokens by resampling text8-head:
random 1,000-token pieces of it, one per line, drawn with a seeded RNG.
The output is large and never committed. Usage:
  python3 benches/scale/make_corpus.py --tokens 100000000 --out /tmp/synth-100m.txt
"""
import argparse
import os
import random

here = os.path.dirname(os.path.abspath(__file__))
default_src = os.path.join(here, "..", "..", "..", "shared", "data", "corpora", "text8-head.txt")
p = argparse.ArgumentParser()
p.add_argument("--tokens", type=int, required=True)
p.add_argument("--out", required=True)
p.add_argument("--source", default=default_src)
p.add_argument("--piece", type=int, default=1000)
p.add_argument("--seed", type=int, default=1)
a = p.parse_args()
with open(a.source) as f:
    words = f.read().split()
pieces = [" ".join(words[i:i + a.piece]) + "\n" for i in range(0, len(words) - a.piece, a.piece)]
rng = random.Random(a.seed)
written = 0
with open(a.out, "w") as out:
    while written < a.tokens:
        out.write(pieces[rng.randrange(len(pieces))])
        written += a.piece
print(f"{written} tokens in {len(pieces)}-piece resampling -> {a.out}")
