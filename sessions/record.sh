#!/usr/bin/env bash
# Records the example sessions shipped in sessions/: one per method, on the
# small fixture corpus, one thread, so `wordbench replay --check` reproduces
# them bit for bit (tests/it/sessions_shipped.rs replays every *.ron here).
#
# Re-run it when a method's arithmetic changes on purpose:
#   bash sessions/record.sh            # uses target/release/wordbench (builds it)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/wordbench
corpus=tests/fixtures/corpus/lee_background.txt
vectors=$(mktemp -d)
trap 'rm -rf "$vectors"' EXIT

# method | settings (each run takes a second or two)
runs=(
  "sgns|--dim 32 --set epochs=5 --change 3:lr=0.01"
  "cbow|--dim 32 --set epochs=5"
  "glove|--dim 32 --set epochs=10 --set x_max=10 --change 5:lr=0.025"
  "svd|--dim 32 --set input=ppmi --set cds=0.75"
  "eigenword|--dim 32"
  "svd-ns|--dim 32"
  "kubwe|--dim 32 --set sweeps=10 --set p=5"
  "kubwe-fast|--dim 32 --set sweeps=10 --set p=5"
  "dsnmf|--dim 16 --set iterations=20 --set tol=1e-9 --change 10:tol=1e-8"
  "isomap|--dim 16 --set k=10"
  "lle|--dim 16 --set k=10"
  "laplacian|--dim 16 --set k=10"
  "psdvec|--dim 16 --set core=400 --set block_words=500 --set ppl_tokens=200"
  "senses|--dim 16 --set min_sense_count=50"
  "mpnnlm|--dim 16 --set hidden=16 --set sample=100 --set step_tokens=20000 --set lr=0.001 --set max_ppl=1e9 --set min_selections=50 --change 2:lr=0.0005"
  "ube|--dim 16 --set iters=20 --set max_vocab=1000"
)
for entry in "${runs[@]}"; do
  method=${entry%%|*}
  # `bash sessions/record.sh dsnmf` re-records one method only.
  if [[ $# -gt 0 && " $* " != *" $method "* ]]; then continue; fi
  settings=${entry#*|}
  echo "== $method $settings"
  # --session-out appends to an existing session: start each one anew.
  rm -f "sessions/$method.ron"
  # shellcheck disable=SC2086
  "$bin" train "$corpus" --algo "$method" $settings --seed 7 --threads 1 -q \
    --out "$vectors/$method.txt" --eval --session-out "sessions/$method.ron"
  # The shipped sessions replay; they keep no vectors (they would be
  # written anew at every recording): drop the kept folder and its record.
  rm -rf "sessions/$method.vectors"
  perl -0pi -e 's/\n\s*kept: Some\(\(.*?\)\),//s' "sessions/$method.ron"
  # The vectors are not shipped; the session records their settings only.
  sed -i 's|vectors: Some(".*"),|vectors: None,|' "sessions/$method.ron"
done
