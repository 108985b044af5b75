#!/usr/bin/env bash
# The ladder of a chapter, read from its version files (chapters/NN-topic/vNN-idea.cuh, one a
# version; vNNx-name.cuh, an experiment on version NN; a chapter with a second ladder tags it
# with another letter: 04's counters are cNN-idea.cuh). A step that needed several ideas is a
# chain of sub-steps, each a version of its own: v6 -> v6a -> v6b -> v7 (vNNa-idea.cuh; the
# letters a..w, x being an experiment's). Each file's first line names it:
# "// ---- v6 regblock ----". Neighbours are neighbours on the same letter's ladder, unless the
# title names the step it grows from: "// ---- c5 aggregated (from c1) ----" is a step from c1,
# not from c4 (a ladder that branches: 04's counters, 07's v6 from v5 rather than v5a).
#   ladder.sh ladder CH          each step of the main ladder: tag, idea, file, lines changed
#                                from the step before; then the experiments, under their version
#   ladder.sh diff CH [A] B      the step from A to B as a unified diff (A: the step B grows from)
#   ladder.sh sizes CH           "A B changed" for each neighbouring pair (make test reads it)
# Exit codes: 0, 2 for a bad chapter or tag (one line on stderr).
set -u
export LC_ALL=C  # file names sort byte by byte: v06-x < v06a-x < v06x-x < v07-x
cd "$(dirname "$0")/.."
. tests/lib.sh

die() { echo "make $1: $2" >&2; exit 2; }
what=${1:-} ch=${2:-}
[ -n "$ch" ] || die "$what" "say which chapter: CH=NN-topic (ls chapters)"
dir=$(chapters "$ch" 2>/dev/null) || die "$what" "no chapter '$ch' (ls chapters)"
ch=$(basename "$dir")

# "tag idea file from" for each version file, main ladder and experiments, in file-name order
# (from: the step it grows from where its title names one, else empty)
files() {
    local f title from
    for f in "$dir"/[a-z][0-9][0-9]*.cuh; do
        [ -f "$f" ] || continue
        # "// ---- v6 regblock ------" -> "v6<TAB>regblock<TAB>file"; an experiment's file may
        # name several ("v0-transposed and v1-transposed"): its idea is the whole title
        title=$(head -n 1 "$f" | sed -n 's|^// ---- \([a-z][0-9][^ ]*\) \(.*[^ -]\)[ -]*$|\1\t\2|p')
        [ -n "$title" ] || continue
        from=$(sed -n 's|.*(from \([a-z][0-9][^ )]*\))$|\1|p' <<< "$title")
        printf '%s\t%s\t%s\n' "${title% (from *}" "$f" "$from"
    done
}
STEP='^[a-z][0-9]+[a-w]?$'  # v6, v6a: a rung of the main ladder (v6-ldg is an experiment)
main_ladder() { files | awk -F'\t' -v s="$STEP" '$1 ~ s'; }
letter() { echo "${1:0:1}"; }
# the file of a tag: the one whose title starts with it, else an experiment's file that names it
# among several ("v1-maxshared and v7-maxl1: ...")
file_of() {
    files | awk -F'\t' -v t="$1" '$1 == t {print $3; found = 1; exit}
        {n = split($2, w, /[ ,:;()]+/); for (i = 1; i <= n; i++) if (w[i] == t) {f = $3}}
        END {if (!found && f != "") print f}'
}
# A step's diff as the reader should see it: where B runs code that A defines, or that the step
# before A's own defines (02's v7 launches v6's kernel, v9 wraps v8's loop), that code is put
# back in B, unchanged and marked, and in A where A takes it from the step before
# (tests/ladder-view.py): the diff shows the change, not the kernel leaving.
views=$(mktemp -d)
trap 'rm -rf "$views"' EXIT
# the file of the step before FILE's own (its title's "from", else the previous file of its
# letter), or nothing
before_of() {
    local b
    b=$(main_ladder | awk -F'\t' -v f="$1" '$3 == f {if ($4 != "") print $4; else if (substr(p, 1, 1) == substr($1, 1, 1)) print "=" pf; exit} {p = $1; pf = $3}')
    case $b in "") ;; =*) echo "${b#=}" ;; *) file_of "$b" ;; esac
}
# step_diff A B [DIFF OPTIONS]: the unified diff of the step from file A to file B
step_diff() {
    local a=$1 b=$2 va vb; shift 2
    va="$views/a-$(basename "$a")-$(basename "$b")" vb="$views/b-$(basename "$a")-$(basename "$b")"
    python3 tests/ladder-view.py "$a" "$b" "$va" "$vb" $(before_of "$a") ||
        { cp "$a" "$va"; cp "$b" "$vb"; }
    diff -u "$@" "$va" "$vb"
}
# lines a unified diff adds and removes, as "+A -R" (between the two files' views)
changed() {
    step_diff "$1" "$2" | awk '/^\+\+\+|^---/ {next} /^\+/ {a++} /^-/ {r++} END {printf "+%d -%d\n", a, r}'
}

