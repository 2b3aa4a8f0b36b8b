#!/usr/bin/env bash
# PSDVec against a numpy reference of the same pipeline: examples/psdvec_export
# counts the corpus once (left window 3, wordbench train's corpus defaults),
# writes the counts and runs our solve on them (timing each BCD iteration and
# the noncore blocks); psdvec_compare.py runs the dense numpy pipeline (full
# eigh per BCD iteration, as the authors' code; `--eigh top`: LAPACK syevr for
# the top eigenpairs only, a faster reference) on the same counts. Both
# vector sets are then scored by the same `wordbench eval` (WordSim-353,
# SimLex-999, Google analogies) and the wall and CPU seconds (all threads)
# printed side by side, with one SPEED line per core size (CPU, ours / numpy).
#
# Usage: benches/compare/psdvec_compare.sh [CORPUS] [--cores 5000,10000]
#            [--dim 500] [--threads 2] [--blas-threads N] [--mu 2]
#            [--eigh full|top] [--work DIR] [--skip-ours] [--skip-reference]
#   --blas-threads: numpy's OMP/OPENBLAS_NUM_THREADS (default: --threads).
#   --skip-ours / --skip-reference reuse the vectors and timings already in
#   the work directory (e.g. a reference run started on its own).
#   CORPUS defaults to ../shared/data/corpora/text8-head.txt.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
corpus="$root/../shared/data/corpora/text8-head.txt"
if [[ $# -gt 0 && $1 != --* ]]; then corpus=$1; shift; fi
cores=5000 dim=500 threads=2 blas_threads= mu=2 eigh=full skip_ours= skip_reference= work="$root/target/psdvec-compare"
while [[ $# -gt 0 ]]; do
    case $1 in
        --cores) cores=$2; shift 2 ;;
        --dim) dim=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --blas-threads) blas_threads=$2; shift 2 ;;
        --mu) mu=$2; shift 2 ;;
        --eigh) eigh=$2; shift 2 ;;
        --skip-ours) skip_ours=1; shift ;;
        --skip-reference) skip_reference=1; shift ;;
        --work) work=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
. "$here/venv.sh"
compare_venv numpy,scipy numpy scipy
(cd "$root" && cargo build --release --quiet --example psdvec_export --bin wordbench)
if [[ -z $skip_ours ]]; then
    "$root/target/release/examples/psdvec_export" "$corpus" "$work" --cores "$cores" \
        --dim "$dim" --threads "$threads" --mu "$mu"
fi
blas_threads=${blas_threads:-$threads}
export OMP_NUM_THREADS="$blas_threads" OPENBLAS_NUM_THREADS="$blas_threads"
for core in ${cores//,/ }; do
    if [[ -z $skip_reference ]]; then
        "$venv/bin/python" "$here/psdvec_compare.py" --work "$work" --core "$core" \
            --dim "$dim" --mu "$mu" --eigh "$eigh"
    fi
    for side in ours reference; do
        "$root/target/release/wordbench" eval "$work/${side}_core${core}.txt" --json \
            > "$work/${side}_core${core}.eval.json"
    done
    "$venv/bin/python" - "$work" "$core" "$here" <<'PY'
import json, sys
work, core = sys.argv[1], sys.argv[2]
sys.path.insert(0, sys.argv[3])
from speedline import speed_line
def cpu(side):
    t = json.load(open(f"{work}/{side}_core{core}.json"))
    nc = t.get("noncore_cpu_seconds")
    if "bcd_cpu_seconds" not in t or nc is None:
        return None
    return sum(t["bcd_cpu_seconds"]), sum(nc) if isinstance(nc, list) else nc, t.get("threads")
def load(side):
    t = json.load(open(f"{work}/{side}_core{core}.json"))
    e = json.load(open(f"{work}/{side}_core{core}.eval.json"))
    sim = {s["dataset"]: s["spearman"] for s in e["similarity"]}
    bcd = sum(t["bcd_seconds"])
    nc = t["noncore_seconds"]
    nc = sum(nc) if isinstance(nc, list) else nc
    return sim, e["analogy"]["total"], bcd, nc, t["bcd_losses"][-1]
o, r = load("ours"), load("reference")
print(f"core {core}        ours      numpy     diff   (numpy eigh: {json.load(open(f'{work}/reference_core{core}.json')).get('eigh', 'full')})")
for d in o[0]:
    print(f"  {d:<13} {o[0][d]:8.4f}  {r[0][d]:8.4f}  {o[0][d]-r[0][d]:+.4f}")
print(f"  {'analogy':<13} {o[1]:8.4f}  {r[1]:8.4f}  {o[1]-r[1]:+.4f}")
print(f"  {'core loss':<13} {o[4]:8.2f}  {r[4]:8.2f}")
print(f"  {'BCD s':<13} {o[2]:8.1f}  {r[2]:8.1f}  ratio {o[2]/r[2]:.2f}")
print(f"  {'noncore s':<13} {o[3]:8.1f}  {r[3]:8.1f}  ratio {o[3]/max(r[3],1e-9):.2f}")
tot_o, tot_r = o[2] + o[3], r[2] + r[3]
print(f"  {'total s':<13} {tot_o:8.1f}  {tot_r:8.1f}  ratio {tot_o/tot_r:.2f}")
co, cr = cpu("ours"), cpu("reference")
if co and cr:
    print(f"  {'BCD CPU s':<13} {co[0]:8.1f}  {cr[0]:8.1f}  ratio {co[0]/cr[0]:.3f}")
    print(f"  {'noncore CPU s':<13} {co[1]:8.1f}  {cr[1]:8.1f}")
    print(f"  {'total CPU s':<13} {co[0]+co[1]:8.1f}  {cr[0]+cr[1]:8.1f}  ratio {(co[0]+co[1])/(cr[0]+cr[1]):.3f}")
    eigh = json.load(open(f"{work}/reference_core{core}.json")).get("eigh", "full")
    import os
    speed_line(f"psdvec-core{core}", co[0] + co[1], cr[0] + cr[1],
               "largest score difference "
               f"{max([abs(o[0][d] - r[0][d]) for d in o[0]] + [abs(o[1] - r[1])]):.4f} "
               f"(similarity and analogy), core loss {o[4]:.2f} vs {r[4]:.2f}",
               f"PSDVec solve (4 BCD iterations + noncore words), {core} core words, d=500, "
               f"wordbench {co[2]} threads",
               f"numpy dense, eigh {eigh}, {os.environ.get('OPENBLAS_NUM_THREADS', '?')} BLAS threads")
PY
done
