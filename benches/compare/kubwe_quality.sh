#!/usr/bin/env bash
# KUBWE quality next to SGNS and PPMI-SVD on one corpus: WordSim-353, SimLex-999
# (Spearman) and the Google analogy set (3CosAdd), all through the release CLI
# (`wordbench train ... --eval`), min-count 5, window 5, d = 100.
#
# Usage: benches/compare/kubwe_quality.sh [CORPUS] [--sweeps N] [--fast-sweeps N]
#            [--ps "1 5 13"] [--threads 2] [--work DIR] [--only "kubwe kubwe-fast sgns svd"]
#            [--bin PATH] [-- EXTRA --set ARGS FOR KUBWE-FAST]
#   --bin runs a given wordbench binary instead of building the release one.
#   e.g. `-- --set far_samples=0` for the thesis' pure k-NN repulsion.
#   CORPUS defaults to ../shared/data/corpora/text8-head.txt. Prints a markdown
#   table (one row per run, with its wall time) and keeps the logs in --work.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
corpus="$root/../shared/data/corpora/text8-head.txt"
sweeps=50
fast_sweeps=100
ps="1 5 13"
threads=2
work="${TMPDIR:-/tmp}/kubwe_quality"
only="kubwe kubwe-fast sgns svd"
extra=()
bin=""
while [ $# -gt 0 ]; do
    case "$1" in
        --sweeps) sweeps="$2"; shift 2 ;;
        --fast-sweeps) fast_sweeps="$2"; shift 2 ;;
        --ps) ps="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --work) work="$2"; shift 2 ;;
        --only) only="$2"; shift 2 ;;
        --bin) bin="$2"; shift 2 ;;
        --) shift; extra=("$@"); break ;;
        -*) echo "unknown option $1" >&2; exit 2 ;;
        *) corpus="$1"; shift ;;
    esac
done
[ -f "$corpus" ] || { echo "no corpus at $corpus" >&2; exit 2; }
if [ -z "$bin" ]; then
    (cd "$root" && cargo build --release --quiet --bin wordbench)
    bin="$root/target/release/wordbench"
fi
mkdir -p "$work"

common=(--min-count 5 --dim 100 --threads "$threads" --seed 1 --eval -q)
echo "| method | settings | WS-353 | SimLex-999 | analogy (total / sem / syn) | time |"
echo "|---|---|---|---|---|---|"

# run NAME ALGO ARGS...: trains, evaluates and prints one table row.
run() {
    local name="$1" algo="$2"; shift 2
    local log="$work/$name.log" t0 t1
    t0=$(date +%s.%N)
    "$bin" train "$corpus" --algo "$algo" "${common[@]}" --out "$work/$name.vec" \
        --metrics-out "$work/$name.csv" "$@" >"$log" 2>&1
    t1=$(date +%s.%N)
    awk -v name="$algo" -v set="$*" -v secs="$(echo "$t1 - $t0" | bc)" '
        /^wordsim/ { ws = $3 }
        /^simlex/  { sl = $3 }
        / total /  { for (i = 1; i <= NF; i++) {
                         if ($i == "total") tot = $(i + 1)
                         if ($i == "semantic") sem = $(i + 1)
                         if ($i == "syntactic") syn = $(i + 1) } }
        END { printf "| %s | %s | %s | %s | %s / %s / %s | %.0f s |\n",
                     name, set, ws, sl, tot, sem, syn, secs }' "$log"
}

for m in $only; do
    case "$m" in
        sgns) run sgns sgns ;;
        svd) run svd svd --set window=5 ;;
        kubwe)
            for p in $ps; do
                run "kubwe-p$p" kubwe --set window=5 --set p="$p" --set sweeps="$sweeps"
            done ;;
        kubwe-fast)
            for p in $ps; do
                run "kubwe-fast-p$p" kubwe-fast --set window=5 --set p="$p" \
                    --set sweeps="$fast_sweeps" "${extra[@]}"
            done ;;
        *) echo "unknown method $m" >&2; exit 2 ;;
    esac
done
