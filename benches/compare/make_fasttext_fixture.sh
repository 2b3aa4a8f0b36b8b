#!/usr/bin/env bash
# Makes tests/fixtures/pretrained/fasttext.bin and fasttext.expected.json with
# the fasttext Python package (see make_fasttext_fixture.py). Run once; the
# outputs are committed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$here/venv.sh"
compare_venv fasttext,numpy fasttext-wheel numpy
exec "$venv/bin/python" "$here/make_fasttext_fixture.py" "$root"
