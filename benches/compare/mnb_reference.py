"""Reference values for tests/it/classify.rs: scikit-learn's MultinomialNB(alpha=1)
on the polarity fixture, with the class prior wordbench uses (document
fractions with add-one, passed as class_prior) and the vocabulary of the
training and test documents (wordbench's transductive default).

The tokenizer mirrors wordbench's (docs/methods/mnbfm.md, "Reading"): runs of
letters and digits, an apostrophe or hyphen between two of them kept inside,
a '.' or ',' between digits kept inside a number, lower-cased; stop words are
kept (the test passes keep_stop_words). The test checks the vocabulary size
first, so a tokenizer mismatch shows as such.

Run by benches/compare/classify_compare.sh --reference (writes
tests/fixtures/classify/mnb_sklearn.json).
"""
import json
import re
import sys

from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import MultinomialNB

TOKEN = re.compile(r"[^\W_]+(?:(?:['\u2019-]|(?<=\d)[.,](?=\d))[^\W_]+)*")


def tokens(text):
    return [t.lower() for t in TOKEN.findall(text)]


def read(path):
    labels, texts = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.strip():
                continue
            words = line.split()
            labs = [w[len("__label__"):] for w in words if w.startswith("__label__")]
            labels.append(labs)
            texts.append(" ".join(w for w in words if not w.startswith("__label__")))
    return labels, texts


def main(train_path, test_path, target, out):
    ytr_l, xtr = read(train_path)
    yte_l, xte = read(test_path)
    cv = CountVectorizer(tokenizer=tokens, lowercase=False, token_pattern=None)
    cv.fit(xtr + xte)
    Xtr, Xte = cv.transform(xtr), cv.transform(xte)
    # Class 0 is the target label, class 1 the rest (wordbench's order).
    ytr = [0 if target in l else 1 for l in ytr_l]
    n = len(ytr)
    prior = [(ytr.count(0) + 1) / (n + 2), (ytr.count(1) + 1) / (n + 2)]
    clf = MultinomialNB(alpha=1.0, class_prior=prior).fit(Xtr, ytr)
    jll = clf.predict_joint_log_proba(Xte)
    json.dump(
        {
            "target": target,
            "vocabulary": len(cv.vocabulary_),
            "joint_log_likelihood": jll.tolist(),
            "predicted": clf.predict(Xte).tolist(),
        },
        open(out, "w"),
        indent=1,
    )


if __name__ == "__main__":
    main(*sys.argv[1:5])
