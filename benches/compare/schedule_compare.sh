#!/usr/bin/env bash
# The deterministic parallel schedule against Hogwild (`--set schedule=...`)
# on text8-head: CPU seconds of the whole `wordbench train` process with 1 and
# 2 threads, the final loss and held-out perplexity, and the scores of the
# vectors (WS-353 and SimLex-999 Spearman, Google analogy accuracy, `wordbench
# eval`). Runs alternate between the schedules; one line per run, then the
# means per (algo, threads, schedule). With one thread both schedules are the
# same serial loop, so only `deterministic` runs there. Usage:
#   benches/compare/schedule_compare.sh [--corpus FILE] [--algos "sgns cbow glove"]
#       [--seeds "1 2 3"] [--threads "1 2"] [--schedules "hogwild deterministic"] [--out DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
corpus="$root/assets/corpora/text8-head.txt.gz"
algos="sgns cbow glove"
seeds="1 2 3"
threads="1 2"
schedules="hogwild deterministic"
sets=""
out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --corpus) corpus="$2"; shift 2 ;;
    --algos) algos="$2"; shift 2 ;;
    --seeds) seeds="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --schedules) schedules="$2"; shift 2 ;;
    --set) sets="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
(cd "$root" && cargo build --release --quiet)
bin="$root/target/release/wordbench"
if [[ -z "$out" ]]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
results="$out/runs.tsv"
printf 'algo\tthreads\tschedule\tseed\twall_s\tcpu_s\tloss\tperplexity\tws353\tsimlex\tanalogy\tmodel_ppl\tload\n' > "$results"
extra=()
for kv in $sets; do extra+=(--set "$kv"); done

# The last non-empty value of CSV column `col` (1-based) of `file`.
last_value() { awk -F, -v c="$2" 'NR > 1 && $c != "" { v = $c } END { print v }' "$1"; }

for seed in $seeds; do
  for algo in $algos; do
    for t in $threads; do
      for schedule in $schedules; do
        if [[ $t == 1 && $schedule != deterministic ]]; then continue; fi
        tag="$algo-t$t-$schedule-s$seed"
        load=$(cut -d' ' -f1 /proc/loadavg)
        /usr/bin/time -f "%e %U %S" -o "$out/$tag.time" \
          "$bin" train "$corpus" --algo "$algo" --threads "$t" --seed "$seed" \
          --set "schedule=$schedule" "${extra[@]}" -q --out "$out/$tag.txt" --metrics-out "$out/$tag.csv"
        read -r wall user sys < "$out/$tag.time"
        cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')
        "$bin" eval "$out/$tag.txt" --json > "$out/$tag.json"
        scores=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
sim = {s["dataset"]: s["spearman"] for s in r["similarity"]}
print("%.4f\t%.4f\t%.4f" % (sim["wordsim353"], sim["simlex999"], r["analogy"]["total"]))
' "$out/$tag.json")
        loss=$(last_value "$out/$tag.csv" 4)
        ppl=$(last_value "$out/$tag.csv" 5)
        model_ppl=$(last_value "$out/$tag.csv" 9)
        rm -f "$out/$tag.txt"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
          "$algo" "$t" "$schedule" "$seed" "$wall" "$cpu" "$loss" "$ppl" "$scores" "$model_ppl" "$load" | tee -a "$results"
      done
    done
  done
done

echo
echo "means over seeds ($results):"
awk -F'\t' 'NR > 1 {
  k = $1 "\t" $2 "\t" $3; n[k]++
  for (i = 5; i <= 12; i++) s[k, i] += $i
  if (!(k in first)) { first[k] = 1; order[++m] = k }
} END {
  print "algo\tthreads\tschedule\truns\twall_s\tcpu_s\tloss\tperplexity\tws353\tsimlex\tanalogy\tmodel_ppl"
  for (j = 1; j <= m; j++) {
    k = order[j]; line = k "\t" n[k]
    for (i = 5; i <= 12; i++) line = line "\t" sprintf(i <= 6 ? "%.1f" : (i == 8 || i == 12 ? "%.2f" : "%.4f"), s[k, i] / n[k])
    print line
  }
}' "$results"
