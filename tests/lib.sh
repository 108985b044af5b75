# lib.sh: what the test, bench and sanitize scripts share. Sourced, not run.

# Chapter folders in reading order, or the one named by $1 (as "01-transpose" or "chapters/01-..."),
# or, with no $1, those KL_CHAPTERS names (KL_CHAPTERS="01-transpose 05-reduction" make test).
chapters() {
    if [ -z "${1:-}" ] && [ -n "${KL_CHAPTERS:-}" ]; then
        local c
        for c in $KL_CHAPTERS; do chapters "$c" || return 1; done
    elif [ -n "${1:-}" ]; then
        local d="chapters/${1#chapters/}"
        [ -d "$d" ] || { echo "no chapter $1 (see ls chapters)" >&2; return 1; }
        echo "$d"
    else
        ls -d chapters/[0-9][0-9]-* | sort
    fi
}

# The programs a chapter builds: its `programs` file, or just its topic.
programs() {
    local d=$1
    if [ -f "$d/programs" ]; then grep -v '^\s*\(#\|$\)' "$d/programs"
    else basename "$d" | cut -c4-
    fi
}

# The non-empty, non-comment lines of a file.
arg_lines() {
    [ -f "$1" ] && grep -v '^\s*\(#\|$\)' "$1" || true
}

# Whether a usable GPU is visible; prints the reason when not.
gpu_present() {
    build/gpuinfo >/dev/null 2>"${TMPDIR:-/tmp}/kl-gpuinfo.err" && return 0
    head -n 1 "${TMPDIR:-/tmp}/kl-gpuinfo.err"
    return 1
}
