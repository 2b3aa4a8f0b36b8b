#!/usr/bin/env bash
# wordbench t-SNE vs openTSNE (FFT) on the seeded 20-cluster mixture (N=10k, 50k)
# and 10k SGNS word vectors: exact KL, 10-NN preservation, wall time (2 threads).
# See tsne_compare.py for the protocol. Usage:
#   benches/compare/tsne_compare.sh [--sizes 10000 50000] [--words 10000] [--repeat 2] [--threads 2]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$here/venv.sh"
compare_venv openTSNE,sklearn,scipy numpy scipy scikit-learn openTSNE
(cd "$root" && cargo build --release --quiet --bin wordbench)
exec "$venv/bin/python" "$here/tsne_compare.py" "$@"
