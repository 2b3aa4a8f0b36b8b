#!/usr/bin/env bash
# wordbench GloVe against Stanford GloVe (cooccur + shuffle + glove), side by
# side on the same training text and vocabulary: co-occurrence counts, time to
# 15 epochs (and end to end), loss per epoch, and quality (WordSim-353,
# SimLex-999, Google analogy restricted to 30,000 words) judged by gensim.
# See glove_compare.py for the protocol. Usage:
#   benches/compare/glove_compare.sh [--corpus FILE] [--window 10] [--dim 100]
#       [--epochs 15] [--x-max 100] [--threads 2] [--seed 1] [--glove-dir DIR] [--keep]
# Stanford GloVe is neither shipped nor built by wordbench: --glove-dir
# (default $GLOVE_DIR, else /tmp/glove-stanford) must hold the binaries
# build/{cooccur,shuffle,glove}, built by you from the authors' release.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$here/venv.sh"
compare_venv gensim,scipy,numpy numpy scipy gensim
(cd "$root" && cargo build --release --quiet --bin wordbench --example glove_export_cooc)
exec "$venv/bin/python" "$here/glove_compare.py" --root "$root" "$@"
