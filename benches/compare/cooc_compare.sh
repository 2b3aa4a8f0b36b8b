#!/usr/bin/env bash
# Co-occurrence counting speed, side by side: wordbench's counter against a
# vectorised numpy/scipy counter (and Stanford GloVe's `cooccur` when its
# source is available locally), on the same corpus and vocabulary, symmetric
# harmonic windows L=5 and L=10. Asserts that nnz and sample cells agree.
#
# Usage: benches/compare/cooc_compare.sh [CORPUS] [--windows 5,10] [--repeat 3]
#            [--threads N] [--glove-src DIR]
#   CORPUS defaults to ../shared/data/corpora/text8-head.txt (or the bundled
#   assets/corpora/text8-head.txt.gz, decompressed to a temp file).
#   --glove-src DIR: a directory holding GloVe's cooccur.c (not shipped with
#   wordbench; default $GLOVE_SRC or /tmp/glove); it is built there with gcc.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$here/venv.sh"
compare_venv numpy,scipy numpy scipy
(cd "$root" && cargo build --release --quiet --example cooc_count)
exec "$venv/bin/python" "$here/cooc_compare.py" --root "$root" "$@"
