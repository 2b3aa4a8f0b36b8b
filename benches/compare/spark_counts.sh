#!/usr/bin/env bash
# The shipped Spark job (examples/spark/cooc_counts.py) in local mode against
# `wordbench counts` on the same corpus: imports the job's Parquet (and CSV)
# output with `wordbench counts --from-parts` and compares the two counts
# files word by word (benches/compare/spark_counts.py).
#
# Usage: benches/compare/spark_counts.sh [CORPUS] [--window 10] [--min-count 5]
#          [--weightings uniform,harmonic] [--csv] [--cores 2]
#   CORPUS defaults to ../shared/data/corpora/text8-head.txt (or the bundled
#   assets/corpora/text8-head.txt.gz, decompressed to a temp file). It must be
#   pre-tokenised text, one document per line (the job splits on whitespace).
#   Installs pyspark (pip, in the venv of venv.sh) and, when `java` is
#   missing, a Java runtime with apt-get. WORDBENCH=path/to/binary skips the
#   release build. WORK=DIR keeps the outputs there (default: a temp dir,
#   removed at the end).
# Uniform counts must be equal bit for bit (exit 1 otherwise); harmonic sums
# of 1/d are added in another order by Spark, so their last bits may differ:
# the comparison reports how many cells differ and by how much.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
corpus="$root/../shared/data/corpora/text8-head.txt"
window=10
min_count=5
weightings=uniform,harmonic
csv=0
cores=2
while [ $# -gt 0 ]; do
    case "$1" in
        --window) window=$2; shift 2 ;;
        --min-count) min_count=$2; shift 2 ;;
        --weightings) weightings=$2; shift 2 ;;
        --csv) csv=1; shift ;;
        --cores) cores=$2; shift 2 ;;
        -*) echo "unknown option $1" >&2; exit 2 ;;
        *) corpus=$1; shift ;;
    esac
done

work="${WORK:-$(mktemp -d)}"
[ -n "${WORK:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
if [ ! -f "$corpus" ]; then
    gunzip -c "$root/assets/corpora/text8-head.txt.gz" > "$work/text8-head.txt"
    corpus="$work/text8-head.txt"
fi

. "$here/venv.sh"
compare_venv pyspark,numpy pyspark numpy
if ! command -v java >/dev/null; then
    apt-get update -qq
    apt-get install -y -qq openjdk-17-jre-headless || apt-get install -y -qq default-jre-headless
fi
if [ -z "${WORDBENCH:-}" ]; then
    (cd "$root" && cargo build --release --quiet)
    WORDBENCH="$root/target/release/wordbench"
fi
java -version 2>&1 | head -1
"$venv/bin/python" -c 'import pyspark; print("pyspark", pyspark.__version__)'
echo "corpus: $corpus; window $window, min-count $min_count; machine: $(uptime)"

secs() { date +%s.%N; }
since() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
formats=parquet
[ "$csv" = 1 ] && formats="parquet csv"
status=0
for weighting in ${weightings//,/ }; do
    ours="$work/ours-$weighting.wbc"
    t0=$(secs)
    "$WORDBENCH" counts "$corpus" --corpus-format lines --heldout 0 --min-count "$min_count" \
        --window "$window" --weighting "$weighting" --out "$ours" -q
    t1=$(secs)
    echo "== $weighting: wordbench counts $(since "$t0" "$t1") s"
    for format in $formats; do
        out="$work/spark-$weighting-$format"
        rm -rf "$out" "$out-vocab"
        t0=$(secs)
        PYSPARK_PYTHON="$venv/bin/python" "$venv/bin/spark-submit" --master "local[$cores]" \
            --conf spark.ui.enabled=false --conf spark.ui.showConsoleProgress=false \
            --driver-memory 2g "$root/examples/spark/cooc_counts.py" \
            --input "$corpus" --out "$out" --window "$window" --weighting "$weighting" \
            --min-count "$min_count" --output-format "$format" --partitions "$((cores * 4))" \
            2> "$work/spark-$weighting-$format.log" \
            || { tail -30 "$work/spark-$weighting-$format.log" >&2; exit 1; }
        t1=$(secs)
        theirs="$work/spark-$weighting-$format.wbc"
        "$WORDBENCH" counts --from-parts "$out" --vocab "$out-vocab/part-00000" \
            --window "$window" --weighting "$weighting" --out "$theirs" -q
        t2=$(secs)
        echo "-- Spark job ($format, local[$cores]) $(since "$t0" "$t1") s," \
            "import $(since "$t1" "$t2") s"
        exact=""
        [ "$weighting" = uniform ] && exact=--exact
        "$venv/bin/python" "$here/spark_counts.py" "$ours" "$theirs" $exact || status=1
    done
done
exit $status
