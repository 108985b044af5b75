#!/usr/bin/env bash
# Installs what the plots need, once: matplotlib (pinned, plots/requirements.txt) into .venv,
# unless python3 already has it; cuobjdump for the SASS evidence where the toolkit lacks it
# (plots/requirements-sass.txt, into build/sass-tools); gnuplot through apt where we may install
# packages. What cannot
# be installed is said in one line, and only the figures that need it are skipped.
set -u
cd "$(dirname "$0")/.."
mkdir -p build
rm -f build/plots-skip

if python3 -c 'import matplotlib, numpy' 2>/dev/null; then
    : # the system python will do
elif [ -x .venv/bin/python ] && .venv/bin/python -c 'import matplotlib, numpy' 2>/dev/null; then
    : # installed before
else
    echo "setup: installing matplotlib into .venv (plots/requirements.txt)"
    if ! python3 -m venv .venv >/dev/null 2>&1; then
        # Debian and Ubuntu ship venv separately
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            (apt-get update -qq && apt-get install -y -qq python3-venv) >/dev/null 2>&1
        fi
        rm -rf .venv
        python3 -m venv .venv >/dev/null 2>&1
    fi
    if [ -x .venv/bin/pip ] && .venv/bin/pip install -q --disable-pip-version-check \
        -r plots/requirements.txt >build/pip.log 2>&1; then
        echo "setup: matplotlib installed in .venv"
    else
        echo "setup: could not install matplotlib (see build/pip.log); figures will be skipped"
        echo "matplotlib could not be installed (see build/pip.log)" >build/plots-skip
    fi
fi

# cuobjdump and nvdisasm read the machine code whose instruction counts plots/evidence/ keeps. A
# toolkit of nvcc alone (CI's) has neither: the vendor's builds from PyPI go into build/sass-tools.
nvcc_bin=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ ! -x "$(dirname "$nvcc_bin")/cuobjdump" ] && ! ls build/sass-tools/nvidia/*/bin/cuobjdump >/dev/null 2>&1; then
    if python3 -m pip install -q --disable-pip-version-check --target build/sass-tools \
        -r plots/requirements-sass.txt >build/pip-sass.log 2>&1; then
        echo "setup: cuobjdump and nvdisasm installed in build/sass-tools (plots/requirements-sass.txt)"
    else
        echo "setup: could not install cuobjdump (see build/pip-sass.log); the SASS counts will not be checked"
    fi
fi

if ! command -v gnuplot >/dev/null; then
    sudo=""
    [ "$(id -u)" != 0 ] && sudo -n true 2>/dev/null && sudo="sudo -n"
    if { [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; } && command -v apt-get >/dev/null; then
        echo "setup: installing gnuplot-nox with apt-get"
        ($sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq gnuplot-nox) >build/apt.log 2>&1 ||
            echo "setup: could not install gnuplot (see build/apt.log); gnuplot charts will be skipped"
    else
        echo "setup: gnuplot is not installed and we may not install packages; gnuplot charts will be skipped"
    fi
fi
exit 0
