#!/usr/bin/env bash
# wordbench UMAP vs umap-learn on the seeded 20-cluster mixture (N=10k) and,
# given --vectors, SGNS word vectors: trustworthiness, 10-NN kept, NMI, and
# CPU (whole process, /usr/bin/time) with umap-learn's numba compile apart.
# See umap_compare.py for the protocol. Usage:
#   benches/compare/umap_compare.sh [--sizes 10000] [--repeat 1] [--threads 2] [--vectors SGNS.vec]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$here/venv.sh"
compare_venv umap,sklearn,scipy numpy scipy scikit-learn umap-learn
(cd "$root" && cargo build --release --quiet --example umap_layout)
exec "$venv/bin/python" "$here/umap_compare.py" "$@"
