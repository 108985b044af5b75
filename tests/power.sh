#!/usr/bin/env bash
# make power CH=06-tensor-cores: the GPU's clock and power while each line of
# chapters/CH/power.args ("version | arguments") runs for seconds on end, into
# plots/results/<gpu>/power/CH.csv (plots/power.py says how it samples and what it keeps). The
# lines run in their order, the GPU left idle 2 s before each, with the chapter's first program.
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
prog=build/$(programs "$d" | head -n 1)  # the chapter's first program
tmp=$(mktemp "${TMPDIR:-/tmp}/kl-power.XXXXXX")
rm -f "$tmp"  # power.py writes the header into a file that does not exist yet
trap 'rm -f "$tmp"' EXIT
status=0
while read -r line; do
    version=$(echo ${line%%|*}) args=${line#*|}
    echo "make power: $name $version: $prog $args"
    sleep 2
    # shellcheck disable=SC2086
    python3 plots/power.py "$name" "$version" "$tmp" "$prog" $args </dev/null || status=1
done < <(arg_lines "$d/power.args")
# the CSV there is replaced only by a run whose every line worked
if [ $status = 0 ]; then mv "$tmp" "$out/$name.csv" && echo "make power: wrote $out/$name.csv"
else echo "make power: a line failed (above); $out/$name.csv left as it was"; fi
exit $status
