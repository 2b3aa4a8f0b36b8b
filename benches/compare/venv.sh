# Sourced by the side-by-side scripts: `compare_venv MODULES PACKAGES...`
# makes sure the Python venv (benches/compare/.venv, or $COMPARE_VENV)
# exists and can import MODULES (comma-separated), installing PACKAGES with
# pip when it cannot; then $venv names it.
compare_venv() {
    local modules=$1
    shift
    venv="${COMPARE_VENV:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/.venv}"
    if [ ! -x "$venv/bin/python" ]; then
        python3 -m venv "$venv"
    fi
    if ! "$venv/bin/python" -c "import $modules" 2>/dev/null; then
        "$venv/bin/pip" install --quiet "$@"
    fi
}
