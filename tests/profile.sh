#!/usr/bin/env bash
# make profile CH=01-transpose V=v2: Nsight Compute with the metrics in chapters/CH/profile.metrics,
# one timed launch of the version at the chapter's default size. Clocks are left as they are.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
ch=${1:-} v=${2:-}
if [ -z "$ch" ] || [ -z "$v" ]; then echo "usage: make profile CH=NN-topic V=vN"; exit 2; fi
d=$(chapters "$ch") || exit 2
if [ -n "$(arg_lines "$d/gpus")" ]; then
    # NCCL's kernels, and v4's and v5's, wait for their partners on the other GPUs, and Nsight
    # Compute replays one kernel at a time: NCCL's would wait for ever.
    echo "make profile: $(basename "$d") runs kernels on several GPUs at once, which Nsight Compute cannot replay one at a time; use Nsight Systems (the chapter's README, Tools)"
    exit 2
fi
ncu=$(command -v ncu || echo "${CUDA_HOME:-/usr/local/cuda}/bin/ncu")
if [ ! -x "$ncu" ]; then echo "make profile: ncu (Nsight Compute) not found; install it with the CUDA toolkit"; exit 1; fi
prog=$(programs "$d" | head -n 1)
metrics=$(tr -d ' \n' <"$d/profile.metrics")
exec "$ncu" --clock-control none --metrics "$metrics" build/"$prog" -v "$v" --reps 1 --warmup 0
