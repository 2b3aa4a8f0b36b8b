#!/usr/bin/env bash
# Reruns README's speed table: every "wordbench / peer CPU" row, each by the
# side-by-side script its row names, and prints the table.
#
#   word2vec_compare.sh --algos sgns cbow --sgns-batch window pair --cbow-batch window example --peer-workers 1 2
#                                                               SGNS window / pair and CBOW vs gensim at its efficient worker count (seeds 1 2 3)
#   glove_compare.sh --glove-dir DIR                            GloVe vs Stanford GloVe
#   tsne_compare.sh --sizes 10000 50000 --words 0 --repeat 2    t-SNE 10k, 50k vs openTSNE
#   umap_compare.sh --sizes 10000 --vectors SGNS --repeat 2     UMAP 10k (mixture, SGNS words) vs umap-learn
#   load_compare.sh --no-binary --repeat 2                      opening a 400,000 x 300 GloVe text file vs gensim
#
# Each script builds what it needs in release, runs its peer in the venv of
# venv.sh ($COMPARE_VENV), alternates the two sides itself and ends with one
# SPEED line per row (format in speedline.py: CPU seconds, user + system,
# medians over its repeats, and the quality scores that show equal work).
# This script collects those lines into target/compare-all/speed.tsv, prints
# README's table (work | peer | wordbench / peer CPU | quality | command) and
# writes it to target/compare-all/speed.md; each script's full output is in
# target/compare-all/NAME.log. The UMAP row's word vectors are trained first
# (`wordbench train text8-head --algo sgns --threads 2 --seed 1`).
#
# A row whose peer is missing is skipped with a one-line note (Stanford GloVe
# is not shipped: build its cooccur, shuffle and glove from the authors'
# release and pass their folder's parent as --glove-dir, default $GLOVE_DIR
# or /tmp/glove-stanford); a script that fails is noted and the others run.
#
# How long: 27 minutes on an idle 2-core machine (2026-11-27), the venv's
# first install and the release build included: SGNS and CBOW 3 seeds x
# (gensim at 1 and 2 workers and ours) and the scoring of 21 vector files,
# about 9 minutes; GloVe 15 CPU s of ours against Stanford GloVe's cooccur,
# shuffle and glove at 1 and 2 threads (157 + 165 CPU s), 6 minutes; t-SNE
# 2 repeats x (openTSNE at 1 and 2 jobs and ours) at 10k and 50k with the
# exact-KL scoring, 7 minutes; UMAP 2 x 2 runs, 3 minutes; loading 2 x
# (ours and gensim twice) and writing the 1 GB file, 4 minutes. The published
# figures must come from a full run on an otherwise idle
# machine: other processes change the CPU seconds too (shared caches, memory
# bandwidth, spinning threads).
#
# --quick is a smoke run (minutes; never publish its figures): 1 seed,
# 1 repeat, 3 GloVe epochs, t-SNE on 5,000 points, UMAP on 2,000 points and
# 2,000 words, a 20,000-row file to load.
#
# Usage: benches/compare/all.sh [--quick] [--glove-dir DIR]
# Environment: COMPARE_VENV (the Python venv), GLOVE_DIR, WORDBENCH_TEXT8_HEAD
# (text8-head.txt, default ../shared/data/corpora/ beside the checkout) and
# WORDBENCH_SHARED_TOOLS (make_mixture.py, score_projection.py), as the
# scripts themselves read them.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/target/compare-all"
quick=0
glove_dir="${GLOVE_DIR:-/tmp/glove-stanford}"
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --glove-dir) glove_dir="${2:?--glove-dir needs a folder}"; shift ;;
        -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "all.sh: unknown argument '$1' (expected --quick or --glove-dir DIR)" >&2; exit 2 ;;
    esac
    shift
done
corpus="${WORDBENCH_TEXT8_HEAD:-$root/../shared/data/corpora/text8-head.txt}"
export WORDBENCH_TEXT8_HEAD="$corpus"
cd "$root" || exit 1
mkdir -p "$out"
tsv="$out/speed.tsv"
notes="$out/notes.txt"
: > "$tsv"
: > "$notes"

note() {
    echo "all.sh: $*" >&2
    echo "$*" >> "$notes"
}

