#!/usr/bin/env bash
# Opening a large pre-trained text file (400,000 x 300, the shape of
# glove.6B.300d, generated under target/compare-load/, never committed):
# `wordbench neighbors` against gensim's load_word2vec_format on the same file,
# wall time and peak memory (/usr/bin/time -v). See load_compare.py.
# Also the same vectors as word2vec binary (unless --no-binary); files removed
# at the end unless --keep.
# Usage: benches/compare/load_compare.sh [--rows N] [--dim D] [--repeat R] [--no-binary] [--keep]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$here/venv.sh"
compare_venv gensim,numpy gensim numpy
(cd "$root" && cargo build --release --quiet)
exec "$venv/bin/python" "$here/load_compare.py" "$root/target/release/wordbench" "$@"
