#!/usr/bin/env bash
# DSNMF (Algorithm 1 of Sedov & Yang) against a numpy/scipy implementation of
# the same iterations: examples/dsnmf_export writes S and W0 (one per r) and
# times our iterations; dsnmf_compare.py runs the reference from the same
# start, checks both loss curves within --tolerance (relative) and prints the
# wall and CPU seconds per iteration. For every count in --threads (ours:
# rayon threads; numpy: OMP/OPENBLAS_NUM_THREADS), ours then the reference,
# so the two sides alternate; then the CPU table over the counts and one SPEED
# line per r, each side at its setting with the fewest CPU seconds.
# See dsnmf_compare.py.
#
# Usage: benches/compare/dsnmf_compare.sh [CORPUS] [--dims 50,100,200]
#            [--iterations 20] [--threads 1,2] [--work DIR] [--max-vocab 20000]
#   CORPUS defaults to ../shared/data/corpora/text8-head.txt.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
corpus="$root/../shared/data/corpora/text8-head.txt"
if [[ $# -gt 0 && $1 != --* ]]; then corpus=$1; shift; fi
dims=50,100,200 iterations=20 threads=1,2 work="$root/target/dsnmf-compare" max_vocab=20000
while [[ $# -gt 0 ]]; do
    case $1 in
        --dims) dims=$2; shift 2 ;;
        --iterations) iterations=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --work) work=$2; shift 2 ;;
        --max-vocab) max_vocab=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
. "$here/venv.sh"
compare_venv numpy,scipy numpy scipy
(cd "$root" && cargo build --release --quiet --example dsnmf_export)
results=()
for t in ${threads//,/ }; do
    "$root/target/release/examples/dsnmf_export" "$corpus" "$work/t$t" --dims "$dims" \
        --iterations "$iterations" --threads "$t" --max-vocab "$max_vocab"
    # numpy's BLAS (the dense products of the update) gets the same threads.
    OMP_NUM_THREADS="$t" OPENBLAS_NUM_THREADS="$t" "$venv/bin/python" "$here/dsnmf_compare.py" \
        --work "$work/t$t" --dims "$dims" --iterations "$iterations" --json "$work/t$t/result.json"
    results+=("$work/t$t/result.json")
done
exec "$venv/bin/python" "$here/dsnmf_compare.py" --summary "${results[@]}"
