#!/usr/bin/env bash
# The python that has matplotlib: the system's if it has it, else the project's .venv.
cd "$(dirname "$0")/.." || exit 1
if python3 -c 'import matplotlib' 2>/dev/null; then exec python3 "$@"; fi
exec .venv/bin/python "$@"
