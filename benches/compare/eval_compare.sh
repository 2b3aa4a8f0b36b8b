#!/usr/bin/env bash
# Checks wordbench's similarity/analogy evaluation and vector file formats
# against gensim and scipy (see eval_compare.py for what is compared).
# Usage: benches/compare/eval_compare.sh [--retrain]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$here/venv.sh"
compare_venv gensim,scipy gensim scipy
(cd "$root" && cargo build --release --quiet --example eval_vectors)
exec "$venv/bin/python" "$here/eval_compare.py" "$@"
