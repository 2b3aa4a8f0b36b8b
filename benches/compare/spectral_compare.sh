#!/usr/bin/env bash
# The spectral family (svd, eigenword, svd-ns) against a numpy/scipy reference
# of the same pipeline, and the block Lanczos eigensolver against scipy's
# eigsh (ARPACK, one BLAS thread) on the same matrix, in CPU seconds. See
# spectral_compare.py.
#
# Usage: benches/compare/spectral_compare.sh [CORPUS] [--skip-quality] [--skip-speed]
#            [--skip-reference] [--repeat 2] [--threads 2] [--work DIR] [--only NAME]...
#            [--matrix DIR] (speed: reuse a matrix exported by an earlier run's --work)
#   CORPUS defaults to ../shared/data/corpora/text8-head.txt (or the bundled
#   assets/corpora/text8-head.txt.gz, decompressed to a temp file).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$here/venv.sh"
compare_venv numpy,scipy,threadpoolctl numpy scipy threadpoolctl
(cd "$root" && cargo build --release --quiet --bin wordbench --example spectral_bench --example eval_vectors)
# The quality part's reference runs its dense work in BLAS with 2 threads; the
# speed part gives scipy's eigsh one BLAS thread (its efficient setting here).
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}" OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-2}"
exec "$venv/bin/python" "$here/spectral_compare.py" --root "$root" "$@"
