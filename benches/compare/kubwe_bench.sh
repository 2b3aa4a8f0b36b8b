#!/usr/bin/env bash
# KUBWE scaling: seconds per sweep of `kubwe` (exact, O(V^2 d)) and
# `kubwe-fast` (VP-tree, ~O(V (k + log V) d)) at several vocabulary sizes,
# both measured in the same run with the release binary. The vocabulary is the
# N most frequent words of the corpus (--min-count 1 --max-vocab N); text8-head
# has 81k types, enough for 40k.
#
# Usage: benches/compare/kubwe_bench.sh [SIZES...] [--corpus FILE] [--sweeps 3]
#            [--threads 2] [--k 150] (fixed k, as the thesis: the default rule grows as sqrt V) [--work DIR] [--bin PATH]
#   SIZES default to 10000 20000 40000. A sweep's time is read from the
#   per-step metrics (`--metrics-out`, elapsed at the end of each sweep); the
#   table gives the median over sweeps 2.. ("steady") and the first sweep
#   alone (random start: every point equidistant, the tree's worst case),
#   plus the growth exponent between consecutive sizes
#   (log(t2/t1) / log(V2/V1): 2 for V^2, ~1.1 for V log V).
#   kubwe-fast runs with its defaults (warm searches, far_samples=2048); FAR_SAMPLES=m in the
#   environment sets the far field (0: the VP-tree search alone). For distances per search and
#   the search's recall at each size, see examples/kubwe_scaling.rs (README, KUBWE scaling).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
corpus="$root/../shared/data/corpora/text8-head.txt"
sweeps=3
threads=2
k=150
work="${TMPDIR:-/tmp}/kubwe_bench"
bin=""
sizes=()
while [ $# -gt 0 ]; do
    case "$1" in
        --corpus) corpus="$2"; shift 2 ;;
        --sweeps) sweeps="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --k) k="$2"; shift 2 ;;
        --work) work="$2"; shift 2 ;;
        --bin) bin="$2"; shift 2 ;;
        -*) echo "unknown option $1" >&2; exit 2 ;;
        *) sizes+=("$1"); shift ;;
    esac
done
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 20000 40000)
[ "$sweeps" -ge 2 ] || { echo "--sweeps must be at least 2" >&2; exit 2; }
[ -f "$corpus" ] || { echo "no corpus at $corpus" >&2; exit 2; }
if [ -z "$bin" ]; then
    (cd "$root" && cargo build --release --quiet --bin wordbench)
    bin="$root/target/release/wordbench"
fi
mkdir -p "$work"
echo "load before: $(uptime | sed 's/.*load average: //')"

# sweep_times CSV: "steady first" seconds per sweep from a metrics file.
sweep_times() {
    awk -F, 'NR > 1 { end[$3] = $8; if ($3 > last) last = $3 }
        END {
            prev = 0; m = 0
            for (e = 0; e <= last; e++) {
                d = end[e] - prev; prev = end[e]
                if (e == 0) first = d; else t[++m] = d
            }
            # median of the steady sweeps (insertion sort, m is small)
            for (i = 2; i <= m; i++) { x = t[i]; j = i - 1
                while (j > 0 && t[j] > x) { t[j + 1] = t[j]; j-- } t[j + 1] = x }
            med = (m % 2) ? t[(m + 1) / 2] : (t[m / 2] + t[m / 2 + 1]) / 2
            printf "%.2f %.2f\n", med, first
        }' "$1"
}

declare -A steady first
for v in "${sizes[@]}"; do
    for algo in kubwe kubwe-fast; do
        extra=()
        # The sampled loss (O(sample V d) per sweep) on one row: only the sweep is timed.
        [ "$algo" = kubwe-fast ] && extra=(--set k="$k" --set loss_sample=1)
        [ "$algo" = kubwe-fast ] && [ -n "${FAR_SAMPLES:-}" ] && extra+=(--set far_samples="$FAR_SAMPLES")
        csv="$work/$algo-$v.csv"
        "$bin" train "$corpus" --algo "$algo" --min-count 1 --max-vocab "$v" --dim 100 \
            --threads "$threads" --seed 1 -q --set window=5 --set sweeps="$sweeps" \
            "${extra[@]}" --out "$work/$algo-$v.vec" --metrics-out "$csv" \
            >"$work/$algo-$v.log" 2>&1
        read -r s f < <(sweep_times "$csv")
        steady[$algo-$v]=$s
        first[$algo-$v]=$f
        echo "V=$v $algo: steady $s s/sweep, first sweep $f s" >&2
    done
done
echo "load after: $(uptime | sed 's/.*load average: //')"
echo
echo "| V | kubwe s/sweep | kubwe-fast s/sweep (steady) | kubwe-fast first sweep | exact / fast |"
echo "|---|---|---|---|---|"
for v in "${sizes[@]}"; do
    awk -v v="$v" -v e="${steady[kubwe-$v]}" -v f="${steady[kubwe-fast-$v]}" \
        -v f0="${first[kubwe-fast-$v]}" \
        'BEGIN { printf "| %d | %.2f | %.2f | %.2f | %.2f |\n", v, e, f, f0, e / f }'
done
echo
echo "| V1 -> V2 | kubwe exponent | kubwe-fast exponent | V log V exponent |"
echo "|---|---|---|---|"
prev=""
for v in "${sizes[@]}"; do
    if [ -n "$prev" ]; then
        awk -v a="$prev" -v b="$v" -v e1="${steady[kubwe-$prev]}" -v e2="${steady[kubwe-$v]}" \
            -v f1="${steady[kubwe-fast-$prev]}" -v f2="${steady[kubwe-fast-$v]}" \
            'BEGIN { r = log(b / a)
                     printf "| %d -> %d | %.2f | %.2f | %.2f |\n", a, b,
                         log(e2 / e1) / r, log(f2 / f1) / r, log(b * log(b) / (a * log(a))) / r }'
    fi
    prev="$v"
done
