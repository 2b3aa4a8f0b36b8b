#!/usr/bin/env bash
# MNB and MNB-FM (wordbench classify) beside scikit-learn's MultinomialNB and
# LogisticRegression on the labelled sets of ../shared/data/labeled/:
# learning curves at 10/100/1000 labelled documents (Reuters ApteMod, the
# 10 largest categories one-vs-rest; Amazon multi-domain, positive vs
# negative within each of the 4 domains; rt-polarity), then the speed of one
# MNB-FM fit with the marginals of 100,000 unlabelled documents beside
# scikit-learn's CountVectorizer + MultinomialNB on the same documents.
# See classify_compare.py.
#
# Usage: benches/compare/classify_compare.sh [--resamples 5] [--threads 2]
#            [--work DIR] [--only reuters,amazon,polarity,speed]
#        benches/compare/classify_compare.sh --reference
#            (rewrites tests/fixtures/classify/mnb_sklearn.json)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$here/venv.sh"
compare_venv numpy,scipy,sklearn numpy scipy scikit-learn
if [[ ${1:-} == --reference ]]; then
    f="$root/tests/fixtures/classify"
    exec "$venv/bin/python" "$here/mnb_reference.py" "$f/polarity-train.txt" \
        "$f/polarity-test.txt" pos "$f/mnb_sklearn.json"
fi
(cd "$root" && cargo build --release --quiet)
exec "$venv/bin/python" "$here/classify_compare.py" --wordbench "$root/target/release/wordbench" \
    --data "$root/../shared/data" "$@"