[ -n "$(main_ladder)" ] || die "$what" "$ch has no version files (vNN-idea.cuh): its rows are not a ladder of steps"

case "$what" in
ladder)
    echo "$ch: the ladder, one file a step (make diff CH=$ch A=vN B=vM shows a step)"
    printf '  %-5s %-12s %-28s %s\n' tag idea file "changed from the step before"
    prev="" ptag=""
    while IFS=$'\t' read -r tag idea f from; do
        [ "$(letter "$tag")" = "$(letter "${ptag:-$tag}")" ] || prev=""
        [ -z "$from" ] || prev=$(file_of "$from")
        if [ -n "$prev" ]; then size="$(changed "$prev" "$f")${from:+ (from $from)}"
        else size="(the first step)"; fi
        printf '  %-5s %-12s %-28s %s\n' "$tag" "$idea" "$(basename "$f")" "$size"
        prev=$f ptag=$tag
    done < <(main_ladder)
    if files | awk -F'\t' -v s="$STEP" '$1 !~ s' | grep -q .; then
        echo "Experiments, each against the version it varies (or the step its title names):"
        while IFS=$'\t' read -r tag idea f from; do
            base=$(file_of "${from:-${tag%%-*}}")
            size=${base:+$(changed "$base" "$f")${from:+ (from $from)}}
            printf '  %-14s %-28s %-12s %s\n' "$tag" "$(basename "$f")" "${size:-}" "$idea"
        done < <(files | awk -F'\t' -v s="$STEP" '$1 !~ s')
    fi
    ;;
sizes)
    prev="" ptag=""
    while IFS=$'\t' read -r tag idea f from; do
        [ "$(letter "$tag")" = "$(letter "${ptag:-$tag}")" ] || prev=""
        [ -z "$from" ] || prev=$(file_of "$from") ptag=$from
        if [ -n "$prev" ]; then
            set -- $(changed "$prev" "$f")
            echo "$ptag $tag $(( ${1#+} + ${2#-} ))"
        fi
        prev=$f ptag=$tag
    done < <(main_ladder)
    ;;
diff)
    a=${3:-} b=${4:-}
    [ -n "$b" ] || { b=$a; a=""; }
    [ -n "$b" ] || die diff "say which step: B=vN (and A=vM to compare with another than the one before)"
    fb=$(file_of "$b")
    [ -n "$fb" ] || die diff "$ch has no version '$b' (make ladder CH=$ch lists them)"
    if [ -z "$a" ]; then
        case $b in
        *-*)  # an experiment: against the step its title names, else the version it varies
            a=$(files | awk -F'\t' -v t="$b" '$1 == t {print $4; exit}')
            [ -n "$a" ] || a=${b%%-*} ;;
        *) a=$(main_ladder | awk -F'\t' -v t="$b" '$1 == t {if ($4 != "") print $4; else if (substr(p, 1, 1) == substr(t, 1, 1)) print p; exit} {p = $1}') ;;
        esac
        [ -n "$a" ] || die diff "$b is the first step: there is nothing before it"
    fi
    fa=$(file_of "$a")
    [ -n "$fa" ] || die diff "$ch has no version '$a' (make ladder CH=$ch lists them)"
    color=never
    [ -t 1 ] && color=always
    echo "$ch: $a -> $b ($(changed "$fa" "$fb") lines)"
    step_diff "$fa" "$fb" --color="$color" --label "$fa" --label "$fb"
    rc=$?  # 1 when the files differ, as they should; 141 when a reader (| head) stopped early
    [ $rc -le 1 ] || [ $rc -eq 141 ]
    ;;
*)
    die ladder "usage: ladder.sh ladder|diff|sizes CH [A] B"
    ;;
esac
