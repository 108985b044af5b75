#!/usr/bin/env bash
# make sass CH=01-transpose: the chapter's SASS (the GPU's own instructions) into build/<topic>.sass.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
if [ -z "${1:-}" ]; then echo "usage: make sass CH=NN-topic"; exit 2; fi
d=$(chapters "$1") || exit 2
tool=$(command -v cuobjdump || echo "${CUDA_HOME:-/usr/local/cuda}/bin/cuobjdump")
if [ ! -x "$tool" ]; then echo "make sass: cuobjdump not found (it comes with the CUDA toolkit)"; exit 1; fi
for prog in $(programs "$d"); do
    "$tool" --dump-sass build/"$prog" >build/"$prog".sass && echo "build/$prog.sass: $(grep -c '^\s*/\*[0-9a-f]*\*/' build/"$prog".sass) instructions"
done
