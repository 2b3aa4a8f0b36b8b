#!/usr/bin/env bash
# wordbench SGNS/CBOW vs gensim Word2Vec on text8-head: speed (2 threads / gensim at
# --peer-workers, default 2) and quality (WS353, SimLex, analogy; 3 seeds), side by side.
# See word2vec_compare.py for the protocol. Usage:
#   benches/compare/word2vec_compare.sh [--algos sgns cbow] [--seeds 1 2 3] [--threads 2] [--peer-workers 1 2] [--keep]
#       [--sgns-batch pair window] [--cbow-batch example window]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$here/venv.sh"
compare_venv gensim,scipy gensim scipy
(cd "$root" && cargo build --release --quiet --example train_word2vec --example eval_vectors)
exec "$venv/bin/python" "$here/word2vec_compare.py" "$@"
