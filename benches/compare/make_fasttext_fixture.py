"""Makes the tiny fastText model fixture (run once; the outputs are committed).

Trains fastText skip-gram (dim 8, 2,000 buckets, n-grams of 3 to 5 characters,
one thread) on tests/fixtures/corpus/lee_background.txt, saves the model as
tests/fixtures/pretrained/fasttext.bin and writes, in
tests/fixtures/pretrained/fasttext.expected.json, fastText's own
`get_word_vector` for some in-vocabulary words and for out-of-vocabulary words
(ASCII and non-ASCII, so the signed-char quirk of its hash is exercised), plus
the model's shape. tests/it/pretrained.rs checks that wordbench computes the same
vectors.

Usage: make_fasttext_fixture.py REPO_ROOT
"""

import json
import os
import sys

import fasttext

root = sys.argv[1]
corpus = os.path.join(root, "tests", "fixtures", "corpus", "lee_background.txt")
out = os.path.join(root, "tests", "fixtures", "pretrained")
model = fasttext.train_unsupervised(
    corpus,
    model="skipgram",
    dim=8,
    minCount=5,
    minn=3,
    maxn=5,
    bucket=2000,
    epoch=2,
    thread=1,
    verbose=0,
)
model.save_model(os.path.join(out, "fasttext.bin"))
words = model.words
in_vocab = [words[0], words[1], words[10], words[100], words[-1], "</s>", "government"]
oov = [
    "governmentalism",
    "xyzzy",
    "zq",
    "Zürich",
    "naïveté",
    "東京",
    "über-fast",
    "aaaaaaaaaaaaaaaaaaaa",
]
assert all(w in words for w in in_vocab[:-1])
assert all(w not in words for w in oov)
expected = {
    "words": len(words),
    "dim": model.get_dimension(),
    "vectors": {w: [float(v) for v in model.get_word_vector(w)] for w in in_vocab + oov},
    "in_vocabulary": [w for w in in_vocab if w in words],
    "out_of_vocabulary": oov,
}
with open(os.path.join(out, "fasttext.expected.json"), "w", encoding="utf-8") as f:
    json.dump(expected, f, ensure_ascii=False, indent=1)
print(f"{len(words)} words x {model.get_dimension()}", file=sys.stderr)
