#!/usr/bin/env bash
# make run: every chapter at its default size, one table each. With --gpu-only, only whether
# there is a GPU to run them on (exit 1 with the reason when not).
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh

if ! reason=$(gpu_present); then
    echo "make run: $reason. The chapters need an NVIDIA GPU; 'make test' runs everything that does not."
    exit 1
fi
[ "${1:-}" = --gpu-only ] && exit 0  # make run asks this before it builds the chapters
status=0
for d in $(chapters); do
    for prog in $(programs "$d"); do
        echo "==================== $(basename "$d"): build/$prog"
        build/"$prog" || { echo "build/$prog exited $?"; status=1; }
        echo
    done
done
exit $status
