#!/usr/bin/env bash
# UBE's clustering check (Soleimani 2019, Table 2.3): each dataset embedded
# in 3-D by wordbench UBE, openTSNE (Barnes-Hut; its FFT is 2-D only) and scikit-learn's Laplacian
# eigenmaps, then `wordbench cluster` (k-means, k = classes) 50 times on each
# embedding and on the raw data, NMI x 100 mean ± sd. Also times UBE against
# openTSNE 3-D on the same input. See ube_clustering.py. Usage:
#   benches/compare/ube_clustering.sh [--data digits,coil20] [--runs 50] [--threads 2]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$here/venv.sh"
compare_venv sklearn,openTSNE numpy scipy scikit-learn openTSNE
(cd "$root" && cargo build --release --quiet --bin wordbench)
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}" OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-2}" MKL_NUM_THREADS="${MKL_NUM_THREADS:-2}"
exec "$venv/bin/python" "$here/ube_clustering.py" --bin "$root/target/release/wordbench" "$@"
