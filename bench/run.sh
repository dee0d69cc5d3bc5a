#!/usr/bin/env bash
# The check benchmark: infoflow against SymPy on the same generated pairs, side by side.
# Usage: bench/run.sh [BUILD_DIR]   (after `make build`)
set -euo pipefail
build=${1:-build}
pairs=$(mktemp)
trap 'rm -f "$pairs"' EXIT
"$build/bench/bench_check" --entries 1000 --families 250 --seed 1 --pairs "$pairs"
/usr/bin/python3 "$(dirname "$0")/sympy_peer.py" "$pairs" 5
