#!/usr/bin/env bash
# make power CH=06-tensor-cores: the GPU's clock and power while each line of
# chapters/CH/power.args ("version | arguments") runs for seconds on end, into
# plots/results/<gpu>/power/CH.csv (plots/power.py says how it samples and what it keeps). The
# lines run in their order, the GPU left idle 2 s before each.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
ch=${1:-}
if [ -z "$ch" ]; then echo "usage: make power CH=NN-topic"; exit 2; fi
d=$(chapters "$ch") || exit 2
name=$(basename "$d")
if [ ! -f "$d/power.args" ]; then echo "make power: $d has no power.args"; exit 2; fi
if ! reason=$(gpu_present); then echo "make power: $reason"; exit 3; fi
smi=${KL_NVIDIA_SMI:-nvidia-smi}
if ! command -v "$smi" >/dev/null; then echo "make power: $smi not found (it comes with the NVIDIA driver)"; exit 1; fi
slug=$(build/gpuinfo slug)
out="plots/results/$slug/power"
mkdir -p "$out"
rm -f "$out/$name.csv"
prog=build/$(programs "$d" | head -n 1)
status=0
while read -r line; do
    version=$(echo ${line%%|*}) args=${line#*|}
    echo "make power: $name $version: $prog $args"
    sleep 2
    # shellcheck disable=SC2086
    python3 plots/power.py "$name" "$version" "$out/$name.csv" "$prog" $args || status=1
done < <(arg_lines "$d/power.args")
[ $status = 0 ] && echo "make power: wrote $out/$name.csv"
exit $status