# run NAME ARGS...: runs benches/compare/NAME.sh ARGS, its output to NAME.log
# and the terminal; appends its SPEED / SKIP lines (with the command) to speed.tsv.
run() {
    local name=$1
    shift
    local cmd="benches/compare/$name.sh${*:+ $*}"
    echo "== $cmd" >&2
    "$here/$name.sh" "$@" 2>&1 | tee "$out/$name.log"
    local status=${PIPESTATUS[0]}
    if [ "$status" -ne 0 ]; then
        note "$name.sh exited with status $status (its output: target/compare-all/$name.log)"
    fi
    awk -v cmd="$cmd" '/^(SPEED|SKIP)\t/ { print $0 "\t`" cmd "`" }' "$out/$name.log" >> "$tsv"
}

has_glove() {
    local n
    for n in cooccur shuffle glove; do
        [ -x "$glove_dir/build/$n" ] || return 1
    done
}

# The SGNS vectors whose most frequent words are the UMAP row's second input
# (their path relative to the checkout, the working directory).
sgns_vectors() {
    local vec="target/compare-all/sgns-text8-head.vec"
    if [ ! -s "$vec" ]; then
        (cd "$root" && cargo build --release --quiet --bin wordbench) || return 1
        "$root/target/release/wordbench" train "$corpus" --algo sgns --threads 2 --seed 1 \
            --out "$vec" --quiet || return 1
    fi
    echo "$vec"
}

load_start=$(cut -d' ' -f1 /proc/loadavg)
if [ "$quick" = 1 ]; then
    run word2vec_compare --algos sgns cbow --sgns-batch window pair --cbow-batch window example --peer-workers 1 2 --seeds 1
else
    run word2vec_compare --algos sgns cbow --sgns-batch window pair --cbow-batch window example --peer-workers 1 2
fi
if has_glove; then
    if [ "$quick" = 1 ]; then
        run glove_compare --glove-dir "$glove_dir" --epochs 3
    else
        run glove_compare --glove-dir "$glove_dir"
    fi
else
    printf 'SKIP\tglove\tStanford GloVe is not built: no cooccur, shuffle, glove in %s/build (pass --glove-dir)\t`benches/compare/glove_compare.sh --glove-dir DIR`\n' \
        "$glove_dir" >> "$tsv"
fi
if [ "$quick" = 1 ]; then
    run tsne_compare --sizes 5000 --words 0 --repeat 1
else
    run tsne_compare --sizes 10000 50000 --words 0 --repeat 2
fi
if vec=$(sgns_vectors); then
    if [ "$quick" = 1 ]; then
        run umap_compare --sizes 2000 --vectors "$vec" --words 2000 --repeat 1
    else
        run umap_compare --sizes 10000 --vectors "$vec" --words 10000 --repeat 2
    fi
else
    note "training the SGNS vectors for the UMAP row failed: UMAP skipped"
fi
if [ "$quick" = 1 ]; then
    run load_compare --rows 20000 --no-binary --repeat 1
else
    run load_compare --no-binary --repeat 2
fi
load_end=$(cut -d' ' -f1 /proc/loadavg)

{
    if [ "$quick" = 1 ]; then
        echo "Smoke run (--quick: reduced sizes, 1 seed, 1 repeat): not figures to publish."
        echo
    fi
    echo "CPU seconds (user + system) of wordbench divided by the peer's, medians over each script's"
    echo "repeats; $(nproc) CPUs, 1-minute load average $load_start at the start, $load_end at the end; $(date -u '+%Y-%m-%d %H:%M UTC')."
    echo
    echo "| work | peer | wordbench / peer CPU | quality (wordbench, difference to the peer) | command |"
    echo "|---|---|---|---|---|"
    awk -F'\t' '$1 == "SPEED" {
        printf "| %s | %s | %s (%s s / %s s) | %s | %s |\n", $7, $8, $5, $3, $4, $6, $9
    }' "$tsv"
    awk -F'\t' '$1 == "SKIP" { printf "\nSkipped %s: %s (%s).\n", $2, $3, $4 }' "$tsv"
    while IFS= read -r line; do
        printf '\n%s.\n' "$line"
    done < "$notes"
} > "$out/speed.md"
echo
cat "$out/speed.md"
echo
echo "(written to target/compare-all/speed.md; the SPEED lines are in target/compare-all/speed.tsv)"
