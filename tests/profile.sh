#!/usr/bin/env bash
# make profile CH=01-transpose V=v2: Nsight Compute with the metrics in chapters/CH/profile.metrics,
# one timed launch of the version at the chapter's default size. Clocks are left as they are.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
ch=${1:-} v=${2:-}
if [ -z "$ch" ] || [ -z "$v" ]; then echo "usage: make profile CH=NN-topic V=vN"; exit 2; fi
d=$(chapters "$ch") || exit 2
ncu=$(command -v ncu || echo "${CUDA_HOME:-/usr/local/cuda}/bin/ncu")
if [ ! -x "$ncu" ]; then echo "make profile: ncu (Nsight Compute) not found; install it with the CUDA toolkit"; exit 1; fi
prog=$(programs "$d" | head -n 1)
metrics=$(tr -d ' \n' <"$d/profile.metrics")
exec "$ncu" --clock-control none --metrics "$metrics" build/"$prog" -v "$v" --reps 1 --warmup 0
