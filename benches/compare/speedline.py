"""The one machine-readable line each side-by-side script prints per README speed row.

`benches/compare/all.sh` runs the scripts and builds README's speed table from
these lines, so every ratio there comes from one format:

    SPEED <TAB> key <TAB> ours CPU s <TAB> peer CPU s <TAB> ratio <TAB> quality <TAB> work <TAB> peer

- key: a stable name for the row (`sgns-pair`, `tsne-mixture-10000`, ...);
- ours / peer CPU s: user + system seconds, the median over the script's
  repeats (what each side's CPU covers is the script's protocol, in its
  docstring, and the README row's wording);
- ratio: ours / peer (lower is better for wordbench);
- quality: the scores that show the work was equal (free text, no tabs);
- work, peer: what was run and against which peer, for the table's columns.

A row whose peer could not run is printed as `SKIP <TAB> key <TAB> reason`.
"""

import statistics


def median(values):
    """The median of a non-empty list of numbers."""
    return statistics.median(values)


def _clean(text):
    return " ".join(str(text).split())


def speed_line(key, ours_cpu, peer_cpu, quality, work, peer):
    """Prints one SPEED line (see the module docstring) and flushes."""
    ratio = ours_cpu / peer_cpu if peer_cpu > 0 else float("nan")
    fields = ["SPEED", key, f"{ours_cpu:.2f}", f"{peer_cpu:.2f}", f"{ratio:.3f}",
              _clean(quality), _clean(work), _clean(peer)]
    print("\t".join(fields), flush=True)


def skip_line(key, reason):
    """Prints one SKIP line: the row `key` was not measured, and why."""
    print("\t".join(["SKIP", key, _clean(reason)]), flush=True)
