#!/usr/bin/env bash
# wordbench Isomap, LLE and Laplacian eigenmaps vs scikit-learn (Isomap,
# LocallyLinearEmbedding, SpectralEmbedding) on the seeded 5,000-point mixture
# and 10,000 SGNS word vectors: trustworthiness and wall time, 2 threads.
# See manifold_compare.py for the protocol. Usage:
#   benches/compare/manifold_compare.sh [--mixture 5000] [--words 10000] [--k 10] [--repeat 2] [--threads 2]
#   benches/compare/manifold_compare.sh --large 200000 [--only laplacian lle isomap isomap-landmarks]
#       [--peer-threads 1] [--timeout 1200] [--no-peer]   (one timed run per tool, sampled scores)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$here/venv.sh"
compare_venv sklearn,scipy numpy scipy scikit-learn
(cd "$root" && cargo build --release --quiet --bin wordbench)
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}" OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-2}" MKL_NUM_THREADS="${MKL_NUM_THREADS:-2}"
exec "$venv/bin/python" "$here/manifold_compare.py" "$@"
